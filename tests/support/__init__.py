"""Test helpers shared across suites.

* :mod:`tests.support.live_server` — ``LiveServer``: a real ``bodoge serve`` process on a
  data folder; ``start()`` waits for ``/healthz``, ``kill()`` is ``kill -9``, ``restart()``
  starts again on the same data and port.  ``tests/conftest.py`` offers it as the
  session-wide ``live_server`` fixture and the ``make_live_server`` factory.
* :mod:`tests.support.client` — ``Client``: a protocol client over a real WebSocket that
  keeps every message it received.
* :mod:`tests.support.schema` — the protocol's JSON Schemas (``docs/schema/``) as a checker:
  every frame a ``Client`` or a browser page receives is validated, and ``tests/conftest.py``
  fails a test during which the server sent a frame its schema does not allow.
"""
