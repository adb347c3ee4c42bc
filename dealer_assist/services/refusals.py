"""What the live table refuses, and how a refusal names what a client sent.

`Refused` is an observation, a decision or a dealer's sign-in the table does not take; nothing
was logged, and its message says why in words a supervisor can act on. `AlreadyDecided` is the
one refusal a caller tells apart: a decision on a game that another decision already settles
(services/decisions.py), with that decision's seq, author and reason for the floor's requests.

A client may send anything as a name or a type, so a refusal shows it as it is only when it is
short and printable (`plain`), else a short excerpt (`domain.excerpt.shown`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dealer_assist.domain.excerpt import shown


def plain(value: Any) -> str:
    """A name for an error message as it is when short and printable, else a short excerpt."""
    if isinstance(value, str) and 0 < len(value) <= 40 and value.isprintable():
        return value
    return shown(value)


def event_type(obj: Mapping[str, Any]) -> str:
    """An event's type for an error message: short, whatever a client sent."""
    return plain(obj.get("type", "event"))


class Refused(ValueError):
    """An observation or a decision the table does not take; nothing was logged."""


class AlreadyDecided(Refused):
    """A decision on a game that another decision already settles (services/decisions.py);
    `decided` is that decision's (seq, by, reason), as floor_wire.decided reads it."""

    def __init__(self, shoe_id: str, game: int, prior: Mapping[str, Any]) -> None:
        self.decided = (prior["seq"], prior["by"], prior["reason"])
        if prior["seq"] is None:
            text = f"game {game} of shoe {plain(shoe_id)} is already decided"
        else:
            text = (f"game {game} of shoe {plain(shoe_id)} is already decided: "
                    f"{prior['action']} by {plain(prior['by'])} (seq {prior['seq']}): "
                    f"{prior['reason']}")
        super().__init__(text)
