"""Find card-shaped things on the felt: frame in, quadrilaterals out (pure).

In the masks of what is not felt and of card paper (`felt.py`), each blob whose outline
is a rectangle of card proportions becomes a candidate. Blobs where a hand or chips touch a card
are cut back to the card's own pixels (the bright face, or the colour of the back).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from hardware.camera.edges import refine_quads
from hardware.camera.felt import WORK_SCALE, Glare, all_masks
from hardware.camera.outline import around_band, bordered_cards
from hardware.camera.quads import clean_blobs, corner_gaps, long_side, simple_blob
from hardware.camera.rectangles import rectangles
from hardware.camera.sizes import SIZES, ringed_longs, typical_long_side


@dataclass(frozen=True)
class Candidate:
    """A card-shaped region: corners in full-frame pixels, clockwise, first edge a short side."""

    quad: np.ndarray  # 4x2 float, the sides moved onto the card's edges
    fill: float  # share of the quad covered by foreground
    coarse: np.ndarray  # 4x2 float, the quad as the half-size mask gave it
    # other rectangles the blob's outline supports over the same place, or else the quad
    # grown to a card's shape when it is short of one (`_lengthened`) (full-frame, ordered,
    # not moved onto edges): for the reader to try when it cannot read the quad
    others: tuple[np.ndarray, ...] = ()


def _order(quad: np.ndarray) -> np.ndarray:
    """Clockwise corners starting so that the first edge is a short side."""
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    quad = quad[np.argsort(angles)]  # clockwise on screen (y points down)
    if np.linalg.norm(quad[1] - quad[0]) > np.linalg.norm(quad[2] - quad[1]):
        quad = np.roll(quad, -1, axis=0)
    return quad


def _inside_share(mask: np.ndarray, quad: np.ndarray) -> float:
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int), 0)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    patch = mask[y0:y1, x0:x1]
    poly = np.zeros_like(patch)
    cv2.fillConvexPoly(poly, np.round(quad - [x0, y0]).astype(np.int32), 255)
    total = int(np.count_nonzero(poly))
    return float(np.count_nonzero(patch & poly)) / max(total, 1)


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return inter > 0.2 * min(cv2.contourArea(a.astype(np.float32)),
                             cv2.contourArea(b.astype(np.float32)))



def _bitten(contour: np.ndarray, lo: float, hi: float,
            aspect: float) -> tuple[np.ndarray, float] | None:
    """The blob's own bounding rectangle when it is card-sized and its outline runs along
    most of that rectangle (a hand or chips took a bite from the middle, not the corners)."""
    rect = cv2.minAreaRect(cv2.convexHull(contour))
    long, short = max(rect[1]), min(rect[1])
    if not (lo <= long <= hi and abs(short / max(long, 1.0) - aspect) < 0.06):
        return None
    area = cv2.contourArea(contour)
    if area < 0.6 * long * short:
        return None
    box = cv2.boxPoints(rect).astype(np.float64)
    pts = contour.reshape(-1, 2).astype(np.float64)
    near = np.zeros(len(pts), bool)
    for k in range(4):
        a, b = box[k], box[(k + 1) % 4]
        d = (b - a) / max(np.linalg.norm(b - a), 1e-6)
        rel = pts - a
        across = np.abs(rel[:, 0] * d[1] - rel[:, 1] * d[0])
        along = rel @ d
        near |= (across < 2.0) & (along > -2.0) & (along < np.linalg.norm(b - a) + 2.0)
    if near.sum() < 0.6 * 2 * (long + short):
        return None
    return box, area / (long * short)


_CLEAR_OUTLINE = 0.7  # a rectangle this well supported by straight runs beats the blob's box
_OTHERS = 3  # other rectangles kept with a quad from a blob's outline
_UNLIKE = 0.1  # ... each unlike the quad and the others by this share of its long side


def _unlike(quads: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How far each of `quads` (k, 4, 2) lies from the quad `b`: how far its corner farthest
    from every corner of `b` lies from the nearest of them."""
    return corner_gaps(quads, b).max(axis=1)


