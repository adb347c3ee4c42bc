"""The floor: the central PostgreSQL store that keeps a verified copy of every table's log.

table log (SQLite, the only writer) -> `shipper` -> central store (`ingest` verifies each
table's chain; `read_models` keep status, games and flags per table) -> pit and floor pages.
`migrations` builds the schema, `roles` gives each table its own database role. See docs/floor.md.
"""
