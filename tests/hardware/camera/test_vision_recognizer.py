"""The shipped model end to end: rendered frames of a held-out design, a few real photographs,
face-down cards, bad frames, and the `vision` commands' contract.

Thresholds are the issue's targets (found >= 99% of clear face-up cards on held-out designs,
>= 95% on real photographs; >= 99.5% of reported codes right; no back reported as a face).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from dealer_assist.cli import main
from hardware.camera.recognize import Recognizer, Settings
from hardware.cards import CODES_BY_SUIT
from training.frames.layout import Placement, random_deal
from training.frames.overhead import frames, make_table, render

REPO = Path(__file__).resolve().parents[3]
REAL = REPO.parent / "shared" / "vision-real-dev"
# a few photographs of each half of the dev set, each source: felt, blue cloth, a bridge fan
#: The shipped model (a finder trained anew for 110 minutes on the CPU, then fine-tuned on
#: printed boxes and rimmed chips, 2026-12-07; a reader trained anew on recoloured inks, then
#: fine-tuned on half A of the real photographs, 2026-12-05; a card reader, 2026-12-07) falls
#: short of issue 35's targets on these few frames and photographs (face-down cards, three
#: of half B's photographs); these tests hold the targets and fail loudly (strict) the day a
#: model meets them.
SHORT_OF_TARGET = "the shipped model is short of issue 35's targets"
REAL_A = ("003", "014", "044")
REAL_B = ("010", "033", "045")
FOUND, RIGHT, REAL_FOUND = 0.99, 0.995, 0.95


@pytest.fixture(scope="module")
def recognizer() -> Recognizer:
    return Recognizer().load()


@pytest.fixture(scope="module")
def held_out_frames(faces: dict) -> list:
    return frames(faces, 6, seed=5)


def _near(sightings: list, truth) -> list:  # noqa: ANN001 - a CardTruth
    return truth.near(sightings)


def test_held_out_design_is_read_at_the_targets(recognizer: Recognizer,
                                                held_out_frames: list) -> None:
    up = found = right = reported = down_as_card = 0
    for frame in held_out_frames:
        sightings = recognizer(frame.image)
        faces = [s for s in sightings if s.face == "up"]
        reported += len(faces)
        for truth in frame.cards:
            near = [s for s in _near(sightings, truth) if s.face == "up"]
            if not truth.face_up:
                down_as_card += bool(near)
                continue
            if not truth.corners_clear:
                continue
            up += 1
            found += bool(near)
            right += any(s.card == truth.card for s in near)
    assert up >= 15
    assert down_as_card == 0
    assert found / up >= FOUND, f"found {found}/{up}"
    assert right / max(found, 1) >= RIGHT, f"right {right}/{found}"


def test_quad_and_centre_follow_the_card(recognizer: Recognizer, held_out_frames: list) -> None:
    frame = held_out_frames[0]
    checked = 0
    for s in recognizer(frame.image):
        truth = min(frame.cards, key=lambda t: np.hypot(t.center[0] - s.center[0],
                                                        t.center[1] - s.center[1]))
        height = float(np.linalg.norm(truth.quad[3] - truth.quad[0]))
        assert np.hypot(truth.center[0] - s.center[0], truth.center[1] - s.center[1]) < 0.1 * height
        if s.face == "up" and s.card == truth.card:  # corners in order, either way up
            quad = np.array(s.quad)
            off = min(np.abs(quad - truth.quad).max(),
                      np.abs(np.roll(quad, 2, axis=0) - truth.quad).max())
            assert off < 0.12 * height
            checked += 1
    assert checked >= 3


def test_the_reader_gives_each_index_its_first_and_second_choice(recognizer: Recognizer,
                                                                held_out_frames: list) -> None:
    """`runner_up` is the network's second-highest probability, below the first."""
    frame = held_out_frames[0].image
    spots, _ = recognizer.finder(frame)
    reads = recognizer.reader(frame, spots)
    assert len(reads) >= 5
    assert all(r.runner_up is not None and 0.0 <= r.runner_up <= r.prob for r in reads)
    assert all(r.prob + r.second <= 1.0 + 1e-6 for r in reads)  # `second` is `runner_up` here
    assert any(r.second > 1e-4 for r in reads)


