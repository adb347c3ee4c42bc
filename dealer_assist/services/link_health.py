"""The live table's links (the shoe, the overhead camera) and the health signals operations watch.

Each link has a status (`up`, `down`, `unknown`, `off`), the device's own words for it (`reason`)
and the time it changed (`since`). Link status lives in memory: each change is also logged as a
`link_status` event (the live table appends the event `Links.change` returns), and after a
restart a link is `unknown` until it reports. A frame a link drops (checksum, noise...) is only
counted, by device and kind, for the supervisor's console.

`signals` is what `/metrics` exposes: the log's seq, the time of the last event, the flags
raised by code, each link's status, and the last snapshot's seq and time.

The live table owns one `Links` and calls it under its lock (it is not thread-safe by itself).
"""

from __future__ import annotations

from typing import Any

from dealer_assist.domain.table import TableMachine
from dealer_assist.services.snapshots import SnapshotWriter


class Links:
    """Each link's status, reason and since; the frames each link dropped, by kind."""

    def __init__(self) -> None:
        #: device -> {"status", "reason", "since"}, as the public view and the console show it.
        self.state: dict[str, dict[str, Any]] = {
            "shoe": {"status": "unknown", "reason": "not heard from yet", "since": None},
            "camera": {"status": "off", "reason": "no camera configured", "since": None},
        }
        #: "device:kind" -> the frames the link dropped for that reason.
        self.problems: dict[str, int] = {}

    def change(self, device: str, status: str, reason: str, ts: str) -> dict[str, Any]:
        """A link went up or down: its new state, and the `link_status` event that logs it."""
        self.state[device] = {"status": status, "reason": reason, "since": ts}
        return {"ts": ts, "src": device, "type": "link_status", "status": status,
                "reason": reason}

    def problem(self, device: str, kind: str) -> None:
        """Count a frame the link dropped."""
        key = f"{device}:{kind}"
        self.problems[key] = self.problems.get(key, 0) + 1

    def details(self) -> dict[str, dict[str, Any]]:
        """Each link with the device's own words (a copy)."""
        return {name: dict(link) for name, link in self.state.items()}


def signals(machine: TableMachine, seq: int, links: Links,
            writer: SnapshotWriter | None) -> dict[str, Any]:
    """What operations watch (`/metrics`): the log's seq, the time of the last event, flags
    raised by code, the links, and the last snapshot's seq and time."""
    flags: dict[str, int] = {}
    for shoe in machine.shoes:
        for flag in [*shoe.flags, *(f for game in shoe.games for f in game.flags)]:
            flags[flag.code] = flags.get(flag.code, 0) + 1
    return {"seq": seq, "last_event": machine.last_ts, "flags": flags,
            "links": {name: link["status"] for name, link in links.state.items()},
            "snapshot_seq": writer.written if writer else None,
            "snapshot_at": writer.written_at if writer else None}
