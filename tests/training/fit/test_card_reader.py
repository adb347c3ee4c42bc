"""`dealer-assist vision train --card-only` on a tiny scale: real synthetic crops of whole
cards (real card art), a few steps, a card.onnx the runtime loads beside the copied finder and
reader, report.json; the same seed gives the same crops; bad arguments give a clear error."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import orjson
import pytest

if importlib.util.find_spec("torch") is None:
    pytest.skip("SKIPPED LOUDLY: PyTorch is not installed (pip install -e '.[train]'): the "
                "card reader's training is not tested", allow_module_level=True)

from dealer_assist.cli import main  # noqa: E402
from hardware.camera.model.settings import Settings  # noqa: E402
from hardware.camera.model.spec import (  # noqa: E402
    CARD_FILE,
    CARD_H,
    CARD_W,
    CORNERS_FILE,
    INDEX_FILE,
    REPORT_FILE,
)
from hardware.camera.read import CardReader  # noqa: E402
from hardware.cards import CODES_BY_SUIT  # noqa: E402
from training.art.artwork import Artwork  # noqa: E402
from training.fit.card_reader import CardTrain, draw_pool, train_card_reader  # noqa: E402

DESIGN = "anglo"  # the design of conftest's `art`
MODEL = Path(__file__).resolve().parents[3] / "hardware" / "camera" / "model"


def test_the_pool_is_drawn_from_the_seed(art: Artwork) -> None:
    crops, labels = draw_pool(art, 3, 6, 0, False)
    again, same = draw_pool(art, 3, 6, 0, False)
    other, _ = draw_pool(art, 4, 6, 0, False)
    assert crops.shape == (6, CARD_H, CARD_W, 3) and crops.dtype == np.uint8
    assert np.array_equal(crops, again) and np.array_equal(labels, same)
    assert not np.array_equal(crops, other)
    assert all(0 <= k < len(CODES_BY_SUIT) for k in labels)
    assert crops.std() > 10  # a picture, not a blank


def test_a_few_steps_write_a_card_reader_beside_the_copied_networks(art: Artwork,
                                                                    tmp_path: Path) -> None:
    plan = CardTrain(out=tmp_path, seed=2, steps=2, pool=40, batch=16, designs=[DESIGN],
                     eval_designs=[DESIGN], variants=False, eval_crops=20, workers=0,
                     progress=False, log=lambda _: None)
    report = train_card_reader(plan)["card_reader"]
    assert report["fit"]["steps"] == 2 and report["fit"]["onnx_max_difference"] <= 1e-4
    assert report["pool"] == 40 and report["scores"]["crops"] == 20
    assert 0.0 <= report["scores"]["accuracy"] <= 1.0
    for kept in (CORNERS_FILE, INDEX_FILE):
        assert (tmp_path / kept).read_bytes() == (MODEL / kept).read_bytes()
    assert (tmp_path / CARD_FILE).read_bytes() != (MODEL / CARD_FILE).read_bytes()
    code, prob = CardReader(Settings(model_dir=tmp_path))(
        np.full((300, 300, 3), 200, np.uint8), (150.0, 150.0), (0.0, -1.0), 100.0)
    assert code in CODES_BY_SUIT and 0.0 < prob <= 1.0
    on_disk = orjson.loads((tmp_path / REPORT_FILE).read_bytes())
    assert on_disk["card_reader"]["seed"] == 2 and "reader" in on_disk  # the base's kept


@pytest.mark.parametrize(("args", "said"), [
    (["--photos", "x"], "--card-only trains the card reader alone"),
    (["--reader-steps", "3"], "--card-only trains the card reader alone"),
    (["--card-pool", "0"], "--card-pool must be above 0"),
])
def test_card_only_refuses_what_it_does_not_do(args: list[str], said: str, tmp_path: Path,
                                               capsys) -> None:
    assert main(["vision", "train", "--card-only", "--out", str(tmp_path), *args]) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err