def test_a_big_cards_two_indices_give_one_sighting(recognizer: Recognizer, faces: dict) -> None:
    """Cards 230-300 px wide on a 1920x1080 frame, turned every way (as the blue-cloth
    photographs show them): each card's two corner indices make one sighting, never two, and
    no code is reported twice or wrongly."""
    rng = np.random.default_rng(3)
    seen = read = right = 0
    for height, laid in ((420, [("QS", (560, 520), 0), ("7H", (1360, 520), 180)]),
                         (330, [("2C", (420, 300), 30), ("9D", (1100, 330), -60),
                                ("JH", (700, 780), 150), ("AS", (1500, 800), 0)])):
        table = make_table(rng, height=height)
        frame = render(table, [Placement(code, True, "box", at, angle, height)
                               for code, at, angle in laid], faces, rng, occlusion=0.0)
        sightings = recognizer(frame.image)
        codes = [s.card for s in sightings if s.face == "up"]
        assert len(codes) == len(set(codes)), f"a card reported twice: {codes}"
        for truth in frame.cards:
            near = [s for s in _near(sightings, truth) if s.face != "down"]
            assert len(near) <= 1, f"{truth.card}: {[(s.card, s.why) for s in near]}"
            seen += len(near)
            read += any(s.face == "up" for s in near)
            right += any(s.card == truth.card for s in near)
    assert seen >= 4 and right == read >= 2


def _face_down_frames(recognizer: Recognizer, faces: dict) -> tuple[list[list[str]], int, int]:
    """Cards read, backs laid and backs seen as face down on three all-face-down frames."""
    rng = np.random.default_rng(9)
    codes = sorted(c for c in faces if c != "back")
    read, downs, seen_down = [], 0, 0
    for _ in range(3):
        table = make_table(rng)
        frame = render(table, random_deal(rng, codes, table.height, face_down_share=1.0), faces,
                       rng, occlusion=0.0)
        sightings = recognizer(frame.image)
        read.append([s.card for s in sightings if s.card is not None])
        downs += len(frame.cards)
        seen_down += sum(s.face == "down" for s in sightings)
    return read, downs, seen_down


def test_face_down_cards_never_give_a_card(recognizer: Recognizer, faces: dict) -> None:
    read, _, _ = _face_down_frames(recognizer, faces)
    assert read == [[], [], []]


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason=SHORT_OF_TARGET + " (backs seen as face down: 6 of 15)")
def test_most_face_down_cards_are_reported_as_face_down(recognizer: Recognizer,
                                                        faces: dict) -> None:
    _, downs, seen_down = _face_down_frames(recognizer, faces)
    assert seen_down >= downs // 2, f"{seen_down} of {downs} backs seen as face down"


def _photo(name: str) -> tuple[np.ndarray, dict]:
    if not (REAL / f"{name}.jpg").is_file():
        pytest.skip(f"SKIPPED LOUDLY: the real photographs are not at {REAL}")
    truth = json.loads((REAL / f"{name}.json").read_text(encoding="utf-8"))
    image = cv2.imread(str(REAL / f"{name}.jpg"), cv2.IMREAD_COLOR)
    assert image is not None
    return image, truth


@pytest.mark.parametrize("half", [
    pytest.param(REAL_A, id="half A"),
    pytest.param(REAL_B, id="half B", marks=pytest.mark.xfail(
        strict=True, raises=AssertionError,
        reason=SHORT_OF_TARGET + " (half B found 67/72, all right)")),
])
def test_real_photographs_are_read_at_the_targets(recognizer: Recognizer, half: tuple) -> None:
    """Scored as ../shared/vision-real-dev/score.py scores: codes matched as multisets.
    Half A's photos meet the targets (63/66 found, all right), but half A trained the
    reader's fine-tune and chose the thresholds: half B is the honest figure."""
    true = reported = matched = 0
    for name in half:
        image, truth = _photo(name)
        codes = [s.card for s in recognizer(image) if s.face == "up"]
        true += len(truth["cards"])
        reported += len(codes)
        matched += sum((Counter(truth["cards"]) & Counter(codes)).values())
    assert true >= 20
    assert matched / true >= REAL_FOUND, f"found {matched}/{true}"
    assert matched / max(reported, 1) >= RIGHT, f"right {matched}/{reported}"


def test_three_backs_on_blue_cloth_are_no_card(recognizer: Recognizer) -> None:
    image, truth = _photo("030")
    assert truth["cards"] == [] and truth["face_down"] == 3
    assert [s.card for s in recognizer(image) if s.face == "up"] == []


def test_a_frame_that_is_not_a_colour_picture_is_refused() -> None:
    with pytest.raises(ValueError, match="BGR colour frame"):
        Recognizer()(np.zeros((10, 10), np.uint8))
    with pytest.raises(ValueError, match="BGR colour frame"):
        Recognizer()(np.zeros((100, 100, 3), np.float32))


