"""Pixel measures the card readers share (pure): order statistics of a uint8 picture read off
its histogram, the darkest channel (where ink shows), the colour of some ink (red, black, or
the blue and green of four-colour decks), and marking suits down by the ink's colour."""

from __future__ import annotations

import cv2
import numpy as np

from hardware.cards import SUITS

RED_INK = 0.18  # redness (`ink_colour`) above this: red ink (on a dark card, a red card)
COOL_INK = 0.55  # coolness (`ink_colour`) above this: blue or green ink, neither red nor black
COLOUR_GAP = 0.3  # an ink this much nearer one suit's enrolled colour rules the others out
_RED_SUITS = np.array([s in "HD" for s in SUITS])


def percentiles(values: np.ndarray, percents: tuple[int, ...]) -> list[float]:
    """`float(np.percentile(values.astype(np.float32), q))` for each q (the default linear
    method) of a uint8 array, with the order statistics read off a cumulative histogram
    instead of partitioning the array: small corners made the partitioning the slow part."""
    n = values.size
    counts = cv2.calcHist([np.ascontiguousarray(values)], [0], None, [256], [0, 256])
    below = np.cumsum(counts.reshape(-1))  # whole numbers: exact in float32 up to 2**24
    virtual = (n - 1) * (np.asarray(percents, np.float64) / 100)
    whole = np.floor(virtual)
    lower = np.minimum(whole.astype(np.int64), n - 1)
    at = np.searchsorted(below, np.concatenate([lower, np.minimum(lower + 1, n - 1)]),
                         side="right").astype(np.float32)
    a, b = at[: len(percents)], at[len(percents) :]
    t = virtual - whole
    return np.where(t >= 0.5, b - (b - a) * (1 - t).astype(np.float32),
                    a + (b - a) * t.astype(np.float32)).tolist()


def median(values: np.ndarray, axis: int) -> np.ndarray:
    """`np.median(values, axis)`, by sorting: a fraction of the cost on the small arrays the
    readers and the finder take medians of, many times a frame."""
    ordered = np.sort(values, axis=axis)
    n = ordered.shape[axis]
    upper = np.take(ordered, n // 2, axis=axis)
    return upper if n % 2 else (np.take(ordered, n // 2 - 1, axis=axis) + upper) / 2


def unit(values: np.ndarray) -> np.ndarray:
    """A float picture as a flat float32 vector less its mean, over its length: how the
    readers compare glyphs and pips with templates. (np.mean's and np.linalg.norm's own
    sums, without their overhead: these are small pictures, many a card.)"""
    flat = values.reshape(-1).astype(np.float32)
    flat = flat - flat.sum() / flat.size
    return flat / (np.sqrt(flat @ flat) + 1e-6)


def darkest(picture: np.ndarray) -> np.ndarray:
    """The darkest of the three channels of a BGR uint8 picture, per pixel: ink of any colour
    is dark there, the card's white is not."""
    b, g, r = cv2.split(picture)
    return np.asarray(cv2.min(cv2.min(b, g), r))


def ink_colour(picture: np.ndarray, where: np.ndarray) -> tuple[float, float]:
    """How red, and how blue or green, a BGR picture is where `where` holds: redness about 0
    for black or grey ink and 0.3 and more for red; coolness about 0 for black or red ink and
    0.3 and more for the blue or green of a four-colour deck. (0, 0) where nothing is chosen."""
    b, g, r = picture[where].astype(np.float32).T  # the chosen pixels at once, not a plane each
    if not len(r):
        return 0.0, 0.0
    cool = np.maximum(g, b)
    # the means (np.mean's own sums and division, without its overhead)
    return (float(((r - cool) / (r + 30.0)).sum() / len(r)),
            float(((cool - r) / (cool + 30.0)).sum() / len(r)))


def suit_colours(samples: list[tuple[int, float, float]]) -> np.ndarray:
    """Each suit's ink colour (4, 2): the median (redness, coolness), each clipped to -1..1, of
    (suit, redness, coolness) samples taken at enrolment; NaN rows for suits with none."""
    out = np.full((len(_RED_SUITS), 2), np.nan)
    if samples:
        table = np.array(samples, float)
        for suit in range(len(out)):
            mine = table[table[:, 0] == suit, 1:]
            if len(mine):
                out[suit] = np.median(np.clip(mine, -1.0, 1.0), axis=0)
    return out


def colour_name(colour: np.ndarray) -> str:
    """A suit colour (`suit_colours` row) in words."""
    red, cool = colour
    if np.isnan(red):
        return "not seen"
    return "red" if red > RED_INK else "blue or green" if cool > COOL_INK else "black"


def mark_by_colour(scores: np.ndarray, red: float, cool: float, colours: np.ndarray) -> float:
    """Take 0.5 off the suit scores (4, SHDC order, in place) of the suits whose own ink colour
    (`suit_colours`, a deck's enrolled colours) is further from this ink's than the nearest
    suit's by more than `COLOUR_GAP`: a deck printing four colours reads them as its own.
    Without every suit's colour, red or black decides (`mark_other_colour`). Returns the
    colour doubt (`mark_other_colour`; NaN when the deck's own colours decided)."""
    if np.isnan(colours).any():
        return mark_other_colour(scores, red, cool)
    here = np.clip([red, cool], -1.0, 1.0)
    far = np.hypot(*(colours - here).T)
    scores[far > far.min() + COLOUR_GAP] -= 0.5
    return float("nan")


def mark_other_colour(scores: np.ndarray, red: float, cool: float = 0.0) -> float:
    """Take 0.5 off the suit scores (4, SHDC order) of the colour the ink is not (in place).
    Returns the colour doubt: how far the shapes alone put the best suit of the other colour
    ahead of the best of the ink's colour (negative when shape and colour agree). Ink of
    neither red nor black (blue or green: a four-colour deck) marks nothing and is infinite
    doubt: such a deck's colours say nothing of its suits to a reader that never saw it."""
    if cool > COOL_INK:
        return float("inf")
    other = (red > RED_INK) != _RED_SUITS
    doubt = float(scores[other].max() - scores[~other].max())
    scores[other] -= 0.5
    return doubt
