"""The recognizer on generated frames of a held-out design, and the vision commands."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from dealer_assist.cli import main
from hardware.camera import reading, recognize
from hardware.camera.deck import (
    CODES,
    DeckError,
    DeckModel,
    enrol_folder,
    fine_planes,
    plane_features,
    turned_features,
)
from hardware.camera.index import IndexModel
from hardware.camera.recognize import Recognizer
from hardware.camera.synth.decks import DESIGNS
from hardware.camera.synth.scene import CardTruth, Frame, frames
from tests.cardart import faces_or_skip

# On the cards the targets speak of (hands and chips away from the index corners): right
# as the target asks (>= 99.5%: on this set, every card); found is a measured floor, the
# target (99.5%) not being met yet (docs/vision.md): 15 of 16 found, 18 of 20 of all cards.
MIN_FOUND, MIN_RIGHT = 0.90, 0.995


@pytest.fixture(scope="module")
def held_out_frames(faces: dict) -> list:
    return frames(faces, 6, seed=5)


def _tuning_frame(design: str, seed: int, index: int) -> tuple[dict, Frame]:
    """A tuning design's faces, and frame `index` of its frames at `seed` (as the tuning
    tools number them)."""
    faces = faces_or_skip(design)
    return faces, frames(faces, index + 1, seed + list(DESIGNS).index(design))[index]


def _told(recognizer: Recognizer, frame: Frame, truth: CardTruth) -> str:
    """What `recognizer` says of the card `truth` on `frame`: its code, or why it read none."""
    near = truth.near(recognizer(frame.image))
    return near[0].card or near[0].why if near else "missed"


def test_enrolled_held_out_design(faces: dict, held_out_frames: list) -> None:
    recognizer = Recognizer(DeckModel.from_faces("tango", faces))
    up = found = right = down_as_card = 0
    for frame in held_out_frames:
        sightings = recognizer(frame.image)
        for truth in frame.cards:
            near = [s for s in sightings if np.hypot(s.center[0] - truth.center[0],
                                                     s.center[1] - truth.center[1]) < 40]
            if not truth.face_up:
                down_as_card += bool(near and near[0].face == "up")
                continue
            if not truth.corners_clear:
                continue
            up += 1
            if near and near[0].face == "up":
                found += 1
                right += near[0].card == truth.card
    assert up >= 15
    assert down_as_card == 0
    assert found / up >= MIN_FOUND, f"found {found}/{up}"
    assert right / found >= MIN_RIGHT, f"right {right}/{found}"


def test_quad_and_centre_follow_the_card(faces: dict, held_out_frames: list) -> None:
    recognizer = Recognizer(DeckModel.from_faces("tango", faces))
    frame = held_out_frames[0]
    for s in recognizer(frame.image):
        truth = min(frame.cards, key=lambda t: np.hypot(t.center[0] - s.center[0],
                                                        t.center[1] - s.center[1]))
        height = float(np.linalg.norm(truth.quad[3] - truth.quad[0]))
        assert np.hypot(truth.center[0] - s.center[0], truth.center[1] - s.center[1]) < 0.1 * height
        if s.face == "up" and s.card == truth.card:  # corners in order from the card's top-left
            # (most cards print the same after a half turn, so either way up is a right read)
            quad = np.array(s.quad)
            off = min(np.abs(quad - truth.quad).max(),
                      np.abs(np.roll(quad, 2, axis=0) - truth.quad).max())
            assert off < 0.05 * height


def test_enrol_round_trip_through_the_commands(faces: dict, held_out_frames: list,
                                               tmp_path: Path, capsys) -> None:
    folder = tmp_path / "casino-deck"
    folder.mkdir()
    for code in CODES:
        cv2.imwrite(str(folder / f"{code}.png"), faces[code])
    cv2.imwrite(str(folder / "back.png"), faces["back"])
    deck_file = tmp_path / "casino.npz"
    assert main(["vision", "enroll", str(folder), "--out", str(deck_file)]) == 0
    said = capsys.readouterr().out
    assert "casino-deck" in said and "and the back" in said and "no back.png" not in said
    listed_any = 0
    for k, frame in enumerate(held_out_frames):
        image = tmp_path / f"frame{k}.jpg"
        cv2.imwrite(str(image), frame.image)
        assert main(["vision", "detect", str(image), "--json", "--deck", str(deck_file)]) == 0
        listed = json.loads(capsys.readouterr().out)
        listed_any += len(listed)
        for row in listed:
            assert set(row) == {"card", "center", "quad", "confidence"}
            assert row["card"] in CODES and len(row["quad"]) == 4
            assert 0 <= row["confidence"] <= 1
        face_up = {t.card for t in frame.cards if t.face_up}
        face_down = {t.card for t in frame.cards if not t.face_up}
        assert not {row["card"] for row in listed} & (face_down - face_up)
        assert len({row["card"] for row in listed} & face_up) >= len(listed) - 1
    assert listed_any >= 5, "the enrolled deck read almost nothing"
    # --all lists face-down and unsure cards too, each saying why it was not read
    assert main(["vision", "detect", str(tmp_path / "frame0.jpg"), "--json", "--all",
                 "--deck", str(deck_file)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {row["face"] for row in rows} >= {"up", "down"}
    assert all(("why" in row) == (row["face"] != "up") for row in rows)
    assert all(row["why"] == "like the back" for row in rows if row["face"] == "down")


def test_enrolment_says_which_indices_it_could_not_read(tmp_path: Path, capsys) -> None:
    """A casino learns at enrolment whether its cards' corner indices were read: here the
    kings' corners are painted over, and the enrolment says so."""
    standard = faces_or_skip("svg-standard")  # a tuning design
    folder = tmp_path / "deck"
    folder.mkdir()
    for code in CODES:
        face = standard[code].copy()
        if code[0] == "K":
            h, w = face.shape[:2]
            for rows in (slice(0, h * 2 // 5), slice(h - h * 2 // 5, h)):
                for cols in (slice(0, w * 3 // 10), slice(w - w * 3 // 10, w)):
                    face[rows, cols, :3] = 255
        cv2.imwrite(str(folder / f"{code}.png"), face)
    assert main(["vision", "enroll", str(folder), "--out", str(tmp_path / "k.npz")]) == 0
    said = capsys.readouterr().out
    assert "warning: no corner index read for ranks K:" in said
    assert "warning: no back.png" in said  # only the faces were given
    for code in CODES:
        cv2.imwrite(str(folder / f"{code}.png"), standard[code])
    assert main(["vision", "enroll", str(folder), "--out", str(tmp_path / "all.npz")]) == 0
    said = capsys.readouterr().out
    assert "corner index read for every rank and suit" in said
    assert "index looked for in the top-left and bottom-right corners" in said
    assert "ink colours: spades black, hearts red, diamonds red, clubs black" in said


def test_enrolment_refuses_an_incomplete_folder(faces: dict, tmp_path: Path, capsys) -> None:
    for code in CODES[:51]:
        cv2.imwrite(str(tmp_path / f"{code}.png"), faces[code])
    with pytest.raises(DeckError, match="lacks 1 faces: KC"):
        enrol_folder(tmp_path)
    assert main(["vision", "enroll", str(tmp_path), "--out", str(tmp_path / "d.npz")]) == 2
    assert "KC" in capsys.readouterr().err


def test_bad_inputs_say_what_and_where(tmp_path: Path, capsys) -> None:
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"nope")
    assert main(["vision", "detect", str(junk), "--json", "--deck", str(junk)]) == 2
    assert "junk.png" in capsys.readouterr().err
    with pytest.raises(ValueError, match="BGR colour frame"):
        Recognizer(DeckModel("x", [], np.zeros((0, 16, 1008), np.float32),
                             np.zeros((0, 16, 1008), np.float32),
                             np.zeros((0, 84, 60), np.uint8)))(np.zeros((10, 10), np.uint8))


def test_frames_too_small_for_a_card_give_no_card(faces: dict, tmp_path: Path,
                                                   capsys) -> None:
    """A 1x1, a 2000x1 and a 31-pixel-high image: an empty list, never a traceback."""
    deck = tmp_path / "d.npz"
    DeckModel.from_faces("tango", faces).save(deck)
    for height, width in ((1, 1), (1, 2000), (31, 1920)):
        image = tmp_path / f"{height}x{width}.png"
        cv2.imwrite(str(image), np.full((height, width, 3), 200, np.uint8))
        assert main(["vision", "detect", str(image), "--json", "--deck", str(deck)]) == 0
        assert json.loads(capsys.readouterr().out) == []


def test_detect_without_a_deck_says_it_builds_the_built_in_model_once(
        faces: dict, held_out_frames: list, tmp_path: Path, monkeypatch, capsys) -> None:
    """The first `detect` without `--deck` builds the built-in model (minutes): it says so,
    even where no progress bar is drawn; with the model built it says nothing of it."""
    from hardware.camera.synth.generic import model_path

    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), held_out_frames[0].image)
    cache = tmp_path / "cards"
    monkeypatch.setenv("DEALER_ASSIST_CARD_CACHE", str(cache))
    monkeypatch.setenv("PATH", str(tmp_path))  # a machine without rsvg-convert: fails fast
    assert main(["vision", "detect", str(frame), "--json"]) == 2
    err = capsys.readouterr().err
    assert "building the built-in model" in err and str(cache) in err
    assert "cannot be built: rsvg-convert not found" in err
    cache.mkdir()
    DeckModel.from_faces("tango", faces).save(model_path())  # stands in for the built model
    assert main(["vision", "detect", str(frame), "--json"]) == 0
    out = capsys.readouterr()
    assert "built-in model" not in out.err and isinstance(json.loads(out.out), list)


def test_calibrate_writes_an_annotated_picture(faces: dict, held_out_frames: list,
                                               tmp_path: Path, capsys) -> None:
    deck_file = tmp_path / "d.npz"
    DeckModel.from_faces("tango", faces).save(deck_file)
    image = tmp_path / "still.png"
    cv2.imwrite(str(image), held_out_frames[2].image)
    out = tmp_path / "check.png"
    repo = Path(__file__).resolve().parents[3]
    assert main(["vision", "calibrate", str(image), "--deck", str(deck_file),
                 "--zones", str(repo / "config" / "camera_zones.toml"), "--out", str(out)]) == 0
    picture = cv2.imread(str(out))
    assert picture is not None and picture.shape == held_out_frames[2].image.shape
    assert "7 zones" in capsys.readouterr().out


def test_turned_features_are_those_of_the_turned_picture() -> None:
    rng = np.random.default_rng(5)
    picture = cv2.GaussianBlur(rng.integers(0, 256, (175, 125, 3), dtype=np.uint8), (0, 0), 2.0)
    planes = fine_planes(picture)
    turned = np.ascontiguousarray(planes[:, ::-1, ::-1])
    assert np.allclose(turned_features(plane_features(planes)), plane_features(turned), atol=1e-5)


def test_without_the_index_naming_it_a_card_is_not_read(faces: dict,
                                                        held_out_frames: list) -> None:
    """The built-in model's rule (`index_must_name`): faces alone do not make a read. With
    the corner index templates taken away the same cards are read without the rule and left
    unsure with it."""
    deck = replace(DeckModel.from_faces("tango", faces), index=IndexModel.empty())
    image = held_out_frames[0].image
    loose = [s for s in Recognizer(deck)(image) if s.face == "up"]
    strict = Recognizer(deck, index_must_name=True)(image)
    assert len(loose) >= 3
    assert not [s for s in strict if s.face == "up"]
    assert len([s for s in strict if s.face == "unsure"]) >= len(loose)


def test_a_weak_reading_like_a_face_is_aligned_again_finely(monkeypatch) -> None:
    """On a tuning frame (simplistic, seed 91) a hand lies over a five of clubs in the
    discard: its first reading is weak (about 0.3, the nine of clubs). A weak reading more
    like a face than like the back is aligned again to the finest step, and it is the five.
    Aligned only until a step gained under 0.01, it is like no face. (Without that second
    alignment this test fails. The frame it first used, seed 44's four of hearts under a
    hand, is read right either way since a four's body pips are read, `pips.body_pips`.)"""
    faces, frame = _tuning_frame("simplistic", 91, 0)
    five = next(t for t in frame.cards if t.card == "5C")
    recognizer = Recognizer(DeckModel.from_faces("simplistic", faces))
    assert _told(recognizer, frame, five) == "5C"
    monkeypatch.setattr(reading, "_WEAK_READ", 0.0)
    assert _told(recognizer, frame, five) == "like no face"  # the coarse alignment alone


def test_a_back_close_to_a_face_is_aligned_on_the_back_too(monkeypatch) -> None:
    """A back's agreement with the enrolled back is measured on its picture as aligned on
    the best face. On a tuning frame (anglo, seed 777) a back's quad is off: on the mask's
    quad it agreed 0.31 with the king of clubs, so aligned, and 0.25 with the back; moved
    onto the king it stayed a close call, unsure. A weak reading, or one beating the back by
    less than `_BACK_DOUBT`, is aligned on the back as well: there it agrees 0.87 with the
    back, and is face down. (Without the alignment on the back this test fails.)"""
    faces, frame = _tuning_frame("anglo", 777, 9)
    back = next(t for t in frame.cards if not t.face_up and abs(t.center[0] - 653) < 20)
    recognizer = Recognizer(DeckModel.from_faces("anglo", faces))
    assert _told(recognizer, frame, back) == "like the back"
    monkeypatch.setattr(reading, "_on_backs", lambda *_: 0.0)
    assert _told(recognizer, frame, back).startswith("close call")


def test_a_card_whose_art_is_the_same_both_ways_up_is_read_the_right_way_up(monkeypatch) -> None:
    """svg-oxygen's art is one diagonal sweep, the same after a half turn, and its rank is
    printed in one corner only. On a tuning frame (seed 4242) a quad a little wide of an ace
    of spades agreed better with the ace of clubs the wrong way up (0.83 against 0.77), and
    the ace was a close call between the two. When the half turn agrees nearly as well with
    another code (`_TURN_DOUBT`), it is aligned too and the better kept: the ace of spades.
    (With `_TURN_DOUBT` 0 this test fails.)"""
    faces, frame = _tuning_frame("svg-oxygen", 4242, 8)
    ace = next(t for t in frame.cards if t.card == "AS")
    # a close call's quad moved onto the face resolves it too: that is not what is tested
    recognizer = Recognizer(DeckModel.from_faces("svg-oxygen", faces), snap_close_calls=False)
    assert _told(recognizer, frame, ace) == "AS"
    monkeypatch.setattr(reading, "_TURN_DOUBT", 0.0)
    # the picture's first way up alone: a close call between the two (the ace of clubs led
    # with OpenCV's ECC, the ace of spades now, by under `min_margin` either way)
    assert _told(recognizer, frame, ace) in ("close call: AC or AS", "close call: AS or AC")


def test_a_card_like_the_back_is_face_down_without_reading_its_corners(faces: dict,
                                                                        monkeypatch) -> None:
    """A look more like the enrolled back than like any face is face down whatever its
    corners show, so the index and the body pips are not read for it (a third of the looks
    at a table). A face's corners are read."""
    recognizer = Recognizer(DeckModel.from_faces("tango", faces))
    w, h = reading.WARP
    quad = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)

    def picture(code: str) -> np.ndarray:
        return cv2.resize(faces[code][:, :, :3], (w, h), interpolation=cv2.INTER_AREA)

    read: list[str] = []
    index_terms = recognize.index_terms
    monkeypatch.setattr(recognize, "index_terms", lambda deck, pic: (read.append("index"),
                                                                    index_terms(deck, pic))[1])
    back = recognizer.look(picture("back"), quad)
    assert back.reading.back > back.reading.score and read == []
    assert (recognizer.decide(back).face, recognizer.decide(back).why) == ("down", "like the back")
    face = recognizer.look(picture("7H"), quad)
    assert read == ["index"] and recognizer.decide(face).card == "7H"


