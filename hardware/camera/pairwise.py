"""Tell two near-identical faces apart: the same rank in another suit of the same colour.

The whole-card match compares small normalised cells, and two faces that differ only in the
shape of their pips (a 6 of spades and a 6 of clubs) agree there almost entirely: the lead of
the right face over the other is a few hundredths, about the size of the noise. This stage
looks at the card again at full detail and only where the two faces differ: with both faces
and the picture contrast-normalised (and the picture moved by the whole pixel that fits
either face best), the picture's difference from the faces' midpoint is
projected on their difference, block by block. +1 is the first face exactly, -1 the second;
blocks that look like neither (a hand, chips, glare) are left out, and the say shrinks with
how badly the picture fits the nearer face where the two differ.
"""

from __future__ import annotations

import cv2
import numpy as np

BLOCK = 12  # pixels (at twice CANON) per block side
_SMOOTH = 4.0  # sigma of the local brightness the contrast is measured against


def contrast(grey: np.ndarray) -> np.ndarray:
    """A grey plane as local contrast: detail over local brightness (lighting and glare
    cancel out)."""
    grey = grey.astype(np.float32)
    local = np.asarray(cv2.GaussianBlur(grey, (0, 0), _SMOOTH))
    return (grey - local) / (local + 20.0)


def _blocks(plane: np.ndarray) -> np.ndarray:
    h, w = plane.shape
    bh, bw = h // BLOCK, w // BLOCK
    cut = plane[: bh * BLOCK, : bw * BLOCK].reshape(bh, BLOCK, bw, BLOCK)
    return cut.sum(axis=(1, 3)).reshape(-1)


def _nearest_shift(x: np.ndarray, a: np.ndarray, b: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The picture moved by the whole pixel (at most one each way) that brings it closest to
    either face, with all three cropped to the part they share: the alignment on the whole
    face leaves the small places where two faces differ a pixel off often enough."""
    h, w = x.shape
    inner = (slice(1, h - 1), slice(1, w - 1))
    best: tuple[float, np.ndarray] | None = None
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            moved = x[1 + dy : h - 1 + dy, 1 + dx : w - 1 + dx]
            off = min(float(np.square(moved - a[inner]).sum()),
                      float(np.square(moved - b[inner]).sum()))
            if best is None or off < best[0]:
                best = (off, moved)
    assert best is not None
    return best[1], a[inner], b[inner]


# redness (paper and black ink: about 0) beyond which a black card's pixel is foreign, below
# which a red card's is; and the share of a block such pixels must cover to hide it
FOREIGN = (30.0, 25.0, 0.25)


def foreign_colour(red: np.ndarray, red_ink: bool) -> np.ndarray:
    """Where a card picture shows a colour no face of the two codes prints (a green or blue
    chip; on a black card, a red one): from its redness plane (red less the mean of green and
    blue: about 0 for paper and black ink, well above for red ink, below for green and blue)."""
    if red_ink:
        return red < -FOREIGN[1]
    return np.abs(red) > FOREIGN[0]


def discriminate(picture: np.ndarray, first: np.ndarray, second: np.ndarray,
                 foreign: np.ndarray | None = None, faces_contrast: bool = False,
                 softer: tuple[np.ndarray, np.ndarray] | None = None) -> float:
    """Where `picture` lies between two faces (grey planes of one shape, the picture aligned
    on them): about +1 when it is `first`, -1 when it is `second`, near 0 when the places
    where they differ are hidden or unclear. With `faces_contrast` the two faces are given as
    `contrast` makes them already (a deck keeps its faces so). `softer`: the two faces
    blurred (as `contrast` makes them), for a blurred picture: the say is taken from the
    pair the picture fits better (a small card's pips, blurred, fit neither sharp face)."""
    if not faces_contrast:
        first, second = contrast(first), contrast(second)
    seen = contrast(picture)
    lean, fit = _lean(seen, first, second, foreign)
    if softer is not None:
        soft_lean, soft_fit = _lean(seen, *softer, foreign)
        if soft_fit > fit:
            lean, fit = soft_lean, soft_fit
    return lean * fit


_GAIN = (0.3, 1.5)  # the picture's contrast, as a share of the faces', is taken within these


def _gain(x: np.ndarray, mid: np.ndarray) -> float:
    """How strong the picture's contrast is beside the faces' (their midpoint's), over the
    whole card (the art the two faces share weighs most): a washed-out picture (haze, a
    dim lamp, blur) shows its ink fainter, and would fit neither face where they differ."""
    norm = float((mid * mid).sum())
    if norm <= 0:
        return 1.0
    return float(np.clip((x * mid).sum() / norm, *_GAIN))


def _lean(seen: np.ndarray, first: np.ndarray, second: np.ndarray,
          foreign: np.ndarray | None) -> tuple[float, float]:
    """`discriminate`'s say on contrast planes: which face the telling blocks lean to (-1..1)
    and how well the picture fits the nearer face there (0..1)."""
    x, a, b = _nearest_shift(seen, first, second)
    x = x / _gain(x, 0.5 * (a + b))
    d = a - b
    mid = x - 0.5 * (a + b)
    num = _blocks(mid * d)
    den = _blocks(0.5 * d * d)
    # how unlike the nearer face each block is, in units of how unlike the faces are there
    off = np.minimum(_blocks((x - a) ** 2), _blocks((x - b) ** 2))
    telling = den > 0.05 * den.max() if den.max() > 0 else den > 0
    hidden = off > 4.0 * den + 0.5 * float(np.median(off))
    if foreign is not None:  # chips of a colour the card does not print
        hidden |= _blocks(foreign[1:-1, 1:-1].astype(np.float32)) > FOREIGN[2] * BLOCK * BLOCK
    keep = telling & ~hidden
    total = float(den[keep].sum())
    if total <= 0:
        return 0.0, 0.0
    # A picture that is neither face (a hand, a blank) still leans to the face with less ink
    # where they differ: the say counts only as much as the picture fits the nearer face.
    fit = 1.0 - float(off[telling].sum()) / max(2.0 * float(den[telling].sum()), 1e-6)
    return float(np.clip(num[keep].sum() / total, -1.0, 1.0)), float(np.clip(fit, 0.0, 1.0))
