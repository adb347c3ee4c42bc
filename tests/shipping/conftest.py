"""The shipping's tests: a table's log shipped into a real PostgreSQL store, migrated as the
floor migrates it (tests/pg.py, shared with tests/floor/). Skipped, with the reason, when
PostgreSQL is not installed."""

from __future__ import annotations

from tests.pg import cluster, floor, sample, table_log  # noqa: F401 - the fixtures