def test_a_close_call_is_read_again_with_its_quad_moved_onto_the_face(monkeypatch) -> None:
    """On a tuning frame (svg-oxygen, seed 55) the queen of spades, its quad a little off,
    agreed 0.89 with her face and nearly as well with the queen of clubs: a close call,
    agreeing too well to be moved onto the face as a weak look is. A close call's quad is
    moved onto the face however well it agreed, and kept there when the lead grows: there
    she is the queen of spades. (With `snap_close_calls` off this test fails.)"""
    faces, frame = _tuning_frame("svg-oxygen", 55, 8)
    queen = next(t for t in frame.cards if t.card == "QS")
    deck = DeckModel.from_faces("svg-oxygen", faces)
    assert _told(Recognizer(deck), frame, queen) == "QS"
    assert _told(Recognizer(deck, snap_close_calls=False), frame, queen) == "close call: QS or QC"


def test_a_card_not_read_is_read_on_another_rectangle_its_blob_supports(monkeypatch) -> None:
    """On a tuning frame (gnomangelo, seed 55) glare washed a third of a sideways three of
    diamonds out of the paper mask; the rectangle best supported by the rest of its outline
    stood upright over two of its pips, and the card looked like no face. Read again on the
    other rectangles its outline supports, it is the three of diamonds. (With
    `_OTHER_SHAPES_BELOW` 0 this test fails.)"""
    faces, frame = _tuning_frame("gnomangelo", 55, 3)
    three = next(t for t in frame.cards if t.card == "3D")
    recognizer = Recognizer(DeckModel.from_faces("gnomangelo", faces))
    assert _told(recognizer, frame, three) == "3D"
    monkeypatch.setattr(recognize, "_OTHER_SHAPES_BELOW", 0.0)
    assert _told(recognizer, frame, three) == "like no face"


