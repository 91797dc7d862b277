"""The table server: lobby, tables and real-time play over WebSockets.

``bodoge serve`` runs :func:`bodoge.server.edge.app.create_app` on uvicorn; the wire
protocol is ``docs/protocol.md`` and the design ``docs/architecture.md``.
Nothing is imported here so that ``bodoge --help`` stays quick.
"""