def _others(quad: np.ndarray, supported: list[tuple[float, np.ndarray]]) -> tuple[np.ndarray, ...]:
    """Up to `_OTHERS` rectangles of `supported` (best supported first) centred within half
    a card of `quad`, each unlike it and the others kept (`_UNLIKE`): a card and a box line, or a card
    with a hand on it, support more than one card-shaped rectangle, and the best supported is
    not always the card."""
    if not supported:
        return ()
    quads = np.stack([other for _support, other in supported])
    long = long_side(quad)
    near = np.linalg.norm(quads.mean(axis=1) - quad.mean(axis=0), axis=1) < 0.5 * long
    quads = quads[near & (_unlike(quads, quad) > _UNLIKE * long)]
    kept: list[np.ndarray] = []
    while len(quads) and len(kept) < _OTHERS:
        kept.append(quads[0])
        quads = quads[_unlike(quads, quads[0]) > _UNLIKE * long]
    return tuple(kept)


_STUBBY = 0.04  # a quad this much wider for its length (short over long side) than the
# frame's cards is short of its card


def _lengthened(box: np.ndarray, aspect: float) -> tuple[np.ndarray, ...]:
    """A card's rectangle `box` made as long as the frame's cards are (`aspect`: short over
    long side), grown at one end and at the other, when it is `_STUBBY` too short; else
    none. A lamp washing out the felt at a card's foot leaves the card's blob short of it
    (simplistic, a tuning frame: a six's quad 9% short was read as a nine at first)."""
    quad = _order(box)
    short = float(np.linalg.norm(quad[1] - quad[0]))
    long = max(float(np.linalg.norm(quad[2] - quad[1])), 1.0)
    if short / long - aspect <= _STUBBY:
        return ()
    grow = (quad[2] - quad[1]) * (short / aspect / long - 1.0)
    foot, head = quad.copy(), quad.copy()
    foot[2:] += grow
    head[:2] -= grow
    return foot, head


def _outer_others(found: list[tuple[np.ndarray, float]], others: list[tuple[np.ndarray, ...]],
                  not_felt: np.ndarray, lo: float, hi: float) -> list[tuple[np.ndarray, ...]]:
    """`others`, where a paper quad searched out of a ragged blob (one with other rectangles)
    lies in a clean card-sized blob of the not-felt mask unlike it: that blob's rectangle
    among its others too (a king's crown and pips bit the top and bottom of its paper, and
    the best supported rectangle ran a tenth of the card along from it)."""
    if not any(others):
        return others
    clean = [cv2.boxPoints(rect).astype(np.float64) for _long, _contour, rect
             in clean_blobs(not_felt, lo, hi)]
    if not clean:
        return others
    out = list(others)
    for k, ((quad, _share), kept) in enumerate(zip(found, others, strict=True)):
        if kept:  # (`_others` keeps the order given: the clean blob's rectangle first)
            out[k] = _others(quad, [(1.0, rect) for rect in clean] + [(0.0, q) for q in kept])
    return out


