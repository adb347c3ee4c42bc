"""Find card-shaped things on the felt: frame in, quadrilaterals out (pure).

The felt is the one colour that fills most of an overhead frame. Its colour and brightness
are estimated as smooth fields (so uneven lighting and soft glare stay "felt"), everything
that differs from them is foreground, and each foreground blob whose outline is a
rectangle of card proportions becomes a candidate. Blobs where a hand or chips touch a card
are cut back to the card's own pixels (the bright face, or the colour of the back).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import cv2
import numpy as np

from hardware.camera.edges import refine_quads
from hardware.camera.ink import percentiles
from hardware.camera.outline import around_band, bordered_cards
from hardware.camera.rectangles import rectangles

WORK_SCALE = 0.5  # detection runs on a half-size frame
_FIELD_HALVINGS = 2  # felt fields are estimated on the half-size frame halved twice (1/8)
_FIELD_SIGMA = 4.0  # ... and smoothed this much (in those pixels): glare is sharper
_STRIP = 64  # rows of the half-size frame taken at a time where float copies are made


@dataclass(frozen=True)
class Candidate:
    """A card-shaped region: corners in full-frame pixels, clockwise, first edge a short side."""

    quad: np.ndarray  # 4x2 float, the sides moved onto the card's edges
    fill: float  # share of the quad covered by foreground
    coarse: np.ndarray  # 4x2 float, the quad as the half-size mask gave it
    # other rectangles the blob's outline supports over the same place (full-frame, ordered,
    # not moved onto edges): for the reader to try when it cannot read the quad
    others: tuple[np.ndarray, ...] = ()


def _felt_basis(tiny: np.ndarray) -> np.ndarray:
    """A 3x3 matrix taking a BGR pixel to (felt amount, white amount, off-plane distance).

    Lighting scales the felt colour and glare adds white, so felt pixels lie on the plane
    spanned by the felt colour and white, with a felt amount and a white amount that vary
    slowly across the frame. A white card lies on that plane too, but with no felt in it.
    `tiny` is a uint8 BGR picture of the table.
    """
    felt = np.array([percentiles(c, (50,))[0] for c in cv2.split(tiny)]) + 1.0
    white = np.ones(3) / np.sqrt(3.0)
    chroma = felt - white * (felt @ white)
    if np.linalg.norm(chroma) < 8.0:  # a grey felt: make up a chroma axis; brightness decides
        felt = felt + np.array([0.0, 8.0, -8.0])
    basis = np.stack([felt, white], axis=1)
    amount, whiteness = np.linalg.pinv(basis)
    normal = np.cross(felt, white)
    return np.array([amount, whiteness, normal / np.linalg.norm(normal)])


def _fields(planes: list[np.ndarray], weight: np.ndarray) -> list[np.ndarray]:
    """Each plane smoothed where `weight` says felt, filling the rest from around."""
    norm = cv2.GaussianBlur(weight, (0, 0), _FIELD_SIGMA) + 1e-6
    return [cv2.GaussianBlur(values * weight, (0, 0), _FIELD_SIGMA) / norm for values in planes]


def masks(frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Half-size uint8 masks of what is not felt (cards, hands, chips, printed lines) and of
    card paper alone (white, holding no felt, solid: lines, text and chip rims are opened
    away, pips and pictures filled in)."""
    mask, paper_mask, *_ = _masks(frame)
    return mask, paper_mask


