"""The deal of punto banco: deal order, naturals, the third-card tables, a corrected hand.

Values are hand values (0-9). Player's list holds the fixed 7 of `7up` as its first value,
so the same functions serve every variant.
"""

from __future__ import annotations

from collections.abc import Sequence

from dealer_assist.domain.cards import CARD_VALUE

VARIANTS = ("standard", "super6", "7up")

#: Positions of a game, in the order the standard deal fills them.
POSITIONS = ("P1", "B1", "P2", "B2", "P3", "B3")
PLAYER_POSITIONS = ("P1", "P2", "P3")
BANKER_POSITIONS = ("B1", "B2", "B3")
#: Camera zones of the layout, by position.
ZONE_OF_POSITION = {
    "P1": "player1", "P2": "player2", "P3": "player3",
    "B1": "banker1", "B2": "banker2", "B3": "banker3",
}
POSITION_OF_ZONE = {zone: pos for pos, zone in ZONE_OF_POSITION.items()}
ZONES = (*ZONE_OF_POSITION.values(), "discard")

#: Banker's third-card table: for each two-card Banker total, the values of Player's
#: third card on which Banker draws. 0-2 always draws, 7 always stands.
BANKER_DRAWS_ON: dict[int, frozenset[int]] = {
    0: frozenset(range(10)),
    1: frozenset(range(10)),
    2: frozenset(range(10)),
    3: frozenset({0, 1, 2, 3, 4, 5, 6, 7, 9}),
    4: frozenset({2, 3, 4, 5, 6, 7}),
    5: frozenset({4, 5, 6, 7}),
    6: frozenset({6, 7}),
    7: frozenset(),
}

SEVEN_UP_FIXED_VALUE = 7


def is_natural(total: int) -> bool:
    return total >= 8


def player_draws(player_total: int) -> bool:
    """Player draws on 0-5 and stands on 6-7 (naturals are settled before)."""
    return player_total <= 5


def banker_draws(banker_total: int, player_third: int | None) -> bool:
    """Banker's rule on its two-card total; `player_third` is None when Player stood."""
    if banker_total >= 7:
        return False
    if player_third is None:
        return banker_total <= 5
    return player_third in BANKER_DRAWS_ON[banker_total]


def next_position(player: list[int], banker: list[int]) -> str | None:
    """The position the next card goes to, or None when the hand is complete.

    `player` and `banker` are the values dealt so far, in position order (Player's fixed
    7 first in `7up`). The first four cards alternate Player, Banker, Player, Banker.
    """
    n_p, n_b = len(player), len(banker)
    if n_p < 2 or n_b < 2:
        return f"P{n_p + 1}" if n_p <= n_b else f"B{n_b + 1}"
    p_total = (player[0] + player[1]) % 10
    b_total = (banker[0] + banker[1]) % 10
    if p_total >= 8 or b_total >= 8:
        return None
    if n_p == 2:
        if player_draws(p_total):
            return "P3"
        return "B3" if n_b == 2 and banker_draws(b_total, None) else None
    if n_b == 2 and banker_draws(b_total, player[2]):
        return "B3"
    return None


def deal_hand(values: list[int], seven_up: bool = False) -> tuple[list[int], list[int], int]:
    """Deal `values` (taken in order from the shoe) into a complete hand.

    Returns Player's values (with the fixed 7 in `7up`), Banker's values, and how many of
    `values` were used. Raises ValueError if `values` runs out before the hand is complete.
    """
    player: list[int] = [SEVEN_UP_FIXED_VALUE] if seven_up else []
    banker: list[int] = []
    used = 0
    while (pos := next_position(player, banker)) is not None:
        if used == len(values):
            raise ValueError("not enough cards to complete the hand")
        (player if pos[0] == "P" else banker).append(values[used])
        used += 1
    return player, banker, used


class HandError(ValueError):
    """A hand the rules do not complete exactly as given; the message says which card."""


_SIDE_NAMES = {"P": "Player", "B": "Banker"}
_ORDINAL = {1: "first", 2: "second", 3: "third"}


def check_hand(player: Sequence[str], banker: Sequence[str], seven_up: bool) -> None:
    """Raise HandError unless the rules complete this hand exactly: no card more, none fewer.

    A supervisor's correction must be such a hand. `player` lists Player's physical cards
    (in `7up` the fixed 7 is implied, not listed).
    """
    values: dict[str, list[int]] = {"P": [SEVEN_UP_FIXED_VALUE] if seven_up else [], "B": []}
    cards = {"P": list(player), "B": list(banker)}
    offset = {"P": 1 if seven_up else 0, "B": 0}
    for side, listed in cards.items():
        if not 2 - offset[side] <= len(listed) <= 3 - offset[side]:
            raise HandError(f"{_SIDE_NAMES[side]} has {2 - offset[side]} or {3 - offset[side]} "
                            f"cards from the shoe, not {len(listed)}")
    while (pos := next_position(values["P"], values["B"])) is not None:
        side = pos[0]
        used = len(values[side]) - offset[side]
        if used == len(cards[side]):
            raise HandError(f"the rules give {_SIDE_NAMES[side]} a {_ORDINAL[int(pos[1])]} card "
                            f"({pos}) with these cards")
        values[side].append(CARD_VALUE[cards[side][used]])
    for side in ("P", "B"):
        n = len(values[side])
        if n - offset[side] < len(cards[side]):
            raise HandError(f"the rules give {_SIDE_NAMES[side]} no {_ORDINAL[n + 1]} card "
                            f"({side}{n + 1}) with these cards")


def hand_total(values: list[int]) -> int:
    return sum(values) % 10


def winner(player_total: int, banker_total: int) -> str:
    if player_total > banker_total:
        return "player"
    if banker_total > player_total:
        return "banker"
    return "tie"
