"""What the table's regulator pages and the floor's share, written once.

The table's pages (`web/regulator.py`: one table's log, by gaming day) and the floor's
(`floor/regulator.py`: every table's central copy, by UTC day) differ in where their events
come from; both read a day from a path the same way (`days`) and send a signed export the same
way (`download`): written into a fresh folder, streamed back, the folder removed once sent, and
each refusal a page with its own status.
"""
