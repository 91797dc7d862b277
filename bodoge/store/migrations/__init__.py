"""The store's schema, versioned: Alembic's scripts (``env.py``, ``versions/``), shipped inside
the package and run by :mod:`bodoge.store.upgrade` (no ``alembic.ini``).

A change of schema is a new revision: change ``bodoge/store/schema.py``, then add
``versions/NNNN_what.py`` (``down_revision`` the previous head) whose ``upgrade`` makes the
same change on SQLite and PostgreSQL (``op.batch_alter_table`` for what SQLite cannot
alter).  tests/store/test_migrations.py fails while the two disagree.
"""
