"""The reader learning real ink (`vision train --reader-only --photos DIR`): labelling a
photo's indices from its card list, the shipped reader loaded back into PyTorch, and a tiny
fine-tuning run end to end on labelled pictures (rendered frames of a held-out design stand
in for photographs, so the test needs no real set)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import cv2
import numpy as np
import onnx
import pytest
from onnx import numpy_helper

if importlib.util.find_spec("torch") is None:
    pytest.skip("SKIPPED LOUDLY: PyTorch is not installed (pip install -e '.[train]'): "
                "fine-tuning is not tested", allow_module_level=True)

import torch  # noqa: E402

from dealer_assist.cli import main  # noqa: E402
from dealer_assist.commands.vision_train import photo_names  # noqa: E402
from hardware.camera.model.spec import (  # noqa: E402
    CARD_FILE,
    CLASSES,
    CORNERS_FILE,
    CROP_H,
    CROP_W,
    INDEX_FILE,
    REPORT_FILE,
)
from training.art.decks import missing_card_art  # noqa: E402
from training.data.photos import (  # noqa: E402
    KEEP_SHARE,
    PhotoError,
    assign,
    photo_files,
)
from training.fit.reader_tune import FineTune, fine_tune  # noqa: E402
from training.fit.reload import load_reader  # noqa: E402
from training.frames.overhead import frames  # noqa: E402
from training.onnx_files import ExportError, blend_weights, session  # noqa: E402

MODEL = Path(__file__).resolve().parents[3] / "hardware" / "camera" / "model"
SYNTHETIC = "anglo"


def _probs(weights: dict[str, float]) -> np.ndarray:
    """53 probabilities: the given codes their weight, the rest shared out evenly."""
    p = np.full(len(CLASSES), (1.0 - sum(weights.values())) / (len(CLASSES) - len(weights)))
    for code, w in weights.items():
        p[CLASSES.index(code)] = w
    return p


def test_the_photos_codes_go_one_to_one_to_the_surest_cards() -> None:
    cards = [
        _probs({"6S": 0.5, "6C": 0.4}),  # a club read as a spade: the photo has no 6S
        _probs({"9C": 0.9}),
        _probs({"9C": 0.6}),  # 9C is taken by the surer card: this one gets nothing it fits
        _probs({"KD": 0.3, "KH": 0.3}),  # no code of the photo fits: nothing
    ]
    assert assign(cards, ["6C", "9C", "2C"]) == [(1, "9C"), (0, "6C")]
    # narrowed to the photo's codes, a card must lean clearly to one
    torn = [_probs({"3C": 0.3, "5C": 0.3})]
    assert KEEP_SHARE > 0.5 and assign(torn, ["3C", "5C"]) == []
    assert assign([], ["3C"]) == [] and assign(cards, []) == []


def test_photo_files_pair_pictures_with_labels(tmp_path: Path) -> None:
    for name in ("001", "002", "003"):
        cv2.imwrite(str(tmp_path / f"{name}.jpg"), np.zeros((8, 8, 3), np.uint8))
        (tmp_path / f"{name}.json").write_text('{"cards": []}')
    (tmp_path / "004.jpg").write_bytes(b"")  # no labels: not a labelled photo
    assert [p.name for p, _ in photo_files(tmp_path, None)] == ["001.jpg", "002.jpg", "003.jpg"]
    assert [p.name for p, _ in photo_files(tmp_path, ["003", "001"])] == ["003.jpg", "001.jpg"]
    with pytest.raises(PhotoError, match="no labelled photo named 004"):
        photo_files(tmp_path, ["001", "004"])
    with pytest.raises(PhotoError, match="no such folder"):
        photo_files(tmp_path / "nowhere", None)


def test_photo_names_expand_ranges_keeping_their_padding() -> None:
    assert photo_names("001-003,012,044") == ["001", "002", "003", "012", "044"]
    assert photo_names("7-9") == ["7", "8", "9"]


def test_the_shipped_reader_loads_back_into_pytorch_unchanged() -> None:
    net = load_reader(MODEL / INDEX_FILE).eval()
    crops = np.random.default_rng(0).random((6, 3, CROP_H, CROP_W), np.float32)
    expected = session(MODEL / INDEX_FILE).run(None, {"crop": crops})[0]
    with torch.no_grad():
        got = net(torch.from_numpy(crops)).numpy()
    assert np.abs(got - expected).max() < 1e-4


@pytest.fixture(scope="module")
def labelled(faces: dict, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three rendered frames of the held-out design, as photos with their card lists."""
    folder = tmp_path_factory.mktemp("photos")
    for k, frame in enumerate(frames(faces, 3, seed=11, occlusion=0.0)):
        cv2.imwrite(str(folder / f"{k + 1:03d}.jpg"), frame.image)
        codes = [t.card for t in frame.cards if t.face_up]
        (folder / f"{k + 1:03d}.json").write_text(json.dumps({"cards": codes}))
    return folder


def _tiny(photos: Path, out: Path, take: list[str] | None = None, fans: float = 0.0,
          blend: float = 1.0) -> FineTune:
    return FineTune(photos=photos, take=take, out=out, steps=3, batch=16,
                    designs=[SYNTHETIC], variants=False, fans=fans, blend=blend, eval_crops=32,
                    progress=False, log=lambda _: None)


