"""The devices wired to a live table, one module each: the shoe (`shoe`) and the overhead
camera (`camera`); and what stands in for them with no hardware: the built-in shoe (in
`shoe`), the shoe it deals (`deal/`: a dealing simulator with the dealer's mistakes injected)
and the virtual camera that follows that deal on the felt (`virtual_camera`).

Each device turns what its hardware says into observations for `LiveTable.observe` and link
changes for `LiveTable.link_changed`, on its own thread, between its `start()` and `stop()`.
Only `dealer_assist.bootstrap` builds them, from the table's settings.
"""
