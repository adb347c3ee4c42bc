"""Read a card's suit from the big pips in its body: a second witness beside the corner index.

The suit pip under a corner's rank is small (about 12 pixels on the felt), and spades and
clubs blur alike there. A number card also prints its suit large in its body, several
times. On an upright card picture, the ink blobs of pip size away from the corner indices
are cut out (those in the lower half are printed upside down and are turned back), scaled
to a fixed square and compared with templates: the enrolled deck's own pips, or those of all
tuning designs for unknown decks. The suit is what the pips agree on; red or black ink
(on a dark card, which prints its pips light, the card's own colour) decides half of it.
For decks nobody enrolled, each pip's outline says more: a club's three lobes on a stem
leave more notches in it than a spade's two (`notches`). Court cards show no such pips and
are left to the rest of the reading.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from hardware.camera.index import CODES, SUITS
from hardware.camera.ink import (
    darkest,
    ink_colour,
    mark_by_colour,
    percentiles,
    suit_colours,
    unit,
)

_MAX_COUNT = 15  # pip counts above this are counted as this
PIP_SIZE = 20  # side of a normalised pip picture
_CORNER = (0.22, 0.3)  # share of width and height at each corner where the index lies: a blob
# centred there is the index's (a 4's pips reach into it: a blob merely touching it is not)
_MIDDLE = 0.06  # a pip centred this near the card's middle (share of its height) may be
# printed either way up: the middle pips of a 6, 7 or 9 are, and a quad a little off puts
# them on either side of the line


def body_pips(picture: np.ndarray, notched: bool = False
              ) -> tuple[np.ndarray, np.ndarray, float, float, np.ndarray]:
    """The pips in an upright BGR card picture, as normalised pictures (k, PIP_SIZE**2),
    turned upright where they lie in the lower half; whether each one's way up is known (not
    near the middle, `_MIDDLE`); how red and how blue or green their ink is
    (`ink.ink_colour`); and, with `notched`, each one's `notches` (k,; NaN without)."""
    h, w = picture.shape[:2]
    dark = darkest(picture)
    paper, ink_level, middle, low, high = percentiles(dark, (80, 3, 50, 20, 97))
    light_ink = middle < 100  # a dark card prints its pips light
    if light_ink:  # read the negative: light pips on a dark or deeply coloured card
        dark = 255 - dark
        paper, ink_level = 255 - low, 255 - high
    empty = np.zeros((0, PIP_SIZE * PIP_SIZE), np.float32), np.zeros(0, bool)
    if paper - ink_level < 40 or paper < 100:  # no light paper with dark ink on it
        return *empty, 0.0, 0.0, np.zeros(0)
    ink = np.clip((paper - dark.astype(np.float32)) / (paper - ink_level), 0.0, 1.0)
    # (16-bit labels: a card picture has fewer blobs than that, and OpenCV counts them faster)
    count, labels, stats, centres = cv2.connectedComponentsWithStats(
        (ink > 0.5).astype(np.uint8), connectivity=8, ltype=cv2.CV_16U)
    pips, settled, notch_counts, coloured = [], [], [], np.zeros((h, w), bool)
    cw, ch = _CORNER[0] * w, _CORNER[1] * h
    xs, ys, ws, hs, areas = stats[1:].T
    aspect = ws / hs  # a component is a pixel high at least
    pip_like = ((hs >= 0.07 * h) & (hs <= 0.2 * h) & (aspect >= 0.6) & (aspect <= 1.4)
                & (areas >= 0.35 * ws * hs))
    mx, my = xs + ws / 2, ys + hs / 2  # a blob is in a corner by its middle
    in_corner = ((mx < cw) | (mx > w - cw)) & ((my < ch) | (my > h - ch))
    for i in np.nonzero(pip_like & ~in_corner)[0] + 1:
        x, y, bw, bh = (int(v) for v in stats[i, :4])
        blob = labels[y : y + bh, x : x + bw] == i
        patch = np.where(blob, ink[y : y + bh, x : x + bw], 0.0)
        if centres[i][1] > h / 2:  # printed upside down in the lower half
            patch = patch[::-1, ::-1]
        notch_counts.append(notches(blob) if notched else float("nan"))
        side = max(bw, bh)
        square = np.zeros((side, side), np.float32)
        top, left = (side - bh) // 2, (side - bw) // 2
        square[top : top + bh, left : left + bw] = patch
        pips.append(unit(cv2.resize(square, (PIP_SIZE, PIP_SIZE), interpolation=cv2.INTER_AREA)))
        settled.append(abs(centres[i][1] - h / 2) >= _MIDDLE * h)
        coloured[y : y + bh, x : x + bw] |= blob
    if not pips:
        return *empty, 0.0, 0.0, np.zeros(0)
    coloured &= ink > 0.6  # red ink makes a red suit, and on a dark card the card's colour
    if light_ink:
        coloured = ~cv2.dilate(coloured.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
        coloured &= ink < 0.2
    return np.stack(pips), np.array(settled), *ink_colour(picture, coloured), np.array(notch_counts)


DEEP_NOTCH = 0.06  # a notch in a pip's outline this deep (a share of its size) counts
CLUB_NOTCHES = 3  # a pip with this many such notches is a club's (three lobes on a stem)


def notches(blob: np.ndarray) -> float:
    """How many notches at least `DEEP_NOTCH` of its size deep a pip's outline has, whichever
    way up it lies: a club's three lobes on a stem leave four (two between the lobes, two
    where the stem meets them), a spade's two lobes on a stem two. (Tuning frames, eleven
    designs, every body pip: at least three on 97-100% of each design's clubs, at most two on
    98-100% of its spades.) NaN when OpenCV cannot walk the outline's hull."""
    mask = np.ascontiguousarray(blob, np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = max(contours, key=cv2.contourArea)
    try:
        defects = cv2.convexityDefects(outline, cv2.convexHull(outline, returnPoints=False))
    except cv2.error:  # a self-touching outline
        return float("nan")
    if defects is None:
        return 0.0
    depths = defects.reshape(-1, 4)[:, 3] / 256.0
    return float(np.count_nonzero(depths >= DEEP_NOTCH * max(mask.shape)))


@dataclass
class PipModel:
    """Pip templates: `pips[i]` is a pip of suit `suit_of[i]` (0..3, SUITS order); and how
    many body pips the reader found on each card of the deck (`counts`, in CODES order: bit n
    set when n were found on a picture of that card)."""

    pips: np.ndarray  # (n, PIP_SIZE**2) float32
    suit_of: np.ndarray  # (n,) int
    counts: np.ndarray = field(default_factory=lambda: np.zeros(len(CODES), np.int64))
    # (4, 2) each suit's ink colour (`ink.suit_colours`); NaN: unknown (the built-in model)
    colours: np.ndarray = field(default_factory=lambda: np.full((len(SUITS), 2), np.nan))

    @classmethod
    def empty(cls) -> PipModel:
        return cls(np.zeros((0, PIP_SIZE * PIP_SIZE), np.float32), np.zeros(0, int))

    @classmethod
    def from_pictures(cls, pictures: dict[str, list[np.ndarray]]) -> PipModel:
        """Templates from upright card pictures (as warped from a frame) keyed by code; court
        cards are skipped (their pictures are not pips)."""
        pips: list[np.ndarray] = []
        suit_of: list[int] = []
        counts = np.zeros(len(CODES), np.int64)
        colours: list[tuple[int, float, float]] = []
        for code, pics in pictures.items():
            for pic in pics:
                found, settled, red, cool, _ = body_pips(pic)
                counts[CODES.index(code)] |= 1 << min(len(found), _MAX_COUNT)
                if code[0] in "JQK" or not len(found):
                    continue
                pips.extend(found[settled])  # templates only of pips whose way up is known
                suit_of.extend([SUITS.index(code[1])] * int(settled.sum()))
                colours.append((SUITS.index(code[1]), red, cool))
        if not pips:
            return replace(cls.empty(), counts=counts)
        return cls(np.stack(pips), np.array(suit_of, int), counts, suit_colours(colours))

    def arrays(self) -> dict[str, np.ndarray]:
        return {"pips": self.pips.astype(np.float16), "suit_of": self.suit_of,
                "counts": self.counts, "colours": self.colours}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> PipModel:
        missing = [k for k in ("pips", "suit_of", "counts", "colours") if k not in arrays]
        if missing:
            raise KeyError(f"pip templates lack {', '.join(missing)}")
        return cls(arrays["pips"].astype(np.float32), arrays["suit_of"].astype(int),
                   arrays["counts"].astype(np.int64), arrays["colours"].astype(np.float64))

    @classmethod
    def merge(cls, models: list[PipModel]) -> PipModel:
        """All the templates of several designs; their suit colours are no one's (NaN)."""
        return cls(np.concatenate([m.pips for m in models]),
                   np.concatenate([m.suit_of for m in models]),
                   np.bitwise_or.reduce([m.counts for m in models]))

    def fits(self, code: int, count: int) -> bool:
        """Whether `count` body pips were found on an enrolled picture of code `code`."""
        return bool(self.counts[code] >> min(count, _MAX_COUNT) & 1)

    def suit_scores(self, picture: np.ndarray) -> np.ndarray:
        """Agreement of the card's body pips with each suit (4,), about -1..1, averaged over
        the pips; zeros when the card shows no pips (a court card, a hand over its body)."""
        return self.read(picture)[0]

    def read(self, picture: np.ndarray, notch_weight: float = 0.0) -> tuple[np.ndarray, int, float]:
        """`suit_scores`, how many body pips were found, and their colour doubt
        (`ink.mark_other_colour`; NaN when none were read). With `notch_weight`, the pips'
        outlines speak too: when at least three in four of them have a club's notches
        (`notches`), spades lose that much, when at most one in four, clubs do. Templates of
        other designs tell a spade from a club by little (a broad spade fits a club's lobes),
        the notches by much. (A heart has one notch and a diamond none: between the two the
        rule says nothing; red suits are not mistaken for each other.)"""
        found, settled, red, cool, counts = body_pips(picture, notched=bool(notch_weight))
        if not len(found) or not len(self.pips):
            return np.zeros(len(SUITS)), len(found), float("nan")
        sims = found @ self.pips.T  # (k, n)
        turned = found[~settled].reshape(-1, PIP_SIZE, PIP_SIZE)[:, ::-1, ::-1]
        sims[~settled] = np.maximum(sims[~settled], turned.reshape(-1, PIP_SIZE * PIP_SIZE) @ self.pips.T)
        per_suit = np.full((len(found), len(SUITS)), -1.0)
        for s in range(len(SUITS)):
            mine = self.suit_of == s
            if mine.any():
                per_suit[:, s] = sims[:, mine].max(axis=1)
        scores = per_suit.mean(axis=0)
        doubt = mark_by_colour(scores, red, cool, self.colours)
        known = counts[~np.isnan(counts)]
        if notch_weight and len(known):
            clubs = float(np.mean(known >= CLUB_NOTCHES))
            if clubs >= 0.75 or clubs <= 0.25:
                scores[SUITS.index("S" if clubs >= 0.75 else "C")] -= notch_weight
        return scores, len(found), doubt
