"""The devices wired to a live table, one module each: the shoe (`shoe`) and the overhead
camera (`camera`).

Each device turns what its hardware says into observations for `LiveTable.observe` and link
changes for `LiveTable.link_changed`, on its own thread, between its `start()` and `stop()`.
Only `dealer_assist.bootstrap` builds them, from the table's settings.
"""
