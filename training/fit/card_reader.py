"""Training the card reader (`card.onnx`), which reads a card by its whole face (the last
part of a full training, or alone: `vision train --card-only`).

A number card's pips lie the same way on every standard French-suited deck, so a card an
unseen design's corner index leaves in doubt (a large pip under the rank, cut by the index
crop) is still told by its face. The reader's crops are cut with `model.crop.cut_card`
exactly as the runtime cuts them, around a card laid as the finder's pictures lay them
(`data`), perhaps over another card, perhaps with one on top over a strip of its side,
chips, the light, glare and camera faults of `scenes`, and the error in the centre, up and
width that a card's two indices give the runtime (one index gives more, which these crops
do not yet draw); its up points either way (which of a pair's indices is the top is not
known).

A pool of `CardTrain.pool` crops is drawn once (crop *i* from `default_rng([seed, 5, i])`,
in worker processes), then batches are drawn from it (sample *n* of the run is pool crop
`default_rng([seed, 6, n])`'s pick), so the run is reproducible from the seed. Alone, it
joins the finder and the corner reader of a trained model, which are copied over.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import torch
from torch.nn import functional as F
from torch.utils.data import Dataset
from tqdm import tqdm

from hardware.camera.model.crop import cut_card
from hardware.camera.model.settings import Settings
from hardware.camera.model.spec import CARD_FILE, CORNERS_FILE, INDEX_FILE, REPORT_FILE
from hardware.cards import CODES_BY_SUIT
from training.art.artwork import Artwork
from training.art.textures import background
from training.data import scenes
from training.data.crops import GREY, camera_view, neighbour, paste, photograph
from training.data.pictures import Laid, designs_for_training, pick_face
from training.data.poses import card_corners
from training.fit.loop import Budget, TrainError, batches, fit, reader_loss, use_threads
from training.nets import WholeCard, parameter_count
from training.onnx_files import copy_networks, export_card_reader
from training.report.figures import (
    SHIPPED_MODEL,
    fine_tune_record,
    image_tensor,
    scoring_artwork,
    with_fine_tune,
    write_report,
)

_POOL_STREAM, _PICK_STREAM = 5, 6
POOL, BATCH, LR = 40_000, 128, 3e-3  # crops drawn before training, batch, learning rate
# the runtime's errors for a card seen by both its indices: its centre (their middle) off by
# N(0, SHIFT) card widths in x and y, its up by N(0, TURN) degrees (at most TURN_MOST), its
# width (their distance) by a factor exp(N(0, WIDTH))
SHIFT, TURN, TURN_MOST, WIDTH = 0.03, 3.0, 10.0, 0.06


def card_sample(rng: np.random.Generator, art: Artwork) -> tuple[np.ndarray, int]:
    """One card reader crop (uint8 [CARD_H, CARD_W, 3]) and its code's place in
    `CODES_BY_SUIT`."""
    width = float(np.exp(rng.uniform(np.log(45), np.log(220))))  # frame pixels
    side = int(np.ceil(2.2 * width)) + 8
    canvas = scenes.Canvas.over(background(rng, art.bank, (side, side), layout=0.2,
                                           second=0.1))
    face, code = pick_face(rng, art, int(rng.integers(len(art.faces))))
    homography = camera_view(rng, side, width)
    angle = float(rng.uniform(0, 360))
    quad = scenes.project(homography, card_corners(np.array([side / 2, side / 2]), width,
                                                   face.aspect, angle))
    card = Laid(face, code, quad, 0)
    laid = [card]
    if rng.random() < 0.3:
        laid.insert(0, neighbour(rng, art, card, width, angle, 1))
    for k, c in enumerate(laid):
        c.who = k
        paste(rng, canvas, c)
    if rng.random() < 0.3:  # a card on top, over a strip of its side
        other = neighbour(rng, art, card, width, angle, len(laid))
        shift = (card.quad[1] - card.quad[0]) * rng.uniform(0.65, 0.95) * rng.choice([-1, 1])
        other.quad = other.quad - other.quad.mean(axis=0) + card.quad.mean(axis=0) + shift
        paste(rng, canvas, other)
    if rng.random() < 0.2:
        scenes.draw_chips(canvas, rng, np.array([side / 2, side / 2])
                          + rng.normal(0, 0.6 * width, 2), width * rng.uniform(0.3, 0.6))
    frame = photograph(rng, canvas, width)
    q = card.quad
    up = (q[0] + q[1] - q[2] - q[3]) / 2
    up = up / (np.linalg.norm(up) or 1.0) * rng.choice([-1, 1])
    turn = np.deg2rad(float(np.clip(rng.normal(0, TURN), -TURN_MOST, TURN_MOST)))
    up = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]]) @ up
    centre = q.mean(axis=0) + rng.normal(0, SHIFT * card.width, 2)
    crop = cut_card(frame, (float(centre[0]), float(centre[1])), (float(up[0]), float(up[1])),
                    card.width * float(np.exp(rng.normal(0, WIDTH))))
    if rng.random() < GREY:
        crop = cv2.cvtColor(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    return crop, CODES_BY_SUIT.index(code)


class _Drawn(Dataset):
    """Crop i of the pool, drawn from its own generator."""

    def __init__(self, art: Artwork, seed: int, length: int) -> None:
        self.art, self.seed, self.length = art, seed, length

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, i: int) -> tuple[np.ndarray, int]:
        return card_sample(np.random.default_rng([self.seed, _POOL_STREAM, i]), self.art)


class _Picks(Dataset):
    """Sample n of the run: a pool crop picked by its own generator."""

    def __init__(self, crops: np.ndarray, labels: np.ndarray, seed: int, length: int) -> None:
        self.crops, self.labels, self.seed, self.length = crops, labels, seed, length

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, n: int) -> tuple[np.ndarray, int]:
        k = int(np.random.default_rng([self.seed, _PICK_STREAM, n]).integers(len(self.crops)))
        return self.crops[k], int(self.labels[k])


def draw_pool(art: Artwork, seed: int, count: int, workers: int, progress: bool
              ) -> tuple[np.ndarray, np.ndarray]:
    """`count` card reader crops and their labels, drawn by `workers` processes."""
    crops, labels = [], []
    loader = batches(_Drawn(art, seed, count), min(256, count), workers, whole=True)
    for image, label in tqdm(loader, desc="card crops", unit="batch", disable=not progress):
        crops.append(image.numpy())
        labels.append(label.numpy())
    return np.concatenate(crops), np.concatenate(labels)


def fit_card_reader(art: Artwork, path: Path, seed: int, pool: int, budget: Budget,
                    workers: int, progress: bool, batch: int = BATCH, lr: float = LR
                    ) -> tuple[WholeCard, dict[str, Any]]:
    """A card reader trained on a pool of `pool` crops drawn from `art` for `budget`, and
    exported to `path`; its figures for the report."""
    started = time.monotonic()
    crops, labels = draw_pool(art, seed, pool, workers, progress)
    drawn = round(time.monotonic() - started, 1)
    net = WholeCard()
    length = batch * (budget.steps or 10 ** 9)
    figures = fit(net, batches(_Picks(crops, labels, seed, length), batch, 0), reader_loss, budget,
                  lr, "card reader", progress)
    figures["onnx_max_difference"] = export_card_reader(net, path, seed)
    figures["parameters"] = parameter_count(net)
    figures["onnx_bytes"] = path.stat().st_size
    return net, {"pool": pool, "pool_seconds": drawn, "fit": figures}


def evaluate_card_reader(net: WholeCard, art: Artwork, count: int, seed: int
                         ) -> dict[str, Any]:
    """The card reader's figures on `count` crops drawn from `art`: how often it is right, and
    of its reads at the merge's `card_sure` or more, how many and how many wrong."""
    sure = Settings().card_sure
    rng = np.random.default_rng([seed, 7003])
    crops, labels = zip(*(card_sample(rng, art) for _ in range(count)), strict=True)
    net.eval()
    with torch.no_grad():
        probs = torch.cat([F.softmax(net(image_tensor(np.stack(crops[i:i + 256]))), 1)
                           for i in range(0, count, 256)]).numpy()
    guess, truth, top = probs.argmax(1), np.array(labels), probs.max(1)
    taken = top >= sure
    return {"crops": count, "accuracy": round(float(np.mean(guess == truth)), 4),
            "sure_at": sure, "sure_share": round(float(np.mean(taken)), 4),
            "wrong_among_sure": int(np.sum(taken & (guess != truth)))}


