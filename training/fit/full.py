"""Training the finder, the reader and the card reader (`training.fit.card_reader`) on randomised synthetic
data, then exporting them to ONNX and scoring them on card designs held out of training.

Data: `training.data.pictures` draws every sample from its own generator, seeded by (seed, net, sample
number), so the data a run sees depends on the seed alone, however many worker processes draw
it. Weights start from `torch.manual_seed(seed)`. With fixed step counts a run is reproducible
(CPU thread scheduling can still change the last bits of a sum, so two runs may part in the
last decimals); with a time budget the number of steps follows the machine's speed (report.json
records it, and `--finder-steps/--reader-steps` repeat it exactly).

The loop, the losses and the learning rate are `training.fit.loop`'s.
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import torch
from torch.utils.data import Dataset

from hardware.camera.model.spec import CARD_FILE, CORNERS_FILE, INDEX_FILE, REPORT_FILE
from hardware.cards import CODES_BY_SUIT
from training.art.decks import DESIGNS, HELD_OUT, missing_card_art
from training.data import crops, pictures
from training.fit import card_reader
from training.fit.loop import (
    Budget,
    TrainError,
    batches,
    finder_loss,
    fit,
    reader_loss,
    use_threads,
)
from training.nets import READER_CHANNELS, Finder, Reader, WholeCard, parameter_count
from training.onnx_files import copy_networks, export_finder, export_reader
from training.report.figures import (
    evaluate_finder,
    evaluate_reader,
    inference_speed,
    previous_report,
    scoring_artwork,
    write_report,
)

# of the time budget: the finder's, the reader's and the card reader's steps (its crops are
# drawn before, in about 5 minutes for card_reader.POOL on one worker); the rest loads and scores
FINDER_SHARE, READER_SHARE, CARD_SHARE = 0.66, 0.2, 0.05
DEFAULT_MINUTES = 100.0
_FINDER_STREAM, _READER_STREAM = 1, 2
HOUSE = "house"  # the design name of an enrolled deck


@dataclass
class Plan:
    """What one training run does."""

    out: Path = Path("var/vision-model")
    seed: int = 0
    minutes: float = DEFAULT_MINUTES
    finder_steps: int | None = None  # fixed step counts (tests, exact reruns) over minutes
    reader_steps: int | None = None
    designs: list[str] | None = None  # None: pictures.designs_for_training()
    eval_designs: list[str] | None = None  # None: training.art.decks.HELD_OUT
    faces: Path | None = None  # the house's own deck (enrolment)
    finder_from: Path | None = None  # keep this model folder's finder; train the reader alone
    reader_from: Path | None = None  # keep this model folder's reader; train the finder alone
    variants: bool = True  # also jumbo-index and four-colour printings (pictures.Artwork.load)
    threads: int = 1  # more threads than free cores slow PyTorch down badly
    workers: int = 1
    finder_batch: int = 8
    reader_batch: int = 128
    reader_channels: tuple[int, int, int, int, int] = READER_CHANNELS
    finder_size: tuple[int, int] = (384, 384)
    finder_lr: float = 2e-3
    dense_fans: float = 0.0  # share of the finder's pictures that are bridge-deal fans
    reader_lr: float = 2e-3
    card_pool: int = card_reader.POOL  # the card reader's crops, drawn before it trains
    card_steps: int | None = None
    eval_pictures: int = 150
    eval_crops: int = 3000
    eval_size: tuple[int, int] = (512, 384)
    progress: bool = True
    log: Callable[[str], None] = field(default=print, repr=False)


# ------------------------------------------------------------------------------------ data


class FinderData(Dataset):
    """The finder's pictures, `dense` of them (a share) the fans of a bridge deal; with none,
    picture i is the same as before the share existed."""

    def __init__(self, art: pictures.Artwork, seed: int, size: tuple[int, int], length: int,
                 dense: float = 0.0, stream: int = _FINDER_STREAM) -> None:
        self.art, self.seed, self.size, self.length = art, seed, size, length
        self.dense, self.stream = dense, stream

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rng = np.random.default_rng([self.seed, self.stream, i])
        mode = pictures.DENSE_FAN if self.dense > 0 and rng.random() < self.dense else None
        s = pictures.finder_sample(rng, self.art, self.size, mode=mode)
        return s.image, s.maps, s.geo_mask


class _ReaderData(Dataset):
    def __init__(self, art: pictures.Artwork, seed: int, length: int) -> None:
        self.art, self.seed, self.length = art, seed, length

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, i: int) -> tuple[np.ndarray, int]:
        return crops.reader_sample(np.random.default_rng([self.seed, _READER_STREAM, i]), self.art)


# ----------------------------------------------------------------------------------- run


def _artwork(plan: Plan) -> pictures.Artwork:
    names = plan.designs if plan.designs is not None else pictures.designs_for_training()
    held = [n for n in names if n in HELD_OUT]
    if held:
        raise TrainError(f"{', '.join(held)} held out of training (kept to score the model)")
    why = missing_card_art(tuple(n for n in names if n in DESIGNS))
    if why:
        raise TrainError(why)
    house = read_faces(plan.faces) if plan.faces is not None else None
    try:
        art = pictures.Artwork.load(names, progress=plan.progress, variants=plan.variants)
    except ValueError as e:
        raise TrainError(str(e)) from None
    if house is not None:
        _enrol(art, house, plan.log)
    return art


def read_faces(folder: Path) -> dict[str, np.ndarray]:
    """A house deck's face pictures: files named by code (`QS.png`, `TH.jpg` or `10H.jpg`, ...) and
    optionally `back.*`, as BGRA arrays."""
    if not folder.is_dir():
        raise TrainError(f"--faces {folder}: no such folder")
    faces: dict[str, np.ndarray] = {}
    wanted = {c.upper(): c for c in (*CODES_BY_SUIT, "back")}
    for path in sorted(folder.iterdir()):
        stem = path.stem.upper()
        code = wanted.get("T" + stem[2:] if stem.startswith("10") else stem)
        if code is None or not path.is_file():
            continue
        picture = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if picture is None or picture.ndim < 2 or min(picture.shape[:2]) < 40:
            raise TrainError(f"--faces: {path.name} is not a readable picture of a card")
        if picture.ndim == 2:
            picture = cv2.cvtColor(picture, cv2.COLOR_GRAY2BGRA)
        elif picture.shape[2] == 3:
            picture = cv2.cvtColor(picture, cv2.COLOR_BGR2BGRA)
        faces[code] = picture
    if not any(c in faces for c in CODES_BY_SUIT):
        raise TrainError(f"--faces {folder}: no face pictures named by code (e.g. QS.png, TH.png)")
    return faces


def _enrol(art: pictures.Artwork, faces: dict[str, np.ndarray], log: Callable[[str], None]) -> None:
    kept = art.enrol(HOUSE, faces)
    if kept == 0:
        raise TrainError("--faces: no corner index found on any of the face pictures (each "
                         "should show one whole card, cut to its edges)")
    missing = [c for c in CODES_BY_SUIT if c not in faces]
    log(f"enrolled the house deck: {kept} faces with readable indices"
        + (f"; no picture of {', '.join(missing)}" if missing else ""))


def _train_finder(plan: Plan, art: pictures.Artwork, seconds: float
                  ) -> tuple[Finder, dict[str, Any]]:
    """The finder trained on `art` for `seconds` (or plan.finder_steps) and exported into
    plan.out; its figures for the report."""
    finder = Finder().to(memory_format=torch.channels_last)  # type: ignore[call-overload]
    length = plan.finder_batch * (plan.finder_steps or 10 ** 9)
    samples = FinderData(art, plan.seed, plan.finder_size, length, plan.dense_fans)
    figures = fit(finder, batches(samples, plan.finder_batch, plan.workers),
                  finder_loss, Budget(plan.finder_steps, seconds), plan.finder_lr, "finder",
                  plan.progress)
    finder = finder.to(memory_format=torch.contiguous_format)
    figures["onnx_max_difference"] = export_finder(finder, plan.out / CORNERS_FILE, plan.seed)
    figures["parameters"] = parameter_count(finder)
    figures["onnx_bytes"] = (plan.out / CORNERS_FILE).stat().st_size
    return finder, {"finder": figures}


#: what a model folder's report.json says of each network: carried over when it is kept
FINDER_RECORDS = ("finder", "finder_scores", "finder_fine_tune")
READER_RECORDS = ("reader", "reader_scores", "earlier_fine_tunes", "reader_fine_tune")
CARD_RECORDS = ("card_reader",)


def _kept(base: Path, out: Path, file: str, records: tuple[str, ...], run_key: str
          ) -> dict[str, Any]:
    """One network of the model folder `base` (its `file`), copied into `out` as it is, and
    its `records` from base's report (under `run_key`: the seed, budget and designs of the run
    that trained it)."""
    copy_networks(base, out, (file,))
    before = previous_report(base)
    kept = {key: before[key] for key in records if key in before}
    run = before.get(run_key) or {key: before.get(key)
                                  for key in ("seed", "minutes_budget", "designs")}
    return {**kept, run_key: {"kept_from": str(base), **run}}


def train(plan: Plan) -> dict[str, Any]:
    """Run the whole training: data, the three networks (or the finder or the reader alone,
    beside the other and the card reader kept from a trained model), ONNX export, scores;
    returns the report (also written to plan.out / report.json)."""
    started = time.monotonic()
    _check(plan)
    use_threads(plan.threads)
    torch.manual_seed(plan.seed)
    art = _artwork(plan)
    plan.log(f"card art: {len(art.names)} designs ({', '.join(art.names)})")
    budget, out = plan.minutes * 60, plan.out
    finder: Finder | None = None
    reader: Reader | None = None
    card: WholeCard | None = None
    card_report: dict[str, Any] = {}
    if plan.finder_from is None:  # alone, it has the other networks' shares too
        alone = READER_SHARE + CARD_SHARE if plan.reader_from is not None else 0.0
        finder, finder_report = _train_finder(plan, art, budget * (FINDER_SHARE + alone))
    else:
        finder_report = _kept(plan.finder_from, out, CORNERS_FILE, FINDER_RECORDS, "finder_run")
    if plan.reader_from is None:
        alone = FINDER_SHARE + CARD_SHARE if plan.finder_from is not None else 0.0
        reader, reader_report = _train_reader(plan, art, budget * (READER_SHARE + alone))
    else:
        reader_report = _kept(plan.reader_from, out, INDEX_FILE, READER_RECORDS, "reader_run")
    kept_from = plan.finder_from or plan.reader_from
    if kept_from is None:
        card, figures = card_reader.fit_card_reader(
            art, out / CARD_FILE, plan.seed, plan.card_pool,
            Budget(plan.card_steps, budget * CARD_SHARE), plan.workers, plan.progress)
        card_report = {"card_reader": figures}
    elif (kept_from / CARD_FILE).is_file():  # one network kept: its model's card reader too
        card_report = _kept(kept_from, out, CARD_FILE, CARD_RECORDS, "card_run")
    else:  # a model trained before the card reader: its cards are read by their corners
        (out / CARD_FILE).unlink(missing_ok=True)

    scoring, scored_on = scoring_artwork(art, plan.eval_designs, plan.progress, plan.log)
    plan.log(f"scoring on {scored_on}")
    if finder is not None:
        finder_report["finder_scores"] = evaluate_finder(finder, scoring, plan.eval_pictures,
                                                         plan.seed, plan.eval_size)
    if reader is not None:
        reader_report["reader_scores"] = evaluate_reader(reader, scoring, plan.eval_crops,
                                                         plan.seed)
    if card is not None:
        card_report["card_reader"]["scores"] = card_reader.evaluate_card_reader(
            card, scoring, plan.eval_crops, plan.seed)
    report = {
        "seed": plan.seed,
        "designs": art.names,
        "enrolled": str(plan.faces) if plan.faces else None,
        "scored_on": scored_on,
        "minutes_budget": plan.minutes,
        "data": {"recoloured_ink_share": crops.RECOLOUR, "grey_crop_share": crops.GREY,
                 "backs": len(art.backs), "dense_fan_share": plan.dense_fans},
        **finder_report,
        **reader_report,
        **card_report,
        "speed_one_thread": inference_speed(out),
        "threads": plan.threads,
        "workers": plan.workers,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "wall_seconds": 0.0,
    }
    report["wall_seconds"] = round(time.monotonic() - started, 1)
    write_report(out / REPORT_FILE, report)
    return report


def _check(plan: Plan) -> None:
    """A plan that cannot run, refused before any card art is loaded."""
    timed = ((plan.finder_from is None and plan.finder_steps is None)
             or (plan.reader_from is None and plan.reader_steps is None)
             or (plan.finder_from is None and plan.reader_from is None
                 and plan.card_steps is None))
    if plan.minutes <= 0 and timed:
        raise TrainError("--minutes must be above 0")
    for size in plan.finder_size:
        if size % 32:
            raise TrainError(f"finder sample size {plan.finder_size} must be multiples of 32")
    if not 0.0 <= plan.dense_fans <= 1.0:
        raise TrainError("--dense-fans is a share of the pictures: 0 to 1")
    if plan.finder_from is not None and plan.reader_from is not None:
        raise TrainError("keep the finder or the reader of a trained model, not both: "
                         "nothing would be trained")
    for base, file in ((plan.finder_from, CORNERS_FILE), (plan.reader_from, INDEX_FILE)):
        if base is not None and not (base / file).is_file():
            raise TrainError(f"--from {base}: no {file} there (a model folder holds "
                             "corners.onnx and index.onnx)")


def _train_reader(plan: Plan, art: pictures.Artwork, seconds: float
                  ) -> tuple[Reader, dict[str, Any]]:
    """The reader trained on `art` for `seconds` (or plan.reader_steps) and exported into
    plan.out; its figures for the report."""
    reader = Reader(plan.reader_channels)
    reader = reader.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
    length = plan.reader_batch * (plan.reader_steps or 10 ** 9)
    figures = fit(reader, batches(_ReaderData(art, plan.seed, length), plan.reader_batch,
                                  plan.workers),
                  reader_loss, Budget(plan.reader_steps, seconds), plan.reader_lr, "reader",
                  plan.progress)
    reader = reader.to(memory_format=torch.contiguous_format)
    figures["onnx_max_difference"] = export_reader(reader, plan.out / INDEX_FILE, plan.seed)
    figures["parameters"] = parameter_count(reader)
    figures["channels"] = list(plan.reader_channels)
    figures["onnx_bytes"] = (plan.out / INDEX_FILE).stat().st_size
    return reader, {"reader": figures}
