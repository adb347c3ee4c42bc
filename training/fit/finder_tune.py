"""Fine-tuning the finder on more dense fans (`vision train --finder-only --dense-fans SHARE`).

The finder starts from a trained model's `corners.onnx`, loaded back into the PyTorch
`Finder` by `reload.load_finder` (each exported convolution carries its folded BatchNorm, so
the BatchNorm is set to pass through, statistics frozen, as for the reader) and goes on
learning from synthetic pictures (`pictures.finder_sample`), of which `dense_fans` are forced
to be dense fans (`pictures.DENSE_FAN`: bridge-deal fans, each next card showing only 12-25% of
a card width, small cards). The readers are not touched: `index.onnx` and `card.onnx` are
copied over.

Reproducible from the seed as full training is: every picture is drawn from
`default_rng([seed, 4, n])`, the weights start from the given file.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from hardware.camera.model.spec import CARD_FILE, CORNERS_FILE, INDEX_FILE, REPORT_FILE
from training.data import pictures
from training.fit.full import FinderData
from training.fit.loop import Budget, TrainError, batches, finder_loss, fit, use_threads
from training.fit.reload import load_finder
from training.onnx_files import copy_networks, export_finder
from training.report.figures import (
    SHIPPED_MODEL,
    evaluate_finder,
    fine_tune_record,
    scoring_artwork,
    with_fine_tune,
    write_report,
)

_STREAM = 4


@dataclass
class FinderTune:
    """What one finder fine-tuning run does."""

    out: Path = Path("var/vision-model")
    base: Path | None = None  # the model folder to start from; None: the shipped model
    seed: int = 0
    minutes: float = 20.0
    steps: int | None = None
    dense_fans: float = 0.5  # share of the pictures that are dense fans
    batch: int = 8
    size: tuple[int, int] = (384, 384)
    lr: float = 5e-4
    designs: list[str] | None = None  # None: every training design
    eval_designs: list[str] | None = None  # None: training.art.decks.HELD_OUT
    variants: bool = True
    threads: int = 1
    workers: int = 0
    eval_pictures: int = 150
    eval_size: tuple[int, int] = (512, 384)
    progress: bool = True
    log: Callable[[str], None] = field(default=print, repr=False)


def finder_tune(plan: FinderTune) -> dict[str, Any]:
    """Fine-tune the finder; write corners.onnx, index.onnx and card.onnx (copied) and
    report.json into `plan.out`. Returns the report."""
    started = time.monotonic()
    if not 0.0 <= plan.dense_fans <= 1.0:
        raise TrainError("--dense-fans is a share of the pictures: 0 to 1")
    use_threads(plan.threads)
    torch.manual_seed(plan.seed)
    base = plan.base or SHIPPED_MODEL
    if not (base / INDEX_FILE).is_file() or not (base / CORNERS_FILE).is_file():
        raise TrainError(f"{base}: no {INDEX_FILE} and {CORNERS_FILE} to start from")
    net = load_finder(base / CORNERS_FILE)
    names = plan.designs if plan.designs is not None else pictures.designs_for_training()
    try:
        art = pictures.Artwork.load(names, progress=plan.progress, variants=plan.variants)
    except ValueError as e:
        raise TrainError(str(e)) from None
    scoring, scored_on = scoring_artwork(art, plan.eval_designs, plan.progress, plan.log)
    before = evaluate_finder(net, scoring, plan.eval_pictures, plan.seed, plan.eval_size)

    net = net.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
    length = plan.batch * (plan.steps or 10 ** 9)
    samples = FinderData(art, plan.seed, plan.size, length, plan.dense_fans, _STREAM)
    loader = batches(samples, plan.batch, plan.workers)
    figures = fit(net, loader, finder_loss, Budget(plan.steps, plan.minutes * 60), plan.lr,
                  "finder (fine-tune)", plan.progress, frozen_norms=True)
    net = net.to(memory_format=torch.contiguous_format)
    plan.out.mkdir(parents=True, exist_ok=True)
    figures["onnx_max_difference"] = export_finder(net, plan.out / CORNERS_FILE, plan.seed)
    copy_networks(base, plan.out, (INDEX_FILE, CARD_FILE))
    after = evaluate_finder(net, scoring, plan.eval_pictures, plan.seed, plan.eval_size)
    report = with_fine_tune(base, "finder_fine_tune", fine_tune_record(
        plan.seed, plan.base, art.names, plan.lr, started, dense_fan_share=plan.dense_fans,
        fit=figures, scored_on=scored_on, before=before, after=after))
    write_report(plan.out / REPORT_FILE, report)
    return report
