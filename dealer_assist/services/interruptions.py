"""The system's own interruptions: the `interrupted` events the live service writes.

A game cut short by the system is the system's, not the dealer's (table-trace.md). The
service writes `{"src": "system", "type": "interrupted", "reason": ...}` when it finds out:

- `restart`: at start, when the log it replayed leaves a shoe open (between `new_shoe` and
  `end_shoe`). The service cannot know how it stopped (a crash, a power cut, SIGKILL, or a
  clean stop mid-shoe) nor what the dealer did meanwhile, so a careful operator reads every
  start on an open shoe as an interruption: it is written whatever the phase, and the table
  machine acts on it only where a game was being dealt. A start with no shoe open writes
  nothing (no game can have been in progress). `bootstrap.open_table` calls `after_start`
  once the log is replayed, before the shoe's link starts.
- `shoe_link_lost`: when the shoe's link goes down (no frame and no heartbeat for the
  configured time, the port failing, the port not opening) while a shoe is open
  (devices/shoe.py's feed calls `LiveTable.interrupted`). The link coming back and the same
  shoe's cards coming again is no interruption at all: the game simply continues.
- `shoe_replaced`: when the shoe device is swapped for another while a shoe is open. The
  reference shoe protocol carries no device identity, so nothing here can tell a replaced shoe
  from a reconnected one; an adapter whose shoe reports its identity (a serial number in a
  hello frame) would have its feed call `LiveTable.interrupted("shoe_replaced")` when the
  identity changes, as the link's loss does.

What follows is the table machine's (domain/table.py): the game being dealt when the event
came is flagged INTERRUPTED, naming the reason, if the shoe then ends or a new shoe starts
before that game gets another card; a card means it continued, and no flag is raised. The
flag goes to a supervisor like any review flag and counts in no dealer's figures
(`domain.flags.charged`).
"""

from __future__ import annotations

from typing import Any, Protocol

from dealer_assist.domain.events import INTERRUPT_REASONS
from dealer_assist.domain.phases import NO_SHOE
from dealer_assist.domain.table import TableMachine

RESTART, SHOE_LINK_LOST, SHOE_REPLACED = INTERRUPT_REASONS


class Interruptible(Protocol):
    """What `after_start` needs of the live table (services/live_table.LiveTable)."""

    def interrupted(self, reason: str) -> int | None: ...


def interruption(machine: TableMachine, reason: str) -> dict[str, Any] | None:
    """The `interrupted` event to log now for `reason`, or None when no shoe is open (no game
    can have been in progress)."""
    if reason not in INTERRUPT_REASONS:
        raise ValueError(f"an interruption's reason is one of {', '.join(INTERRUPT_REASONS)}, "
                         f"not {reason!r}")
    if machine.phase == NO_SHOE:
        return None
    return {"src": "system", "type": "interrupted", "reason": reason}


def after_start(table: Interruptible) -> int | None:
    """The service has started on its log: a shoe left open means it was interrupted
    (`restart`). Returns the event's seq (None: no shoe was open)."""
    return table.interrupted(RESTART)
