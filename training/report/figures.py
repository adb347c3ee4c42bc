"""The figures of a training run: the networks scored on synthetic data of card designs they
were not trained on, and report.json.

- Reader: accuracy over crops cut as the runtime cuts them (`reader_sample`), and how often a
  crop of something else is called a card.
- Finder: corner-index peaks (3x3 local maxima above `PEAK`) against the true index centres of
  `finder_sample` pictures: recall, precision, and the geometry read at the found ones (angle
  of "up", card width, card centre). The same for face-down card centres.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import torch
from torch.nn import functional as F

import hardware.camera.model
from hardware.camera.model.spec import (
    CLASSES,
    CORNERS_FILE,
    CROP_H,
    CROP_W,
    HEAT_BACK,
    HEAT_INDEX,
    INDEX_FILE,
    LOG_WIDTH,
    NOT_A_CARD,
    REPORT_FILE,
    TO_CENTRE_X,
    TO_CENTRE_Y,
    UP_COS,
    UP_SIN,
)
from training.art.decks import DESIGNS, HELD_OUT, missing_card_art
from training.data.crops import reader_sample
from training.data.pictures import Artwork, finder_sample
from training.nets import Finder, Reader

PEAK = 0.5  # a heat cell at or above this that is a 3x3 local maximum is a detection
LOW_PEAK = 0.3  # the same figures at a lower floor, for a runtime that asks less
MATCH_CELLS = 2.0  # a detection within this many cells of a true centre finds it
_NONE = CLASSES.index(NOT_A_CARD)


def image_tensor(images: np.ndarray) -> torch.Tensor:
    """uint8 [N, H, W, 3] BGR -> float [N, 3, H, W] in [0, 1]."""
    return torch.from_numpy(np.ascontiguousarray(images)).permute(0, 3, 1, 2).float() / 255.0


def evaluate_reader(net: Reader, art: Artwork, count: int, seed: int) -> dict[str, Any]:
    """The reader's figures on `count` crops drawn from `art`."""
    rng = np.random.default_rng([seed, 7001])
    crops, labels = zip(*(reader_sample(rng, art) for _ in range(count)), strict=True)
    truth = np.array(labels)
    net.eval()
    with torch.no_grad():
        logits = torch.cat([net(image_tensor(np.stack(crops[i:i + 256])))
                            for i in range(0, count, 256)])
    guess = logits.argmax(1).numpy()
    cards, others = truth != _NONE, truth == _NONE
    return {
        "crops": count,
        "accuracy": round(float(np.mean(guess == truth)), 4),
        "card_accuracy": _share(guess[cards] == truth[cards]),
        "wrong_code_rate": _share((guess[cards] != truth[cards]) & (guess[cards] != _NONE)),
        "none_called_a_card": _share(guess[others] != _NONE),
    }


def scoring_artwork(training: Artwork, names: list[str] | None, progress: bool,
                    log: Callable[[str], None]) -> tuple[Artwork, str]:
    """The art the figures are taken on: the designs `names` (None: the held-out ones), or
    (where their art or the data module refuses them) the training designs, said so in the
    report."""
    names = names if names is not None else list(HELD_OUT)
    if all(n in training.names for n in names):
        return training, "training designs: " + ", ".join(names)
    why = missing_card_art(tuple(n for n in names if n in DESIGNS))
    if why is None:
        try:
            art = Artwork.load(names, progress=progress, variants=False, evaluation=True)
            return art, "held-out designs: " + ", ".join(art.names)
        except ValueError as e:
            why = str(e)
    log(f"scoring on the training designs: the held-out ones are not available ({why})")
    return training, "training designs (held-out not available)"


def _share(hits: np.ndarray) -> float | None:
    return round(float(np.mean(hits)), 4) if hits.size else None


@dataclass
class _Tally:
    true: int = 0
    found: int = 0
    detections: int = 0
    right: int = 0

    def figures(self) -> dict[str, Any]:
        return {"true": self.true, "detections": self.detections,
                "recall": round(self.found / self.true, 4) if self.true else None,
                "precision": round(self.right / self.detections, 4) if self.detections else None}


def peaks(heat: torch.Tensor, floor: float) -> np.ndarray:
    """(row, col) of the 3x3 local maxima of a [H, W] map at or above `floor`."""
    pooled = F.max_pool2d(heat[None, None], 3, 1, 1)[0, 0]
    return torch.nonzero((heat == pooled) & (heat >= floor)).numpy()


def _score(found: np.ndarray, target: np.ndarray, tally: _Tally) -> list[tuple[int, int, int, int]]:
    """Match detections to the target's full peaks (1.0); a detection on a weak target bump (an
    index partly covered, which the data marks low) counts neither way. Returns the matched
    (detection row, col, truth row, col)."""
    t = torch.from_numpy(target)
    full = peaks(t, 0.999)
    weak = peaks(t, 0.05)
    weak = weak[t[weak[:, 0], weak[:, 1]].numpy() < 0.999] if len(weak) else weak
    tally.true += len(full)
    taken = np.zeros(len(full), bool)
    pairs = []
    for r, c in found:
        if len(full):
            d = np.hypot(full[:, 0] - r, full[:, 1] - c)
            d[taken] = np.inf
            k = int(np.argmin(d))
            if d[k] <= MATCH_CELLS:
                taken[k] = True
                tally.detections += 1
                tally.right += 1
                pairs.append((int(r), int(c), int(full[k, 0]), int(full[k, 1])))
                continue
        if len(weak) and np.min(np.hypot(weak[:, 0] - r, weak[:, 1] - c)) <= MATCH_CELLS:
            continue
        tally.detections += 1
    tally.found += int(taken.sum())
    return pairs


