"""The shipper ships as soon as the table appends: the log's writer wakes it after each commit,
long before its poll (`idle`, a safety net); a burst goes in batches; with nobody listening
the writer calls nobody; a writer in another process is still heard, by the poll."""

from __future__ import annotations

import time

from dealer_assist.shipping.shipper import Shipper
from tests.shipping.test_shipper import central, local, wait_for

#: The poll interval of these tests: far longer than any wait below, so only a wake-up ships.
LONG_IDLE = 30.0


def transactions(floor, table: str) -> list[int]:
    """The number of events of each central transaction of `table`, in seq order."""
    floor.owner.commit()
    rows = floor.owner.execute(
        "SELECT count(*) FROM events WHERE table_id = %s GROUP BY xmin::text "
        "ORDER BY min(seq)", (table,)).fetchall()
    floor.owner.commit()
    return [n for (n,) in rows]


def test_an_append_is_shipped_at_once_not_at_the_next_poll(floor, sample, table_log):
    table, dsn = floor.add_table()
    log = table_log(sample[:10])
    shipper = Shipper(str(log.path), table, dsn, idle=LONG_IDLE, writer=log).start()
    try:
        wait_for(lambda: len(central(floor, table)) == 10, 20.0)  # the first round, at start
        for seq in range(11, 16):
            began = time.monotonic()
            log.append(sample[seq - 1])
            wait_for(lambda seq=seq: len(central(floor, table)) == seq, LONG_IDLE / 2)
            assert time.monotonic() - began < 1.0, f"seq {seq} waited for the poll"
        log.checkpoint()  # a checkpoint wakes it too: a round that finds nothing new
        time.sleep(0.2)
    finally:
        shipper.stop()
    assert central(floor, table) == local(log)
    assert shipper.lag().events == 0


def test_a_burst_is_shipped_in_batches(floor, sample, table_log):
    table, dsn = floor.add_table()
    log = table_log([])
    shipper = Shipper(str(log.path), table, dsn, batch=40, catch_up=100, idle=LONG_IDLE,
                      writer=log).start()
    try:
        time.sleep(0.5)  # its first round: nothing to ship
        log.append_many(sample[:300])  # one commit, one wake-up
        wait_for(lambda: len(central(floor, table)) == 300, 20.0)
        # one by one as fast as the table can: the rounds take what came meanwhile
        for event in sample[300:400]:
            log.append(event)
        wait_for(lambda: len(central(floor, table)) == 400, 20.0)
    finally:
        shipper.stop()
    sizes = transactions(floor, table)
    assert sizes[:4] == [40, 100, 100, 60]  # a batch, then catching up in larger ones
    assert sum(sizes[4:]) == 100 and all(n <= 40 for n in sizes[4:])
    assert central(floor, table) == local(log)


def test_a_stopped_shipper_is_no_longer_woken(floor, sample, table_log):
    table, dsn = floor.add_table()
    log = table_log(sample[:5])
    shipper = Shipper(str(log.path), table, dsn, idle=LONG_IDLE, writer=log).start()
    wait_for(lambda: len(central(floor, table)) == 5, 20.0)
    assert log._listeners == (shipper.wake,)
    shipper.stop()
    assert log._listeners == ()  # the writer calls nobody: nothing to pay per append
    log.append(sample[5])
    assert len(central(floor, table)) == 5


def test_without_the_writer_the_poll_still_ships(floor, sample, table_log):
    """A log written by another process: nobody wakes the shipper, its poll finds the events."""
    table, dsn = floor.add_table()
    log = table_log(sample[:5])
    shipper = Shipper(str(log.path), table, dsn, idle=0.2).start()
    try:
        wait_for(lambda: len(central(floor, table)) == 5, 20.0)
        log.append_many(sample[5:20])
        wait_for(lambda: len(central(floor, table)) == 20, 5.0)
    finally:
        shipper.stop()
