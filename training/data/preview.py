"""Look at the training data and time it: `python -m training.data.preview --out DIR`.

Writes `finder.png` (pictures beside their targets: index heat in magenta, back heat in cyan,
each index's up in red and its offset to the card's centre in yellow) and `reader.png` (crops
with their labels), then prints the CPU time per sample on one core.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np

from hardware.camera.model.spec import (
    CLASSES,
    HEAT_BACK,
    HEAT_INDEX,
    LOG_WIDTH,
    MAP_STRIDE,
    TO_CENTRE_X,
    TO_CENTRE_Y,
    UP_COS,
    UP_SIN,
)
from training.data.crops import reader_sample
from training.data.pictures import (
    Artwork,
    FinderSample,
    designs_for_training,
    finder_sample,
)


def overlay(sample: FinderSample) -> np.ndarray:
    """The sample's picture with its targets drawn on it."""
    image = sample.image.copy()
    h, w = image.shape[:2]
    for channel, colour in ((HEAT_INDEX, (255, 0, 255)), (HEAT_BACK, (255, 255, 0))):
        heat = cv2.resize(sample.maps[channel], (w, h), interpolation=cv2.INTER_NEAREST)
        image[heat > 0.5] = colour
    for i, j in np.argwhere(sample.maps[HEAT_INDEX] == 1.0):
        at = np.array([j + 0.5, i + 0.5]) * MAP_STRIDE
        up = sample.maps[[UP_COS, UP_SIN], i, j]
        width = float(np.exp(sample.maps[LOG_WIDTH, i, j]))
        centre = at + sample.maps[[TO_CENTRE_X, TO_CENTRE_Y], i, j] * width
        cv2.line(image, tuple(at.astype(int)), tuple((at + up * 0.3 * width).astype(int)),
                 (0, 0, 255), 1, cv2.LINE_AA)
        cv2.line(image, tuple(at.astype(int)), tuple(centre.astype(int)), (0, 255, 255), 1,
                 cv2.LINE_AA)
    return image


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.data.preview",
        description="Draw training samples to look at by eye and time how fast they are made "
                    "(CPU time of this process, on one core).")
    parser.add_argument("--out", type=Path, required=True, help="folder for finder.png, reader.png")
    parser.add_argument("--seed", type=int, default=0, help="seed of the samples (default 0)")
    parser.add_argument("--count", type=int, default=100,
                        help="finder samples to time; ten times as many reader crops (default 100)")
    parser.add_argument("--designs", default="",
                        help="comma-separated design names (default: every training design)")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    names = [n for n in args.designs.split(",") if n] or designs_for_training()
    art = Artwork.load(names)
    rng = np.random.default_rng(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    shown = [finder_sample(rng, art) for _ in range(8)]
    rows = [np.hstack([s.image, overlay(s)]) for s in shown]
    cv2.imwrite(str(args.out / "finder.png"), np.vstack([np.hstack(rows[k:k + 2])
                                                         for k in range(0, 8, 2)]))
    crops = []
    for _ in range(128):
        crop, label = reader_sample(rng, art)
        tile = cv2.copyMakeBorder(crop, 12, 0, 0, 0, cv2.BORDER_CONSTANT)
        cv2.putText(tile, CLASSES[label], (1, 9), cv2.FONT_HERSHEY_SIMPLEX, 0.32, (0, 255, 0), 1)
        crops.append(tile)
    cv2.imwrite(str(args.out / "reader.png"), np.vstack([np.hstack(crops[k:k + 16])
                                                        for k in range(0, 128, 16)]))
    finder_ms = _time(lambda: finder_sample(rng, art), args.count)
    reader_ms = _time(lambda: reader_sample(rng, art), 10 * args.count)
    print(f"finder sample 384x384: median {finder_ms[0]:.1f} ms, mean {finder_ms[1]:.1f} ms, "
          f"p95 {finder_ms[2]:.1f} ms (CPU, one core)")
    print(f"reader crop: median {reader_ms[0]:.2f} ms, mean {reader_ms[1]:.2f} ms, "
          f"p95 {reader_ms[2]:.2f} ms (CPU, one core)")
    print(f"wrote {args.out / 'finder.png'} and {args.out / 'reader.png'}")
    return 0


def _time(draw, count: int) -> tuple[float, float, float]:  # noqa: ANN001 - any sampler
    spent = []
    for _ in range(count):
        start = time.process_time()
        draw()
        spent.append(1000 * (time.process_time() - start))
    return float(np.median(spent)), float(np.mean(spent)), float(np.percentile(spent, 95))


if __name__ == "__main__":
    raise SystemExit(main())
