"""The felt's masks (felt.py) on generated frames of a held-out design: the paper mask holds
the cards only, and skipping the tiles of felt alone changes no mask pixel."""

from __future__ import annotations

import cv2
import numpy as np

import hardware.camera.felt as felt
from hardware.camera.felt import all_masks, masks
from hardware.camera.synth.scene import frames
from tests.hardware.camera.glare import under_glare, white_cards


def test_printed_lines_and_glare_are_not_paper(faces: dict) -> None:
    """The paper mask (where face-up cards are looked for first) holds the cards only."""
    frame = frames(faces, 1, seed=11, occlusion=0.0)[0]
    _, paper = masks(frame.image)
    inside = np.zeros_like(paper)
    for truth in frame.cards:
        cv2.fillConvexPoly(inside, np.round(truth.quad * 0.5).astype(np.int32), 255)
    outside_paper = np.count_nonzero(paper & ~inside) / max(np.count_nonzero(paper), 1)
    assert outside_paper < 0.05, f"{outside_paper:.1%} of the paper mask lies off the cards"


def _masks_both_ways(image: np.ndarray, monkeypatch) -> tuple[tuple, tuple, float]:
    """`all_masks` as it runs, skipping tiles of felt alone (`felt._busy`), and with every
    tile worked out; and the share of tiles worked out."""
    real_busy = felt._busy
    shares = []

    def spied(*args: np.ndarray) -> np.ndarray:
        busy = real_busy(*args)
        shares.append(float(busy.mean()))
        return busy

    monkeypatch.setattr(felt, "_busy", spied)
    skipping = all_masks(image)
    monkeypatch.setattr(felt, "_busy", lambda *args: np.ones_like(real_busy(*args)))
    every = all_masks(image)
    monkeypatch.setattr(felt, "_busy", real_busy)
    return skipping, every, shares[0]


def _same_masks(skipping: tuple, every: tuple) -> None:
    for name, got, want in zip(("not felt", "paper", "grey"), skipping[:3], every[:3],
                               strict=True):
        assert got.shape == want.shape
        assert np.array_equal(got, want), f"{name}: {np.count_nonzero(got != want)} pixels"
    assert (skipping[3] is None) == (every[3] is None)
    if every[3] is not None:
        assert np.array_equal(skipping[3].paper, every[3].paper)


def test_tiles_of_felt_alone_are_skipped_without_changing_a_mask_pixel(faces: dict,
                                                                        monkeypatch) -> None:
    """The masks are worked out only in the tiles where a quarter-size look finds anything
    but felt (`felt._busy`): on generated frames (hands, chips, printed lines, glare), one
    with a white card under a glare spot, and one cropped to a size of no whole tiles, every
    mask pixel is as when every tile is worked out; and most tiles are skipped."""
    images = [frame.image for frame in frames(faces, 4, seed=12)]
    white = white_cards(faces, 0)
    images.append(under_glare(white.image.astype(np.float32), white.cards[0].quad, 120.0))
    images.append(np.ascontiguousarray(images[1][:1001, :1703]))
    shares, glared = [], []
    for image in images:
        skipping, every, share = _masks_both_ways(image, monkeypatch)
        _same_masks(skipping, every)
        shares.append(share)
        glared.append(every[3] is not None)
    assert glared[4], "the frame under glare holds no paper under glare"
    assert max(shares) < 0.6 and np.median(shares) < 0.45, f"busy shares {np.round(shares, 2)}"


def test_a_faint_line_and_a_rim_across_a_tiles_edge_are_not_skipped(monkeypatch) -> None:
    """What a quarter-size look dilutes most: a line of grey ink a pixel wide (at half size)
    holding half the felt, which the grey mask keeps; and a rim a pixel wide, off the felt's
    colour plane, beside a dark patch but across the edge of its tile. Both are in the masks
    as when every tile is worked out."""
    felt_colour = np.array([40.0, 110.0, 30.0])
    rng = np.random.default_rng(3)
    image = felt_colour + rng.normal(0, 2, (1080, 1920, 3))
    grey_ink = 0.5 * felt_colour + 0.5 * np.array([180.0, 180.0, 180.0])
    image[100:1000, 1002:1004] = grey_ink  # one half-size column, in no tile's first
    normal = np.cross(felt_colour, np.ones(3))
    image[300:600, 200:480] = (20, 20, 20)  # a dark patch up to a tile's edge (half-size 240)
    image[300:600, 480:482] = felt_colour + 30.0 * normal / np.linalg.norm(normal)  # its rim
    image = np.clip(image, 0, 255).astype(np.uint8)
    skipping, every, share = _masks_both_ways(image, monkeypatch)
    _same_masks(skipping, every)
    light = skipping[2] > 0
    assert light[60:490, 501].mean() > 0.9, "the faint line is not in the grey mask"
    assert (skipping[0][160:290, 240] > 0).mean() > 0.9, "the rim is not in the not-felt mask"
    assert share < 0.3
