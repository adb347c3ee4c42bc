"""`dealer-assist vision train` end to end on a tiny scale: real synthetic data (real card art),
a few training steps of both networks, ONNX files that onnxruntime loads and that compute what
PyTorch computes, report.json; the same seed gives the same first losses; the losses reward the
right answer; bad arguments give a clear error."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import cv2
import numpy as np
import orjson
import pytest

if importlib.util.find_spec("torch") is None:
    pytest.skip("SKIPPED LOUDLY: PyTorch is not installed (pip install -e '.[train]'): the "
                "training pipeline is not tested", allow_module_level=True)

import torch  # noqa: E402

from dealer_assist.cli import main  # noqa: E402
from hardware.camera.model.spec import (  # noqa: E402
    CARD_FILE,
    CARD_H,
    CARD_W,
    CLASSES,
    CORNERS_FILE,
    CROP_H,
    CROP_W,
    HEAT_INDEX,
    INDEX_FILE,
    MAP_CHANNELS,
    REPORT_FILE,
)
from training.art.decks import (  # noqa: E402
    APT_PACKAGES,
    default_cache,
    load_faces,
    missing_card_art,
)
from training.data.pictures import Artwork, finder_sample  # noqa: E402
from training.fit.full import (  # noqa: E402
    _FINDER_STREAM,
    HOUSE,
    FinderData,
    Plan,
    read_faces,
    train,
)
from training.fit.loop import TrainError, focal_heat_loss, geometry_loss  # noqa: E402
from training.fit.reload import load_reader  # noqa: E402
from training.onnx_files import session  # noqa: E402

DESIGN = "anglo"
HOUSE_ART = "paris"  # stands in for a house's own scans in the enrolment test


def _tiny(out: Path, seed: int = 0) -> Plan:
    return Plan(out=out, seed=seed, finder_steps=3, reader_steps=3, designs=[DESIGN],
                eval_designs=[DESIGN], variants=False, finder_batch=2, reader_batch=16,
                finder_size=(128, 128), eval_pictures=2, eval_crops=40, eval_size=(256, 192), threads=1, workers=1,
                card_pool=200, card_steps=3, progress=False, log=lambda _: None)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    why = missing_card_art((DESIGN,))
    if why:
        pytest.skip(f"SKIPPED LOUDLY: no card art ({why}); CI installs {' '.join(APT_PACKAGES)}")
    out = tmp_path_factory.mktemp("model")
    return out, train(_tiny(out))


def test_tiny_run_writes_models_that_onnxruntime_runs(run: tuple[Path, dict]) -> None:
    out, report = run
    finder = session(out / CORNERS_FILE)
    maps = finder.run(None, {"image": np.random.default_rng(0).random((1, 3, 256, 320),
                                                                      np.float32)})[0]
    assert maps.shape == (1, MAP_CHANNELS, 64, 80)
    assert maps[:, :2].min() >= 0.0 and maps[:, :2].max() <= 1.0  # heat is a probability
    reader = session(out / INDEX_FILE)
    logits = reader.run(None, {"crop": np.zeros((5, 3, CROP_H, CROP_W), np.float32)})[0]
    assert logits.shape == (5, len(CLASSES))
    on_disk = orjson.loads((out / REPORT_FILE).read_bytes())
    assert on_disk["seed"] == 0 and on_disk["designs"] == [DESIGN]
    card = session(out / CARD_FILE)
    logits = card.run(None, {"card": np.zeros((2, 3, CARD_H, CARD_W), np.float32)})[0]
    assert logits.shape == (2, 52)
    for figures in (on_disk["finder"], on_disk["reader"], on_disk["card_reader"]["fit"]):
        assert figures["steps"] == 3
        assert figures["onnx_max_difference"] <= 1e-4
        assert np.isfinite(figures["final_loss"])
    assert on_disk["card_reader"]["pool"] == 200
    assert 0.0 <= on_disk["card_reader"]["scores"]["accuracy"] <= 1.0
    assert 0.0 <= on_disk["reader_scores"]["accuracy"] <= 1.0
    assert on_disk["finder_scores"]["index"]["true"] > 0
    assert on_disk["torch"] == torch.__version__
    assert on_disk["speed_one_thread"]["finder_ms_1024x576"] > 0
    assert report["wall_seconds"] == on_disk["wall_seconds"]


def test_same_seed_same_first_loss(run: tuple[Path, dict], tmp_path: Path) -> None:
    _, first = run
    again = train(_tiny(tmp_path / "again"))
    other = train(_tiny(tmp_path / "other", seed=1))
    for net in ("finder", "reader"):
        assert again[net]["first_loss"] == pytest.approx(first[net]["first_loss"], rel=1e-5)
        assert other[net]["first_loss"] != pytest.approx(first[net]["first_loss"], rel=1e-5)
    card_loss = first["card_reader"]["fit"]["first_loss"]
    assert again["card_reader"]["fit"]["first_loss"] == pytest.approx(card_loss, rel=1e-5)
    assert other["card_reader"]["fit"]["first_loss"] != pytest.approx(card_loss, rel=1e-5)


def test_a_new_reader_beside_a_kept_finder(run: tuple[Path, dict], tmp_path: Path) -> None:
    """`--new-reader`: the reader alone trains anew, at the widths asked; the finder and the
    card reader are the base model's files, byte for byte, and the report carries their
    records; the new reader loads back for a fine-tune at its own widths."""
    base, before = run
    widths = (8, 16, 16, 24, 32)
    plan = _tiny(tmp_path / "new")
    plan.finder_from, plan.reader_channels, plan.finder_steps = base, widths, None
    report = train(plan)
    out = tmp_path / "new"
    assert (out / CORNERS_FILE).read_bytes() == (base / CORNERS_FILE).read_bytes()
    assert report["finder"] == before["finder"]
    assert report["finder_scores"] == before["finder_scores"]
    assert report["finder_run"] == {"kept_from": str(base), "seed": 0, "minutes_budget":
                                    before["minutes_budget"], "designs": [DESIGN]}
    assert (out / CARD_FILE).read_bytes() == (base / CARD_FILE).read_bytes()
    assert report["card_reader"] == before["card_reader"]
    assert report["reader"]["steps"] == 3 and report["reader"]["channels"] == list(widths)
    assert report["data"]["recoloured_ink_share"] > 0 and report["data"]["backs"] > 1
    logits = session(out / INDEX_FILE).run(None, {"crop": np.zeros((2, 3, CROP_H, CROP_W),
                                                                   np.float32)})[0]
    assert logits.shape == (2, len(CLASSES))
    net = load_reader(out / INDEX_FILE).eval()
    convs = [m for m in net.modules() if isinstance(m, torch.nn.Conv2d)]
    assert [c.out_channels for c in convs] == [8, 16, 16, 16, 16, 24, 32]  # c2, c3 twice
    with torch.no_grad():
        again = net(torch.zeros(2, 3, CROP_H, CROP_W)).numpy()
    assert np.abs(again - logits).max() < 1e-4


def test_a_new_finder_beside_a_kept_reader(run: tuple[Path, dict], tmp_path: Path) -> None:
    """`--new-finder`: the finder alone trains anew, on pictures of which the share asked are
    dense fans; the reader is the base model's file, byte for byte, with its records; a plan
    that keeps both networks trains nothing and is refused."""
    base, before = run
    plan = _tiny(tmp_path / "new")
    plan.reader_from, plan.reader_steps, plan.dense_fans = base, None, 0.5
    report = train(plan)
    out = tmp_path / "new"
    assert (out / INDEX_FILE).read_bytes() == (base / INDEX_FILE).read_bytes()
    assert (out / CORNERS_FILE).read_bytes() != (base / CORNERS_FILE).read_bytes()
    assert report["reader"] == before["reader"]
    assert report["reader_scores"] == before["reader_scores"]
    assert report["reader_run"] == {"kept_from": str(base), "seed": 0, "minutes_budget":
                                    before["minutes_budget"], "designs": [DESIGN]}
    assert report["finder"]["steps"] == 3 and report["finder_scores"]["index"]["true"] > 0
    assert report["data"]["dense_fan_share"] == 0.5
    plan.finder_from = base
    with pytest.raises(TrainError, match="not both"):
        train(plan)


def test_dense_fans_fill_their_share_of_the_finder_pictures() -> None:
    """A full training's finder pictures: with no dense-fan share each is the picture drawn
    before the share existed; with the whole share each is a bridge deal's fans, many more
    index centres than pictures of the usual mix."""
    why = missing_card_art((DESIGN,))
    if why:
        pytest.skip(f"SKIPPED LOUDLY: no card art ({why})")
    art = Artwork.load([DESIGN], progress=False, variants=False)
    plain = FinderData(art, 3, (256, 256), 12)
    fans = FinderData(art, 3, (256, 256), 12, dense=1.0)
    for i in range(2):
        drawn = finder_sample(np.random.default_rng([3, _FINDER_STREAM, i]), art, (256, 256))
        assert np.array_equal(plain[i][0], drawn.image)

    def centres(pictures: FinderData) -> list[int]:
        return [int((pictures[i][1][HEAT_INDEX] >= 0.999).sum()) for i in range(12)]

    assert np.mean(centres(fans)) > 2 * np.mean(centres(plain)), (centres(fans), centres(plain))


def test_enrolment_adds_the_house_deck_as_a_design(tmp_path: Path) -> None:
    why = missing_card_art((DESIGN, HOUSE_ART))
    if why:
        pytest.skip(f"SKIPPED LOUDLY: no card art ({why})")
    faces = load_faces(HOUSE_ART, default_cache())
    folder = tmp_path / "faces"
    folder.mkdir()
    for code in ("QS", "TH", "2C", "back"):
        name = "10H" if code == "TH" else code  # both spellings of a ten are read
        cv2.imwrite(str(folder / f"{name}.png"), faces[code])
    lines: list[str] = []
    plan = _tiny(tmp_path / "model")
    plan.faces, plan.log = folder, lines.append
    report = train(plan)
    assert report["designs"] == [DESIGN, HOUSE]
    assert report["enrolled"] == str(folder)
    assert any("enrolled the house deck: 3 faces" in line for line in lines)


def test_focal_loss_rewards_the_right_heat() -> None:
    target = torch.zeros(1, 1, 16, 16)
    target[0, 0, 8, 8] = 1.0
    target[0, 0, 8, 9] = target[0, 0, 8, 7] = 0.6
    right = torch.where(target >= 1.0, 6.0, -6.0)
    wrong = torch.where(target >= 1.0, -6.0, -6.0)
    wrong[0, 0, 2, 2] = 6.0
    assert focal_heat_loss(right, target) < 0.01 < focal_heat_loss(wrong, target)
    # a high guess next to the centre costs less than the same guess far away
    near, far = right.clone(), right.clone()
    near[0, 0, 8, 9], far[0, 0, 1, 1] = 3.0, 3.0
    assert focal_heat_loss(near, target) < focal_heat_loss(far, target)


def test_geometry_loss_counts_only_masked_cells() -> None:
    target = torch.zeros(1, MAP_CHANNELS, 8, 8)
    raw = torch.zeros(1, MAP_CHANNELS, 8, 8)
    mask = torch.zeros(1, 8, 8)
    mask[0, 3, 3] = 1.0
    raw[0, 2:, 0, 0] = 50.0  # wrong, but where no index is
    assert geometry_loss(raw, target, mask) == 0.0
    raw[0, 4, 3, 3] = 1.0  # log width off by one at the index
    assert geometry_loss(raw, target, mask) == pytest.approx(1.0 / (MAP_CHANNELS - 2))


def test_faces_folder_read_by_code(tmp_path: Path) -> None:
    face = np.full((140, 100, 3), 255, np.uint8)
    cv2.imwrite(str(tmp_path / "QS.png"), face)
    cv2.imwrite(str(tmp_path / "10h.png"), face)
    cv2.imwrite(str(tmp_path / "back.png"), face)
    (tmp_path / "notes.txt").write_text("not a card")
    faces = read_faces(tmp_path)
    assert sorted(faces) == ["QS", "TH", "back"]
    assert faces["QS"].shape == (140, 100, 4)
    (tmp_path / "KD.png").write_bytes(b"not a png")
    with pytest.raises(TrainError, match="KD.png"):
        read_faces(tmp_path)


@pytest.mark.parametrize(("args", "message"), [
    (["--designs", "tango"], "held out of training"),
    (["--designs", "no-such-deck"], "unknown card designs: no-such-deck"),
    (["--minutes", "0"], "--minutes must be above 0"),
    (["--faces", "/nonexistent/faces"], "no such folder"),
    (["--new-reader", "--from", "/nonexistent/model"], "no corners.onnx there"),
    (["--new-reader", "--reader-widths", "8,8"], "five whole numbers"),
    (["--reader-widths", "8,8,8,8,8"], "goes with --new-reader"),
    (["--new-reader", "--photos", "."], "no --reader-only, --photos"),
    (["--new-reader", "--dense-fans", "0.2"], "--finder-steps, --dense-fans"),
    (["--new-finder", "--from", "/nonexistent/model"], "no index.onnx there"),
    (["--new-finder", "--new-reader"], "each keep the other network"),
    (["--new-finder", "--reader-widths", "8,8,8,8,8"], "no --reader-only"),
    (["--dense-fans", "1.5"], "--dense-fans is a share of the pictures"),
    (["--reader-only", "--photos", ".", "--finder-steps", "2"], "no --faces, --finder-steps"),
    (["--reader-only", "--photos", ".", "--dense-fans", "1.5"],
     "--dense-fans is a share of the crops"),
])
def test_bad_arguments_give_a_clear_error(args: list[str], message: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    why = missing_card_art((DESIGN,))
    if why and "--faces" in args:
        pytest.skip(f"SKIPPED LOUDLY: no card art ({why})")
    status = main(["vision", "train", "--steps", "1", "--quiet", "--out", str(tmp_path), *args])
    err = capsys.readouterr().err
    assert status == 2
    assert message in err and "Traceback" not in err
