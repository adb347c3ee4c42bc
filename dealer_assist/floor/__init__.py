"""The floor: the central PostgreSQL store that keeps a verified copy of every table's log.

table log (SQLite, the only writer) -> the table's shipper (dealer_assist/shipping/, on the table
PC) -> central store (the chain checked by the store's own trigger; `fold` folds the read models
per table) -> pit and floor pages, regulator pages, exports. `migrations` builds the schema,
`roles` gives each table its own database role. What the table's side and this one agree on is
dealer_assist/floor_wire.py; neither imports the other. See docs/floor.md.
"""
