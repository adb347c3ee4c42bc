"""benchmarks/floor.py's tables, one process's share: each table deals shoe after shoe into its
own SQLite log and ships it to the central store with its own `shipping.shipper.Shipper`.

`run_share` is what each of floor.py's `--procs` processes runs: one thread deals for every
table of the share (a timer heap), and `--workers` threads ship (a table is queued for shipping
as soon as it appends, after `--window`; a table that fails is retried after a pause that grows
from 0.25 s to 2 s), or with `--poll` each Shipper polls in its own thread, as the table service
runs it. It writes what it measured (each event's local commit time, when the share caught up
after an outage, failures, integrity alarms) to a pickle for floor.py's figures.
"""

from __future__ import annotations

import heapq
import pickle
import queue
import random
import threading
import time
from collections import deque
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

CAUGHT_UP_S = 1.0
BACKOFF = (0.25, 2.0)


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
                 workers: int, window: float, poll: float | None = None) -> None:
        from dealer_assist.shipping.shipper import Shipper
        from dealer_assist.store.sqlite_log import SqliteEventLog

        self.names = [t for t, _, _ in tables]
        self.logs = {t: SqliteEventLog(path) for t, _, path in tables}
        self.poll = poll  # the shippers' own threads, polling every `poll` s (the service's way)
        self.shippers = {t: Shipper(path, t, dsn, idle=poll or 0.5, backoff=BACKOFF)
                         for t, dsn, path in tables}
        self.deals = {t: dealt_forever(seed + i, speed) for i, t in enumerate(self.names)}
        self.pending: dict[str, deque[tuple[float, int]]] = {t: deque() for t in self.names}
        self.times: list[tuple[str, int, float]] = []
        self.queued: set[str] = set()
        self.work: queue.Queue[str | None] = queue.Queue()
        self.lock = threading.Lock()
        self.failures = 0
        self.alarms: list[str] = []
        self.window = window
        self.retry = BACKOFF[0] / 2  # the pause before a failed table is tried again
        self.later: list[tuple[float, str]] = []
        self.timer = threading.Condition(self.lock)
        self.closing = False
        self.threads = [threading.Thread(target=self._ship, daemon=True, name=f"ship-{i}")
                        for i in range(0 if poll else workers)]
        self.threads.append(threading.Thread(target=self._release, daemon=True, name="timer"))

    def dirty(self, table: str, after: float | None = None) -> None:
        """Queue `table` for shipping, `after` seconds from now (default: the window)."""
        with self.lock:
            if table in self.queued:
                return
            self.queued.add(table)
            delay = self.window if after is None else after
            if delay <= 0:
                self.work.put(table)
                return
            heapq.heappush(self.later, (time.time() + delay, table))
            self.timer.notify()

    def _release(self) -> None:
        """Hand the tables whose window has passed to the shipping threads."""
        with self.lock:
            while not self.closing:
                now = time.time()
                while self.later and self.later[0][0] <= now:
                    self.work.put(heapq.heappop(self.later)[1])
                self.timer.wait(self.later[0][0] - now if self.later else 1.0)

    def deal(self, start: float, until: float, rng: random.Random) -> None:
        """Deal every table until `until` (time.time()), each event when it is due."""
        from dealer_assist.domain.events import trace_time

        heap = [(start + rng.uniform(0, 5.0), t) for t in self.names]
        heapq.heapify(heap)
        for thread in self.threads:
            thread.start()
        if self.poll:
            for shipper in self.shippers.values():
                shipper.start()
        while heap:
            due, table = heap[0]
            if due >= until:
                break
            wait = due - time.time()
            if wait > 0:
                time.sleep(wait)
            pause, event = next(self.deals[table])
            event = {**event, "ts": trace_time(datetime.now(UTC))}
            seq = self.logs[table].append(event)
            now = time.time()
            self.times.append((table, seq, now))
            self.pending[table].append((now, seq))
            if not self.poll:
                self.dirty(table)
            heapq.heapreplace(heap, (max(due, now) + pause, table))

    def _ship(self) -> None:
        import psycopg

        from dealer_assist.shipping.ingest import IntegrityAlarm

        while (table := self.work.get()) is not None:
            with self.lock:
                self.queued.discard(table)
            began = time.time()
            shipper = self.shippers[table]
            try:
                shipper.ship_once()
            except IntegrityAlarm as alarm:  # never expected here: counted, never hidden
                self.alarms.append(str(alarm))
                continue
            except (psycopg.Error, OSError):
                self.failures += 1
                shipper.stop()  # closes its connection; the next ship_once reconnects
                self.retry = min(self.retry * 2, BACKOFF[1])
                self.dirty(table, after=self.retry)
                continue
            self.retry = BACKOFF[0] / 2
            waiting = self.pending[table]
            while waiting and waiting[0][0] < began:
                waiting.popleft()
            if waiting:
                self.dirty(table, after=0)

    def connect(self) -> None:
        """Connect every table to the store before the dealing starts (a floor that runs
        already has its connections; a storm of 500 first logins is not shipping lag)."""
        for shipper in self.shippers.values():
            shipper.ship_once()

    def oldest_unshipped_age(self) -> float:
        if self.poll:  # what each shipper's own thread has shipped
            for table, shipper in self.shippers.items():
                shipped, waiting = shipper.lag().shipped_seq, self.pending[table]
                with self.lock:
                    while waiting and waiting[0][1] <= shipped:
                        waiting.popleft()
        now = time.time()
        ages = [now - w[0][0] for w in self.pending.values() if w]
        return max(ages, default=0.0)

    def drain(self, timeout: float) -> None:
        deadline = time.time() + timeout
        while self.oldest_unshipped_age() > 0 and time.time() < deadline:
            time.sleep(0.2)
        with self.lock:
            self.closing = True
            self.timer.notify()
        for _ in self.threads:
            self.work.put(None)
        for thread in self.threads:
            thread.join(10)

    def close(self) -> None:
        for shipper in self.shippers.values():
            shipper.stop()
        for log in self.logs.values():
            log.close()


def run_share(tables: list[tuple[str, str, str]], speed: float, seed: int, workers: int,
              window: float, poll: float | None, start: float, until: float, up_at: Any,
              drain_s: float, out: str) -> None:
    """A child process: deal and ship its tables, then write what it measured to `out`."""
    share = Tables(tables, speed, seed, workers, window, poll)
    caught: list[float] = []

    def watch() -> None:  # after the outage: when is every table under CAUGHT_UP_S again?
        while up_at.value == 0.0:
            time.sleep(0.05)
        if up_at.value < 0:
            return
        while share.oldest_unshipped_age() >= CAUGHT_UP_S:
            time.sleep(0.25 if share.poll else 0.05)
        caught.append(time.time())

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    share.connect()
    share.deal(start, until, random.Random(seed))
    share.drain(drain_s)
    watcher.join(0.5)
    share.close()
    with open(out, "wb") as f:
        pickle.dump({"times": share.times, "caught": caught[0] if caught else None,
                     "failures": share.failures,
                     "alarms": share.alarms}, f)
