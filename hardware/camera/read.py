"""The reader stage: the finder's index spots in, one `Read` per spot out; and the card reader,
which reads a card by its whole face when the merge asks it to confirm a corner read.

Each spot's upright crop is cut from the full-resolution frame with `model.crop.cut_index`
(from a halved copy of the frame, as often as needed, when the card is larger than the
reader was trained on: halving blurs first, so the crop does not alias; only the parts that
are read are halved), all crops go through `index.onnx` in one batch, and a softmax gives
each its class and its second choice. `merge.py` makes cards of the reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from hardware.camera.find import IndexSpot, load_session
from hardware.camera.model.crop import crop_to_frame, cut_card, cut_index
from hardware.camera.model.settings import Settings
from hardware.camera.model.spec import CARD_FILE, CLASSES, CROP_H, CROP_W, INDEX_FILE
from hardware.cards import CODES_BY_SUIT


@dataclass(frozen=True)
class Read:
    """One index spot and what the reader makes of it: the best class and its probability."""

    spot: IndexSpot
    code: str  # a card code, or NOT_A_CARD
    prob: float
    #: the probability of the reader's second choice; None (not known) counts as 1 - prob
    runner_up: float | None = None

    @property
    def second(self) -> float:
        return 1.0 - self.prob if self.runner_up is None else self.runner_up


def _halvings(frame: np.ndarray, needs: dict[int, list[tuple[int, int, int, int]]]
              ) -> dict[int, np.ndarray]:
    """For each k in `needs`, the frame halved k times (`cv2.pyrDown`, each level from the
    one below: blurred, then subsampled), worked out only in the boxes (x0, y0, x1, y1 in that
    level's pixels) listed for it, and black elsewhere. Inside them each pixel is what halving
    the whole frame gives: a halved pixel sees the 5 x 5 pixels around its double, so each
    level is made from a box of the one below that holds those (halved, its first row and
    column would see past the box's edge: they are cut off, unless the frame's edge is there)."""
    sizes = [(int(frame.shape[0]), int(frame.shape[1]))]
    for _ in range(max(needs)):
        h, w = sizes[-1]
        sizes.append(((h + 1) // 2, (w + 1) // 2))
    boxes: dict[int, tuple[int, int, int, int]] = {}
    for j in range(max(needs), -1, -1):  # what each level must hold, from the top down
        wanted = list(needs.get(j, []))
        if j + 1 in boxes:
            x0, y0, x1, y1 = boxes[j + 1]
            wanted.append((2 * x0 - 2, 2 * y0 - 2, 2 * x1 + 1, 2 * y1 + 1))
        if not wanted:
            continue
        h, w = sizes[j]
        x0 = min(w, max(0, min(b[0] for b in wanted)))
        y0 = min(h, max(0, min(b[1] for b in wanted)))
        x0, y0 = x0 - x0 % 2, y0 - y0 % 2  # halved, an even start falls on a whole pixel
        x1 = max(x0, min(w, max(b[2] for b in wanted)))
        y1 = max(y0, min(h, max(b[3] for b in wanted)))
        if x1 > x0 and y1 > y0:
            boxes[j] = (x0, y0, x1, y1)
    levels = {k: np.zeros((*sizes[k], frame.shape[2]), frame.dtype) for k in needs}
    part = frame
    for j in range(max(needs) + 1):  # each level's box from the one below, from the bottom up
        if j not in boxes:
            break  # nothing of the frame is wanted here, nor above
        x0, y0, x1, y1 = boxes[j]
        if j == 0:
            part = frame[y0:y1, x0:x1]
        else:
            left, top = boxes[j - 1][0] // 2, boxes[j - 1][1] // 2
            part = cv2.pyrDown(part)[y0 - top:y1 - top, x0 - left:x1 - left]
        if j in levels:
            levels[j][y0:y1, x0:x1] = part
    return levels


def _crop_box(centre: tuple[float, float], up: tuple[float, float], width: float
              ) -> tuple[int, int, int, int]:
    """The pixels `cut_index` reads for this crop: the box around its corners' places, with
    a margin for the bilinear neighbours."""
    to_frame = crop_to_frame(centre, up, width)
    corners = to_frame @ np.array([[0, CROP_W - 1, 0, CROP_W - 1],
                                   [0, 0, CROP_H - 1, CROP_H - 1], [1, 1, 1, 1]], np.float64)
    low, high = np.floor(corners.min(axis=1)) - 2, np.floor(corners.max(axis=1)) + 3
    return int(low[0]), int(low[1]), int(high[0]), int(high[1])


def crops(frame: np.ndarray, spots: list[IndexSpot], settings: Settings) -> np.ndarray:
    """The reader's input [N, 3, CROP_H, CROP_W] float32 BGR in [0, 1] for `spots`. A card
    wider than `settings.crop_card_width` is cut from the frame halved as often as needed
    (halving blurs first: no aliasing); only the part of the frame its crop needs is halved
    (`_halvings`)."""
    cuts = []  # per spot: how often the frame is halved, and the centre and width there
    needs: dict[int, list[tuple[int, int, int, int]]] = {}  # what of each halving is read
    for spot in spots:
        k, size = 0, frame.shape[:2]
        while spot.width / 2 ** k > settings.crop_card_width and min(size) >= 4:
            k += 1
            size = ((size[0] + 1) // 2, (size[1] + 1) // 2)
        # pyrDown's pixel (i, j) sits over the frame's (2i, 2j): centres scale as they are
        f = 0.5 ** k
        centre, width = (spot.at[0] * f, spot.at[1] * f), spot.width * f
        cuts.append((k, centre, width))
        if k:
            needs.setdefault(k, []).append(_crop_box(centre, spot.up, width))
    # the halved copies' own pixel grids, as whole halved frames would give: the crops come
    # out the same to the bit (their sampling rounds by where it reads)
    levels = {0: frame, **(_halvings(frame, needs) if needs else {})}
    out = [cut_index(levels[k], centre, spot.up, width)
           for (k, centre, width), spot in zip(cuts, spots, strict=True)]
    batch = np.stack(out).astype(np.float32) * (1.0 / 255.0)
    return batch.transpose(0, 3, 1, 2)


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


@dataclass
class Reader:
    """`index.onnx` on the finder's spots: `Reader()(frame, spots) -> reads`."""

    settings: Settings = Settings()

    @cached_property
    def session(self) -> Any:
        return load_session(INDEX_FILE, self.settings)

    def __call__(self, frame: np.ndarray, spots: list[IndexSpot]) -> list[Read]:
        spots = [s for s in spots if s.width >= self.settings.min_card_width]
        if not spots:
            return []
        (logits,) = self.session.run(["logits"], {"crop": crops(frame, spots, self.settings)})
        probs = softmax(logits.astype(np.float64))
        first, second = np.argsort(-probs, axis=1)[:, :2].T
        return [Read(spot, CLASSES[int(a)], float(p[a]), float(p[b]))
                for spot, a, b, p in zip(spots, first, second, probs, strict=True)]


@dataclass
class CardReader:
    """`card.onnx` on one card: `CardReader()(frame, centre, up, width) -> (code, prob)`, the
    card cut whole and upright (`crop.cut_card`)."""

    settings: Settings = Settings()

    @cached_property
    def session(self) -> Any:
        """None for a model folder (`settings.model_dir`) without card.onnx, one trained
        before the card reader: its cards are read by their corners alone."""
        folder = self.settings.model_dir
        if folder is not None and not (Path(folder) / CARD_FILE).is_file():
            return None
        return load_session(CARD_FILE, self.settings)

    def __call__(self, frame: np.ndarray, centre: tuple[float, float], up: tuple[float, float],
                 width: float) -> tuple[str, float]:
        crop = cut_card(frame, centre, up, width).astype(np.float32) * (1.0 / 255.0)
        (logits,) = self.session.run(["logits"], {"card": crop.transpose(2, 0, 1)[None]})
        probs = softmax(logits.astype(np.float64))[0]
        best = int(np.argmax(probs))
        return CODES_BY_SUIT[best], float(probs[best])
