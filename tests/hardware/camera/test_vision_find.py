"""The runtime's first stage on hand-made network outputs: the finder's maps to index and
back spots, and the crops cut around them (no model needed)."""

from __future__ import annotations

import numpy as np
import pytest

from hardware.camera.find import Finder, IndexSpot, peaks, working_picture
from hardware.camera.model.crop import cut_index
from hardware.camera.model.settings import Settings
from hardware.camera.model.spec import (
    CROP_H,
    CROP_W,
    HEAT_BACK,
    HEAT_INDEX,
    LOG_WIDTH,
    MAP_CHANNELS,
    MAP_STRIDE,
    TO_CENTRE_X,
    TO_CENTRE_Y,
    UP_COS,
    UP_SIN,
)
from hardware.camera.read import crops

SETTINGS = Settings()


def _maps(h: int, w: int) -> np.ndarray:
    return np.zeros((MAP_CHANNELS, h // MAP_STRIDE, w // MAP_STRIDE), np.float32)


def _index(maps: np.ndarray, i: int, j: int, up: tuple[float, float], width: float,
           to_centre: tuple[float, float], heat: float = 0.9) -> None:
    maps[HEAT_INDEX, i, j] = heat
    maps[HEAT_INDEX, i, j + 1] = maps[HEAT_INDEX, i, j - 1] = heat / 2  # the bump's shoulders
    for channel, value in ((UP_COS, 2 * up[0]), (UP_SIN, 2 * up[1]),  # not unit: normalised
                           (LOG_WIDTH, np.log(width)), (TO_CENTRE_X, to_centre[0]),
                           (TO_CENTRE_Y, to_centre[1])):
        maps[channel, i, j] = value


def test_the_working_picture_is_shrunk_to_the_long_side_and_padded() -> None:
    picture, scale = working_picture(np.full((1080, 1920, 3), 255, np.uint8))
    assert scale == pytest.approx(1024 / 1920)
    assert picture.shape == (1, 3, 576, 1024) and picture.dtype == np.float32
    assert picture.max() == pytest.approx(1.0)
    picture, scale = working_picture(np.full((100, 50, 3), 255, np.uint8))
    assert scale == 1.0 and picture.shape == (1, 3, 128, 64)  # never enlarged; zero padding
    assert picture[0, :, 100:].max() == 0.0 and picture[0, :, :, 50:].max() == 0.0


def test_peaks_are_local_maxima_above_the_threshold_strongest_first() -> None:
    heat = np.zeros((20, 20), np.float32)
    heat[5, 5], heat[5, 6] = 0.9, 0.8  # one bump: only its top is a peak
    heat[15, 12] = 0.95
    heat[2, 17] = 0.2  # below the threshold
    assert peaks(heat, 0.3) == [(15, 12), (5, 5)]


def test_an_index_spot_is_read_from_the_peak_cell_in_frame_pixels() -> None:
    """Maps of a 1920x1080 frame (working 1024x576): an index at cell (40, 100), the card
    120 working pixels wide, its centre 0.5 card widths right and 0.7 down of the index."""
    maps = _maps(576, 1024)
    _index(maps, 40, 100, (0.0, -1.0), 120.0, (0.5, 0.7))
    maps[HEAT_BACK, 100, 200] = 0.8
    _index(maps, 140, 254, (1.0, 0.0), 60.0, (0.0, 0.0), 0.8)  # past a narrower frame's edge
    scale = 1024 / 1920
    spots, backs = Finder(SETTINGS).spots(maps, scale, (1080, 1920))
    assert len(spots) == 2
    spot = spots[0]
    assert spot.at == pytest.approx(((100.5 * 4) / scale, (40.5 * 4) / scale))
    assert spot.up == pytest.approx((0.0, -1.0))
    assert spot.width == pytest.approx(120 / scale, rel=1e-5)
    assert spot.card_centre == pytest.approx(((100.5 * 4 + 60) / scale, (40.5 * 4 + 84) / scale))
    assert [b.at for b in backs] == [pytest.approx((200.5 * 4 / scale, 100.5 * 4 / scale))]
    spots, _ = Finder(SETTINGS).spots(maps, scale, (1080, 1900))
    assert len(spots) == 1  # column 254 lies past a 1900-pixel frame's working width



def test_a_big_cards_crop_is_cut_from_a_halved_frame_and_shows_the_same() -> None:
    """A card 800 px wide is cut from the frame halved twice (blurred, no aliasing): the crop
    shows what a crop of the frame shrunk by area shows, and a fine stripe pattern comes out
    grey, not as a false coarse pattern."""
    import cv2

    frame = np.full((2000, 2000, 3), 255, np.uint8)
    frame[::2] = 0  # one-pixel stripes: aliasing would show them as bands
    cv2.putText(frame, "Q", (850, 1150), cv2.FONT_HERSHEY_SIMPLEX, 12, (0, 0, 255), 40)
    spot = IndexSpot((1000.0, 1000.0), (0.0, -1.0), 800.0, (1200.0, 1300.0), 0.9)
    (crop,) = crops(frame, [spot], SETTINGS)
    assert crop.shape == (3, CROP_H, CROP_W)
    small = cv2.resize(frame, (500, 500), interpolation=cv2.INTER_AREA)
    expected = cut_index(small, (250.0, 250.0), (0.0, -1.0), 200.0).astype(np.float32) / 255
    assert float(np.abs(crop.transpose(1, 2, 0) - expected).mean()) < 0.03
    stripes = crop[:, :8].mean(axis=0)
    assert float(stripes.std()) < 0.05  # the stripes blurred to an even grey


def test_big_cards_crops_are_the_same_as_from_the_whole_frame_halved() -> None:
    """Only the parts of the frame that big cards' crops need are halved: each crop is, to the
    bit, the one cut from the whole frame halved as often (cv2.pyrDown, level on level), for a
    card alone or cards of several sizes at once, at the frame's edges and corners, inside it,
    on odd frame sizes."""
    import cv2

    rng = np.random.default_rng(11)
    checked = 0
    for h, w in ((1080, 1920), (1001, 1777), (3001, 2003)):
        frame = cv2.GaussianBlur(rng.integers(0, 256, (h, w, 3), dtype=np.uint8), (0, 0), 1.5)
        halved = [frame]
        while min(halved[-1].shape[:2]) >= 4:
            halved.append(cv2.pyrDown(halved[-1]))
        spots = []
        for _ in range(12):
            turn = rng.uniform(0, 2 * np.pi)
            at = (float(rng.choice([0.0, w - 1.0, rng.uniform(0, w)])),
                  float(rng.choice([0.0, h - 1.0, rng.uniform(0, h)])))
            spots.append(IndexSpot(at, (float(np.cos(turn)), float(np.sin(turn))),
                                   float(rng.uniform(30, 1600)), at, 0.9))
        together = crops(frame, spots, SETTINGS)  # a level's box spans all its crops
        alone = [crops(frame, [spot], SETTINGS)[0] for spot in spots]  # just around one
        for spot, crop, by_itself in zip(spots, together, alone, strict=True):
            assert np.array_equal(crop, by_itself)
            k = 0
            while spot.width / 2 ** k > SETTINGS.crop_card_width:
                k += 1
            f = 0.5 ** k
            expected = cut_index(halved[k], (spot.at[0] * f, spot.at[1] * f), spot.up,
                                 spot.width * f).astype(np.float32) * (1.0 / 255.0)
            assert np.array_equal(crop.transpose(1, 2, 0), expected), (h, w, spot, k)
            checked += k > 0
    assert checked >= 20  # most of them from halved copies, some twice or more


def test_a_frame_halved_in_parts_is_the_whole_frame_halved_there() -> None:
    """`read._halvings`: inside every box asked for, at every level, each pixel is what
    halving the whole frame as often gives; boxes may reach past the frame or miss it."""
    import cv2

    from hardware.camera.read import _halvings

    rng = np.random.default_rng(5)
    compared = 0
    for _ in range(300):
        h, w = (int(v) for v in rng.integers(1, 300, 2))
        frame = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        wanted = sorted({int(k) for k in rng.integers(1, 5, int(rng.integers(1, 4)))})
        whole = [frame]
        for _ in range(max(wanted)):
            whole.append(cv2.pyrDown(whole[-1]))
        needs: dict[int, list[tuple[int, int, int, int]]] = {}
        for k in wanted:
            lh, lw = whole[k].shape[:2]
            for _ in range(int(rng.integers(1, 4))):
                x0, y0 = int(rng.integers(-5, lw + 2)), int(rng.integers(-5, lh + 2))
                needs.setdefault(k, []).append((x0, y0, x0 + int(rng.integers(1, lw + 5)),
                                                y0 + int(rng.integers(1, lh + 5))))
        got = _halvings(frame, needs)
        for k, boxes in needs.items():
            assert got[k].shape == whole[k].shape
            for x0, y0, x1, y1 in boxes:
                inside = (slice(max(0, y0), max(0, y1)), slice(max(0, x0), max(0, x1)))
                assert np.array_equal(got[k][inside], whole[k][inside]), (h, w, k, x0, y0)
                compared += got[k][inside].size > 0
    assert compared > 500