def test_frames_too_small_for_a_card_give_no_card(tmp_path: Path, capsys) -> None:
    """A 1x1, a 2000x1, a 1x2000 and a 31-pixel-high image: an empty list, never a
    traceback."""
    for height, width in ((1, 1), (1, 2000), (2000, 1), (31, 1920)):
        image = tmp_path / f"{height}x{width}.png"
        cv2.imwrite(str(image), np.full((height, width, 3), 200, np.uint8))
        assert main(["vision", "detect", str(image), "--json"]) == 0
        assert json.loads(capsys.readouterr().out) == []


@pytest.mark.parametrize("content", [b"", b"nope", b"\x89PNG\r\n\x1a\n" + b"\0" * 40,
                                     b"\xff\xd8\xff\xe0" + b"\x13" * 200],
                         ids=["empty", "text", "corrupt png", "corrupt jpeg"])
def test_bad_image_files_say_what_and_where(tmp_path: Path, capsys, content: bytes) -> None:
    junk = tmp_path / "junk.png"
    junk.write_bytes(content)
    assert main(["vision", "detect", str(junk), "--json"]) == 2
    err = capsys.readouterr().err
    assert "junk.png: not a readable image" in err and "Traceback" not in err
    assert main(["vision", "detect", str(tmp_path / "gone.jpg")]) == 2
    assert "gone.jpg: no such file" in capsys.readouterr().err


def test_detect_json_contract(held_out_frames: list, tmp_path: Path, capsys) -> None:
    frame = held_out_frames[1]
    image = tmp_path / "frame.jpg"
    cv2.imwrite(str(image), frame.image)
    assert main(["vision", "detect", str(image), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows, "nothing read on a rendered frame"
    for row in rows:
        assert set(row) == {"card", "center", "quad", "confidence"}
        assert row["card"] in CODES_BY_SUIT and len(row["quad"]) == 4
        assert len(row["center"]) == 2 and 0 <= row["confidence"] <= 1
    face_down = {t.card for t in frame.cards if not t.face_up}
    assert not {row["card"] for row in rows} & face_down
    # --all lists face-down and unsure cards too, each saying why it was not read
    assert main(["vision", "detect", str(image), "--json", "--all"]) == 0
    every = json.loads(capsys.readouterr().out)
    assert len(every) >= len(rows) and {row["face"] for row in every} >= {"up"}
    assert all(("why" in row) == (row["face"] != "up") for row in every)
    assert all(row["card"] is None for row in every if row["face"] != "up")
    # the plain listing, and an old --deck is accepted with a word that it is not needed
    assert main(["vision", "detect", str(image), "--deck", "old.npz"]) == 0
    out = capsys.readouterr()
    assert "card(s) read" in out.out and "no longer needed" in out.err


def test_a_model_folder_without_the_networks_is_said(held_out_frames: list, tmp_path: Path,
                                                     capsys) -> None:
    image = tmp_path / "frame.jpg"
    cv2.imwrite(str(image), held_out_frames[0].image)
    assert main(["vision", "detect", str(image), "--model", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "corners.onnx: no such model file" in err and "Traceback" not in err
    (tmp_path / "corners.onnx").write_bytes(b"not a network")
    (tmp_path / "index.onnx").write_bytes(b"not a network")
    assert main(["vision", "detect", str(image), "--model", str(tmp_path)]) == 2
    assert "does not load" in capsys.readouterr().err
    with pytest.raises(Exception, match="no such model file"):
        Recognizer(Settings(model_dir=tmp_path / "none")).load()


def test_enroll_points_to_training_with_the_faces(capsys) -> None:
    assert main(["vision", "enroll", "cards/", "--out", "deck.npz"]) == 2
    assert "vision train --faces DIR" in capsys.readouterr().err


def test_calibrate_writes_an_annotated_picture(held_out_frames: list, tmp_path: Path,
                                               capsys) -> None:
    image = tmp_path / "still.png"
    cv2.imwrite(str(image), held_out_frames[2].image)
    out = tmp_path / "check.png"
    assert main(["vision", "calibrate", str(image),
                 "--zones", str(REPO / "config" / "camera_zones.toml"), "--out", str(out)]) == 0
    picture = cv2.imread(str(out))
    assert picture is not None and picture.shape == held_out_frames[2].image.shape
    assert "7 zones" in capsys.readouterr().out
