"""Fine-tuning the finder on more dense fans (`vision train --finder-only --dense-fans SHARE`).

The finder starts from a trained model's `corners.onnx`: its weights are loaded back into the
PyTorch `Finder` (each exported convolution carries its folded BatchNorm, so the BatchNorm is
set to pass through, statistics frozen, as `finetune.load_reader` does for the reader) and goes
on learning from synthetic pictures (`data.finder_sample`), of which `dense_fans` are forced to
be dense fans (`data.DENSE_FAN`: bridge-deal fans, each next card showing only 12-25% of a card
width, small cards). The readers are not touched: `index.onnx` and `card.onnx` are copied over.

Reproducible from the seed as full training is: every picture is drawn from
`default_rng([seed, 4, n])`, the weights start from the given file.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import onnx
import torch
from onnx import numpy_helper
from torch import nn

from hardware.camera.learn import data
from hardware.camera.learn.export import copy_networks, export_finder
from hardware.camera.learn.fit import Budget, TrainError, batches, finder_loss, fit, use_threads
from hardware.camera.learn.nets import Finder
from hardware.camera.learn.report import (
    SHIPPED_MODEL,
    evaluate_finder,
    fine_tune_record,
    scoring_artwork,
    with_fine_tune,
    write_report,
)
from hardware.camera.learn.train import FinderData
from hardware.camera.model.spec import CARD_FILE, CORNERS_FILE, INDEX_FILE, REPORT_FILE

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
    eval_designs: list[str] | None = None  # None: synth.decks.HELD_OUT
    variants: bool = True
    threads: int = 1
    workers: int = 0
    eval_pictures: int = 150
    eval_size: tuple[int, int] = (512, 384)
    progress: bool = True
    log: Callable[[str], None] = field(default=print, repr=False)


def _convs_in_order(net: nn.Module) -> list[nn.Conv2d]:
    """The network's convolutions in the order a forward pass runs them (the order the
    exporter writes them), found by running it once."""
    order: list[nn.Conv2d] = []
    hooks = [m.register_forward_hook(lambda mod, _i, _o: order.append(mod))
             for m in net.modules() if isinstance(m, nn.Conv2d)]
    try:
        with torch.no_grad():
            net.eval()
            net(torch.zeros(1, 3, 64, 64))
    finally:
        for hook in hooks:
            hook.remove()
    return order


def _norm_after(net: nn.Module) -> dict[int, nn.BatchNorm2d]:
    """Each convolution's BatchNorm (the next module in its Sequential), by id of the conv."""
    pairs: dict[int, nn.BatchNorm2d] = {}
    for seq in net.modules():
        if isinstance(seq, nn.Sequential):
            parts = list(seq)
            for a, b in zip(parts, parts[1:], strict=False):
                if isinstance(a, nn.Conv2d) and isinstance(b, nn.BatchNorm2d):
                    pairs[id(a)] = b
    return pairs


def load_finder(path: Path) -> Finder:
    """A PyTorch Finder holding the weights of the exported `corners.onnx` at `path`."""
    try:
        model = onnx.load(str(path))
    except Exception as e:  # onnx raises its own errors on a bad file
        raise TrainError(f"{path}: not a finder network ({e})") from None
    weights = {i.name: numpy_helper.to_array(i).copy() for i in model.graph.initializer}
    convs = [n.input[1:] for n in model.graph.node if n.op_type == "Conv"]
    net = Finder()
    mine = _convs_in_order(net)
    norms = _norm_after(net)
    if len(convs) != len(mine):
        raise TrainError(f"{path}: its layers are not the Finder's ({len(convs)} convolutions)")
    with torch.no_grad():
        for names, conv in zip(convs, mine, strict=True):
            w = weights.get(names[0])
            if w is None or tuple(conv.weight.shape) != w.shape or len(names) < 2:
                raise TrainError(f"{path}: a layer's shape is not the Finder's")
            conv.weight.copy_(torch.from_numpy(w))
            bias = torch.from_numpy(weights[names[1]])
            norm = norms.get(id(conv))
            if norm is None:  # the head: a convolution with its own bias
                assert conv.bias is not None
                conv.bias.copy_(bias)
                continue
            norm.weight.fill_(1.0)  # the folded bias passes through an identity BatchNorm
            norm.bias.copy_(bias)
            assert norm.running_mean is not None and norm.running_var is not None
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
    return net


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
    names = plan.designs if plan.designs is not None else data.designs_for_training()
    try:
        art = data.Artwork.load(names, progress=plan.progress, variants=plan.variants)
    except ValueError as e:
        raise TrainError(str(e)) from None
    scoring, scored_on = scoring_artwork(art, plan.eval_designs, plan.progress, plan.log)
    before = evaluate_finder(net, scoring, plan.eval_pictures, plan.seed, plan.eval_size)

    net = net.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
    length = plan.batch * (plan.steps or 10 ** 9)
    pictures = FinderData(art, plan.seed, plan.size, length, plan.dense_fans, _STREAM)
    loader = batches(pictures, plan.batch, plan.workers)
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
