"""`vision train --finder-only`: the shipped finder loads back into PyTorch computing what its
ONNX file computes, a few fine-tuning steps on dense fans write a model that onnxruntime runs,
dense-fan pictures are what they say, and bad arguments give a clear error."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import orjson
import pytest

if importlib.util.find_spec("torch") is None:
    pytest.skip("SKIPPED LOUDLY: PyTorch is not installed (pip install -e '.[train]'): the "
                "finder's fine-tune is not tested", allow_module_level=True)

import torch  # noqa: E402

from dealer_assist.cli import main  # noqa: E402
from hardware.camera.model.spec import (  # noqa: E402
    CARD_FILE,
    CORNERS_FILE,
    HEAT_INDEX,
    INDEX_FILE,
    REPORT_FILE,
)
from tests.cardart import TRAINING_DESIGN  # noqa: E402
from training.data import pictures  # noqa: E402
from training.fit.finder_tune import FinderTune, finder_tune  # noqa: E402
from training.fit.reload import load_finder  # noqa: E402
from training.onnx_files import session  # noqa: E402

MODEL = Path(__file__).resolve().parents[3] / "hardware" / "camera" / "model"
DESIGN = TRAINING_DESIGN  # the `art` fixture's (tests/training/conftest.py)


def test_the_shipped_finder_loads_back_computing_what_onnx_computes() -> None:
    net = load_finder(MODEL / CORNERS_FILE).eval()
    image = torch.rand(1, 3, 256, 320, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        ours = net(image).numpy()
    theirs = session(MODEL / CORNERS_FILE).run(None, {"image": image.numpy()})[0]
    assert np.abs(ours - theirs).max() < 1e-4


def test_dense_fan_pictures_show_many_indices_all_face_up(art: pictures.Artwork) -> None:
    counts = []
    for i in range(4):
        rng = np.random.default_rng(i)
        sample = pictures.finder_sample(rng, art, (384, 384), mode=pictures.DENSE_FAN)
        counts.append(int((sample.maps[HEAT_INDEX] >= 0.999).sum()))
        assert sample.image.shape == (384, 384, 3)
    assert sum(counts) >= 20, counts


@pytest.mark.usefixtures("art")  # the design's card art, or a loud skip
def test_a_few_fine_tuning_steps_write_a_model_that_onnxruntime_runs(tmp_path: Path) -> None:
    plan = FinderTune(out=tmp_path, steps=2, batch=2, size=(128, 128), designs=[DESIGN],
                      eval_designs=[DESIGN], variants=False, eval_pictures=2,
                      eval_size=(256, 192), progress=False, log=lambda _: None)
    report = finder_tune(plan)["finder_fine_tune"]
    assert report["fit"]["steps"] == 2 and report["fit"]["onnx_max_difference"] <= 1e-4
    maps = session(tmp_path / CORNERS_FILE).run(
        None, {"image": np.zeros((1, 3, 256, 320), np.float32)})[0]
    assert maps.shape == (1, 7, 64, 80)
    for kept in (INDEX_FILE, CARD_FILE):  # the readers, copied as they are
        assert (tmp_path / kept).read_bytes() == (MODEL / kept).read_bytes()
    on_disk = orjson.loads((tmp_path / REPORT_FILE).read_bytes())
    assert on_disk["finder_fine_tune"]["dense_fan_share"] == 0.5
    assert "reader" in on_disk  # the shipped model's own record is kept
    shipped = orjson.loads((MODEL / REPORT_FILE).read_bytes())
    # the shipped finder's own fine-tune is kept too, as the last of the earlier ones
    assert on_disk["earlier_fine_tunes"][-1] == shipped["finder_fine_tune"]
    assert on_disk["earlier_fine_tunes"][:-1] == shipped.get("earlier_fine_tunes", [])


@pytest.mark.usefixtures("art")
def test_a_fine_tune_with_a_data_worker_process_finishes(tmp_path: Path) -> None:
    """The command's default is one forked data worker: it draws pictures after the fine-tune
    has scored the model it starts from, so OpenCV's thread pool must not be running then (a
    worker forked from it hung for good). A fresh process, as a user runs it."""
    done = subprocess.run(
        [sys.executable, "-m", "dealer_assist.cli", "vision", "train", "--finder-only",
         "--steps", "2", "--designs", DESIGN, "--workers", "1", "--quiet", "--out",
         str(tmp_path)], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / CORNERS_FILE).is_file() and "fine-tuned" in done.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--dense-fans", "1.5"], "--dense-fans is a share of the pictures"),
    (["--photos", "/nonexistent"], "--finder-only trains the finder alone"),
])
def test_bad_finder_only_arguments_give_a_clear_error(args: list[str], message: str,
                                                       tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["vision", "train", "--finder-only", "--steps", "1", "--quiet", "--out",
                   str(tmp_path), *args])
    err = capsys.readouterr().err
    assert status == 2
    assert message in err and "Traceback" not in err
