"""Our own drawn deck (`hardware/camera/drawn/`) and the frames drawn with it (`virtual`)."""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.camera.drawn.faces import ASPECT, drawn_faces, index_box
from hardware.camera.drawn.suits import suit_mask
from hardware.camera.virtual import Lying, OverheadRenderer
from hardware.camera.zones import load_zones
from hardware.cards import CODES_BY_SUIT

ZONES = Path(__file__).resolve().parents[3] / "config" / "camera_zones.toml"


def test_a_whole_deck_and_its_back_are_drawn_quickly_and_once() -> None:
    start = time.perf_counter()
    faces = drawn_faces(300)
    took = time.perf_counter() - start
    assert list(faces) == [*CODES_BY_SUIT, "back"]
    assert {f.shape for f in faces.values()} == {(300, round(300 / ASPECT), 4)}
    assert took < 5.0
    again = drawn_faces(300)
    assert all(again[c] is faces[c] for c in faces)  # cached, and read-only
    with pytest.raises(ValueError):
        faces["AS"][0, 0] = 0


def test_the_card_is_opaque_with_transparent_rounded_corners() -> None:
    face = drawn_faces(480)["QH"]
    alpha = face[..., 3]
    assert alpha[0, 0] == 0 and alpha[-1, -1] == 0 and alpha[240, 171] == 255
    assert (alpha[240, :] == 255).sum() > 330  # the sides are straight and reach the edge


def ink(patch: np.ndarray) -> np.ndarray:
    """Pixels clearly darker than the paper."""
    return patch[..., :3].astype(int).min(axis=-1) < 150


@pytest.mark.parametrize("code", ["AS", "TH", "7D", "QC", "KS", "JD"])
def test_the_index_sits_in_its_box_in_its_colour_and_again_turned_in_the_far_corner(
        code: str) -> None:
    face = drawn_faces(480)[code]
    x0, y0, x1, y1 = index_box(code)
    box = face[y0:y1, x0:x1]
    marked = ink(box)
    assert marked.mean() > 0.2
    b, g, r = (box[..., i][marked].mean() for i in range(3))
    if code[1] in "HD":
        assert r > 150 and g < 90 and b < 90
    else:
        assert max(r, g, b) < 70
    # nothing printed just outside the box's left and top edges (the card's margin)
    assert not ink(face[y0:y1, max(0, x0 - 4):x0]).any()
    assert not ink(face[max(0, y0 - 4):y0, x0:x1]).any()
    turned = face[::-1, ::-1]
    assert np.abs(turned[y0:y1, x0:x1].astype(int) - box.astype(int)).max() <= 1


def test_every_index_differs_and_ten_is_printed_with_two_digits() -> None:
    faces = drawn_faces(240)
    crops = {}
    for code in CODES_BY_SUIT:
        x0, y0, x1, y1 = index_box(code, 240)
        crops[code] = faces[code][y0:y1, x0:x1, :3].tobytes()
    assert len(set(crops.values())) == 52
    widths = {code: index_box(code)[2] - index_box(code)[0] for code in ("9S", "TS", "AS")}
    assert widths["TS"] > widths["9S"] and widths["TS"] > widths["AS"]


def test_the_back_is_patterned_and_shows_no_index() -> None:
    back = drawn_faces(480)["back"]
    middle = back[100:380, 60:280, :3].astype(int)
    assert middle.std() > 20  # a pattern, not a plain colour
    assert middle[..., 0].mean() > middle[..., 2].mean() + 30  # blue
    x0, y0, x1, y1 = index_box("AS")
    assert not ink(back[y0:y1, x0:x1]).mean() > 0.9


def test_the_overhead_frame_lays_each_card_in_its_box() -> None:
    zones = load_zones(ZONES)
    renderer = OverheadRenderer(zones, seed=4)
    cards = [Lying("player1", "KH", True, 1), Lying("banker3", "9C", False, 2),
             Lying("player3", "TD", True, 3), Lying("discard", None, False, -1)]
    frame = renderer.render(cards, 0)
    assert frame.shape == (1080, 1920, 3) and frame.dtype == np.uint8
    for card in cards:
        centre, angle = renderer.placement(card)
        assert zones.zone_of(centre) == card.zone
        sideways = card.zone in ("player3", "banker3")
        assert abs(angle - (90 if sideways else 0)) <= 4
        assert all(zones.zone_of(corner) == card.zone for corner in renderer.quad(card))
    x, y = (int(v) for v in renderer.placement(cards[0])[0])
    assert frame[y, x].min() > 150 or frame[y, x, 2] > 150  # the king's paper or red, on felt
    assert frame[50, 50, 1] > frame[50, 50, 2]  # felt green
    assert np.array_equal(frame, renderer.render(cards, 0))


def _blob(mask: np.ndarray) -> tuple[int, float, float, float]:
    """A suit mask's pieces, ink share, rows spanned and left-right symmetry (IoU)."""
    on = mask > 127
    pieces = cv2.connectedComponents(on.astype(np.uint8))[0] - 1
    rows = np.nonzero(on.any(axis=1))[0]
    mirror = (on & on[:, ::-1]).sum() / (on | on[:, ::-1]).sum()
    return pieces, on.mean(), (rows[-1] - rows[0] + 1) / on.shape[0], mirror


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a > 127, b > 127
    return (a & b).sum() / (a | b).sum()


def test_pip_styles_draw_each_suit_as_one_symmetric_shape_unlike_the_standard_one() -> None:
    """The typeface decks' suit shapes (`Layout.pip_style` 1-8): each still one solid,
    mirror-symmetric symbol as tall as its square, and each style's set differs from the
    standard one (style 0, our own deck) and from the others'."""
    styles = range(9)
    masks = {(k, suit): suit_mask(suit, k) for k in styles for suit in "SHDC"}
    for (k, suit), mask in masks.items():
        pieces, share, tall, mirror = _blob(mask)
        assert pieces == 1, (k, suit)
        assert 0.2 < share < 0.8 and tall > 0.8 and mirror > 0.93, (k, suit, share, tall, mirror)
    for k in styles:
        for other in styles:
            if other != k:
                least = min(_iou(masks[k, s], masks[other, s]) for s in "SHDC")
                assert least < 0.93, (k, other, least)