def _weights(path: Path) -> dict[str, np.ndarray]:
    return {i.name: numpy_helper.to_array(i) for i in onnx.load(str(path)).graph.initializer}


def test_a_tiny_fine_tune_runs_end_to_end(labelled: Path, tmp_path: Path) -> None:
    why = missing_card_art((SYNTHETIC,))
    if why:
        pytest.skip(f"SKIPPED LOUDLY: no card art ({why})")
    report = fine_tune(_tiny(labelled, tmp_path / "model", ["001", "002"]))["reader_fine_tune"]
    assert report["photos"] == ["001.jpg", "002.jpg"]
    assert 0 < report["labelled_cards"] <= report["listed_cards"]
    assert report["labelled_indices"] >= report["labelled_cards"]
    assert report["fit"]["steps"] == 3 and report["fit"]["onnx_max_difference"] <= 1e-4
    assert 0.0 <= report["after"]["photo_accuracy"] <= 1.0
    out = tmp_path / "model"
    for kept in (CORNERS_FILE, CARD_FILE):  # copied as they are
        assert (out / kept).read_bytes() == (MODEL / kept).read_bytes()
    logits = session(out / INDEX_FILE).run(None, {"crop": np.zeros((2, 3, CROP_H, CROP_W),
                                                                    np.float32)})[0]
    assert logits.shape == (2, len(CLASSES))
    on_disk = json.loads((out / REPORT_FILE).read_text())
    assert on_disk["reader_fine_tune"]["seed"] == 0
    again = fine_tune(_tiny(labelled, tmp_path / "again", ["001", "002"]))["reader_fine_tune"]
    assert again["fit"]["first_loss"] == pytest.approx(report["fit"]["first_loss"], rel=1e-5)
    assert report["dense_fan_share"] == 0.0
    fans = fine_tune(_tiny(labelled, tmp_path / "fans", ["001", "002"], fans=1.0))
    assert fans["reader_fine_tune"]["dense_fan_share"] == 1.0
    assert fans["reader_fine_tune"]["fit"]["first_loss"] != report["fit"]["first_loss"]
    # --blend: the reader written lies that share of the way from the start to the fine-tune
    half = fine_tune(_tiny(labelled, tmp_path / "half", ["001", "002"], blend=0.5))
    record = half["reader_fine_tune"]
    assert record["blend"] == 0.5 and report["blend"] == 1.0 and "after_unblended" not in report
    assert record["after_unblended"]["photo_accuracy"] == pytest.approx(
        report["after"]["photo_accuracy"], abs=0.05)
    start, tuned = _weights(MODEL / INDEX_FILE), _weights(out / INDEX_FILE)
    moved = 0.0
    for name, weight in _weights(tmp_path / "half" / INDEX_FILE).items():
        assert np.allclose(weight, (start[name] + tuned[name]) / 2, atol=1e-5), name
        moved = max(moved, float(np.abs(tuned[name] - start[name]).max()))
    assert moved > 1e-3  # three steps moved the weights: the blend is not the start itself


def test_a_blend_mixes_two_readers_weight_by_weight(tmp_path: Path) -> None:
    start = (MODEL / INDEX_FILE).read_bytes()
    other = tmp_path / "other.onnx"
    model = onnx.load(str(MODEL / INDEX_FILE))
    for k, init in enumerate(model.graph.initializer):
        weight = numpy_helper.to_array(init)
        model.graph.initializer[k].CopyFrom(numpy_helper.from_array(weight + 1, init.name))
    other.write_bytes(model.SerializeToString())
    blend_weights(start, other, 0.25, tmp_path / "mixed.onnx")
    first, mixed = _weights(MODEL / INDEX_FILE), _weights(tmp_path / "mixed.onnx")
    assert set(mixed) == set(first)
    for name, weight in mixed.items():
        assert np.allclose(weight, first[name] + 0.25, atol=1e-5), name
    with pytest.raises(ExportError, match="0 to 1"):
        blend_weights(start, other, 1.5, tmp_path / "no.onnx")
    with pytest.raises(ExportError, match="not the shape"):
        blend_weights(start, MODEL / CORNERS_FILE, 0.5, tmp_path / "no.onnx")
    assert not (tmp_path / "no.onnx").exists()


@pytest.mark.parametrize(("args", "message"), [
    (["--reader-only"], "--reader-only needs --photos DIR"),
    (["--photos", "somewhere"], "go with --reader-only"),
    (["--reader-only", "--photos", "/nonexistent/photos"], "no such folder"),
    (["--reader-only", "--photos", ".", "--take", "9-3"], "runs backwards"),
    (["--blend", "0.5"], "--blend goes with --reader-only"),
    (["--reader-only", "--photos", ".", "--blend", "0"], "--blend is how far"),
])
def test_bad_fine_tune_arguments_give_a_clear_error(args: list[str], message: str,
                                                    tmp_path: Path, capsys) -> None:
    status = main(["vision", "train", "--quiet", "--out", str(tmp_path), *args])
    err = capsys.readouterr().err
    assert status == 2
    assert message in err and "Traceback" not in err
