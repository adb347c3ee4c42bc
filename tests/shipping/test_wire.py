"""The contract between a table and the floor (dealer_assist/floor_wire.py) holds in a store the
floor migrated: every table and column a table's role writes exists and is granted to it, the
requests' columns are there, and the triggers notify on the channels named there."""

from __future__ import annotations

from dealer_assist import floor_wire


def test_a_tables_role_may_write_every_column_the_wire_names(floor):
    for table, columns in floor_wire.TABLE_WRITES.items():
        right = "UPDATE" if table == "decision_requests" else "INSERT"
        for column in columns:
            granted = floor.owner.execute(
                "SELECT has_column_privilege('floor_table', %s, %s, %s)",
                (table, column, right)).fetchone()
            assert granted == (True,), (table, column, right)


def test_the_requests_columns_are_the_stores(floor):
    row = floor.owner.execute(
        f"SELECT {floor_wire.REQUEST_COLUMNS} FROM decision_requests LIMIT 0")
    assert len(row.description) == len(floor_wire.REQUEST_COLUMNS.split(","))


def test_the_stores_triggers_notify_on_the_channels_the_wire_names(floor):
    bodies = " ".join(source for (source,) in floor.owner.execute(
        "SELECT prosrc FROM pg_proc WHERE prosrc LIKE '%pg_notify%'"))
    for channel in (floor_wire.FOLD_CHANNEL, floor_wire.ALARM_CHANNEL,
                    floor_wire.EVENTS_CHANNEL, floor_wire.REQUESTS_CHANNEL):
        assert f"pg_notify('{channel}'" in bodies, channel
