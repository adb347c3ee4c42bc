"""Move the sides of a coarse card quad onto the card's edges in the full-size frame (pure).

The finder's quads come from half-size masks and are a pixel or two off; reading the card
wants its edges. Each side is probed along its normal; the edge is the outermost colour step
with felt outside and a solid run of card inside (see `refine_quad`).
"""

from __future__ import annotations

import cv2
import numpy as np

from hardware.camera.ink import median


def _line_fits(x: np.ndarray, y: np.ndarray, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares slopes and intercepts of y ~ x over the kept points, one per row
    (rows of `y` and `keep`; `x` shared)."""
    count = np.maximum(keep.sum(axis=1), 1)
    mx = np.where(keep, x, 0.0).sum(axis=1) / count
    my = np.where(keep, y, 0.0).sum(axis=1) / count
    dx = np.where(keep, x - mx[:, None], 0.0)
    var = (dx**2).sum(axis=1)
    cov = (dx * (y - my[:, None])).sum(axis=1)
    slope = np.where(var > 1e-12, cov / np.where(var > 1e-12, var, 1.0), 0.0)
    return slope, my - slope * mx


def _masked_median(values: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The median of each row's kept values (inf for a row keeping none)."""
    count = keep.sum(axis=1)
    ordered = np.sort(np.where(keep, values, np.inf), axis=1)
    upper = np.take_along_axis(ordered, (count // 2)[:, None], axis=1)[:, 0]
    lower = np.take_along_axis(ordered, np.maximum(count - 1, 0)[:, None] // 2, axis=1)[:, 0]
    return (lower + upper) / 2


_SHADE = (0.55, 1.0)  # felt in a card's shadow keeps its colour at this share of its light


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The dot products of colours (..., 3): the sum numpy's reduction over the last axis
    makes, in its order, without that reduction's cost over so short an axis (a fifth)."""
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1] + a[..., 2] * b[..., 2]


def _length(colours: np.ndarray) -> np.ndarray:
    """`np.linalg.norm(colours, axis=-1)` of colours (..., 3), to the bit (`_dot`)."""
    return np.sqrt(_dot(colours, colours))


def _off_felt(profile: np.ndarray, felt: np.ndarray) -> np.ndarray:
    """How far each sample's colour lies from the felt, or from the felt in shade: a card's
    shadow on the felt (felt's colour, darker) is not card."""
    norm = np.maximum(_dot(felt, felt), 1e-6)
    share = np.clip(_dot(profile, felt) / norm, *_SHADE)
    return _length(profile - share[..., None] * felt)


_SKEW = np.radians(1.5)  # opposite sides of a card seen from above turn apart less than this


def _parallel(t: np.ndarray, shift: np.ndarray, good: np.ndarray, seen: np.ndarray,
              slope: np.ndarray, icept: np.ndarray, lengths: np.ndarray) -> None:
    """Opposite sides of a card lie nearly parallel. Where two fitted opposite sides turn
    apart by more than `_SKEW` (a printed line or a shadow along part of one side tilted it),
    the side with fewer good probes takes the other's turn and is placed again where most of
    its probes put it (`slope`, `icept` in place)."""
    counts = good.sum(axis=1)
    turn = slope / np.maximum(lengths, 1e-6)
    for a, b in ((0, 2), (1, 3)):
        if min(counts[a], counts[b]) < 5 or abs(np.arctan(turn[a]) - np.arctan(turn[b])) <= _SKEW:
            continue
        weak, strong = (a, b) if counts[a] < counts[b] else (b, a)
        slope[weak] = turn[strong] * lengths[weak]
        offsets = (shift[weak] - slope[weak] * t)[seen[weak]]
        centre = float(np.median(offsets))
        near = offsets[np.abs(offsets - centre) < 1.5]
        icept[weak] = float(np.median(near)) if len(near) else centre


def refine_quad(frame: np.ndarray, quad: np.ndarray, inward: float = 12.0,
                outward: float = 7.0) -> np.ndarray:
    """Move each side of a coarse quad onto the card's edge in the full-size frame.

    Each side is probed along its normal at points away from the rounded corners. The edge
    is the outermost colour step with felt (as seen just outside that side) on its outer side
    and a solid run of not-felt on its inner side: an inner frame or the pattern printed on
    the card is not taken for its edge (its outer side is no felt), nor is a printed layout
    line next to the card (too thin to be solid), nor is the card's shadow (felt in shade is
    felt). Probes that disagree (a hand, chips) are dropped; a side with too few good probes
    keeps its coarse position; opposite sides are kept parallel (`_parallel`).
    """
    return refine_quads(frame, [quad], inward, outward)[0]


def refine_quads(frame: np.ndarray, quads: list[np.ndarray], inward: float = 12.0,
                 outward: float = 7.0) -> list[np.ndarray]:
    """`refine_quad` of each quad, the quads probed at the same depth done together (one
    pass of array work for the cards of a frame, most of which are probed alike)."""
    depths = [max(inward, round(0.09 * float(np.linalg.norm(q[1] - q[0])))) for q in quads]
    out: list[np.ndarray] = list(quads)
    for depth in set(depths):
        chosen = [k for k, d in enumerate(depths) if d == depth]
        refined = _refine(frame, np.stack([quads[k] for k in chosen]), depth, outward)
        for k, quad in zip(chosen, refined, strict=True):
            out[k] = quad
    return out


def _refine(frame: np.ndarray, quads: np.ndarray, inward: float,
            outward: float) -> np.ndarray:
    """`refine_quad` of quads (n, 4, 2) probed `inward` deep: sides are rows (4n of them)."""
    n = len(quads)
    samples = 20
    t = np.linspace(0.14, 0.86, samples)
    offsets = np.arange(-inward, outward + 1.0)
    steps = len(offsets)
    centre = quads.mean(axis=1, keepdims=True)
    edges = np.roll(quads, -1, axis=1) - quads  # side k runs from corner k to corner k+1
    directions = edges / np.maximum(np.linalg.norm(edges, axis=2), 1e-6)[..., None]
    normals = np.stack([directions[..., 1], -directions[..., 0]], axis=2)
    normals[((quads - centre) * normals).sum(axis=2) < 0] *= -1  # pointing outwards
    sides = 4 * n
    quad, edges, normals, directions = (a.reshape(sides, 2)
                                        for a in (quads, edges, normals, directions))
    along = quad[:, None, :] + t[None, :, None] * edges[:, None, :]  # (sides, samples, 2)
    probe = along[:, :, None, :] + offsets[None, None, :, None] * normals[:, None, None, :]
    grid_x = probe[..., 0].reshape(sides * samples, steps).astype(np.float32)
    grid_y = probe[..., 1].reshape(sides * samples, steps).astype(np.float32)
    profile = cv2.remap(frame, grid_x, grid_y, cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    step = _length(profile[:, 2:] - profile[:, :-2])  # at offsets[1:-1]
    # the felt just outside each side (most outer probes land on felt)
    outer = profile[:, -3:]
    felt_side = median(outer.reshape(sides, -1, 3), axis=1)  # (sides, 3)
    felt = np.repeat(felt_side, samples, axis=0)[:, None, :]
    spread = _length(outer - felt).reshape(sides, -1)
    tol_side = np.maximum(30.0, 2.5 * median(spread, axis=1).astype(np.float64))
    tol = np.repeat(tol_side, samples).astype(np.float32)[:, None]
    off_felt = _off_felt(profile, felt)
    solid = (off_felt > tol).astype(np.int32)
    run = 6  # the card lies solid inside its edge; a printed line is thinner than this
    sums = np.concatenate([np.zeros((len(solid), 1), np.int32), np.cumsum(solid, axis=1)], axis=1)
    inner = np.zeros_like(step, dtype=bool)  # at step index m: profile run-1+m .. m all solid
    m = np.arange(run - 1, step.shape[1])
    inner[:, m] = (sums[:, m + 1] - sums[:, m + 1 - run]) == run
    inside, outside = off_felt[:, :-2], off_felt[:, 2:]
    valid = inner & (outside < np.maximum(tol, 0.5 * inside)) & (step > 20.0)
    last = step.shape[1] - 1 - np.argmax(valid[:, ::-1], axis=1)  # the outermost such step
    first = np.where(valid.any(axis=1), last, -1)
    rows_all = np.arange(len(first))
    for _ in range(2):  # settle on the strongest point of that step
        back = np.clip(first - 1, 0, None)
        better = (first >= 1) & (step[rows_all, back] > step[rows_all, first])
        first = np.where(better, back, first)
    pick = first.reshape(sides, samples)
    good = pick >= 0
    idx = np.clip(pick, 1, steps - 4)
    side_steps = step.reshape(sides, samples, -1)
    left, mid, right = (np.take_along_axis(side_steps, (idx + d)[:, :, None], axis=2)[:, :, 0]
                        for d in (-1, 0, 1))
    denom = left - 2 * mid + right
    sub = np.where(np.abs(denom) > 1e-6, 0.5 * (left - right) / np.where(denom == 0, 1, denom), 0)
    shift = offsets[1:-1][idx] + np.clip(sub, -0.5, 0.5)
    for _ in range(3):  # a side may be tilted against the coarse one: fit shift ~ t
        fitting = good.sum(axis=1) >= 5  # a side with fewer good probes stops here
        slope, icept = _line_fits(t, shift, good)
        residual = np.abs(shift - (slope[:, None] * t + icept[:, None]))
        limit = np.maximum(1.5, 2.5 * _masked_median(residual, good))
        good &= ~fitting[:, None] | (residual < limit[:, None])
    slope, icept = _line_fits(t, shift, good)
    lengths = np.linalg.norm(edges, axis=1)
    for k in range(0, sides, 4):  # each card's own four sides
        four = slice(k, k + 4)
        _parallel(t, shift[four], good[four], pick[four] >= 0, slope[four], icept[four],
                  lengths[four])
    fitted = good.sum(axis=1) >= 5  # a side with fewer good probes keeps its coarse line
    points = np.where(fitted[:, None], quad + icept[:, None] * normals, quad).reshape(n, 4, 2)
    runs = np.where(fitted[:, None], edges + slope[:, None] * normals,
                    directions).reshape(n, 4, 2)
    # corner k is where side k-1 meets side k: p1 + s d1 = p2 + r d2, by Cramer's rule
    p1, d1, p2, d2 = np.roll(points, 1, axis=1), np.roll(runs, 1, axis=1), points, runs
    det = d2[..., 0] * d1[..., 1] - d1[..., 0] * d2[..., 1]
    gap = p2 - p1
    meet = np.abs(det) >= 1e-6
    s = (d2[..., 0] * gap[..., 1] - gap[..., 0] * d2[..., 1]) / np.where(meet, det, 1.0)
    out = np.where(meet[..., None], p1 + s[..., None] * d1, quads)
    astray = np.abs(out - quads).max(axis=(1, 2)) > 2.5 * inward  # refinement went astray
    out[astray] = quads[astray]
    return out
