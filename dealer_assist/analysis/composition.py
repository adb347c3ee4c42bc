"""The remaining composition of a shoe: how many cards of each rank are left.

A composition is 13 counts in rank order `A 2 3 4 5 6 7 8 9 T J Q K`. Suits never matter
to the odds, so a card code only takes one card off its rank.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Integral

from dealer_assist.domain.cards import RANKS, parse_card

#: The value of each rank, in rank order (A = 1, 2-9 face value, T J Q K = 0).
RANK_VALUES: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0)
MAX_DECKS = 16
_PLAIN_SEQUENCES = (tuple, list)
_PLAIN_INT = {int}


class CompositionError(ValueError):
    """A composition that is not a shoe: wrong length, negative counts, too few cards."""


def full_shoe(decks: int = 8) -> tuple[int, ...]:
    """The composition of a fresh shoe of `decks` decks (4 cards a rank per deck)."""
    if isinstance(decks, bool) or not isinstance(decks, int) or not 1 <= decks <= MAX_DECKS:
        raise CompositionError(f"decks must be a whole number from 1 to {MAX_DECKS}, got {decks!r}")
    return (4 * decks,) * 13


def check_counts(counts: Sequence[int], where: str = "composition") -> tuple[int, ...]:
    """Return `counts` as a tuple of 13 ints, or raise CompositionError saying what is wrong."""
    if (  # the usual case, 13 plain counts, checked without a loop in Python
        type(counts) in _PLAIN_SEQUENCES
        and len(counts) == 13
        and set(map(type, counts)) == _PLAIN_INT
        and min(counts) >= 0
    ):
        return tuple(counts)
    try:
        items = list(counts)
    except TypeError:
        raise CompositionError(f"{where}: expected 13 counts (A..K), got {counts!r}") from None
    if len(items) != 13:
        raise CompositionError(
            f"{where}: expected 13 counts in rank order {' '.join(RANKS)}, got {len(items)}"
        )
    out: list[int] = []
    for r, n in zip(RANKS, items, strict=True):
        if isinstance(n, bool) or not isinstance(n, Integral):
            raise CompositionError(f"{where}: count of {r} must be a whole number, got {n!r}")
        if n < 0:
            raise CompositionError(f"{where}: count of {r} must be 0 or more, got {n!r}")
        out.append(int(n))
    return tuple(out)


def parse_remaining(text: str) -> tuple[int, ...]:
    """Parse `--remaining`: 13 comma-separated counts in rank order (`32,32,...,31`), or
    `rank=count` pairs naming all 13 ranks (`A=31,2=32,...,K=30`; `10` may stand for T)."""
    parts = [p.strip() for p in text.replace(" ", ",").split(",") if p.strip()]
    if parts and all("=" in p for p in parts):
        named: dict[str, int] = {}
        for p in parts:
            r, _, n = p.partition("=")
            r = r.strip().upper()
            r = "T" if r == "10" else r
            if r not in RANKS:
                raise CompositionError(
                    f"--remaining: {p!r}: unknown rank {r!r}; ranks: {' '.join(RANKS)}"
                )
            if r in named:
                raise CompositionError(f"--remaining: rank {r} given twice")
            named[r] = _count(n, f"--remaining: {p!r}")
        missing = [r for r in RANKS if r not in named]
        if missing:
            raise CompositionError(f"--remaining: no count for rank(s) {' '.join(missing)}")
        return tuple(named[r] for r in RANKS)
    if any("=" in p for p in parts):
        raise CompositionError(
            "--remaining: give either 13 plain counts or rank=count pairs, not both"
        )
    if len(parts) != 13:
        raise CompositionError(
            f"--remaining: expected 13 counts in rank order {' '.join(RANKS)}, "
            f"got {len(parts)} ({text!r})"
        )
    return tuple(_count(n, f"--remaining: count {i + 1} ({RANKS[i]})") for i, n in enumerate(parts))


def _count(text: str, where: str) -> int:
    try:
        n = int(text.strip())
    except ValueError:
        raise CompositionError(f"{where}: {text.strip()!r} is not a whole number") from None
    if n < 0:
        raise CompositionError(f"{where}: a count cannot be negative ({n})")
    return n


def as_mapping(counts: Sequence[int]) -> dict[str, int]:
    """`{"A": n, "2": n, ..., "K": n}` as the trace and JSON output write a composition."""
    return {r: int(n) for r, n in zip(RANKS, counts, strict=True)}


def from_mapping(mapping: Mapping[str, int]) -> tuple[int, ...]:
    return check_counts([mapping[r] for r in RANKS])


def take_card(counts: Sequence[int], code: str) -> tuple[int, ...]:
    """`counts` less the card `code`; raises CompositionError if no such rank is left."""
    card = parse_card(code)
    i = RANKS.index(card[0])
    if counts[i] <= 0:
        raise CompositionError(f"card {card}: no {card[0]} is left in the shoe's composition")
    return tuple(n - 1 if j == i else n for j, n in enumerate(counts))