def test_a_clear_back_is_not_aligned_on_a_face(faces: dict, monkeypatch) -> None:
    """Alignment on the best face is most of a reading's time, and a third of the looks at a
    table are backs: a picture agreeing with the enrolled back well (`LIKE_BACK`) and far
    better than with any face (`_BACK_LEAD`) is not aligned. A face is."""
    deck = DeckModel.from_faces("tango", faces)
    w, h = reading.WARP
    calls: list[int] = []
    align = reading._align
    monkeypatch.setattr(reading, "_align", lambda *a: (calls.append(1), align(*a))[1])

    def picture(code: str) -> np.ndarray:
        return cv2.resize(faces[code][:, :, :3], (w, h), interpolation=cv2.INTER_AREA)

    back = reading.read_card(deck, picture("back"))
    assert back.back > back.score + reading._BACK_LEAD and calls == []
    face = reading.read_card(deck, picture("9C"))
    assert face.code == "9C" and face.back < face.score and len(calls) >= 1


def test_cards_read_together_read_as_one_at_a_time(faces: dict, held_out_frames: list,
                                                   monkeypatch) -> None:
    """The cards of a frame are compared with the faces together (`read_cards`): before
    alignment, and after the first alignment, once each for all of them, where the
    comparison reads every face's cells whatever the number of pictures. Every reading is
    as when the cards are read one at a time."""
    deck = DeckModel.from_faces("tango", faces)
    frame = held_out_frames[0]
    pictures = [reading.warp_card(frame.image, truth.quad) for truth in frame.cards]
    up = next(k for k, truth in enumerate(frame.cards) if truth.face_up)
    pictures.append(pictures[up][::-1, ::-1].copy())  # a face-up card the other way up
    alone = [reading.read_card(deck, picture) for picture in pictures]
    compared: list[int] = []
    scores = reading._scores
    monkeypatch.setattr(reading, "_scores", lambda d, cells: (compared.append(len(cells)),
                                                              scores(d, cells))[1])
    together = reading.read_cards(deck, pictures)
    # both ways up before alignment; then the pictures aligned (a clear back is not)
    assert len(pictures) >= 5 and compared[0] == 2 * len(pictures)
    assert 1 < compared[1] <= len(pictures)
    for one, other in zip(alone, together, strict=True):
        assert (one.code, one.flipped) == (other.code, other.flipped)
        for name in ("score", "margin", "back"):
            assert getattr(one, name) == pytest.approx(getattr(other, name), abs=1e-5)
        assert np.allclose(one.per_code, other.per_code, atol=1e-5)
        assert np.array_equal(one.grey, other.grey)
    assert together[-1].flipped != together[up].flipped
    assert together[-1].code == together[up].code == frame.cards[up].card