def _from_mask(mask: np.ndarray, lo: float, hi: float, aspect: float,
               sized: bool, solid: bool, rings: list[tuple[np.ndarray, float]] | None = None,
               outer: np.ndarray | None = None, light: np.ndarray | None = None
               ) -> tuple[list[tuple[np.ndarray, float]], float, float, float,
                          list[tuple[np.ndarray, ...]]]:
    """Card quads (half-size pixels) and fills found in one mask; with `sized` False the card
    size and aspect are first learnt from the clean blobs (and returned; see
    `sizes.typical_long_side` for `rings` and `outer`, the not-felt mask, and
    `outline.around_band` for `light`, the mask of grey lines); and for each quad, the
    `_others` its blob's outline supports."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    found: list[tuple[np.ndarray, float]] = []
    others: list[tuple[np.ndarray, ...]] = []
    complex_blobs = []
    simple = []
    for contour in contours:
        if cv2.contourArea(contour) < 0.5 * lo * lo * 0.6:
            continue
        got = simple_blob(contour, lo, hi, solid)
        if got is not None and light is not None:
            card = around_band(got[1], light, lo, hi)
            if card is not None:  # the blob is a band of paper across this card
                got = (max(card[0][1]), *card)
        if got is None:
            complex_blobs.append(contour)
        else:
            simple.append((got[0], contour, got[1], got[2]))
    if simple and not sized:  # cards of one camera are all about one size; merged ones bigger
        typical = typical_long_side(simple, rings or [], outer, lo, hi, solid)
        lo, hi = max(lo, SIZES[0] * typical), min(hi, SIZES[1] * typical)
        aspect = float(np.median([min(s[2][1]) / max(s[2][1]) for s in simple]))
    for long, contour, rect, fill in simple:
        if lo <= long <= hi:
            found.append((cv2.boxPoints(rect).astype(np.float64), float(fill)))
            others.append(())
        else:
            complex_blobs.append(contour)
    if solid and not simple and not sized:
        complex_blobs = []  # paper scraps of unknown size: leave them to the not-felt mask
    for contour in complex_blobs:
        supported = sorted(rectangles(contour, lo, hi, aspect, solid, sized or bool(simple)),
                           key=lambda t: -t[0])
        bitten = None
        if not supported or supported[0][0] < _CLEAR_OUTLINE:
            bitten = _bitten(contour, lo, hi, aspect)
        if bitten is not None:  # a card with a bite out of it (a hand), its corners still there
            found.append(bitten)
            others.append(_others(bitten[0], supported))
            continue
        chosen: list[np.ndarray] = []
        for _support, quad in supported:
            if any(_overlap(quad, other) for other in chosen):
                continue
            share = _inside_share(mask, quad)
            if share < (0.6 if solid else 0.85):  # paper holds cards only: bites are fine
                continue
            chosen.append(quad)
            found.append((quad, share))
            others.append(_others(quad, supported))
    return found, lo, hi, aspect, others


def find_cards(frame: np.ndarray, min_height: float = 105, max_height: float = 300) -> list[Candidate]:
    """Card-shaped regions of a BGR frame, as quads in full-frame pixels.

    Face-up cards are looked for first in the paper mask (white, solid: a hand, chips or a
    printed line touching a card is not paper); what they cover is then cleared from the
    not-felt mask, in which the rest (backs, dark cards) is looked for.
    """
    foreground_mask, paper, light, glare = all_masks(frame)
    lo, hi = min_height * WORK_SCALE, max_height * WORK_SCALE
    found, lo2, hi2, aspect, others = _from_mask(paper, lo, hi, 0.7, sized=False, solid=True,
                                                 outer=foreground_mask, light=light)
    others = _outer_others(found, others, foreground_mask, lo2, hi2)
    rest = foreground_mask.copy()
    for quad, _fill_share in found:
        grown = quad.mean(axis=0) + 1.08 * (quad - quad.mean(axis=0))
        cv2.fillConvexPoly(rest, np.round(grown).astype(np.int32), 0)
    rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    # no paper to learn the card size from: the cards' light borders tell two dark cards
    # side by side, one clean blob, from one card
    rings = [] if found else bordered_cards(light, foreground_mask, lo, hi)
    more, *_, more_others = _from_mask(rest, lo2 if found else lo, hi2 if found else hi,
                                       aspect, sized=bool(found), solid=False, rings=rings)
    if not found and len(more) > 2:  # no paper to learn the card size from: learn it here
        typical = float(np.median(ringed_longs([quad for quad, _ in more], rings)))
        longs = np.array([long_side(quad) for quad, _ in more])
        if ((longs < SIZES[0] * typical) | (longs > SIZES[1] * typical)).any():
            # some are two cards or scraps: search again at the size most have
            more, *_, more_others = _from_mask(rest, max(lo, SIZES[0] * typical),
                                               min(hi, SIZES[1] * typical), aspect, sized=True,
                                               solid=False)
    if rings:
        more, more_others = _scraps_in_rings(more, more_others, rings)
    outlined = _outlined(light, foreground_mask, found + more, lo, hi)
    cards = found + more + outlined
    alike = others + more_others + [()] * len(outlined)
    if glare is not None:
        _glared(glare, cards, alike, len(found), lo, hi)
    alike = [kept or _lengthened(quad, aspect)  # no others: the card grown whole, when short
             for (quad, _share), kept in zip(cards, alike, strict=True)]
    coarse = [_order(quad / WORK_SCALE) for quad, _share in cards]
    return [Candidate(refined, share, full, tuple(_order(other / WORK_SCALE) for other in kept))
            for refined, full, (_quad, share), kept in zip(
                refine_quads(frame, coarse), coarse, cards, alike, strict=True)]


_SCRAP = 0.35  # a quad this much of a light-bordered card's area, at most, is a scrap of it


def _scraps_in_rings(more: list[tuple[np.ndarray, float]], others: list[tuple[np.ndarray, ...]],
                     rings: list[tuple[np.ndarray, float]]
                     ) -> tuple[list[tuple[np.ndarray, float]], list[tuple[np.ndarray, ...]]]:
    """The not-felt mask's quads `more` (and their `others`), where a light-bordered card
    (`rings`) holds one of them (its centre inside), at most `_SCRAP` of its area and no ring
    itself: a scrap of its picture (a court card's light silhouette on a dark red face, on
    red felt), whose place the card takes. (A printed box around two cards is a ring too,
    but holds two, each its own ring.)"""
    more, others = list(more), list(others)
    for ring, share in rings:
        outline = ring.astype(np.float32)
        held = [k for k, (quad, _share) in enumerate(more) if cv2.pointPolygonTest(
            outline, tuple(float(v) for v in quad.mean(axis=0)), False) > 0]
        if len(held) != 1:
            continue
        scrap = more[held[0]][0]
        if (cv2.contourArea(scrap.astype(np.float32)) > _SCRAP * cv2.contourArea(outline)
                or any(corner_gaps(scrap[None], other)[0].max() < _UNLIKE * long_side(other)
                       for other, _share in rings)):
            continue
        more[held[0]], others[held[0]] = (ring, share), ()
    return more, others


def _outlined(light: np.ndarray, not_felt: np.ndarray,
              known: list[tuple[np.ndarray, float]], lo: float,
              hi: float) -> list[tuple[np.ndarray, float]]:
    """Light-bordered cards the masks missed (see outline.py), at the size of the cards
    found so far (`_known_size`), overlapping none of them."""
    lo, hi = _known_size(known, lo, hi)
    extra: list[tuple[np.ndarray, float]] = []
    for quad, share in bordered_cards(light, not_felt, lo, hi):
        if not any(_overlap(quad, other) for other, _ in known + extra):
            extra.append((quad, share))
    return extra


def _known_size(known: list[tuple[np.ndarray, float]], lo: float,
                hi: float) -> tuple[float, float]:
    """The range of long sides `lo`..`hi` narrowed to the size of the cards found so far: from
    a little under their median to a little over the largest of them (when the masks found
    few cards, one of them may be a scrap that pulls the median down)."""
    if not known:
        return lo, hi
    longs = [long_side(quad) for quad, _ in known]
    return max(lo, SIZES[0] * float(np.median(longs))), min(hi, SIZES[1] * max(longs))


_GLARE_SHAPE = 0.9  # under glare a card's paper fills its rectangle this much, at least (`quads.simple_blob`)


def _glared(glare: Glare, cards: list[tuple[np.ndarray, float]],
            others: list[tuple[np.ndarray, ...]], paper_cards: int, lo: float, hi: float) -> None:
    """White cards under a glare spot, into `cards` and their `others` (in place): clean
    card-shaped blobs of the paper mask with paper under glare added
    (`felt._paper_in_glare`), at the size of the cards found so far (`_known_size`). One overlapping no card is added; one
    overlapping a single card that the paper mask did not give (the first `paper_cards` it
    did) takes its place, the old quad first among its others: under glare the not-felt mask
    holds the glare too, and a quad from it takes in glare felt. Only clean blobs, and only
    after the other passes: glare clipped at white also lets through scraps of a court
    card's art, whose outline can support a rectangle across the card."""
    lo, hi = _known_size(cards, lo, hi)
    contours, _ = cv2.findContours(glare.paper, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE,
                                   offset=glare.at)
    placed: set[int] = set()
    for contour in contours:
        got = simple_blob(contour, lo, hi, True, _GLARE_SHAPE)
        if got is None:
            continue
        quad = cv2.boxPoints(got[1]).astype(np.float64)
        hits = [k for k, (other, _share) in enumerate(cards) if _overlap(quad, other)]
        if not hits:
            placed.add(len(cards))
            cards.append((quad, float(got[2])))
            others.append(())
        elif len(hits) == 1 and hits[0] >= paper_cards and hits[0] not in placed:
            k = hits[0]
            placed.add(k)
            others[k] = (cards[k][0], *others[k])[:_OTHERS]
            cards[k] = (quad, float(got[2]))
