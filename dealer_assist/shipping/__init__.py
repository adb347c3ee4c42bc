"""Shipping: the table's side of the floor, what runs on a table PC.

table log (SQLite, the only writer) -> `shipper` (its own thread, in `dealer-assist run`) ->
the central store, under the table's own role: `ingest` sends the events that continue the
table's chain (else an integrity alarm), `checkpoints` the signed checkpoints with the table's
public key, and `requests` records the floor's decision requests through the live table and
answers them. It never imports the floor's central side (dealer_assist/floor/): what both
agree on is dealer_assist/floor_wire.py. See docs/floor.md.
"""
