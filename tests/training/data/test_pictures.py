"""The learned recognizer's synthetic training data (`training/data/pictures.py`), on real
card art: shapes, heat on visible indices only, geometry that matches the laid card, reader
crops that show the card they are labelled with, held-out designs never used, seeds repeat."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.camera.model.crop import cut_index
from hardware.camera.model.spec import (
    CLASSES,
    CROP_H,
    CROP_W,
    HEAT_BACK,
    HEAT_INDEX,
    LOG_WIDTH,
    MAP_CHANNELS,
    MAP_STRIDE,
    NOT_A_CARD,
    TO_CENTRE_X,
    TO_CENTRE_Y,
    UP_COS,
    UP_SIN,
)
from tests.cardart import TRAINING_DESIGN
from training.art.artwork import plain_backs
from training.art.decks import APT_PACKAGES, HELD_OUT, missing_card_art
from training.data import crops, pictures, scenes
from training.data.crops import reader_sample
from training.data.pictures import Artwork, Card, compose, finder_sample

DESIGN = TRAINING_DESIGN  # the `art` fixture's


def test_a_jumbo_index_printing_has_its_larger_indices_found(art: Artwork) -> None:
    both = Artwork.load([DESIGN], progress=False)
    assert both.names[:2] == [DESIGN, f"{DESIGN}+jumbo"]
    plain, jumbo = both.faces[0]["7H"].indices[0], both.faces[1]["7H"].indices[0]
    assert (jumbo.y1 - jumbo.y0) > 1.25 * (plain.y1 - plain.y0)
    assert len(both.faces[1]) == 52


def test_held_out_designs_are_never_trained_on() -> None:
    names = pictures.designs_for_training()
    assert names and not set(names) & set(HELD_OUT)
    with pytest.raises(ValueError, match="held out"):
        Artwork.load([HELD_OUT[0]], progress=False)


def test_held_out_art_loads_only_to_score_on() -> None:
    why = missing_card_art((HELD_OUT[0],))
    if why:
        pytest.skip(f"SKIPPED LOUDLY: no card art ({why}); CI installs {' '.join(APT_PACKAGES)}")
    scoring = Artwork.load([HELD_OUT[0]], progress=False, evaluation=True)
    assert scoring.names == [HELD_OUT[0]]  # no variants of it either


def test_a_house_deck_is_enrolled_from_pictures_of_its_faces(art: Artwork) -> None:
    house = Artwork.load([DESIGN], progress=False, variants=False)
    # the house's pictures: the faces flattened onto white and larger than the cache's
    pictures = {}
    for code, face in art.faces[0].items():
        bgr = face.levels[0][:, :, :3].astype(np.float32)
        alpha = face.levels[0][:, :, 3:4].astype(np.float32) / 255
        flat = (bgr * alpha + 255 * (1 - alpha)).astype(np.uint8)
        pictures[code] = cv2.resize(flat, None, fx=1.5, fy=1.5)
    pictures["XX"] = pictures["QS"]  # not a code: left out
    kept = house.enrol("house", pictures)
    assert kept >= 48  # an index found on (nearly) every face, at the pictures' own size
    assert house.names == [DESIGN, "house"] and len(house.faces[1]) == kept
    codes = list(house.faces[1])[::17][:3]
    assert house.faces[1][codes[0]].levels[0].shape[2] == 4
    rng = np.random.default_rng(2)
    designs = [1] * 3
    cards = [Card(c, (100.0 + 90 * k, 192.0), 80.0, 0.0) for k, c in enumerate(codes)]
    sample, _ = compose(rng, house, (384, 384), cards, designs, np.eye(3), clutter=False,
                        camera=False)
    assert np.count_nonzero(sample.maps[HEAT_INDEX] == 1.0) == 6


@pytest.mark.parametrize("size", [(384, 384), (320, 256)])
def test_finder_sample_shapes(art: Artwork, size: tuple[int, int]) -> None:
    rng = np.random.default_rng(1)
    for _ in range(6):
        sample = finder_sample(rng, art, size)
        w, h = size
        assert sample.image.shape == (h, w, 3) and sample.image.dtype == np.uint8
        assert sample.maps.shape == (MAP_CHANNELS, h // MAP_STRIDE, w // MAP_STRIDE)
        assert sample.maps.dtype == np.float32 and sample.geo_mask.dtype == np.float32
        assert sample.geo_mask.shape == (h // MAP_STRIDE, w // MAP_STRIDE)
        heat = sample.maps[[HEAT_INDEX, HEAT_BACK]]
        assert heat.min() >= 0.0 and heat.max() <= 1.0
        # geometry is defined only where an index's heat is high
        assert np.all(sample.maps[HEAT_INDEX][sample.geo_mask > 0] >= 0.6)
        up = sample.maps[[UP_COS, UP_SIN]][:, sample.geo_mask > 0]
        assert np.allclose(np.hypot(up[0], up[1]), 1.0, atol=1e-4)
    with pytest.raises(ValueError, match="multiples of 32"):
        finder_sample(rng, art, (100, 100))


def _lay(art: Artwork, cards: list[Card]) -> tuple[pictures.FinderSample, list]:
    rng = np.random.default_rng(7)
    return compose(rng, art, (384, 384), cards, [0] * len(cards), np.eye(3),
                   clutter=False, camera=False)


def _index_centres(card) -> list[np.ndarray]:
    matrix = card.to_picture()
    return [pictures.index_geometry(card, box, matrix)[1] for box in card.face.indices]


def _cell(at: np.ndarray) -> tuple[int, int]:
    return int(at[1] // MAP_STRIDE), int(at[0] // MAP_STRIDE)


def test_heat_on_every_visible_index_and_none_on_a_covered_one(art: Artwork) -> None:
    # the 5 of hearts lies upright; the king of spades on top covers its top-left corner;
    # a face-down card lies apart
    cards = [Card("5H", (150.0, 190.0), 110.0, 0.0), Card("KS", (110.0, 120.0), 110.0, 0.0),
             Card(None, (310.0, 300.0), 80.0, 30.0)]
    sample, laid = _lay(art, cards)
    heat = sample.maps[HEAT_INDEX]
    covered, shown = _index_centres(laid[0])  # top-left (under the king), bottom-right
    assert heat[_cell(covered)] == 0.0
    assert heat[_cell(shown)] == 1.0
    for at in _index_centres(laid[1]):
        assert heat[_cell(at)] == 1.0
    peaks = np.argwhere(heat == 1.0)
    assert len(peaks) == 3  # one peak per visible index, nothing else
    back = sample.maps[HEAT_BACK]
    assert back[_cell(laid[2].quad.mean(axis=0))] == 1.0 and np.count_nonzero(back == 1.0) == 1


def test_an_index_cut_by_the_picture_edge_gets_no_heat(art: Artwork) -> None:
    sample, laid = _lay(art, [Card("7C", (20.0, 40.0), 120.0, 0.0)])
    top_left, bottom_right = _index_centres(laid[0])
    assert top_left[0] < 20 and sample.maps[HEAT_INDEX].max() == 1.0
    assert sample.maps[HEAT_INDEX][_cell(bottom_right)] == 1.0
    assert np.count_nonzero(sample.maps[HEAT_INDEX] == 1.0) == 1


@pytest.mark.parametrize("angle", [0.0, 90.0, 200.0])
def test_geometry_at_an_index_is_the_laid_cards(art: Artwork, angle: float) -> None:
    width = 100.0
    centre = np.array([192.0, 192.0])
    sample, laid = _lay(art, [Card("QD", (192.0, 192.0), width, angle)])
    rad = np.deg2rad(angle)
    card_up = np.array([-np.sin(rad), -np.cos(rad)])  # the card's top, in picture coordinates
    for at, sign in zip(_index_centres(laid[0]), (1.0, -1.0), strict=True):
        i, j = _cell(at)
        assert sample.geo_mask[i, j] == 1.0
        up = sample.maps[[UP_COS, UP_SIN], i, j]
        assert np.allclose(up, sign * card_up, atol=1e-3)  # the bottom index reads upside down
        assert sample.maps[LOG_WIDTH, i, j] == pytest.approx(np.log(width), abs=1e-3)
        to_centre = sample.maps[[TO_CENTRE_X, TO_CENTRE_Y], i, j]
        assert np.allclose(at + to_centre * width, centre, atol=0.5)
        # the index lies up and to the side of the centre: about 0.4 card heights up
        assert 0.35 * width < float(np.dot(at - centre, sign * card_up)) < 0.7 * width


def _reference(art: Artwork, code: str) -> np.ndarray:
    """A clean upright crop of `code`'s top-left index, cut the runtime's way."""
    sample, laid = _lay(art, [Card(code, (192.0, 192.0), 150.0, 0.0)])
    matrix = laid[0].to_picture()
    _, at, up = pictures.index_geometry(laid[0], laid[0].face.indices[0], matrix)
    return cut_index(sample.image, (float(at[0]), float(at[1])), (float(up[0]), float(up[1])), 150.0)


def _likeness(crop: np.ndarray, reference: np.ndarray) -> float:
    """How well the middle of `reference` (the rank and pip) matches somewhere in `crop`:
    the best normalised correlation over small shifts, on softened grey pictures."""
    grey = [cv2.GaussianBlur(cv2.cvtColor(p, cv2.COLOR_BGR2GRAY), (0, 0), 1.2).astype(np.float32)
            for p in (crop, reference)]
    best = -1.0
    for scale in (0.8, 0.9, 1.0, 1.1):  # the finder's width is a little off
        middle = cv2.resize(grey[1][12:52, 6:34], None, fx=scale, fy=scale)
        best = max(best, float(cv2.matchTemplate(grey[0], middle, cv2.TM_CCOEFF_NORMED).max()))
    return best


def test_a_reader_crop_shows_the_card_it_is_labelled_with(art: Artwork) -> None:
    codes = ["QH", "5S", "9D", "AC", "TH", "6S"]
    references = {c: _reference(art, c) for c in codes}
    rng = np.random.default_rng(3)
    right = read = 0
    for _ in range(12):
        for code in codes:
            crop, label = reader_sample(rng, art, code)
            assert crop.shape == (CROP_H, CROP_W, 3) and crop.dtype == np.uint8
            assert CLASSES[label] in (code, NOT_A_CARD)
            if CLASSES[label] == NOT_A_CARD:
                continue
            read += 1
            scores = {c: _likeness(crop, ref) for c, ref in references.items()}
            right += max(scores, key=scores.__getitem__) == code
    assert read >= 40
    assert right / read > 0.7, f"{right} of {read} crops look most like their own label"


def test_reader_samples_cover_every_class_and_negatives(art: Artwork) -> None:
    rng = np.random.default_rng(5)
    labels = [reader_sample(rng, art)[1] for _ in range(600)]
    none_share = labels.count(CLASSES.index(NOT_A_CARD)) / len(labels)
    assert 0.1 < none_share < 0.5
    assert len(set(labels)) > 45  # nearly all 53 classes in 600 draws


def test_same_seed_same_sample(art: Artwork) -> None:
    one = finder_sample(np.random.default_rng(11), art)
    two = finder_sample(np.random.default_rng(11), art)
    assert np.array_equal(one.image, two.image) and np.array_equal(one.maps, two.maps)
    three = finder_sample(np.random.default_rng(12), art)
    assert not np.array_equal(one.image, three.image)
    crop1, label1 = reader_sample(np.random.default_rng(4), art)
    crop2, label2 = reader_sample(np.random.default_rng(4), art, fans=0.0)
    assert label1 == label2 and np.array_equal(crop1, crop2)  # no fans: the crops of before
    fan1 = reader_sample(np.random.default_rng(4), art, fans=1.0)[0]
    assert np.array_equal(fan1, reader_sample(np.random.default_rng(4), art, fans=1.0)[0])
    assert not np.array_equal(fan1, crop1)


def test_a_fan_crop_lies_among_its_decks_cards_a_strip_apart(art: Artwork) -> None:
    """`fans` lays the crop's card in a dense fan of its own deck: one to four cards under it
    to its left, none to three on it to its right, each a tenth to a quarter of a card width
    past the last (a few degrees' turn and a little slip aside), drawn bottom first."""
    rng = np.random.default_rng(2)
    for _ in range(6):
        face, code = pictures.pick_face(rng, art, 0)
        quad = pictures.card_corners(np.array([300.0, 300.0]), 100.0, face.aspect, 30.0)
        card = pictures.Laid(face, code, quad, 0)
        canvas = pictures.Canvas.over(pictures.background(rng, art.bank, (600, 600), layout=0.0,
                                                  second=0.0))
        laid = crops._fan_around(rng, art, card, 0, 100.0, 30.0, canvas)
        k = next(i for i, c in enumerate(laid) if c is card)
        assert 1 <= k <= 4 and len(laid) - k - 1 <= 3
        assert [c.who for c in laid] == list(range(len(laid)))
        assert all(c.code in art.faces[0] for c in laid)
        for low, high in zip(laid, laid[1:], strict=False):
            across = (low.quad[1] - low.quad[0]) / 100.0
            step = float(np.dot(high.quad.mean(axis=0) - low.quad.mean(axis=0), across)) / 100.0
            assert 0.06 <= step <= 0.3, step
    crop, label = reader_sample(np.random.default_rng(4), art, fans=1.0)
    assert crop.shape == (CROP_H, CROP_W, 3) and 0 <= label < len(CLASSES)
    labels = [reader_sample(rng, art, fans=1.0)[1] for _ in range(200)]
    assert 0.1 < labels.count(CLASSES.index(NOT_A_CARD)) / len(labels) < 0.6
    assert len(set(labels)) > 30


def _labels_and_shares(art: Artwork, fans: float, monkeypatch: pytest.MonkeyPatch,
                       count: int) -> list[tuple[int, float]]:
    """Each crop's label with the share of its index in view, where one was measured: the
    real `visible_share` is watched, not replaced."""
    seen: list[float] = []
    real = scenes.visible_share

    def watched(*args: object, **kwargs: object) -> float:
        seen.append(real(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(scenes, "visible_share", watched)
    rng, out = np.random.default_rng(5), []
    for _ in range(count):
        seen.clear()
        _, label = reader_sample(rng, art, fans=fans)
        if seen and label != CLASSES.index(NOT_A_CARD):
            out.append((label, seen[-1]))
    return out


def test_a_fan_crop_is_read_only_when_nearly_all_its_index_shows(
        art: Artwork, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a dense fan a neighbour's edge crosses the index: a crop there is labelled with its
    code only when `FAN_READ_SHARE` of the index shows; elsewhere `READ_SHARE` is enough."""
    fanned = _labels_and_shares(art, 1.0, monkeypatch, 120)
    assert len(fanned) > 40
    assert min(share for _, share in fanned) >= crops.FAN_READ_SHARE[0]
    apart = _labels_and_shares(art, 0.0, monkeypatch, 400)
    assert min(share for _, share in apart) >= crops.READ_SHARE[0]
    assert any(share < crops.FAN_READ_SHARE[0] for _, share in apart)


def test_under_a_tilted_camera_both_indices_point_at_one_centre(art: Artwork) -> None:
    rng = np.random.default_rng(9)
    for _ in range(5):
        homography = scenes.view(rng, (384, 384), 30.0)
        angle = float(rng.uniform(0, 360))
        sample, laid = compose(rng, art, (384, 384), [Card("8S", (192.0, 192.0), 120.0, angle)],
                               [0], homography, clutter=False, camera=False)
        quad = laid[0].quad
        diagonals = np.cross(np.append(quad[0], 1), np.append(quad[2], 1))
        other = np.cross(np.append(quad[1], 1), np.append(quad[3], 1))
        crossing = np.cross(diagonals, other)
        centre = crossing[:2] / crossing[2]  # where the card's diagonals cross
        seen = []
        for at in _index_centres(laid[0]):
            i, j = _cell(at)
            width = float(np.exp(sample.maps[LOG_WIDTH, i, j]))
            seen.append(at + sample.maps[[TO_CENTRE_X, TO_CENTRE_Y], i, j] * width)
            up = sample.maps[[UP_COS, UP_SIN], i, j]
            assert float(np.dot(up, at - centre)) > 0  # up points away from the card's centre
        for point in seen:
            assert np.linalg.norm(point - centre) < 0.02 * laid[0].width


def test_a_face_printed_in_another_ink_keeps_its_paper_and_its_shapes(art: Artwork) -> None:
    """The reader learns suits by shape: `recolour_ink` turns every bit of ink one colour
    (a red heart green, a black spade red) and leaves the paper and the shapes alone."""
    face = art.faces[0]["QH"].levels[0]
    green = np.array([40, 160, 30], np.float32)
    printed = scenes.recolour_ink(face, green)
    assert printed.shape == face.shape and np.array_equal(printed[:, :, 3], face[:, :, 3])
    h, w = face.shape[:2]
    corner = (slice(round(0.02 * h), round(0.3 * h)), slice(round(0.03 * w), round(0.25 * w)))
    before = face[corner][:, :, :3].astype(np.float32)
    after = printed[corner][:, :, :3].astype(np.float32)
    paper = np.median(before.reshape(-1, 3), axis=0)
    far = np.sqrt(((before - paper) ** 2).sum(axis=2))
    ink, blank = far > 150, far < 10
    assert ink.sum() > 100 and blank.sum() > 100
    assert np.abs(after[blank] - before[blank]).max() <= 4  # the paper stays
    assert np.abs(after[ink] - green).mean(axis=0).max() < 25  # the heart's ink is green now
    assert np.abs(before[ink] - green).mean(axis=0).max() > 60  # and was not before
    assert 0 < scenes.ink_colour(np.random.default_rng(1)).max() <= 255


def test_drawn_backs_vary_repeat_and_are_never_a_flat_colour_to_the_edge() -> None:
    backs = plain_backs()
    again = plain_backs()
    assert len(backs) == 40
    assert all(np.array_equal(a.levels[0], b.levels[0]) for a, b in zip(backs, again, strict=True))
    colours = set()
    for back in backs:
        picture = back.levels[0]
        h, w = picture.shape[:2]
        middle = picture[h // 5 : 4 * h // 5, w // 5 : 4 * w // 5, :3].astype(np.float32)
        colours.add(tuple((np.median(middle.reshape(-1, 3), axis=0) // 40).astype(int)))
        edge = picture[h // 2, 3, :3].astype(np.float32)  # just inside the card's left edge
        printed_to_edge = float(np.abs(edge - np.median(middle.reshape(-1, 3), axis=0)).max()) < 60
        if printed_to_edge:
            assert middle.std(axis=(0, 1)).max() > 4, "a back printed to its edge is patterned"
    assert len(colours) >= 15


def test_printed_card_boxes_are_thin_outlines_on_the_table_and_no_card() -> None:
    """The layout's empty card boxes: ink on the table, around a card's size, owned by the
    table (so they get no heat: a box is not a face-down card)."""
    cards = [Card("5H", (192.0, 192.0), 60.0, 0.0), Card(None, (260.0, 192.0), 60.0, 0.0)]
    for seed in range(5):
        canvas = scenes.Canvas.over(np.full((384, 384, 3), 90, np.float32))
        pictures._print_boxes(canvas, np.random.default_rng(seed), cards, np.eye(3))
        inked = np.abs(canvas.image - 90).max(axis=2) > 20
        assert (canvas.owner == scenes.TABLE).all()
        assert 0 < inked.mean() < 0.1  # outlines, not filled boxes
        ys, xs = np.nonzero(inked)
        assert max(xs.max() - xs.min(), ys.max() - ys.min()) > 60  # at least a card wide


def test_chips_cover_what_they_lie_on_and_mark_their_edges_in_a_light_colour() -> None:
    for seed in range(30):  # every edge style: spots, a rim, striped inserts
        canvas = scenes.Canvas.over(np.full((200, 200, 3), 60, np.float32))
        scenes.draw_chips(canvas, np.random.default_rng(seed), np.array([100.0, 100.0]), 60.0)
        chip = canvas.owner == scenes.COVER
        assert chip.mean() > 0.03
        assert (canvas.image[chip] >= 210).all(axis=1).any()
