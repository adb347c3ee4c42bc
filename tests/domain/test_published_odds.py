"""The rules reproduce the published probabilities exactly (no simulation).

Every card-value sequence a game can take from a full shoe is enumerated, each weighted by its
probability without replacement; the deal follows `dealer_assist.domain.rules`.
"""

import pytest

from dealer_assist.domain.rules import next_position


def outcome_probabilities(decks: int) -> dict[str, float]:
    counts = [16 * decks] + [4 * decks] * 9  # value 0 (T J Q K), then 1-9
    probs = {"player": 0.0, "banker": 0.0, "tie": 0.0}

    def deal(player: list[int], banker: list[int], left: int, weight: float) -> None:
        pos = next_position(player, banker)
        if pos is None:
            p, b = sum(player) % 10, sum(banker) % 10
            probs["player" if p > b else "banker" if b > p else "tie"] += weight
            return
        side = player if pos[0] == "P" else banker
        for v in range(10):
            if counts[v]:
                w = weight * counts[v] / left
                counts[v] -= 1
                side.append(v)
                deal(player, banker, left - 1, w)
                side.pop()
                counts[v] += 1

    deal([], [], 52 * decks, 1.0)
    return probs


@pytest.mark.parametrize("decks, banker, player, tie", [
    (8, 0.458597, 0.446247, 0.095156),
    (6, 0.458653, 0.446279, 0.095069),
])
def test_published_banker_player_tie(decks, banker, player, tie):
    p = outcome_probabilities(decks)
    assert sum(p.values()) == pytest.approx(1.0, abs=1e-12)
    assert round(p["banker"], 6) == banker
    assert round(p["player"], 6) == player
    assert round(p["tie"], 6) == tie
