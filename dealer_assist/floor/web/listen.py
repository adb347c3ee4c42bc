"""One listener connection for the whole floor service: PostgreSQL's LISTEN/NOTIFY fanned out
to every open pit screen as server-sent events.

The fold (floor/fold.py) notifies `floor_events` (payload: the table id) once per batch folded
into the read models, so a pit screen hears of a batch once the board can show it; the alarms
`floor_integrity` (JSON: id, table, seq, found), decision requests `floor_requests` (JSON: id,
table, status). Each becomes one event on the hub's `pit` channel: `table`, `alarm` or
`request`. The thread reconnects by itself (growing pauses) when the store goes away, and
then sends a `resync` event, since notifications sent meanwhile are lost.
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
from typing import Any

import psycopg

from dealer_assist.accounts.stream import Hub, sse
from dealer_assist.floor_wire import ALARM_CHANNEL, EVENTS_CHANNEL, REQUESTS_CHANNEL
from dealer_assist.worker import Worker

CHANNELS = {EVENTS_CHANNEL: "table", ALARM_CHANNEL: "alarm", REQUESTS_CHANNEL: "request"}
PIT = "pit"

_log = logging.getLogger(__name__)


class Listener(Worker):
    """LISTENs on the floor's channels in its own thread and publishes to `hub`."""

    stop_timeout = 5.0

    def __init__(self, dsn: str, hub: Hub, *, backoff: tuple[float, float] = (0.5, 10.0)) -> None:
        super().__init__("floor listener")
        self.dsn, self.hub, self.backoff = dsn, hub, backoff
        self.ids = itertools.count(1)
        self.listening = threading.Event()
        self._conn: psycopg.Connection | None = None

    def _run(self) -> None:
        pause, down = self.backoff[0], False
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.dsn, autocommit=True, connect_timeout=5) as conn:
                    for channel in CHANNELS:
                        conn.execute(f"LISTEN {channel}")
                    if down:
                        _log.info("central store reachable again: listening")
                        self.publish("resync", {})
                    down, pause = False, self.backoff[0]
                    self.listening.set()
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=0.5):
                            self.publish(CHANNELS.get(note.channel, "table"),
                                         _payload(note.channel, note.payload))
            except (psycopg.Error, OSError) as exc:
                self.listening.clear()
                if not down:
                    _log.warning("floor listener lost the central store (%s); retrying", exc)
                down = True
                self._stop.wait(pause)
                pause = min(pause * 2, self.backoff[1])

    def publish(self, kind: str, data: dict[str, Any]) -> None:
        self.hub.publish(PIT, sse(kind, next(self.ids), data))


def _payload(channel: str, payload: str) -> dict[str, Any]:
    if channel == EVENTS_CHANNEL:
        return {"table": payload}
    try:
        data = json.loads(payload)
    except ValueError:
        return {"raw": payload[:200]}
    return data if isinstance(data, dict) else {"raw": payload[:200]}
