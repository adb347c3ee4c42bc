"""The training loop the networks share: batches, losses, the learning rate and `fit`.

Losses: the finder's heat channels (index centres, card backs) use the CenterNet focal loss
(a true centre is a positive; the penalty near a centre is reduced by (1 - target)^4), its
geometry channels an L1 loss over the cells `geo_mask` marks, normalised by the mask's sum.
The readers use cross-entropy with label smoothing 0.05. AdamW, warm-up then cosine decay.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset
from tqdm import tqdm

from hardware.camera.model.spec import HEAT_BACK, HEAT_INDEX, MAP_CHANNELS
from training.nets import Finder

GEOMETRY = slice(2, MAP_CHANNELS)  # UP_COS .. TO_CENTRE_Y follow the two heat channels

assert (HEAT_INDEX, HEAT_BACK) == (0, 1), "the losses take the heat as channels 0 and 1"


class TrainError(Exception):
    """A training run that cannot start or go on; the message says why."""


def use_threads(threads: int) -> None:
    """PyTorch on `threads` threads; OpenCV on one, before any picture is drawn: a data worker
    forked after OpenCV's thread pool has started hangs in it (a fine-tune draws its "before"
    scores first)."""
    torch.set_num_threads(max(1, threads))
    cv2.setNumThreads(1)


def _worker_init(_: int) -> None:
    cv2.setNumThreads(1)
    torch.set_num_threads(1)


def batches(dataset: Dataset, batch: int, workers: int, whole: bool = False) -> DataLoader:
    """Batches in sample order; workers (forked, so the card art is shared, not copied) draw
    ahead of the training step. `whole`: every sample, the last batch perhaps short (else
    only full batches)."""
    extra: dict[str, Any] = {}
    if workers > 0:
        extra = {"multiprocessing_context": "fork", "prefetch_factor": 4,
                 "worker_init_fn": _worker_init}
    return DataLoader(dataset, batch_size=batch, shuffle=False, num_workers=workers,
                      drop_last=not whole, **extra)


# ---------------------------------------------------------------------------------- losses


def _floats(images: torch.Tensor) -> torch.Tensor:
    """uint8 [N, H, W, 3] -> float [N, 3, H, W] in [0, 1], stored channels-last (faster
    convolutions on the CPU)."""
    return images.permute(0, 3, 1, 2).float().div(255.0).contiguous(
        memory_format=torch.channels_last)


def focal_heat_loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """CenterNet's focal loss over heat logits [N, C, H, W] against Gaussian-bump targets,
    normalised by the number of true centres (cells at 1.0)."""
    positive = target >= 0.999
    p = torch.sigmoid(logits)
    pos = (1 - p).pow(2) * -F.logsigmoid(logits)
    neg = (1 - target).pow(4) * p.pow(2) * -F.logsigmoid(-logits)
    total = torch.where(positive, pos, neg).sum()
    return total / positive.sum().clamp(min=1)


def geometry_loss(raw: torch.Tensor, target: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean L1 over the geometry channels at the cells `mask` [N, H, W] marks (weighted by it)."""
    diff = (raw[:, GEOMETRY] - target[:, GEOMETRY]).abs() * mask[:, None]
    return diff.sum() / (mask.sum() * diff.shape[1]).clamp(min=1e-6)


def finder_loss(net: Finder, batch: list[torch.Tensor]) -> tuple[torch.Tensor, dict[str, float]]:
    images, maps, mask = batch
    raw = net.forward_train(_floats(images))
    heat = focal_heat_loss(raw[:, :2], maps[:, :2])
    geo = geometry_loss(raw, maps, mask)
    return heat + geo, {"heat": heat.detach().item(), "geometry": geo.detach().item()}


def reader_loss(net: nn.Module, batch: list[torch.Tensor]) -> tuple[torch.Tensor, dict[str, float]]:
    crops, labels = batch
    logits = net(_floats(crops))
    loss = F.cross_entropy(logits, labels.long(), label_smoothing=0.05)
    return loss, {}


# ------------------------------------------------------------------------------------ loop


@dataclass
class Budget:
    steps: int | None
    seconds: float

    def progress(self, step: int, elapsed: float) -> float:
        if self.steps is not None:
            return step / self.steps
        return elapsed / self.seconds


def _learning_rate(base: float, progress: float) -> float:
    """Linear warm-up over the first 3%, then cosine down to 2% of `base`."""
    if progress < 0.03:
        return base * (0.1 + 0.9 * progress / 0.03)
    t = min(1.0, (progress - 0.03) / 0.97)
    return base * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * t)))


def fit(net: nn.Module, loader: DataLoader, loss_fn: Callable[..., tuple[torch.Tensor,
        dict[str, float]]], budget: Budget, lr: float, name: str, progress: bool,
        frozen_norms: bool = False) -> dict[str, Any]:
    """Train `net` until the budget is spent; returns its figures (losses, steps, speed).
    `frozen_norms`: BatchNorm layers stay in eval mode (fine-tuning a network whose
    BatchNorm was folded into its convolutions)."""
    net.train()
    if frozen_norms:
        for module in net.modules():
            if isinstance(module, nn.BatchNorm2d):
                module.eval()
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    losses: list[float] = []
    parts: dict[str, list[float]] = {}
    step, waited, start = 0, 0.0, time.monotonic()
    bar = tqdm(total=budget.steps or 100, desc=name, unit="step" if budget.steps else "%",
               disable=not progress, dynamic_ncols=True, mininterval=2.0)
    batches: Iterator[list[torch.Tensor]] = iter(loader)
    while True:
        done = budget.progress(step, time.monotonic() - start)
        if done >= 1.0:
            break
        ask = time.monotonic()
        try:
            batch = next(batches)
        except StopIteration:
            break
        waited += time.monotonic() - ask
        for group in opt.param_groups:
            group["lr"] = _learning_rate(lr, done)
        loss, extra = loss_fn(net, batch)
        value = loss.detach().item()
        if not math.isfinite(value):
            raise TrainError(f"{name}: the loss became {value} at step {step}")
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(net.parameters(), 5.0)
        opt.step()
        losses.append(value)
        for key, part in extra.items():
            parts.setdefault(key, []).append(part)
        step += 1
        bar.set_postfix(loss=f"{np.mean(losses[-20:]):.4f}", step=step, refresh=False)
        bar.n = step if budget.steps else min(100, int(100 * budget.progress(
            step, time.monotonic() - start)))
        bar.refresh()
    bar.close()
    del batches  # stops the workers
    net.eval()
    seconds = time.monotonic() - start
    if not losses:
        raise TrainError(f"{name}: no training step ran (the budget is too small)")
    tail = max(1, len(losses) // 10)
    return {
        "steps": step,
        "batch": loader.batch_size,
        "samples": step * int(loader.batch_size or 1),
        "seconds": round(seconds, 1),
        "samples_per_s": round(step * int(loader.batch_size or 1) / max(seconds, 1e-9), 2),
        "data_wait_share": round(waited / max(seconds, 1e-9), 3),
        "first_loss": losses[0],
        "final_loss": round(float(np.mean(losses[-tail:])), 5),
        "final_parts": {k: round(float(np.mean(v[-tail:])), 5) for k, v in parts.items()},
        "loss_curve": [round(float(np.mean(losses[i:i + tail])), 5)
                       for i in range(0, len(losses), tail)],
    }