def evaluate_finder(net: Finder, art: Artwork, count: int, seed: int,
                    size: tuple[int, int] = (512, 384)) -> dict[str, Any]:
    """The finder's figures on `count` pictures drawn from `art`."""
    rng = np.random.default_rng([seed, 7002])
    index, back, low = _Tally(), _Tally(), _Tally()
    angle, width, centre = [], [], []
    net.eval()
    for _ in range(count):
        sample = finder_sample(rng, art, size)
        with torch.no_grad():
            maps = net(image_tensor(sample.image[None]))[0]
        pairs = _score(peaks(maps[HEAT_INDEX], PEAK), sample.maps[HEAT_INDEX], index)
        _score(peaks(maps[HEAT_BACK], PEAK), sample.maps[HEAT_BACK], back)
        _score(peaks(maps[HEAT_INDEX], LOW_PEAK), sample.maps[HEAT_INDEX], low)
        got, want = maps.numpy(), sample.maps
        for r, c, tr, tc in pairs:
            a = np.arctan2(got[UP_SIN, r, c], got[UP_COS, r, c])
            b = np.arctan2(want[UP_SIN, tr, tc], want[UP_COS, tr, tc])
            angle.append(abs((np.degrees(a - b) + 180) % 360 - 180))
            width.append(abs(np.expm1(got[LOG_WIDTH, r, c] - want[LOG_WIDTH, tr, tc])))
            centre.append(np.hypot(got[TO_CENTRE_X, r, c] - want[TO_CENTRE_X, tr, tc],
                                   got[TO_CENTRE_Y, r, c] - want[TO_CENTRE_Y, tr, tc]))
    return {
        "pictures": count, "size": list(size), "peak": PEAK, "match_cells": MATCH_CELLS,
        "index": index.figures(), "back": back.figures(), f"index_at_{LOW_PEAK}": low.figures(),
        "up_error_deg_median": _median(angle), "up_error_deg_p95": _pct(angle, 95),
        "width_error_median": _median(width),
        "centre_error_card_widths_median": _median(centre),
    }


def _median(values: list[float]) -> float | None:
    return round(float(np.median(values)), 4) if values else None


def _pct(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 4) if values else None


def inference_speed(folder: Path, runs: int = 20) -> dict[str, float]:
    """Median milliseconds of the exported networks in onnxruntime on one thread: the finder
    on a 1024x576 frame (a 1920x1080 frame at the working size), the reader on 16 crops."""
    from training.onnx_files import session

    rng = np.random.default_rng(0)
    figures = {}
    for name, file, shape in (("finder_ms_1024x576", CORNERS_FILE, (1, 3, 576, 1024)),
                              ("reader_ms_16_crops", INDEX_FILE, (16, 3, CROP_H, CROP_W))):
        run = session(folder / file, threads=1)
        feed = {run.get_inputs()[0].name: rng.random(shape, np.float32)}
        times = []
        for i in range(runs + 3):
            start = time.perf_counter()
            run.run(None, feed)
            if i >= 3:  # the first runs warm up
                times.append(time.perf_counter() - start)
        figures[name] = round(1000 * float(np.median(times)), 2)
    return figures


def write_report(path: Path, report: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(report, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY)
                     + b"\n")


#: the model folder that ships with the package (`--from`'s default)
SHIPPED_MODEL = Path(hardware.camera.model.__file__).resolve().parent


def previous_report(folder: Path) -> dict[str, Any]:
    """The report.json of a model folder, or {} where it has none."""
    path = folder / REPORT_FILE
    return orjson.loads(path.read_bytes()) if path.is_file() else {}


def with_fine_tune(base: Path, key: str, record: dict[str, Any]) -> dict[str, Any]:
    """The report of the model folder `base` with `record` as its fine-tune `key`
    ("reader_fine_tune", "finder_fine_tune"); an earlier record under that key moves to the end
    of "earlier_fine_tunes", so that every fine-tune the model went through stays recorded."""
    previous = previous_report(base)
    earlier = list(previous.pop("earlier_fine_tunes", []))
    if key in previous:
        earlier.append(previous.pop(key))
    return {**previous, **({"earlier_fine_tunes": earlier} if earlier else {}), key: record}


def fine_tune_record(seed: int, base: Path | None, designs: list[str], lr: float,
                     started: float, **measured: Any) -> dict[str, Any]:
    """One fine-tune's record for report.json: its seed, the model it started from (None:
    the shipped one), the synthetic designs and learning rate it used, what it `measured`
    (its own fields, in order) and its wall time since `started` (time.monotonic())."""
    return {"seed": seed, "started_from": str(base) if base else "the shipped model",
            "synthetic_designs": designs, "lr": lr, **measured,
            "wall_seconds": round(time.monotonic() - started, 1)}
