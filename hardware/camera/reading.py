"""The whole-card reading: an upright card picture compared with every face of a deck.

A card found on the felt is warped upright (`warp_card`); its cells (`deck.plane_features`),
both ways up, are compared with every face's, the picture is aligned on the best face (ECC,
affine) and compared again (`read_card`). Cells that agree with no face (a hand, chips) are
left out. What the corner index and the body pips say is fused in by `recognize`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from hardware.camera.align import AlignError, Face, align
from hardware.camera.deck import (
    CANON,
    CODES,
    CORNER_CELLS,
    WARP,
    DeckModel,
    fine_planes,
    plane_features,
    turned_features,
)
from hardware.camera.ink import median
from hardware.camera.snap import warp_source

# A reading agreeing less than this with its best face, and yet more with it than with the
# enrolled back, is aligned again to the finest step: whether a card is a back or a face may
# rest on the last pixel of that alignment (tuning frames: a back read as the jack of spades,
# another as the king of clubs, when aligned only until a step gained under 0.01)
_WEAK_READ = 0.5


# When the picture's half turn agrees nearly as well (within this) with the best face of
# another code, that turn is aligned too and the better of the two kept: a design whose art is
# the same both ways up (svg-oxygen's diagonal sweep, its rank in one corner only) fits a quad
# a little off better the wrong way up, as the ace of clubs where it is the ace of spades
_TURN_DOUBT = 0.08


# A reading agreeing with the enrolled back at least this well, and better than with any face,
# is a back: its mask's quad is not read again (four in ten of those second reads, and on the
# tuning frames the same cards found, face up and down)
LIKE_BACK = 0.5


# ... and one agreeing with it so well (`LIKE_BACK`) and this much better than with any face
# before alignment is not aligned on a face at all: 7.7 -> 6.6 alignments a frame, and on the
# tuning frames (four sets) one card more read, none fewer
_BACK_LEAD = 0.1


# A reading weak (`_WEAK_READ`) or beating the enrolled back by less than this is aligned on
# the back too, and its agreement with the back taken there when higher: the back's agreement
# is otherwise measured on the picture as aligned on a face
_BACK_DOUBT = 0.1


def warp_card(frame: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The card inside `quad` (clockwise, first edge a short side) as an upright picture."""
    w, h = WARP
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    to_canvas = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    region, matrix = warp_source(frame, to_canvas, (w, h),
                                 3.0 * h / max(1.0, float(np.linalg.norm(quad[3] - quad[0]))))
    # OpenCV warps four channels in about half the time it takes over three (the same numbers
    # come out): the part of the frame gains a fourth channel for the warp, and loses it again
    upright = cv2.warpPerspective(cv2.cvtColor(region, cv2.COLOR_BGR2BGRA), matrix, (w, h),
                                  flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return cv2.cvtColor(upright, cv2.COLOR_BGRA2BGR)


def _agreement(per_cell: np.ndarray) -> np.ndarray:
    """Scores (..., n) from per-cell agreements (..., n, cells).

    A cell that agrees with no face at all is hidden (a hand, chips, glare) and is left
    out; the corner cells, where the indices are, count twice.
    """
    best = per_cell.max(axis=-2, keepdims=True)  # (..., 1, cells)
    cutoff = np.minimum(0.5, median(best, axis=-1)[..., None] - 0.25)
    weight = (best > cutoff).astype(np.float32)
    weight[..., -CORNER_CELLS:] *= 2.0
    return (per_cell * weight).sum(axis=-1) / np.maximum(weight.sum(axis=-1), 1.0)


@dataclass
class Reading:
    code: str
    score: float  # agreement with the best face, about 0..1
    margin: float  # how much the best face beats the best face of another card
    back: float  # agreement with an enrolled back (0 when none is enrolled)
    flipped: bool  # the card lies upside down relative to the quad's order
    per_code: np.ndarray  # (52,) agreement with the best face of each code, in CODES order
    face_of: np.ndarray  # (52,) which of the deck's faces that best face is, per code
    grey: np.ndarray  # the picture's grey plane at twice CANON, turned and aligned as read
    red: np.ndarray | None = None  # ... and its redness (red less the mean of green and blue)


# An upright card picture before any alignment: its planes, its cells both ways up (2, cells,
# dims) and their agreement with every face (2, n)
Unaligned = tuple[np.ndarray, np.ndarray, np.ndarray]


def unaligned_all(deck: DeckModel, pictures: list[np.ndarray]) -> list[Unaligned]:
    """Each picture before any alignment (`Unaligned`), all compared with the faces at once:
    a comparison reads every face's cells (megabytes) whatever the number of pictures."""
    planes = [fine_planes(picture) for picture in pictures]
    boths = [np.stack([cells, turned_features(cells)])
             for cells in (plane_features(each) for each in planes)]
    if not boths:
        return []
    scores = _scores(deck, np.concatenate(boths))
    return [(each, both, scores[2 * k : 2 * k + 2])
            for k, (each, both) in enumerate(zip(planes, boths, strict=True))]


def _scores(deck: DeckModel, both: np.ndarray) -> np.ndarray:
    """Agreement of candidate cells (k, cells, dims) with every face: (k, n)."""
    per_cell = np.matmul(deck.cells.transpose(1, 0, 2), both.transpose(1, 2, 0))
    return _agreement(per_cell.transpose(2, 1, 0))


def _align(planes: np.ndarray, face: Face, fine: bool = False) -> np.ndarray | None:
    """Planes shifted, turned and scaled a little so the card lies as `face` does: until a
    step gains under 0.01 in agreement (with `fine`, under 0.002)."""
    w, h = CANON
    small = cv2.resize(planes[0], (w, h), interpolation=cv2.INTER_AREA)
    try:
        warp = align(face, small, 15, 2e-3 if fine else 1e-2)
    except AlignError:
        return None
    if np.abs(warp[:, :2] - np.eye(2)).max() > 0.12 or np.abs(warp[:, 2]).max() > 0.12 * w:
        return None
    warp[:, 2] *= 2.0  # the planes are at twice CANON
    size = (planes.shape[2], planes.shape[1])
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    return np.stack([cv2.warpAffine(p, warp, size, flags=flags, borderMode=cv2.BORDER_REPLICATE)
                     for p in planes])


def read_card(deck: DeckModel, picture: np.ndarray) -> Reading:
    """Compare an upright card picture (and its 180-degree turn) with every face of `deck`,
    then align it on the best face and compare again. A weak reading more like a face than
    like the enrolled back is aligned again to the finest step (`_WEAK_READ`); one weak or
    close to the back (`_BACK_DOUBT`) is aligned on the back too (`_on_backs`)."""
    return read_cards(deck, [picture])[0]


def read_cards(deck: DeckModel, pictures: list[np.ndarray]) -> list[Reading]:
    """`read_card` of each picture; the first comparisons of all of them with the faces
    (before and after the first alignment) made at once (`unaligned_all`)."""
    firsts = unaligned_all(deck, pictures)
    flips = [bool(np.argmax(scores) >= scores.shape[1]) for _planes, _both, scores in firsts]
    readings = _aligned_all(deck, firsts, flips, fine=False)
    return [_checked(deck, first, reading) for first, reading in zip(firsts, readings, strict=True)]


def _checked(deck: DeckModel, first: Unaligned, reading: Reading) -> Reading:
    """A picture's first reading (`first`: its comparison before alignment) made again
    where it is in doubt: the other way up when that compares nearly as well with another
    code (`_TURN_DOUBT`); to the finest step when weak (`_WEAK_READ`); on the back too when
    weak or close to it (`_BACK_DOUBT`)."""
    planes, both, scores = first
    flipped = int(reading.flipped)
    best, rival = int(np.argmax(scores[flipped])), int(np.argmax(scores[1 - flipped]))
    if (reading.back < reading.score and deck.codes[rival] != deck.codes[best]
            and scores[1 - flipped, rival] > scores[flipped, best] - _TURN_DOUBT):
        turned = _aligned_all(deck, [first], [not flipped], fine=False)[0]
        if turned.score > reading.score:
            reading = turned
    if reading.score < _WEAK_READ and 0.0 < reading.back < reading.score:
        reading = _aligned_all(deck, [first], [reading.flipped], fine=True)[0]
    if 0.0 < reading.back < reading.score and (reading.score < _WEAK_READ
                                               or reading.score - reading.back < _BACK_DOUBT):
        reading = replace(reading, back=max(reading.back, _on_backs(deck, planes, both)))
    return reading


def _on_backs(deck: DeckModel, planes: np.ndarray, both: np.ndarray) -> float:
    """The best agreement of a picture with an enrolled back, its planes aligned on each
    back the way up that agrees better before alignment (a back may lie either way)."""
    flipped = _back(deck, both[1]) > _back(deck, both[0])
    chosen = _way_up(planes, flipped)
    best = 0.0
    for k in range(len(deck.back_greys)):
        aligned = _align(chosen, deck.face(k, back=True), fine=True)
        if aligned is not None:
            best = max(best, _back(deck, plane_features(aligned)))
    return best


def _way_up(planes: np.ndarray, flipped: bool) -> np.ndarray:
    """A picture's planes, turned half round when `flipped`."""
    return np.ascontiguousarray(planes[:, ::-1, ::-1]) if flipped else planes


def _back(deck: DeckModel, cells: np.ndarray) -> float:
    """Agreement of a picture's cells with the enrolled back (0 when none is enrolled)."""
    if not len(deck.backs):
        return 0.0
    per_cell = np.matmul(deck.backs.transpose(1, 0, 2), cells[None].transpose(1, 2, 0))
    return float(_agreement(per_cell.transpose(2, 1, 0)).max())


def _aligned_all(deck: DeckModel, firsts: list[Unaligned], flips: list[bool],
                 fine: bool) -> list[Reading]:
    """Readings of pictures from their comparisons before alignment (`firsts`): each the
    way up `flips` says aligned on its best face (to the finest step when `fine`) and
    compared again, all at once; that comparison is kept when better."""
    steps = []
    for (planes, both, scores), flipped in zip(firsts, flips, strict=True):
        side = int(flipped)
        chosen = _way_up(planes, flipped)
        back = _back(deck, both[side])
        # a back is not aligned on a face (`_BACK_LEAD`; a third of the looks at a table)
        clear_back = back >= max(LIKE_BACK, float(scores[side].max()) + _BACK_LEAD)
        aligned = None if clear_back else _align(chosen, deck.face(int(np.argmax(scores[side]))),
                                                 fine)
        steps.append((chosen, back, aligned,
                      None if aligned is None else plane_features(aligned)))
    fresh = [cells for *_, cells in steps if cells is not None]
    again_all = iter(_scores(deck, np.stack(fresh)) if fresh else [])
    out = []
    for (_planes, _both, scores), flipped, (chosen, back, aligned, cells) in zip(
            firsts, flips, steps, strict=True):
        row = scores[int(flipped)]
        if aligned is not None and cells is not None:
            again = next(again_all)
            if again.max() > row.max():
                chosen, row, back = aligned, again, _back(deck, cells)
        out.append(_reading(deck, chosen, row, back, flipped))
    return out


def _reading(deck: DeckModel, chosen: np.ndarray, row: np.ndarray, back: float,
             flipped: bool) -> Reading:
    """The reading of a picture (its planes `chosen`, turned and aligned as read) from its
    agreement with every face (`row`) and with the enrolled back."""
    best = int(np.argmax(row))
    code = deck.codes[best]
    code_of = deck.code_index()
    others = row[code_of != code_of[best]]
    top = float(row[best])
    per_code = np.full(len(CODES), -1.0)
    face_of = np.zeros(len(CODES), int)
    order = np.lexsort((row, code_of))  # by code, then score: the best face of each code last
    best_of_code = np.append(code_of[order][1:] != code_of[order][:-1], True)
    face_of[code_of[order][best_of_code]] = order[best_of_code]
    np.maximum.at(per_code, code_of, row)
    return Reading(code, top, top - float(others.max()), back, bool(flipped), per_code, face_of,
                   chosen[0], chosen[1])
