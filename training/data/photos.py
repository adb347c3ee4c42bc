"""Real photographs as reader training data: index crops labelled from a photo's card list.

A labelled photograph (`NNN.jpg` beside `NNN.json`, whose `cards` lists the face-up codes it
shows, as in `../shared/vision-real-dev/`) says which cards lie in it, not where. The labels
are put on the indices by the model itself:

1. the finder (`corners.onnx`) finds the corner indices, the reader (`index.onnx`) gives each
   its 53 probabilities, and the runtime's merge (`merge.group_cards`) groups the reads into cards;
2. each card's probabilities are averaged over its reads and narrowed to the photo's codes;
3. the photo's codes are assigned to the cards one to one, greedily, surest pair first (a
   code and a card each taken once);
4. a match is kept only when it is confident: the card's share of its narrowed probability
   for the code is at least `KEEP_SHARE` and its raw probability at least `KEEP_PROB`.

Every read of a kept card becomes one labelled index: the photo, where the index lies, its
up and card width, and the code. `real_crop` cuts it as the runtime cuts a crop
(`model.crop.cut_index`, from a halved frame for big cards), jittered and relit as the
synthetic crops are, so that one photograph gives many different crops.

What the narrowing buys: a photo of the thirteen clubs can only hold clubs, so a club the
reader calls a spade is still labelled a club. What it cannot buy: a card the finder misses
or a card no code fits gives nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from hardware.camera.find import IndexSpot
from hardware.camera.merge import group_cards
from hardware.camera.model.crop import cut_index
from hardware.camera.model.settings import Settings
from hardware.camera.model.spec import CLASSES, NOT_A_CARD
from hardware.camera.read import Read, crops, softmax
from training.data.crops import SHIFT_SPREAD, TURN_MOST, TURN_SPREAD, WIDTH_SPREAD

KEEP_SHARE = 0.6  # of the card's probability over the photo's codes
KEEP_PROB = 0.2  # of the card's raw (53-class) probability for the code


class PhotoError(ValueError):
    """A photo folder that cannot be used; the message says why."""


@dataclass(frozen=True)
class Labelled:
    """One corner index of a real photograph and the code it was given."""

    photo: int  # index into the list of frames
    spot: IndexSpot
    code: str


@dataclass
class PhotoSet:
    """The photographs (full-resolution frames) and their labelled indices."""

    names: list[str]
    frames: list[np.ndarray]
    indices: list[Labelled]
    cards: int  # labelled cards (an index or two each)
    listed: int  # face-up cards the photos' labels list

    def summary(self) -> dict[str, object]:
        return {"photos": self.names, "listed_cards": self.listed, "labelled_cards": self.cards,
                "labelled_indices": len(self.indices)}


def photo_files(folder: Path, take: list[str] | None) -> list[tuple[Path, Path]]:
    """(picture, labels) pairs of `folder`: each `NAME.jpg` (or .png) with a `NAME.json`
    beside it; only the names in `take` when given (each must be there)."""
    if not folder.is_dir():
        raise PhotoError(f"--photos {folder}: no such folder")
    pairs = {}
    for labels in sorted(folder.glob("*.json")):
        for ext in (".jpg", ".jpeg", ".png"):
            picture = labels.with_suffix(ext)
            if picture.is_file():
                pairs[labels.stem] = (picture, labels)
                break
    if take is not None:
        missing = [name for name in take if name not in pairs]
        if missing:
            raise PhotoError(f"--photos {folder}: no labelled photo named {', '.join(missing)}")
        pairs = {name: pairs[name] for name in take}
    if not pairs:
        raise PhotoError(f"--photos {folder}: no labelled photos (NAME.jpg beside NAME.json "
                         "listing its face-up cards as \"cards\")")
    return list(pairs.values())


def _codes(labels: Path) -> list[str]:
    try:
        cards = json.loads(labels.read_text(encoding="utf-8"))["cards"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise PhotoError(f"{labels}: not a photo's labels ({e})") from None
    bad = [c for c in cards if c not in CLASSES or c == NOT_A_CARD]
    if bad:
        raise PhotoError(f"{labels}: not card codes: {', '.join(map(str, bad))}")
    return list(dict.fromkeys(cards))


def label_photos(files: list[tuple[Path, Path]], settings: Settings,
                 progress: bool = True) -> PhotoSet:
    """Find, read and label the indices of each photo with the model `settings` names."""
    from tqdm import tqdm

    from hardware.camera.recognize import Recognizer

    recognizer = Recognizer(settings).load()
    grouping = replace(settings, two_codes_one_card=0.0)
    names, frames, indices, kept, listed = [], [], [], 0, 0
    for picture, labels in tqdm(files, desc="labelling photos", unit="photo",
                                disable=not progress):
        frame = cv2.imread(str(picture), cv2.IMREAD_COLOR)
        if frame is None:
            raise PhotoError(f"{picture}: not a readable picture")
        codes = _codes(labels)
        listed += len(codes)
        names.append(picture.name)
        frames.append(frame)
        spots, _ = recognizer.finder(frame)
        spots = [s for s in spots if s.width >= settings.min_card_width]
        if not spots or not codes:
            continue
        (logits,) = recognizer.reader.session.run(["logits"],
                                                  {"crop": crops(frame, spots, settings)})
        probs = softmax(logits.astype(np.float64))
        by_spot = {id(s): p for s, p in zip(spots, probs, strict=True)}
        reads = [Read(s, CLASSES[int(p.argmax())], float(p.max()))
                 for s, p in zip(spots, probs, strict=True)]
        cards = group_cards(reads, grouping)
        means = [np.mean([by_spot[id(r.spot)] for r in c.reads], axis=0) for c in cards]
        for k, code in assign(means, codes):
            kept += 1
            indices += [Labelled(len(frames) - 1, r.spot, code) for r in cards[k].reads]
    return PhotoSet(names, frames, indices, kept, listed)


def assign(cards: list[np.ndarray], codes: list[str]) -> list[tuple[int, str]]:
    """The photo's `codes` given to `cards` (each its 53 probabilities, averaged over its
    reads) one to one, surest pair first, keeping the confident matches: (card, code)."""
    if not cards or not codes:
        return []
    narrowed = np.array(cards)[:, [CLASSES.index(c) for c in codes]]  # [cards, codes]
    share = narrowed / np.maximum(narrowed.sum(axis=1, keepdims=True), 1e-9)
    used_cards: set[int] = set()
    used_codes: set[int] = set()
    out = []
    for flat in np.argsort(-narrowed, axis=None, kind="stable"):
        i, j = (int(v) for v in np.unravel_index(flat, narrowed.shape))
        if i in used_cards or j in used_codes:
            continue
        used_cards.add(i)
        used_codes.add(j)
        if share[i, j] >= KEEP_SHARE and narrowed[i, j] >= KEEP_PROB:
            out.append((i, codes[j]))
    return out


def real_crop(frame: np.ndarray, spot: IndexSpot, rng: np.random.Generator,
              crop_card_width: float) -> np.ndarray:
    """An index crop of a real photo, cut as the runtime cuts it, with the runtime's errors
    (centre, up and width a little off) and another light and camera."""
    width = spot.width * float(np.exp(rng.normal(0, WIDTH_SPREAD)))
    jitter = rng.normal(0, SHIFT_SPREAD * spot.width, 2)
    turn = np.deg2rad(float(np.clip(rng.normal(0, TURN_SPREAD), -TURN_MOST, TURN_MOST)))
    c, s = np.cos(turn), np.sin(turn)
    up = (c * spot.up[0] - s * spot.up[1], s * spot.up[0] + c * spot.up[1])
    level = frame
    while width > crop_card_width and min(level.shape[:2]) >= 4:
        level = cv2.pyrDown(level)
        width, jitter = width / 2, jitter / 2
        spot = replace(spot, at=(spot.at[0] / 2, spot.at[1] / 2))
    crop = cut_index(level, (spot.at[0] + jitter[0], spot.at[1] + jitter[1]), up, width)
    light = crop.astype(np.float32) * rng.uniform(0.75, 1.2) + rng.uniform(-20, 20)  # exposure
    light = light * rng.uniform(0.9, 1.1, 3).astype(np.float32)  # colour cast
    if rng.random() < 0.3:
        light = np.asarray(cv2.GaussianBlur(light, (0, 0), rng.uniform(0.3, 1.0)))
    if rng.random() < 0.3:
        light = light + rng.normal(0, rng.uniform(2, 8), light.shape).astype(np.float32)
    image = np.clip(light, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY,
                                                int(rng.integers(40, 90))])
        decoded = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else None
        if decoded is not None:
            image = np.asarray(decoded, np.uint8)
    return image
