"""benchmarks/floor.py's tables, one process's share: each table deals shoe after shoe into its
own SQLite log, and the table service's own shipper ships it.

`run_share` is what each of floor.py's `--procs` processes runs. Every table has its log (the
table service's writer, `store.sqlite_log.SqliteEventLog`) and its `shipping.shipper.Shipper`
in its own thread, built as the table service builds it (bootstrap.start_shipper: woken by
each commit of the log's writer, polling every `idle` s as a safety net, its own backoff):
nothing here decides when to ship. One thread deals for every table of the share (a timer
heap), appending each event to its table's log when it is due. The share writes what it
measured (each event's append time, when it caught up after an outage, integrity alarms) to a
pickle for floor.py's figures.
"""

from __future__ import annotations

import heapq
import pickle
import random
import threading
import time
from collections import deque
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

CAUGHT_UP_S = 1.0


# ---- one table ---------------------------------------------------------------------------

def dealt_forever(seed: int, speed: float) -> Iterator[tuple[float, dict[str, Any]]]:
    """(seconds after the previous event, event) of shoe after shoe, at `speed` x live pace."""
    from dealer_assist.devices.deal.dealing import deal_shoe_detailed
    from dealer_assist.devices.deal.mistakes import MISTAKES
    from dealer_assist.devices.deal.pace import PACE, SHUFFLE
    from dealer_assist.devices.shoe import step_times

    rng = random.Random(seed)
    shoe = 0
    while True:
        shoe += 1
        kinds = [m for m in MISTAKES if rng.random() < 0.3]
        try:
            dealt = deal_shoe_detailed(rng, shoe_id=f"S{shoe}", mistakes=kinds[:1])
        except ValueError:
            dealt = deal_shoe_detailed(rng, shoe_id=f"S{shoe}")
        before = PACE[SHUFFLE].live_s
        for event, (at, reveal) in zip(dealt.events, step_times(dealt), strict=True):
            yield (at - before) / speed, event
            before = reveal if reveal is not None else at


class Tables:
    """One process's share of the tables: their logs, deals and shippers."""

    def __init__(self, tables: list[tuple[str, str, str]], speed: float, seed: int,
                 idle: float | None, woken: bool = True) -> None:
        from dealer_assist.shipping.shipper import Shipper
        from dealer_assist.store.sqlite_log import SqliteEventLog

        self.names = [t for t, _, _ in tables]
        self.logs = {t: SqliteEventLog(path) for t, _, path in tables}
        options: dict[str, Any] = {} if idle is None else {"idle": idle}
        self.shippers = {t: Shipper(path, t, dsn, writer=self.logs[t] if woken else None,
                                    **options) for t, dsn, path in tables}
        self.deals = {t: dealt_forever(seed + i, speed) for i, t in enumerate(self.names)}
        self.pending: dict[str, deque[tuple[float, int]]] = {t: deque() for t in self.names}
        self.times: list[tuple[str, int, float]] = []
        self.lock = threading.Lock()

    def connect(self) -> None:
        """Connect every table to the store and start its shipper, before the dealing starts
        (a floor that runs already has its connections; a storm of 500 first logins is not
        shipping lag)."""
        for shipper in self.shippers.values():
            shipper.ship_once()
            shipper.start()

    def deal(self, start: float, until: float, rng: random.Random) -> None:
        """Deal every table until `until` (time.time()), each event when it is due."""
        from dealer_assist.domain.events import trace_time

        heap = [(start + rng.uniform(0, 5.0), t) for t in self.names]
        heapq.heapify(heap)
        while heap:
            due, table = heap[0]
            if due >= until:
                break
            wait = due - time.time()
            if wait > 0:
                time.sleep(wait)
            pause, event = next(self.deals[table])
            event = {**event, "ts": trace_time(datetime.now(UTC))}
            seq = self.logs[table].append(event)  # the table's append: it wakes its shipper
            now = time.time()
            self.times.append((table, seq, now))
            with self.lock:
                self.pending[table].append((now, seq))
            heapq.heapreplace(heap, (max(due, now) + pause, table))

    def oldest_unshipped_age(self) -> float:
        """Seconds since the oldest event that no shipper has stored yet was appended."""
        now, oldest = time.time(), 0.0
        for table, shipper in self.shippers.items():
            shipped, waiting = shipper.shipped_seq, self.pending[table]
            with self.lock:
                while waiting and waiting[0][1] <= shipped:
                    waiting.popleft()
                if waiting:
                    oldest = max(oldest, now - waiting[0][0])
        return oldest

    def drain(self, timeout: float) -> None:
        deadline = time.time() + timeout
        while self.oldest_unshipped_age() > 0 and time.time() < deadline:
            time.sleep(0.2)

    def alarms(self) -> list[str]:
        return [alarm for s in self.shippers.values() if (alarm := s.lag().alarm)]

    def close(self) -> None:
        for shipper in self.shippers.values():
            shipper.stop()
        for log in self.logs.values():
            log.close()


def run_share(tables: list[tuple[str, str, str]], speed: float, seed: int, idle: float | None,
              woken: bool, start: float, until: float, up_at: Any, drain_s: float,
              out: str) -> None:
    """A child process: deal and ship its tables, then write what it measured to `out`."""
    share = Tables(tables, speed, seed, idle, woken)
    caught: list[float] = []

    def watch() -> None:  # after the outage: when is every table under CAUGHT_UP_S again?
        while up_at.value == 0.0:
            time.sleep(0.05)
        if up_at.value < 0:
            return
        while share.oldest_unshipped_age() >= CAUGHT_UP_S:
            time.sleep(0.05)
        caught.append(time.time())

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    share.connect()
    share.deal(start, until, random.Random(seed))
    share.drain(drain_s)
    watcher.join(0.5)
    alarms = share.alarms()
    share.close()
    with open(out, "wb") as f:
        pickle.dump({"times": share.times, "caught": caught[0] if caught else None,
                     "alarms": alarms}, f)
