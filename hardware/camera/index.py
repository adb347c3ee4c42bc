"""Read a card's corner index: the rank glyph and the suit pip printed in its corners.

Every design prints the index in similar fonts, so shapes learnt from some designs carry
over to others far better than whole-card looks do. On an upright card picture the index is
looked for in the two top corners, and again with the picture turned half round (a hand
may cover one corner; some designs print the index top-right). In each corner the ink
(darker than the card's white; on a dark card, lighter than the card) is cut into blobs; the
topmost glyph-sized blob (two of them side by side for a 10) is the rank and the blob under
it the suit pip; on a large ("jumbo") index that pip may reach further down the card than the
corner searched for the rank. Each is cropped,
scaled to a fixed size (so size and position do not matter) and compared with templates:
the enrolled deck's own index glyphs, or those of all tuning designs for unknown decks.
Red or black ink (or card, for a dark card) decides half the suit.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import cv2
import numpy as np

from hardware.camera.ink import (
    darkest,
    ink_colour,
    mark_by_colour,
    percentiles,
    suit_colours,
    unit,
)
from hardware.cards import CODES_BY_SUIT, RANKS, SUITS

CODES = CODES_BY_SUIT  # the order the camera's models keep a deck: AS, 2S ... KC
RANK_SIZE = (12, 18)  # width, height of a normalised rank glyph
SUIT_SIZE = (14, 14)
_REGION = (0.27, 0.36)  # share of the card's width and height searched in each corner
_PIP_REACH = 0.46  # share of the card's height a large index's suit pip may reach down to
INK = 0.55
_SQUARE3 = np.ones((3, 3), np.uint8)


@dataclass(frozen=True)
class Glyphs:
    """One corner's index: normalised rank and suit pictures, and the ink's colour."""

    rank: np.ndarray  # (RANK_SIZE product,) float32, zero mean, unit norm
    rank_aspect: float  # width / height of the rank blob(s)
    suit: np.ndarray | None  # (SUIT_SIZE product,) or None when no pip was found
    redness: float  # about 0 for black ink, 0.3 and more for red
    coolness: float = 0.0  # about 0 for black or red ink, 0.3 and more for blue or green
    left: bool = True  # read in a left corner (top-left, or bottom-right by the half turn)


def _normalised(patch: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    small = np.asarray(cv2.GaussianBlur(
        cv2.resize(patch, size, interpolation=cv2.INTER_AREA).astype(np.float32), (3, 3), 0.6))
    return unit(small)


def _corner(region: np.ndarray, card_h: int, card_w: int, left: bool) -> Glyphs | None:
    """The index in one corner region (BGR, upright; the card's corner at its top-left when
    `left`, else at its top-right), or None when none is seen there."""
    dark = darkest(region)
    rh, rw = dark.shape
    top = min(rh, round(_REGION[1] * card_h))  # the index proper; below it only its suit pip
    cols = slice(rw // 10, None) if left else slice(None, rw - rw // 10)
    paper, ink_level, middle = percentiles(dark[top // 12 : top, cols], (85, 2, 50))
    light_ink = middle < 100  # a dark card prints its index light
    if light_ink:  # the same reading on the negative (light ink on a dark or coloured card)
        dark = 255 - dark
        paper, ink_level = percentiles(dark[top // 12 : top, cols], (85, 2))
    low = dark.astype(np.float32)
    if paper - ink_level < 45 or paper < 110:
        return None
    ink = np.clip((paper - low) / (paper - ink_level), 0.0, 1.0)
    # thin strokes blur lighter than a solid pip: threshold against the darkest ink nearby
    size = max(3, round(0.05 * card_h)) | 1
    near = cv2.dilate(ink, np.ones((size, size), np.uint8))
    found = _glyphs(region, ink, (ink > INK * np.maximum(near, 0.3)) & (ink > 0.15), top,
                    card_h, card_w, left, light_ink)
    width = found.rank_aspect if found is not None else 1.0
    narrow = width < _NARROW  # (a narrow glyph is kept unless the second look's is wider)
    if (found is None or (found.suit is None and width >= 1.0) or narrow) and not light_ink:
        # a pale glyph beside a solid pip (or felt beyond the card's edge) is under the
        # pip's threshold: it falls apart (a 3's or 4's thick stroke alone is left, narrower
        # than any rank), or its pieces join the pip into one blob wider than tall; the
        # ink's own level alone then keeps it whole and apart, a glyph taller than wide with
        # its suit pip under it (on a dark card's negative, the card's own light art would
        # pass for ink so: not there; a narrow rank with no pip under it is a design
        # printing none there)
        again = _glyphs(region, ink, ink > _PALE_INK, top, card_h, card_w, left, light_ink)
        if (again is not None and again.suit is not None and again.rank_aspect < 1.0
                and not (narrow and again.rank_aspect <= width)):
            return again
    return found


_PALE_INK = 0.3  # on a second look, ink this dark (of the corner's darkest) is ink
_NARROW = 0.45  # a rank glyph narrower than this (width / height) is looked at so again


def _glyphs(region: np.ndarray, ink: np.ndarray, inked: np.ndarray, top: int, card_h: int,
            card_w: int, left: bool, light_ink: bool) -> Glyphs | None:
    """The rank glyph and suit pip in one corner's ink (`_corner`), `inked` marking the
    pixels taken for ink; None when no rank glyph is seen."""
    rh, rw = ink.shape
    mask = inked.astype(np.uint8)
    # An index may touch the card's edge once blurred: cut it from the felt beyond the edge
    # and from the felt in the card's rounded corner.
    strip = max(1, round(0.015 * card_w))
    mask[:strip] = 0
    if not left:
        mask = mask[:, ::-1]
    mask[:, :strip] = 0
    mask[_rounded_corner(rh, rw, 0.1 * card_w)] = 0
    if not left:
        mask = np.ascontiguousarray(mask[:, ::-1])
    # (16-bit labels: a corner holds fewer blobs than that, and OpenCV counts them faster)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8,
                                                               ltype=cv2.CV_16U)
    xs, ys, ws, hs, areas = stats[1:].T
    # a blob crossing the cut is a picture or a big pip; a sliver along the card's own edge is
    # felt or shadow, not ink
    crosses = (xs + ws >= rw if left else xs == 0) | (ys + hs >= rh) | (areas < 6)
    outer_x = xs if left else rw - (xs + ws)  # from the card's own edge
    sliver = ((ws <= 2) & (outer_x <= strip + 1)) | ((hs <= 2) & (ys <= strip + 1))
    rows = stats.tolist()
    blobs = [(*rows[i][:4], i) for i in (np.nonzero(~crosses & ~sliver)[0] + 1).tolist()]
    upper = [b for b in blobs if b[1] + b[3] < top]
    lo_h, hi_h = 0.045 * card_h, 0.22 * card_h
    ranks = sorted((b for b in upper if lo_h <= b[3] <= hi_h and b[2] <= 0.2 * card_w),
                   key=lambda b: b[1])
    if not ranks:
        return None
    x, y, w, h, i = ranks[0]
    parts = [i]
    for bx, by, bw, bh, j in upper:  # the other digit of a 10, or a glyph cut in two
        if j == i or bh < 0.5 * h:
            continue
        overlap = min(y + h, by + bh) - max(y, by)
        gap = max(bx - (x + w), x - (bx + bw))
        if overlap > 0.6 * min(h, bh) and gap < 0.45 * h:
            parts.append(j)
            x0, y0 = min(x, bx), min(y, by)
            x, y, w, h = x0, y0, max(x + w, bx + bw) - x0, max(y + h, by + bh) - y0
    if w > 1.3 * h:
        return None
    keep = labels == parts[0]
    for j in parts[1:]:
        keep |= labels == j
    rank_patch = np.where(keep, ink, 0.0)[y : y + h, x : x + w]
    bottom, centre = y + h, x + w / 2
    suit = None
    suit_pixels = keep
    below = [b for b in blobs if b[4] not in parts and b[1] >= bottom - 2
             and 0.03 * card_h <= b[3] <= 0.18 * card_h and abs(b[0] + b[2] / 2 - centre) < 0.8 * h
             and b[1] - bottom < 0.6 * h]
    if below:
        sx, sy, sw, sh, k = min(below, key=lambda b: b[1])
        pip = labels == k
        suit = _normalised(np.where(pip, ink, 0.0)[sy : sy + sh, sx : sx + sw], SUIT_SIZE)
        suit_pixels = keep | pip
    coloured = suit_pixels & (ink > 0.6)  # red ink makes a red suit...
    if light_ink:  # ... and on a dark card the card's own colour does
        coloured = ~cv2.dilate(mask, _SQUARE3).astype(bool) & (ink < 0.2)
    return Glyphs(_normalised(rank_patch, RANK_SIZE), w / h, suit, *ink_colour(region, coloured),
                  left=left)


@functools.cache
def _rounded_corner(height: int, width: int, reach: float) -> np.ndarray:
    """Where a corner region (`height` x `width`, the card's corner at its top-left) lies
    within `reach` of the corner along both edges together: the felt in a rounded corner."""
    corner = np.add.outer(np.arange(height), np.arange(width)) < reach
    corner.flags.writeable = False  # one for every call alike
    return corner


def corner_glyphs(picture: np.ndarray, sides: tuple[bool, bool] = (True, True)) -> list[Glyphs]:
    """The indices found in the top corners of an upright card picture and of its half turn:
    the left corners (top-left and bottom-right) when `sides[0]`, the right ones when
    `sides[1]`."""
    h, w = picture.shape[:2]
    rw, rh = round(_REGION[0] * w), round(_PIP_REACH * h)
    out = []
    for pic in (picture, picture[::-1, ::-1]):
        for left, region in ((True, pic[:rh, :rw]), (False, pic[:rh, w - rw :])):
            if not sides[0 if left else 1]:
                continue
            found = _corner(np.ascontiguousarray(region), h, w, left)
            if found is not None:
                out.append(found)
    return out


@dataclass
class IndexModel:
    """Index glyph templates: `ranks[i]` is a rank glyph of rank `rank_of[i]` (0..12)."""

    ranks: np.ndarray  # (n, RANK_SIZE product) float32
    rank_aspects: np.ndarray  # (n,)
    rank_of: np.ndarray  # (n,) int
    suits: np.ndarray  # (m, SUIT_SIZE product) float32
    suit_of: np.ndarray  # (m,) int
    # (4, 2) each suit's ink colour (`ink.suit_colours`); NaN: unknown (the built-in model)
    suit_colours: np.ndarray = field(default_factory=lambda: np.full((len(SUITS), 2), np.nan))
    # the corners the deck prints its index in: the left ones (top-left and bottom-right), the
    # right ones; both for the built-in model and for deck files made before this was kept
    sides: tuple[bool, bool] = (True, True)

    @classmethod
    def empty(cls) -> IndexModel:
        return cls(np.zeros((0, RANK_SIZE[0] * RANK_SIZE[1]), np.float32), np.zeros(0),
                   np.zeros(0, int), np.zeros((0, SUIT_SIZE[0] * SUIT_SIZE[1]), np.float32),
                   np.zeros(0, int))

    @classmethod
    def from_pictures(cls, pictures: dict[str, list[np.ndarray]]) -> IndexModel:
        """Templates from upright card pictures (as warped from a frame) keyed by code, read
        in the corners the deck prints its index in (`printed_sides`)."""
        read = {code: [corner_glyphs(pic) for pic in pics] for code, pics in pictures.items()}
        sides = printed_sides([g for per_pic in read.values() for glyphs in per_pic for g in glyphs],
                              sum(len(pics) for pics in pictures.values()))
        ranks, aspects, rank_of, suits, suit_of = [], [], [], [], []
        colours: list[tuple[int, float, float]] = []
        for code, per_pic in read.items():
            for g in (g for glyphs in per_pic for g in glyphs if sides[0 if g.left else 1]):
                ranks.append(g.rank)
                aspects.append(g.rank_aspect)
                rank_of.append(RANKS.index(code[0]))
                if g.suit is not None:
                    suits.append(g.suit)
                    suit_of.append(SUITS.index(code[1]))
                    colours.append((SUITS.index(code[1]), g.redness, g.coolness))
        if not ranks:
            return cls.empty()
        return cls(np.stack(ranks), np.array(aspects), np.array(rank_of),
                   np.stack(suits) if suits else cls.empty().suits, np.array(suit_of, int),
                   suit_colours(colours), sides)

    _FIELDS = ("ranks", "rank_aspects", "rank_of", "suits", "suit_of", "suit_colours")

    def arrays(self) -> dict[str, np.ndarray]:
        """The templates as named arrays, to store beside a deck (half precision)."""
        return {"ranks": self.ranks.astype(np.float16), "rank_aspects": self.rank_aspects,
                "rank_of": self.rank_of, "suits": self.suits.astype(np.float16),
                "suit_of": self.suit_of, "suit_colours": self.suit_colours,
                "sides": np.array(self.sides)}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> IndexModel:
        missing = [f for f in cls._FIELDS if f not in arrays]
        if missing:
            raise KeyError(f"index templates lack {', '.join(missing)}")
        sides = arrays["sides"].tolist() if "sides" in arrays else (True, True)
        return cls(arrays["ranks"].astype(np.float32), arrays["rank_aspects"].astype(np.float64),
                   arrays["rank_of"].astype(int), arrays["suits"].astype(np.float32),
                   arrays["suit_of"].astype(int), arrays["suit_colours"].astype(np.float64),
                   (bool(sides[0]), bool(sides[1])))

    def unread(self) -> tuple[str, str]:
        """The ranks and suits of which no index glyph was learnt (RANKS and SUITS letters):
        cards of those are read by their whole face alone."""
        ranks = "".join(r for i, r in enumerate(RANKS) if i not in set(self.rank_of.tolist()))
        suits = "".join(s for i, s in enumerate(SUITS) if i not in set(self.suit_of.tolist()))
        return ranks, suits

    def corners(self) -> str:
        """The corners the index is looked for in, in words."""
        left, right = self.sides
        if left and right:
            return "four"
        return "top-left and bottom-right" if left else "top-right and bottom-left"

    @classmethod
    def merge(cls, models: list[IndexModel]) -> IndexModel:
        """All the templates of several designs; their suit colours are no one's (NaN), and
        they are read in all four corners."""
        ranks, aspects, rank_of, suits, suit_of = (np.concatenate([getattr(m, f) for m in models])
                                                   for f in cls._FIELDS[:-1])
        return cls(ranks, aspects, rank_of, suits, suit_of)

    def corner_scores(self, picture: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per corner showing an index: agreement with each rank (k, 13) and suit (k, 4),
        about -1..1 (a suit row is NaN where no pip was found under the rank), and the suit
        pip's colour doubt (k,; `ink.mark_by_colour`; NaN where no pip was found, or where the
        deck's own suit colours decided)."""
        glyphs = corner_glyphs(picture, self.sides)
        ranks = np.full((len(glyphs), len(RANKS)), -1.0)
        suits = np.full((len(glyphs), len(SUITS)), np.nan)
        doubts = np.full(len(glyphs), np.nan)
        if not len(self.ranks):
            return ranks[:0], suits[:0], doubts[:0]
        for k, g in enumerate(glyphs):
            sims = self.ranks @ g.rank - 0.5 * np.abs(np.log(self.rank_aspects / g.rank_aspect))
            np.maximum.at(ranks[k], self.rank_of, sims)
            if g.suit is not None and len(self.suits):
                suits[k] = -1.0
                np.maximum.at(suits[k], self.suit_of, self.suits @ g.suit)
                doubts[k] = mark_by_colour(suits[k], g.redness, g.coolness, self.suit_colours)
        return ranks, suits, doubts


SIDE_SHARE = 0.5  # a side prints the index when it is read there on this share of the pictures


def printed_sides(glyphs: list[Glyphs], pictures: int) -> tuple[bool, bool]:
    """Which corners a deck prints its index in, from the glyphs read on `pictures` enrolment
    pictures (each read in all four corners): a side whose corners showed an index on at
    least `SIDE_SHARE` of them. The others show a pip or a picture's edge now and then, read
    as a glyph: left out, they neither cost time nor speak. Both when neither side does (a
    design coding its rank some other way)."""
    left = sum(g.left for g in glyphs)
    sides = (left >= SIDE_SHARE * 2 * pictures, len(glyphs) - left >= SIDE_SHARE * 2 * pictures)
    return sides if any(sides) else (True, True)


def face_pictures(face: np.ndarray, size: tuple[int, int]) -> list[np.ndarray]:
    """A clean upright BGR face as the camera would show it once warped to `size`: seen at a
    small and a large card height, slightly soft."""
    out = []
    for height in (130, 230):
        scale = height / face.shape[0]
        small = cv2.resize(face, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (0, 0), 0.7)
        out.append(cv2.resize(small, size, interpolation=cv2.INTER_LINEAR))
    return out
