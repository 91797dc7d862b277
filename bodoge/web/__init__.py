"""The web front-end: static files served by ``bodoge serve`` (see README.md here)."""
