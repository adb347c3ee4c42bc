"""Fine-tuning the reader on real photographs (`vision train --reader-only --photos DIR`).

The reader starts from a trained model's `index.onnx` (its weights loaded back into the
PyTorch `Reader` by `reload.load_reader`: each exported convolution carries its folded
BatchNorm, so the BatchNorm is set to pass through, with its statistics frozen) and goes on learning from batches that mix
synthetic crops (`crops.reader_sample`, every design as in full training) with crops of real
photographs labelled by `data/photos.py` (`PHOTO_SHARE` of each batch), each re-cut with the
runtime's jitter and another light. The finder and the card reader are not touched:
`corners.onnx` and `card.onnx` are copied over.
With `blend` below 1 the reader written is taken only that share of the way from the start's
weights to the fine-tuned ones (`export.blend_weights`).

Reproducible from the seed as full training is: every sample is drawn from
`default_rng([seed, 3, n])`, the photos are labelled by a fixed model, the weights start from
the given file.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.utils.data import Dataset

from hardware.camera.model.settings import Settings
from hardware.camera.model.spec import CARD_FILE, CLASSES, CORNERS_FILE, INDEX_FILE, REPORT_FILE
from training.data import crops, pictures
from training.data.photos import PhotoSet, label_photos, photo_files, real_crop
from training.fit.loop import Budget, TrainError, batches, fit, reader_loss, use_threads
from training.fit.reload import load_reader
from training.nets import Reader
from training.onnx_files import blend_weights, copy_networks, export_reader
from training.report.figures import (
    SHIPPED_MODEL,
    evaluate_reader,
    fine_tune_record,
    scoring_artwork,
    with_fine_tune,
    write_report,
)

PHOTO_SHARE = 0.4  # of each batch: crops of the real photographs
_STREAM = 3


@dataclass
class FineTune:
    """What one fine-tuning run does."""

    photos: Path
    take: list[str] | None = None  # photo names (file stems) to use; None: all in `photos`
    out: Path = Path("var/vision-model")
    base: Path | None = None  # the model folder to start from; None: the shipped model
    seed: int = 0
    minutes: float = 25.0
    steps: int | None = None
    batch: int = 128
    lr: float = 5e-4
    designs: list[str] | None = None  # synthetic designs; None: every training design
    variants: bool = True
    fans: float = 0.0  # share of synthetic crops that lie in a dense fan (`crops.reader_sample`)
    blend: float = 1.0  # the reader written: (1 - blend) * the start + blend * the fine-tune
    threads: int = 1
    workers: int = 0
    eval_crops: int = 3000
    progress: bool = True
    log: Callable[[str], None] = field(default=print, repr=False)


class _Mixed(Dataset):
    def __init__(self, art: pictures.Artwork, photos: PhotoSet, seed: int, length: int,
                 crop_card_width: float, fans: float) -> None:
        self.art, self.photos, self.seed, self.length = art, photos, seed, length
        self.width, self.fans = crop_card_width, fans

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, i: int) -> tuple[np.ndarray, int]:
        rng = np.random.default_rng([self.seed, _STREAM, i])
        if rng.random() < PHOTO_SHARE:
            one = self.photos.indices[int(rng.integers(len(self.photos.indices)))]
            crop = real_crop(self.photos.frames[one.photo], one.spot, rng, self.width)
            return crop, CLASSES.index(one.code)
        return crops.reader_sample(rng, self.art, fans=self.fans)


def photo_accuracy(net: Reader, photos: PhotoSet, settings: Settings, seed: int) -> float | None:
    """The share of the labelled photo indices (one jittered crop each) read as labelled."""
    if not photos.indices:
        return None
    rng = np.random.default_rng([seed, 7003])
    crops = np.stack([real_crop(photos.frames[x.photo], x.spot, rng, settings.crop_card_width)
                      for x in photos.indices])
    truth = np.array([CLASSES.index(x.code) for x in photos.indices])
    net.eval()
    with torch.no_grad():
        tensor = torch.from_numpy(crops).permute(0, 3, 1, 2).float() / 255.0
        guess = net(tensor).argmax(1).numpy()
    return round(float(np.mean(guess == truth)), 4)


def fine_tune(plan: FineTune) -> dict[str, Any]:
    """Fine-tune the reader; write index.onnx, corners.onnx and card.onnx (copied) and
    report.json into `plan.out`. Returns the report."""
    if not 0.0 <= plan.fans <= 1.0:
        raise TrainError("--dense-fans is a share of the crops: 0 to 1")
    if not 0.0 < plan.blend <= 1.0:
        raise TrainError("--blend is how far the reader goes from its start toward its "
                         "fine-tune: above 0, at most 1")
    started = time.monotonic()
    use_threads(plan.threads)
    torch.manual_seed(plan.seed)
    settings = Settings(model_dir=plan.base)
    base = plan.base or SHIPPED_MODEL
    if not (base / INDEX_FILE).is_file() or not (base / CORNERS_FILE).is_file():
        raise TrainError(f"{base}: no {INDEX_FILE} and {CORNERS_FILE} to start from")
    start = (base / INDEX_FILE).read_bytes()  # the blend's start, though --out be --from
    net = load_reader(base / INDEX_FILE)
    try:
        photos = label_photos(photo_files(plan.photos, plan.take), settings, plan.progress)
    except ValueError as e:
        raise TrainError(str(e)) from None
    if not photos.indices:
        raise TrainError(f"--photos {plan.photos}: no index could be labelled confidently")
    plan.log(f"photos: {len(photos.names)}, {photos.cards} of {photos.listed} listed cards "
             f"labelled ({len(photos.indices)} indices)")
    names = plan.designs if plan.designs is not None else pictures.designs_for_training()
    try:
        art = pictures.Artwork.load(names, progress=plan.progress, variants=plan.variants)
    except ValueError as e:
        raise TrainError(str(e)) from None
    scoring, scored_on = scoring_artwork(art, None, plan.progress, plan.log)

    def scores(net: Reader) -> dict[str, Any]:
        return {"photo_accuracy": photo_accuracy(net, photos, settings, plan.seed),
                "held_out": evaluate_reader(net, scoring, plan.eval_crops, plan.seed)}

    before = scores(net)

    net = net.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
    length = plan.batch * (plan.steps or 10 ** 9)
    loader = batches(_Mixed(art, photos, plan.seed, length, settings.crop_card_width,
                            plan.fans), plan.batch, plan.workers)
    budget = Budget(plan.steps, plan.minutes * 60)
    figures = fit(net, loader, reader_loss, budget, plan.lr, "reader (fine-tune)",
                  plan.progress, frozen_norms=True)
    net = net.to(memory_format=torch.contiguous_format)
    plan.out.mkdir(parents=True, exist_ok=True)
    figures["onnx_max_difference"] = export_reader(net, plan.out / INDEX_FILE, plan.seed)
    copy_networks(base, plan.out, (CORNERS_FILE, CARD_FILE))
    after = scores(net)
    blended: dict[str, Any] = {}
    if plan.blend < 1.0:
        blend_weights(start, plan.out / INDEX_FILE, plan.blend, plan.out / INDEX_FILE)
        blended = {"after_unblended": after}
        after = scores(load_reader(plan.out / INDEX_FILE))
    report = with_fine_tune(base, "reader_fine_tune", fine_tune_record(
        plan.seed, plan.base, art.names, plan.lr, started, photos_folder=plan.photos.name,
        **photos.summary(), photo_share_of_batch=PHOTO_SHARE, dense_fan_share=plan.fans,
        blend=plan.blend, fit=figures, scored_on=scored_on, before=before, after=after,
        **blended))
    write_report(plan.out / REPORT_FILE, report)
    return report