def _masks(frame: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, Glare | None]:
    """`masks`, a mask of grey lines (paper at any brightness, nothing opened away: card
    borders, printed lines, text), and where the frame holds glare, the paper mask around it
    with what is paper under glare added (`_paper_in_glare`)."""
    small = cv2.resize(frame, None, fx=WORK_SCALE, fy=WORK_SCALE, interpolation=cv2.INTER_AREA)
    # thin bright printing (layout lines, text) is eroded away first, so that it does not
    # pass for glare on the felt
    tiny = cv2.erode(small, _SQUARE5)
    for _ in range(_FIELD_HALVINGS):  # OpenCV's area resize by two is 4x as quick as by four
        tiny = cv2.resize(tiny, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    tiny_f = tiny.astype(np.float32)
    matrix = _felt_basis(tiny).astype(np.float32)
    t = cv2.transform(tiny_f, matrix)
    typical = float(np.median(t[:, :, 0]))
    felt = (np.abs(t[:, :, 2]) < 18) & (t[:, :, 0] > 0.5 * typical) & (t[:, :, 0] < 1.6 * typical)
    weight = felt.astype(np.float32)
    size = (small.shape[1], small.shape[0])
    channels = cv2.split(tiny_f)
    brightest = cv2.max(cv2.max(channels[0], channels[1]), channels[2])
    fields = _fields([t[:, :, 0], t[:, :, 1], brightest], weight)
    box = _glare_box(fields[2], small.shape[0] // tiny.shape[0])
    g_field, w_field, v_field = (cv2.resize(field, size, interpolation=cv2.INTER_LINEAR)
                                 for field in fields)
    not_felt = np.empty(small.shape[:2], bool)
    paper = np.empty_like(not_felt)
    grey = np.empty_like(not_felt)
    glared = np.zeros_like(paper)
    rows_of_matrix = [matrix[k : k + 1] for k in range(3)]  # one plane each: no split
    for top in range(0, small.shape[0], _STRIP):  # in strips: the float copies stay small
        rows = slice(top, top + _STRIP)
        part = small[rows]
        floats = part.astype(np.float32)
        g, w, r = (cv2.transform(floats, row) for row in rows_of_matrix)
        low_felt = g < 0.55 * g_field[rows]
        out = np.greater(np.abs(r), 24, out=not_felt[rows])
        out |= low_felt
        out |= g > 1.35 * g_field[rows]
        out |= cv2.absdiff(w, w_field[rows]) > 45
        b, gr, rd = cv2.split(part)
        value = cv2.max(cv2.max(b, gr), rd)
        chroma = cv2.subtract(value, cv2.min(cv2.min(b, gr), rd))
        out = np.less(chroma, cv2.LUT(value, _CHROMA_LIMIT), out=paper[rows])
        out &= low_felt
        out &= value > 60
        grey[rows] = out
        if box is not None and box[1] < top + _STRIP and top < box[3]:
            cols = slice(box[0], box[2])
            glared[rows, cols] = out[:, cols] & _paper_in_glare(
                value[:, cols], g[:, cols], chroma[:, cols], v_field[rows, cols],
                g_field[rows, cols])
        out &= value.astype(np.float32) > 1.4 * v_field[rows]
    mask: np.ndarray = not_felt.view(np.uint8) * np.uint8(255)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((7, 7), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    _fill(mask)
    light = grey.view(np.uint8) * np.uint8(255)
    paper_mask = _solid(paper)
    if box is None:
        return mask, paper_mask, light, None
    # the cards under the glare may reach out of it by a card's length
    x0, y0 = max(box[0] - _REACH, 0), max(box[1] - _REACH, 0)
    around = np.s_[y0 : box[3] + _REACH, x0 : box[2] + _REACH]
    more = glared[around] & ~paper[around]
    if np.count_nonzero(more) < _GLARE_PAPER:  # most glare spots hold no card
        return mask, paper_mask, light, None
    return mask, paper_mask, light, Glare(_solid(paper[around] | more), (x0, y0))


@dataclass(frozen=True)
class Glare:
    """The paper mask around the frame's glare spots, with what is paper under glare added;
    `at` is where its top-left pixel lies in the half-size frame."""

    paper: np.ndarray
    at: tuple[int, int]


# felt whose brightest channel is above this is under a glare spot: paper 40% brighter than
# it is at 224 or more, and white paper under glare (220-255) may fall short of that
_GLARE = 160.0
_GLARE_PAPER = 400  # half-size pixels of paper under glare worth a look (a card: 1,900 or more)
_REACH = 150  # half-size pixels: the longest card looked for


def _glare_box(felt_value: np.ndarray, scale: int) -> tuple[int, int, int, int] | None:
    """(x0, y0, x1, y1) in the half-size frame around where the felt's brightest channel
    (`felt_value`, a field at 1/`scale` of it) reaches `_GLARE`; None where it nowhere does."""
    spots = (felt_value > _GLARE).view(np.uint8)
    if not spots.any():
        return None
    x, y, w, h = cv2.boundingRect(spots)
    # a field pixel's value reaches a scale's width into its neighbours once upsized
    return (max(scale * (x - 1), 0), max(scale * (y - 1), 0), scale * (x + w + 1),
            scale * (y + h + 1))


def _solid(paper: np.ndarray) -> np.ndarray:
    """A uint8 mask of paper pixels (bool) opened (lines, text, chip rims go) and
    hole-filled (pips, pictures)."""
    mask = cv2.morphologyEx(paper.view(np.uint8) * np.uint8(255), cv2.MORPH_OPEN, _DISC)
    _fill(mask)
    return mask


def _paper_in_glare(value: np.ndarray, felt_amount: np.ndarray, chroma: np.ndarray,
                    felt_value: np.ndarray, felt_field: np.ndarray) -> np.ndarray:
    """Which pixels of a strip, grey and holding no felt, are paper under glare. Paper is 40%
    brighter than the felt's brightest channel (`felt_value`); under a glare spot that
    reaches 170-190, and white paper, at 250, is not. There paper need only be halfway from
    the felt to pure white, when it is also nearly colourless and holds almost no felt: glare
    clipped at white keeps the felt's colour (chroma 60-80 on red felt, where a card's white
    has under 35) and a third of its felt amount or more (a card's white, less; the grey test
    allows up to 0.55)."""
    return ((chroma < 40) & (felt_amount < 0.3 * felt_field)
            & (value > 0.5 * felt_value + 127.5) & (felt_value > _GLARE))


_DISC = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
_SQUARE5 = np.ones((5, 5), np.uint8)


def _chroma_limit() -> np.ndarray:
    """Paper is grey-ish: chroma < 0.28 * value + 8 (in float32), as a table over the uint8
    value of the least chroma that is too much."""
    value = np.arange(256, dtype=np.float32)
    return np.minimum(np.ceil(0.28 * value + 8.0), 255).astype(np.uint8)


_CHROMA_LIMIT = _chroma_limit()


def _fill(mask: np.ndarray) -> None:
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(mask, contours, -1, 255, cv2.FILLED)


def foreground(frame: np.ndarray) -> np.ndarray:
    """A half-size uint8 mask of what is not felt (cards, hands, chips)."""
    return masks(frame)[0]


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


def _simple(contour: np.ndarray, lo: float, hi: float, solid: bool) -> tuple | None:
    """(long side, rotated rect, fill) when a blob is a clean card-proportioned rectangle.

    With `solid` (the paper mask, which holds nothing but cards) the blob's convex hull must
    fill the rectangle: a bite taken out of a card's middle by a hand does not matter.
    """
    area = cv2.contourArea(contour)
    if area < 0.5 * lo * lo * 0.6:
        return None
    hull = cv2.convexHull(contour)
    (cx, cy), (w, h), angle = cv2.minAreaRect(hull)
    long, short = max(w, h), min(w, h)
    fill = area / max(w * h, 1.0)
    shape = cv2.contourArea(hull) / max(w * h, 1.0) if solid else fill
    if lo <= long <= hi and 0.64 <= short / long <= 0.8 and shape > 0.93 and fill > 0.6:
        return long, ((cx, cy), (w, h), angle), fill
    return None


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


def _corner_gaps(quads: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How far each corner of each of `quads` (k, 4, 2) lies from the nearest corner of the
    quad `b`: (k, 4)."""
    return np.linalg.norm(quads[:, :, None] - b[None, None], axis=3).min(axis=2)


def _unlike(quads: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How far each of `quads` (k, 4, 2) lies from the quad `b`: how far its corner farthest
    from every corner of `b` lies from the nearest of them."""
    return _corner_gaps(quads, b).max(axis=1)


def _others(quad: np.ndarray, supported: list[tuple[float, np.ndarray]]) -> tuple[np.ndarray, ...]:
    """Up to `_OTHERS` rectangles of `supported` (best supported first) centred within half
    a card of `quad`, each unlike it and the others kept (`_UNLIKE`): a card and a box line, or a card
    with a hand on it, support more than one card-shaped rectangle, and the best supported is
    not always the card."""
    if not supported:
        return ()
    quads = np.stack([other for _support, other in supported])
    long = _long_side(quad)
    near = np.linalg.norm(quads.mean(axis=1) - quad.mean(axis=0), axis=1) < 0.5 * long
    quads = quads[near & (_unlike(quads, quad) > _UNLIKE * long)]
    kept: list[np.ndarray] = []
    while len(quads) and len(kept) < _OTHERS:
        kept.append(quads[0])
        quads = quads[_unlike(quads, quads[0]) > _UNLIKE * long]
    return tuple(kept)


_SIZES = (0.84, 1.18)  # long sides of one camera's cards, as shares of the typical one


def _from_mask(mask: np.ndarray, lo: float, hi: float, aspect: float,
               sized: bool, solid: bool, rings: list[tuple[np.ndarray, float]] | None = None,
               outer: np.ndarray | None = None, light: np.ndarray | None = None
               ) -> tuple[list[tuple[np.ndarray, float]], float, float, float,
                          list[tuple[np.ndarray, ...]]]:
    """Card quads (half-size pixels) and fills found in one mask; with `sized` False the card
    size and aspect are first learnt from the clean blobs (and returned; see `_sizes` for
    `rings`, `_panels` for `outer`, the not-felt mask, `outline.around_band` for `light`,
    the mask of grey lines); and for each quad, the `_others` its blob's outline supports."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    found: list[tuple[np.ndarray, float]] = []
    others: list[tuple[np.ndarray, ...]] = []
    complex_blobs = []
    simple = []
    for contour in contours:
        if cv2.contourArea(contour) < 0.5 * lo * lo * 0.6:
            continue
        got = _simple(contour, lo, hi, solid)
        if got is not None and light is not None:
            card = around_band(got[1], light, lo, hi)
            if card is not None:  # the blob is a band of paper across this card
                got = (max(card[0][1]), *card)
        if got is None:
            complex_blobs.append(contour)
        else:
            simple.append((got[0], contour, got[1], got[2]))
    if simple and not sized:  # cards of one camera are all about one size; merged ones bigger
        sizes = _sizes(simple, rings or [])
        if outer is not None and len(sizes) == len(simple) and max(sizes) > _PANEL[0] * min(sizes):
            sizes = _panels(simple, sizes, outer, lo, hi)
        typical = _paper_typical(sizes) if solid else float(np.median(sizes))
        lo, hi = max(lo, _SIZES[0] * typical), min(hi, _SIZES[1] * typical)
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
        supported = sorted(rectangles(contour, lo, hi, aspect, solid), key=lambda t: -t[0])
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


_PANEL = (1.1, 1.6)  # a card around a paper panel is this much longer than it, at least, at most


def _panels(simple: list, sizes: list[float], outer: np.ndarray, lo: float,
            hi: float) -> list[float]:
    """`sizes` of the clean paper blobs `simple`, where a blob is the light panel inside a
    card's wide printed frame (svg-dondorf: the frame's thin line opens the white border
    away from the paper mask): the clean not-felt blob holding it, and no other, a tenth to
    three fifths longer, gives the card's size. Asked only when the sizes disagree."""
    contours, _ = cv2.findContours(outer, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    cards = [(got[0], contour) for contour in contours
             if (got := _simple(contour, lo, hi, False)) is not None]
    centres = [(float(rect[0][0]), float(rect[0][1])) for _long, _contour, rect, _fill in simple]
    out = list(sizes)
    for long, contour in cards:
        held = [k for k, centre in enumerate(centres)
                if cv2.pointPolygonTest(contour, centre, False) > 0]
        if len(held) == 1 and _PANEL[0] * sizes[held[0]] <= long <= _PANEL[1] * sizes[held[0]]:
            out[held[0]] = long
    return out


def _paper_typical(longs: list[float]) -> float:
    """The long side of one camera's cards, from the long sides of card-shaped paper blobs:
    their median; but when that leaves most of them out of `_SIZES` (two blobs, one a card
    and one two cards side by side, whose median is neither), the long side that keeps the
    most of them in, the smallest of those tied: two cards touching make one bigger blob,
    and paper scraps are seldom card-shaped (not so in the not-felt mask: hands, shadows)."""
    sizes = sorted(float(v) for v in longs)
    median = statistics.median(sizes)

    def kept(typical: float) -> int:
        return sum(_SIZES[0] * typical <= size <= _SIZES[1] * typical for size in sizes)

    if 2 * kept(median) >= len(sizes):
        return median
    return max(sizes, key=lambda size: (kept(size), -size))


def _ringed(quads: list[np.ndarray], rings: list[tuple[np.ndarray, float]]) -> list[float]:
    """The quads' long sides, where one as long as the short side of a light-bordered card
    (`rings`, within a tenth) lies in it with two of its corners on the ring's: a half of a
    card cut across by its art (a court card's colours in the not-felt mask, a hand) gives
    the card's. (A card in a printed box, a ring too, touches none of its corners.)"""
    own = [_long_side(quad) for quad in quads]
    longs = list(own)
    for ring, _share in rings:
        short = float(min(np.linalg.norm(ring[1] - ring[0]), np.linalg.norm(ring[2] - ring[1])))
        for k, quad in enumerate(quads):
            near = _corner_gaps(quad[None], ring)[0]
            if (abs(own[k] - short) < 0.1 * short and (near < 0.12 * short).sum() >= 2
                    and cv2.pointPolygonTest(ring.astype(np.float32),
                                             tuple(float(v) for v in quad.mean(axis=0)),
                                             False) > 0):
                longs[k] = _long_side(ring)
    return longs


def _sizes(simple: list, rings: list[tuple[np.ndarray, float]]) -> list[float]:
    """The long sides of the clean blobs `simple` (as `_from_mask` collects them), where a
    blob holding two or more light-bordered cards (`rings`, each a fifth smaller than it at
    the least) is two cards touching and gives their long sides instead of its own."""
    longs: list[float] = []
    for long, contour, _rect, _fill in simple:
        inside: list[np.ndarray] = []
        for quad, _share in rings:
            centre = quad.mean(axis=0)
            if (_long_side(quad) > 0.8 * long or cv2.pointPolygonTest(
                    contour, (float(centre[0]), float(centre[1])), False) <= 0):
                continue
            # a card's border gives two rings (its hole and its outer shape): count it once
            if all(np.hypot(*(centre - other.mean(axis=0))) > 0.25 * long for other in inside):
                inside.append(quad)
        longs += [_long_side(quad) for quad in inside] if len(inside) >= 2 else [long]
    return longs


def find_cards(frame: np.ndarray, min_height: float = 105, max_height: float = 300) -> list[Candidate]:
    """Card-shaped regions of a BGR frame, as quads in full-frame pixels.

    Face-up cards are looked for first in the paper mask (white, solid: a hand, chips or a
    printed line touching a card is not paper); what they cover is then cleared from the
    not-felt mask, in which the rest (backs, dark cards) is looked for.
    """
    foreground_mask, paper, light, glare = _masks(frame)
    lo, hi = min_height * WORK_SCALE, max_height * WORK_SCALE
    found, lo2, hi2, aspect, others = _from_mask(paper, lo, hi, 0.7, sized=False, solid=True,
                                                 outer=foreground_mask, light=light)
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
        typical = float(np.median(_ringed([quad for quad, _ in more], rings)))
        longs = np.array([_long_side(quad) for quad, _ in more])
        if ((longs < _SIZES[0] * typical) | (longs > _SIZES[1] * typical)).any():
            # some are two cards or scraps: search again at the size most have
            more, *_, more_others = _from_mask(rest, max(lo, _SIZES[0] * typical),
                                               min(hi, _SIZES[1] * typical), aspect, sized=True,
                                               solid=False)
    outlined = _outlined(light, foreground_mask, found + more, lo, hi)
    cards = found + more + outlined
    alike = others + more_others + [()] * len(outlined)
    if glare is not None:
        _glared(glare, cards, alike, len(found), lo, hi)
    coarse = [_order(quad / WORK_SCALE) for quad, _share in cards]
    return [Candidate(refined, share, full, tuple(_order(other / WORK_SCALE) for other in kept))
            for refined, full, (_quad, share), kept in zip(
                refine_quads(frame, coarse), coarse, cards, alike, strict=True)]


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
    longs = [_long_side(quad) for quad, _ in known]
    return max(lo, _SIZES[0] * float(np.median(longs))), min(hi, _SIZES[1] * max(longs))


def _glared(glare: Glare, cards: list[tuple[np.ndarray, float]],
            others: list[tuple[np.ndarray, ...]], paper_cards: int, lo: float, hi: float) -> None:
    """White cards under a glare spot, into `cards` and their `others` (in place): clean
    card-shaped blobs of the paper mask with paper under glare added (`_paper_in_glare`), at
    the size of the cards found so far (`_known_size`). One overlapping no card is added; one
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
        got = _simple(contour, lo, hi, True)
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


def _long_side(quad: np.ndarray) -> float:
    return float(max(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1])))
