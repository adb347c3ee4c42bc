"""The float path's bookkeeping (repeats, the last level in row order, one flat `reduceat`)
gives the plain level-by-level definition's floats to the bit, on any shoe.

The reference below is the definition as written before issue 66: each level gathered from
its parents, the rows gathered from all levels, one `reduceat` per Player total row.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from dealer_assist.analysis.deal_tables import JOINT_SHAPE, deal_tables
from dealer_assist.analysis.odds import joint_float


def plain_joint(seven_up: bool, values: list[int], n: int) -> np.ndarray:
    tables = deal_tables(seven_up)
    table = (np.asarray(values, dtype=np.float64)[:, None] - np.arange(7.0)).ravel()
    chance = np.ones(1)
    levels = [chance]
    for s in range(1, tables.max_cards + 1):
        chance = chance[tables.parent[s]] * table[tables.factor[s]]
        chance *= 1.0 / (n - s + 1)
        levels.append(chance)
    per_row = np.concatenate(levels)[tables.rows]
    summed = np.add.reduceat(tables.weights * per_row, tables.segment_start, axis=1)
    joint = np.zeros(int(np.prod(JOINT_SHAPE)))
    joint[tables.cells] = summed.ravel()
    return joint.reshape(JOINT_SHAPE)


def shoes() -> list[list[int]]:
    rng = random.Random(66)
    out = [[4 * decks] * 10 for decks in (1, 8, 16)]
    out += [[rng.choice([0, 1, 2, rng.randint(0, 128)]) for _ in range(10)] for _ in range(40)]
    return [v for v in out if sum(v) >= 6]


@pytest.mark.parametrize("seven_up", [False, True])
def test_floats_are_the_plain_definitions_to_the_bit(seven_up):
    for values in shoes():
        n = sum(values)
        fast = joint_float(deal_tables(seven_up), values, n)
        assert fast.tobytes() == plain_joint(seven_up, values, n).tobytes(), values
