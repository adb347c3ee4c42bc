"""The decision form both web apps show (templates/review_parts.html's `decision_form`): the
cards a correction gives, read from its position fields (P1-P3, B1-B3) once for both."""

from __future__ import annotations

from collections.abc import Callable, Mapping


def hands_from_form(form: Mapping[str, str], seven_up: bool, refused: Callable[[str], Exception],
                    cut: int | None = None) -> tuple[list[str], list[str]]:
    """Player's and Banker's cards from the position fields (each trimmed, upper-cased, and
    cut to `cut` characters when given), raising `refused(why)` for a gap (a third card
    without a second). In Seven Up, Player's first card is fixed: the form has no P1."""
    hands: dict[str, list[str]] = {}
    for side, name in (("P", "Player"), ("B", "Banker")):
        first = 2 if side == "P" and seven_up else 1
        codes = [form.get(f"{side}{n}", "").strip().upper()[:cut] for n in range(first, 4)]
        for n, (before, after) in enumerate(zip(codes, codes[1:], strict=False), first):
            if after and not before:
                raise refused(f"{name}: {side}{n + 1} is given but {side}{n} is empty")
        hands[side] = [c for c in codes if c]
    return hands["P"], hands["B"]