@dataclass
class CardTrain:
    """What one card reader training run does."""

    out: Path = Path("var/vision-model")
    base: Path | None = None  # the model whose finder and corner reader it joins; None: shipped
    seed: int = 0
    minutes: float = 10.0  # for the steps, after the pool is drawn
    steps: int | None = None
    pool: int = POOL
    batch: int = BATCH
    lr: float = LR
    designs: list[str] | None = None  # None: every training design
    eval_designs: list[str] | None = None  # None: training.art.decks.HELD_OUT
    eval_crops: int = 2000
    variants: bool = True
    threads: int = 1
    workers: int = 1
    progress: bool = True
    log: Callable[[str], None] = field(default=print, repr=False)


def train_card_reader(plan: CardTrain) -> dict[str, Any]:
    """Train the card reader; write card.onnx, corners.onnx and index.onnx (copied) and
    report.json into `plan.out`. Returns the report."""
    started = time.monotonic()
    use_threads(plan.threads)
    torch.manual_seed(plan.seed)
    base = plan.base or SHIPPED_MODEL
    if not (base / INDEX_FILE).is_file() or not (base / CORNERS_FILE).is_file():
        raise TrainError(f"{base}: no {INDEX_FILE} and {CORNERS_FILE} to join")
    names = plan.designs if plan.designs is not None else designs_for_training()
    try:
        art = Artwork.load(names, progress=plan.progress, variants=plan.variants)
    except ValueError as e:
        raise TrainError(str(e)) from None
    net, figures = fit_card_reader(art, plan.out / CARD_FILE, plan.seed, plan.pool,
                                   Budget(plan.steps, plan.minutes * 60), plan.workers,
                                   plan.progress, plan.batch, plan.lr)
    copy_networks(base, plan.out, (CORNERS_FILE, INDEX_FILE))
    scoring, scored_on = scoring_artwork(art, plan.eval_designs, plan.progress, plan.log)
    report = with_fine_tune(base, "card_reader", fine_tune_record(
        plan.seed, plan.base, art.names, plan.lr, started, **figures, scored_on=scored_on,
        scores=evaluate_card_reader(net, scoring, plan.eval_crops, plan.seed)))
    write_report(plan.out / REPORT_FILE, report)
    return report