def test_a_card_settled_by_its_face_and_index_is_told_alike_without_its_body_pips(
        monkeypatch) -> None:
    """The body pips are not read on a look whose lead, before them, is beyond what they can
    take off it short of the calibration's last confidence: on tuning frames, fewer looks
    have their pips read, and every sighting (card, confidence, reason, quad) is the same as
    with the pips read on every look. The built-in model's rules ask the pips on every look."""
    faces = faces_or_skip("anglo")
    images = [frame.image for frame in frames(faces, 4, 5050 + list(DESIGNS).index("anglo"))]
    recognizer = Recognizer(DeckModel.from_faces("anglo", faces))
    read: list[bool] = []
    pips_read = type(recognizer.deck.pips).read
    monkeypatch.setattr(type(recognizer.deck.pips), "read",
                        lambda model, *args: (read.append(True), pips_read(model, *args))[1])
    sightings = [recognizer(image) for image in images]
    settled_reads = len(read)
    read.clear()
    monkeypatch.setattr(Recognizer, "_settled", lambda self, fused: False)
    assert [recognizer(image) for image in images] == sightings
    assert settled_reads < len(read)
    monkeypatch.undo()
    clear = np.r_[1.0, np.zeros(51)]  # a lead of 1
    assert recognizer._settled(clear) and not replace(recognizer, index_pip_weight=2.0)._settled(clear)
