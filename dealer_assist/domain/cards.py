"""Card codes and card values.

A card code is a rank (`A 2 3 4 5 6 7 8 9 T J Q K`) and a suit (`S H D C`): `QS`, `TD`.
Input may spell the ten `10` (`10D`); the canonical code always uses `T`.
"""

from __future__ import annotations

from dealer_assist.domain.excerpt import shown

RANKS = "A23456789TJQK"
SUITS = "SHDC"

#: Every canonical card code, in rank-major order (AS AH AD AC 2S ...).
CARD_CODES: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)

#: Hand value of a rank: A = 1, 2-9 face value, T J Q K = 0.
RANK_VALUE: dict[str, int] = {r: (i + 1 if i < 9 else 0) for i, r in enumerate(RANKS)}
#: Burn value of a rank (new-shoe burn): A = 1, 2-9 face value, T J Q K = 10.
RANK_BURN_VALUE: dict[str, int] = {r: (i + 1 if i < 9 else 10) for i, r in enumerate(RANKS)}

#: Hand value of every canonical card code (also the lookup that validates a code).
CARD_VALUE: dict[str, int] = {c: RANK_VALUE[c[0]] for c in CARD_CODES}

#: The canonical code of every code input may use (`10D` -> `TD`): always the one copy of
#: the code, which a trace's every card then shares.
CANONICAL: dict[str, str] = {c: c for c in CARD_CODES}
CANONICAL.update({"10" + s: CANONICAL["T" + s] for s in SUITS})


class CardError(ValueError):
    """A string that is not a card code."""


def parse_card(text: object) -> str:
    """Return the canonical code of `text` (`10D` -> `TD`), or raise CardError saying why."""
    code = CANONICAL.get(text) if isinstance(text, str) else None
    if code is not None:
        return code
    if not isinstance(text, str):
        raise CardError(f"a card code must be a string, got {shown(text)}")
    upper = text.strip().upper()
    if upper in CANONICAL and upper != text:
        raise CardError(f"bad card code {shown(text)}: write it {CANONICAL[upper]!r} (upper case, no spaces)")
    raise CardError(
        f"bad card code {shown(text)}: expected a rank of {' '.join(RANKS)} (or 10) "
        f"followed by a suit of {' '.join(SUITS)}, e.g. 'QS' or 'TD'"
    )


def rank(code: str) -> str:
    return code[0]


def value(code: str) -> int:
    """Hand value of a canonical card code."""
    return CARD_VALUE[code]


def burn_value(code: str, ace_burns: int = 1) -> int:
    """How many more cards the new-shoe burn takes after `code` is turned up."""
    return ace_burns if code[0] == "A" else RANK_BURN_VALUE[code[0]]


def total(values: list[int] | tuple[int, ...]) -> int:
    """A hand's total: the sum of its values modulo 10."""
    return sum(values) % 10
