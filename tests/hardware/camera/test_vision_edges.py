"""Moving a coarse quad's sides onto the card's edges: a card's shadow on the felt and a
printed layout line along part of a side must not pull a side off the card."""

from __future__ import annotations

import cv2
import numpy as np

from hardware.camera.edges import refine_quad, refine_quads

FELT = (40, 110, 30)  # BGR


def _card_quad(centre: tuple[float, float], size: tuple[float, float], degrees: float) -> np.ndarray:
    """Corners clockwise from the top-left of a card turned by `degrees`."""
    w, h = size
    corners = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    a = np.radians(degrees)
    turn = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return corners @ turn.T + np.array(centre)


def _scene(quad: np.ndarray, shadow: bool, line: bool) -> np.ndarray:
    """A felt picture (drawn at 4x and shrunk, so edges are soft as a camera's) with a white
    card at `quad`, optionally its shadow down and to the right, and a printed line."""
    k = 4
    big = np.zeros((400 * k, 400 * k, 3), np.uint8)
    big[:] = FELT
    if shadow:  # felt in shade, a few pixels beyond the card's bottom and right sides
        shade = np.round((quad + [4, 4]) * k).astype(np.int32)
        cv2.fillConvexPoly(big, shade, tuple(round(0.65 * c) for c in FELT))
    if line:  # a printed white line beside the card's left side, touching its lower half
        start = quad[0] + [-5, 0.55 * (quad[3][1] - quad[0][1])]
        end = quad[3] + [-5, 30]
        cv2.line(big, tuple(np.round(start * k).astype(int)), tuple(np.round(end * k).astype(int)),
                 (235, 235, 235), 3 * k)
    cv2.fillConvexPoly(big, np.round(quad * k).astype(np.int32), (245, 245, 245))
    small = cv2.resize(big, (400, 400), interpolation=cv2.INTER_AREA)
    return np.asarray(cv2.GaussianBlur(small, (0, 0), 0.8))


def _worst_corner(found: np.ndarray, truth: np.ndarray) -> float:
    return float(np.linalg.norm(found - truth, axis=1).max())


def test_sides_land_on_the_card_edges() -> None:
    truth = _card_quad((200, 200), (110, 160), 8.0)
    coarse = _card_quad((201.5, 198.5), (114, 156), 6.5)  # as a half-size mask gives it
    frame = _scene(truth, shadow=False, line=False)
    assert _worst_corner(coarse, truth) > 3.0
    assert _worst_corner(refine_quad(frame, coarse), truth) < 1.5


def test_a_shadow_on_the_felt_is_not_the_card() -> None:
    truth = _card_quad((200, 200), (110, 160), 8.0)
    coarse = _card_quad((202, 201), (113, 163), 8.0)  # the mask took some of the shadow
    frame = _scene(truth, shadow=True, line=False)
    assert _worst_corner(refine_quad(frame, coarse), truth) < 1.5


def test_a_printed_line_along_part_of_a_side_does_not_tilt_it() -> None:
    truth = _card_quad((200, 200), (110, 160), 0.0)
    coarse = _card_quad((200.5, 199.5), (112, 162), 0.0)
    frame = _scene(truth, shadow=True, line=True)
    assert _worst_corner(refine_quad(frame, coarse), truth) < 2.0


def test_the_cards_of_a_frame_refined_together_are_refined_each_as_alone() -> None:
    # three cards, two probed alike and one big one probed deeper, refined in one call
    truths = [_card_quad((75, 110), (90, 130), 5.0), _card_quad((200, 110), (90, 130), -4.0),
              _card_quad((290, 280), (150, 210), 90.0)]
    coarses = [_card_quad((76.5, 108.5), (93, 127), 3.5), _card_quad((198.5, 111), (87, 133), -2.5),
               _card_quad((291, 278.5), (153, 206), 88.5)]
    k = 4
    big = np.zeros((400 * k, 400 * k, 3), np.uint8)
    big[:] = FELT
    for quad in truths:
        cv2.fillConvexPoly(big, np.round(quad * k).astype(np.int32), (245, 245, 245))
    frame = np.asarray(cv2.GaussianBlur(cv2.resize(big, (400, 400), interpolation=cv2.INTER_AREA),
                                        (0, 0), 0.8))
    together = refine_quads(frame, coarses)
    assert refine_quads(frame, []) == []
    for quad, coarse, truth in zip(together, coarses, truths, strict=True):
        assert np.array_equal(quad, refine_quad(frame, coarse))
        assert _worst_corner(quad, truth) < 1.5
