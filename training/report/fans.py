"""The dense-fan choice set: pictures of a bridge deal's fans, with the codes a person could
read in them, to choose between candidate models on (`benchmarks/vision_choice.py`).

The pictures are the training renderer's (`data.compose`, with its clutter and camera faults)
of the dense fans a finder learns from (`poses.dense_fans`: each next card shows only 10-25%
of a card width), drawn from their own seeds, one training design a picture, its cards dealt
from one shuffled deck. The fans are redrawn until the cards are of a readable size (median
width `MEDIAN_WIDTH`) and mostly in the picture. The truth is a multiset of codes, as the real
photographs' labels are: a face-up card is required when it is at least `READABLE_WIDTH` wide
with one whole index in view (`WHOLE`); the other face-up cards are optional (reading them is
no error, missing them no miss). A tally scores reported codes as `vision-real-dev/score.py`
does: matched to the required codes as multisets; a code that matches neither a required nor
an optional card is wrong. The pictures follow the training renderer: a change to the
training pictures redraws them, so compare models on pictures drawn by one commit.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from training.art.artwork import Artwork
from training.data import scenes
from training.data.pictures import MAX_TILT, Card, compose
from training.data.poses import dense_fans

SIZE = (1280, 960)  # a phone photograph's 4:3, multiples of 32 as the renderer needs
READABLE_WIDTH = 50.0  # picture pixels: the smallest card
WHOLE = 0.9  # share of an index in view for a person to read it
MEDIAN_WIDTH = (50.0, 260.0)  # the fans' median card width, picture pixels
INSIDE = 0.8  # share of the card centres that lie inside the picture's 5% margin


@dataclass(frozen=True)
class FanPicture:
    design: str
    image: np.ndarray  # BGR uint8
    required: Counter[str]  # readable face-up cards: a right model reports them
    optional: Counter[str]  # the other face-up cards: reporting them is no error


@dataclass
class FanTally:
    required: int = 0
    matched: int = 0
    reported: int = 0
    wrong: int = 0

    def add(self, picture: FanPicture, reported: list[str]) -> list[str]:
        """Count one picture's reported codes (face up); returns the wrong ones."""
        said = Counter(reported)
        left = said - picture.required
        bad = left - picture.optional
        self.required += sum(picture.required.values())
        self.matched += sum((said & picture.required).values())
        self.reported += sum(said.values())
        self.wrong += sum(bad.values())
        return sorted(bad.elements())

    @property
    def found(self) -> float:
        return 100.0 * self.matched / self.required if self.required else 0.0

    @property
    def right(self) -> float:
        return 100.0 * (1 - self.wrong / self.reported) if self.reported else 100.0


def _fans(rng: np.random.Generator) -> list[tuple[np.ndarray, float, float]]:
    w, h = SIZE
    while True:
        poses = dense_fans(rng, w, h)
        centres = np.array([p[0] for p in poses])
        inside = np.mean((centres[:, 0] > 0.05 * w) & (centres[:, 0] < 0.95 * w)
                         & (centres[:, 1] > 0.05 * h) & (centres[:, 1] < 0.95 * h))
        low, high = MEDIAN_WIDTH
        if low <= np.median([p[1] for p in poses]) <= high and inside >= INSIDE:
            return poses


def fan_picture(art: Artwork, design: int, seed: int, number: int) -> FanPicture:
    """Picture `number` of the set drawn from `seed`, of design `design` (its place in `art`)."""
    rng = np.random.default_rng([seed, number])
    poses = _fans(rng)
    codes = list(art.faces[design])
    order = rng.permutation(len(codes))
    cards = [Card(codes[order[k % len(codes)]], (float(c[0]), float(c[1])), width, angle)
             for k, (c, width, angle) in enumerate(poses)]
    homography = scenes.view(rng, SIZE, MAX_TILT)
    sample, laid = compose(rng, art, SIZE, cards, [design] * len(cards), homography)
    up = Counter(c.code for c in laid if c.code is not None)
    required = Counter(c.code for c in laid if c.code is not None
                       and c.width >= READABLE_WIDTH and c.shown >= WHOLE)
    return FanPicture(art.names[design], sample.image, required, up - required)


def fan_pictures(art: Artwork, count: int, seed: int, progress: bool = False
                 ) -> list[FanPicture]:
    """`count` pictures, the designs of `art` in turn (with `progress`, a bar on stderr)."""
    numbers = tqdm(range(count), desc="drawing dense fans", unit="picture", file=sys.stderr,
                   disable=not progress)
    return [fan_picture(art, k % len(art.names), seed, k) for k in numbers]
