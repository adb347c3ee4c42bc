"""The card reader (`card.onnx`), which reads a card by its whole face: the crop it is given,
the merge's use of it (only to confirm the surest read of a card its corners leave unsure),
the shipped network on rendered cards, and model folders without it."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.camera.find import IndexSpot
from hardware.camera.merge import merge
from hardware.camera.model.crop import cut_card
from hardware.camera.model.settings import Settings
from hardware.camera.model.spec import CARD_FILE, CARD_H, CARD_W, CORNERS_FILE, INDEX_FILE
from hardware.camera.read import CardReader, Read
from hardware.camera.recognize import Recognizer
from tests.cardart import faces_or_skip
from training.frames.overhead import frames

MODEL = Path(__file__).resolve().parents[3] / "hardware" / "camera" / "model"
SETTINGS = Settings()
RED, WHITE = (0, 0, 255), (255, 255, 255)


def _card_frame(width: int, turn: int = 0) -> tuple[np.ndarray, tuple[float, float]]:
    """A grey frame with one white card `width` px wide, its own top-left quarter red, turned
    `turn` quarter turns; and the card's centre."""
    height = round(1.43 * width)
    frame = np.full((height + 200, width + 200, 3), 90, np.uint8)
    cv2.rectangle(frame, (100, 100), (100 + width - 1, 100 + height - 1), WHITE, -1)
    cv2.rectangle(frame, (100, 100), (100 + width // 2 - 1, 100 + height // 2 - 1), RED, -1)
    centre = (100 + (width - 1) / 2, 100 + (height - 1) / 2)
    for _ in range(turn):  # a quarter turn counter-clockwise: (x, y) -> (y, w - 1 - x)
        w = frame.shape[1]
        frame = np.ascontiguousarray(np.rot90(frame))
        centre = (centre[1], w - 1 - centre[0])
    return frame, centre


def _is(pixel: np.ndarray, colour: tuple[int, int, int]) -> bool:
    return bool(np.abs(pixel.astype(int) - colour).max() < 40)


@pytest.mark.parametrize("width", [60, 300])  # the second is shrunk before it is cut
@pytest.mark.parametrize("turn", [0, 1])
def test_a_card_is_cut_whole_upright_and_either_way_up(width: int, turn: int) -> None:
    frame, centre = _card_frame(width, turn)
    up = [(0.0, -1.0), (-1.0, 0.0)][turn]  # the card's top, turned with it
    crop = cut_card(frame, centre, up, width)
    assert crop.shape == (CARD_H, CARD_W, 3) and crop.dtype == np.uint8
    q_h, q_w = CARD_H // 4, CARD_W // 4  # a point in each quarter of the card
    assert _is(crop[q_h, q_w], RED) and _is(crop[-q_h, -q_w], WHITE)
    assert _is(crop[q_h, -q_w], WHITE) and _is(crop[-q_h, q_w], WHITE)
    flipped = cut_card(frame, centre, (-up[0], -up[1]), width)  # a pair's up may point down
    assert _is(flipped[-q_h, -q_w], RED) and _is(flipped[q_h, q_w], WHITE)


def test_a_card_off_the_frame_is_cut_black() -> None:
    frame, _ = _card_frame(300)
    assert not cut_card(frame, (5000.0, 5000.0), (0.0, -1.0), 300.0).any()
    assert not cut_card(frame, (-900.0, 40.0), (0.0, -1.0), 60.0).any()


def _read(code: str, at: tuple[float, float], up: tuple[float, float], prob: float) -> Read:
    centre = (500.0, 400.0)
    return Read(IndexSpot(at, up, 100.0, centre, 0.9), code, prob, None)


class _Whole:
    """Stands in for the card reader at the merge's boundary: says `code` at `prob`, and
    records where it was asked to look."""

    def __init__(self, code: str, prob: float) -> None:
        self.code, self.prob, self.asked = code, prob, []

    def __call__(self, centre: tuple[float, float], up: tuple[float, float], width: float
                 ) -> tuple[str, float]:
        self.asked.append((centre, up, width))
        return self.code, self.prob


# a card's two opposite indices, each read 9S below `sure` with no clear lead: unsure alone
_PAIR = [_read("9S", (436, 308), (0.0, -1.0), 0.6), _read("9S", (564, 492), (0.0, 1.0), 0.4)]


def test_a_pair_its_corners_leave_unsure_is_sure_when_read_whole_as_its_code() -> None:
    whole = _Whole("9S", 0.95)
    (s,) = merge(_PAIR, [], (1080, 1920), SETTINGS, whole)
    assert (s.card, s.face) == ("9S", "up")
    ((centre, up, width),) = whole.asked  # asked once, where its two indices put the card
    assert centre == pytest.approx((500, 400)) and width == pytest.approx(224 / 1.29, rel=0.01)
    assert abs(up[0]) < 1e-9 and abs(up[1]) == pytest.approx(1.0)
    for other in (_Whole("9S", 0.85), _Whole("8S", 0.99)):  # not sure enough; another code
        (s,) = merge(_PAIR, [], (1080, 1920), SETTINGS, other)
        assert (s.card, s.face, s.why) == (None, "unsure", "not sure: 9S at 0.60")
    (s,) = merge(_PAIR, [], (1080, 1920), replace(SETTINGS, card_sure=1.01), whole)
    assert s.face == "unsure"  # off


def test_a_card_seen_by_one_index_is_read_whole_where_the_merge_puts_it() -> None:
    whole = _Whole("9S", 0.95)
    (s,) = merge(_PAIR[:1], [], (1080, 1920), SETTINGS, whole)
    assert (s.card, s.face) == ("9S", "up")
    ((centre, up, width),) = whole.asked  # the finder's centre and width for that index
    assert centre == pytest.approx((500, 400)) and width == pytest.approx(100.0)
    assert up == (0.0, -1.0)


def test_only_an_unsure_card_is_read_whole_and_only_its_surest_code_stands() -> None:
    whole = _Whole("9S", 0.99)
    sure = [replace(r, prob=0.97) for r in _PAIR]
    (s,) = merge(sure, [], (1080, 1920), SETTINGS, whole)  # sure already: not asked
    assert s.card == "9S" and whole.asked == []
    # its two indices read as two codes: one card (`merge._disagree`), its surest read 9C
    clash = [_PAIR[0], _read("9C", (564, 492), (0.0, 1.0), 0.7)]
    (s,) = merge(clash, [], (1080, 1920), SETTINGS, whole)
    assert (s.card, s.face) == (None, "unsure")  # read whole as the other corner's code
    (s,) = merge(clash, [], (1080, 1920), SETTINGS, _Whole("9C", 0.99))
    assert (s.card, s.face) == ("9C", "up")


def _whole_reads(faces: dict, reader: CardReader) -> tuple[int, int, list[str]]:
    """The shipped card reader on the face-up cards of rendered frames, cut at their true
    centre, up and width: (cards, right, what the wrong ones were read as)."""
    cards = right = 0
    wrong = []
    for frame in frames(faces, 6, seed=11):
        for truth in frame.cards:
            if not (truth.face_up and truth.corners_clear and not truth.occluded):
                continue
            q = truth.quad
            up = (q[0] + q[1] - q[2] - q[3]) / 2
            width = float(np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
            code, _ = reader(frame.image, truth.center, (float(up[0]), float(up[1])), width)
            cards += 1
            right += code == truth.card
            if code != truth.card:
                wrong.append(f"{truth.card} as {code}")
    return cards, right, wrong


def test_the_shipped_card_reader_reads_a_training_designs_cards_whole() -> None:
    cards, right, wrong = _whole_reads(faces_or_skip("anglo"), CardReader(SETTINGS))
    assert cards >= 15
    assert right / cards >= 0.95, f"{right} of {cards} right; {wrong}"


def test_the_shipped_card_reader_reads_most_of_a_held_out_designs_cards(faces: dict) -> None:
    """Tango was never trained on; the merge asks the card reader only to confirm what a
    card's corners already lean to, so it need not read every card of it (a court card's
    picture differs from deck to deck)."""
    cards, right, wrong = _whole_reads(faces, CardReader(SETTINGS))
    assert cards >= 15
    assert right / cards >= 0.9, f"{right} of {cards} right; {wrong}"


def test_a_model_folder_without_the_card_reader_reads_by_corners(faces: dict,
                                                                 tmp_path: Path) -> None:
    for file in (CORNERS_FILE, INDEX_FILE):
        shutil.copyfile(MODEL / file, tmp_path / file)
    corners = Recognizer(Settings(model_dir=tmp_path)).load()
    assert corners.card_reader.session is None
    frame = frames(faces, 1, seed=5)[0].image
    assert [s.card for s in corners(frame) if s.face == "up"]
    shutil.copyfile(MODEL / CARD_FILE, tmp_path / CARD_FILE)
    assert Recognizer(Settings(model_dir=tmp_path)).load().card_reader.session is not None
