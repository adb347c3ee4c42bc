"""The affine alignment of a card picture on a face (align.py), on real card art."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from hardware.camera.align import AlignError, Face, _sums, _Terms, align
from hardware.camera.deck import CANON, DeckModel

_FLAGS = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP


def _grey(face: np.ndarray) -> np.ndarray:
    """A face picture's grey at CANON size, as float32."""
    grey = cv2.cvtColor(face[:, :, :3], cv2.COLOR_BGR2GRAY)
    return cv2.resize(grey, CANON, interpolation=cv2.INTER_AREA).astype(np.float32)


def _corners(warp: np.ndarray) -> np.ndarray:
    w, h = CANON
    box = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], np.float64)
    return box @ warp.astype(np.float64).T


@pytest.mark.parametrize("code", ["7H", "KS", "AD"])
def test_a_moved_face_is_aligned_back_onto_the_face(faces: dict, code: str) -> None:
    """The face shifted by a pixel and a half, turned 3 degrees and scaled 4%: the map found
    puts every corner of the card within a sixth of a pixel of where it was moved to, and
    within a third of a pixel of OpenCV's own ECC (0.16-0.18 px off on these three). The
    face's edges lie off the picture under that map: counted in, they pulled the map up
    to half a pixel off."""
    face = _grey(faces[code])
    w, h = CANON
    moved = cv2.getRotationMatrix2D((w / 2, h / 2), 3.0, 1.04)
    moved[:, 2] += (1.5, -1.0)
    # the picture shows the face as it lies under `moved` (the face's pixel x at moved @ x)
    picture = cv2.warpAffine(face, moved, (w, h), borderMode=cv2.BORDER_REPLICATE)
    warp = align(Face.of(face), picture, 30, 1e-5)
    assert np.abs(_corners(warp) - _corners(moved)).max() < 0.15
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 30, 1e-5)
    _, opencv = cv2.findTransformECC(face, picture, np.eye(2, 3, dtype=np.float32),
                                     cv2.MOTION_AFFINE, criteria, None, 3)
    assert np.abs(_corners(warp) - _corners(opencv)).max() < 0.33
    aligned = cv2.warpAffine(picture, warp, (w, h), flags=_FLAGS, borderMode=cv2.BORDER_REPLICATE)
    inner = (slice(6, h - 6), slice(6, w - 6))
    assert np.corrcoef(aligned[inner].ravel(), face[inner].ravel())[0, 1] > 0.98


def test_a_blank_picture_does_not_align(faces: dict) -> None:
    """Nothing in the picture correlates with the face: an AlignError, not a made-up map."""
    face = Face.of(_grey(faces["9C"]))
    with pytest.raises(AlignError):
        align(face, np.full(CANON[::-1], 128.0, np.float32), 15, 1e-2)


def test_a_steps_limit_and_a_gain_limit_stop_the_search(faces: dict) -> None:
    """One step moves the map part of the way; the gain limit stops it early."""
    face = _grey(faces["5S"])
    w, h = CANON
    moved = np.float32([[1, 0, 2.0], [0, 1, 1.5]])
    picture = cv2.warpAffine(face, moved, (w, h), borderMode=cv2.BORDER_REPLICATE)
    model = Face.of(face)
    one, many = align(model, picture, 1, 0.0), align(model, picture, 30, 1e-6)
    error = {name: np.abs(_corners(warp) - _corners(moved)).max()
             for name, warp in (("none", np.eye(2, 3)), ("one", one), ("many", many))}
    assert error["many"] < error["one"] < error["none"]
    assert np.array_equal(align(model, picture, 30, 10.0), one)  # no gain is 10 or more


def test_a_deck_works_out_each_face_once(faces: dict) -> None:
    deck = DeckModel.from_faces("tango", faces)
    first = deck.face(3)
    assert deck.face(3) is first
    assert np.array_equal(first.smooth, Face.of(deck.greys[3]).smooth)


def test_the_pixels_a_map_takes_off_the_picture_are_left_out(faces: dict) -> None:
    """Shifted a pixel and a half right and one up, the face loses two columns on the right
    and its top row; a map taking most of the face off (shifted most of a card's width, or
    blown up three times, past every edge at once) does not align."""
    face = Face.of(_grey(faces["KH"]))
    w, h = CANON
    assert face.margins(np.float64([[1, 0, 1.5], [0, 1, -1.0]])) == (0, 2, 1, 0)
    assert face.margins(np.eye(2, 3)) == (0, 0, 0, 0)
    for warp in (np.float64([[1, 0, 0.7 * w], [0, 1, 0]]),
                 np.float64([[3, 0, -w], [0, 3, -h]])):
        with pytest.raises(AlignError):
            face.margins(warp)


@pytest.mark.parametrize("margins", [(0, 0, 0, 0), (2, 0, 1, 0), (0, 3, 0, 2), (1, 2, 3, 4)])
def test_the_terms_less_margins_are_those_of_the_pixels_kept(faces: dict,
                                                             margins: tuple) -> None:
    """The terms over a face less margins, made as the sums over the whole face less those
    over its edge rows and columns, are the terms of the pixels kept, summed afresh."""
    face = Face.of(_grey(faces["QC"]))
    left, right, top, bottom = margins
    h, w = face.smooth.shape
    rows, cols = slice(top, h - bottom), slice(left, w - right)
    direct = _Terms.of(_sums(face.smooth[rows, cols].reshape(-1),
                             face.motion[:, rows, cols].reshape(6, -1)))
    got = face.terms(margins)
    for mine, fresh in zip(dataclasses.astuple(got), dataclasses.astuple(direct), strict=True):
        np.testing.assert_allclose(mine, fresh, rtol=1e-6, atol=1e-6 * abs(direct.norm2))


def test_the_margins_keep_every_face_pixel_on_the_picture(faces: dict) -> None:
    """Under maps turned, scaled and shifted every way, every pixel of the face within the
    margins found lands on the picture, and no margin is wider than the farthest a corner
    of the face is moved (rounded up, plus one)."""
    face = Face.of(_grey(faces["9D"]))
    h, w = face.smooth.shape
    rng = np.random.default_rng(5)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    corners = np.array([[0, w - 1, w - 1, 0], [0, 0, h - 1, h - 1], [1, 1, 1, 1]], float)
    for _ in range(200):
        warp = cv2.getRotationMatrix2D((w / 2, h / 2), rng.uniform(-6, 6), rng.uniform(0.94, 1.06))
        warp[:, 2] += rng.uniform(-4, 4, 2)
        left, right, top, bottom = face.margins(warp)
        x, y = xs[top : h - bottom, left : w - right], ys[top : h - bottom, left : w - right]
        u = warp[0, 0] * x + warp[0, 1] * y + warp[0, 2]
        v = warp[1, 0] * x + warp[1, 1] * y + warp[1, 2]
        assert u.min() >= 0 and u.max() <= w - 1 and v.min() >= 0 and v.max() <= h - 1
        moved = np.abs(warp @ corners - corners[:2]).max()
        assert max(left, right, top, bottom) <= np.ceil(moved) + 1
