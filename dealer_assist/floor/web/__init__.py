"""The floor service (`dealer-assist floor serve`): the pit board, the pit's review queue across
tables, decisions taken on the floor, and (helper module `floor.regulator`, when present) the
floor's regulator pages. `app.create_floor_app` builds it; see docs/floor.md."""
