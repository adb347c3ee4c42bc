"""Find card-shaped things on the felt: frame in, quadrilaterals out (pure).

The felt is the one colour that fills most of an overhead frame. Its colour and brightness
are estimated as smooth fields (so uneven lighting and soft glare stay "felt"), everything
that differs from them is foreground, and each foreground blob whose outline is a
rectangle of card proportions becomes a candidate. Blobs where a hand or chips touch a card
are cut back to the card's own pixels (the bright face, or the colour of the back).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

WORK_SCALE = 0.5  # detection runs on a half-size frame
_FIELD_SCALE = 1 / 16  # felt fields are estimated on a 1/16 frame


@dataclass(frozen=True)
class Candidate:
    """A card-shaped region: corners in full-frame pixels, clockwise, first edge a short side."""

    quad: np.ndarray  # 4x2 float, the sides moved onto the card's edges
    fill: float  # share of the quad covered by foreground
    coarse: np.ndarray  # 4x2 float, the quad as the half-size mask gave it


def _felt_basis(tiny: np.ndarray) -> np.ndarray:
    """A 3x3 matrix taking a BGR pixel to (felt amount, white amount, off-plane distance).

    Lighting scales the felt colour and glare adds white, so felt pixels lie on the plane
    spanned by the felt colour and white, with a felt amount and a white amount that vary
    slowly across the frame. A white card lies on that plane too, but with no felt in it.
    """
    felt = np.median(tiny.reshape(-1, 3), axis=0).astype(np.float64) + 1.0
    white = np.ones(3) / np.sqrt(3.0)
    chroma = felt - white * (felt @ white)
    if np.linalg.norm(chroma) < 8.0:  # a grey felt: make up a chroma axis; brightness decides
        felt = felt + np.array([0.0, 8.0, -8.0])
    basis = np.stack([felt, white], axis=1)
    amount, whiteness = np.linalg.pinv(basis)
    normal = np.cross(felt, white)
    return np.array([amount, whiteness, normal / np.linalg.norm(normal)])


def _field(values: np.ndarray, weight: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Smooth `values` where `weight` says felt, filling the rest from around; then upsize."""
    norm = cv2.GaussianBlur(weight, (0, 0), 5.0) + 1e-6
    field = cv2.GaussianBlur(values * weight, (0, 0), 5.0) / norm
    return cv2.resize(field, size, interpolation=cv2.INTER_LINEAR)


def foreground(frame: np.ndarray) -> np.ndarray:
    """A half-size uint8 mask of what is not felt (cards, hands, chips)."""
    small = cv2.resize(frame, None, fx=WORK_SCALE, fy=WORK_SCALE, interpolation=cv2.INTER_AREA)
    ratio = _FIELD_SCALE / WORK_SCALE
    tiny = cv2.resize(small, None, fx=ratio, fy=ratio, interpolation=cv2.INTER_AREA)
    matrix = _felt_basis(tiny.astype(np.float32)).astype(np.float32)
    t = cv2.transform(tiny.astype(np.float32), matrix)
    typical = float(np.median(t[:, :, 0]))
    felt = (np.abs(t[:, :, 2]) < 18) & (t[:, :, 0] > 0.5 * typical) & (t[:, :, 0] < 1.6 * typical)
    weight = felt.astype(np.float32)
    size = (small.shape[1], small.shape[0])
    g_field = _field(t[:, :, 0], weight, size)
    w_field = _field(t[:, :, 1], weight, size)
    gwr = cv2.transform(small.astype(np.float32), matrix)
    g, w, r = gwr[:, :, 0], gwr[:, :, 1], np.abs(gwr[:, :, 2])
    mask = (r > 24) | (g < 0.55 * g_field) | (g > 1.35 * g_field) | (np.abs(w - w_field) > 45)
    mask = mask.astype(np.uint8) * 255
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((7, 7), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(mask, contours, -1, 255, cv2.FILLED)
    return mask


def _order(quad: np.ndarray) -> np.ndarray:
    """Clockwise corners starting so that the first edge is a short side."""
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    quad = quad[np.argsort(angles)]  # clockwise on screen (y points down)
    if np.linalg.norm(quad[1] - quad[0]) > np.linalg.norm(quad[2] - quad[1]):
        quad = np.roll(quad, -1, axis=0)
    return quad


def _rect_quad(u1: float, u2: float, v1: float, v2: float, theta: float) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    uv = np.array([[u1, v1], [u2, v1], [u2, v2], [u1, v2]])
    return np.stack([uv[:, 0] * c - uv[:, 1] * s, uv[:, 0] * s + uv[:, 1] * c], axis=1)


def _peaks(values: np.ndarray, weight: np.ndarray, keep: int, min_count: float) -> list[float]:
    if len(values) == 0:
        return []
    lo = np.floor(values.min()) - 2
    hist = np.bincount((values - lo).astype(int), weights=weight).astype(np.float64)
    hist = np.convolve(hist, [1.0, 1.0, 1.0], mode="same")
    order = np.argsort(hist)[::-1]
    picked: list[int] = []
    for i in order:
        if hist[i] < min_count or len(picked) == keep:
            break
        if all(abs(i - j) > 3 for j in picked):
            picked.append(int(i))
    return [p + lo + 0.5 for p in picked]


def _pairs(values: np.ndarray) -> np.ndarray:
    i, j = np.triu_indices(len(values), 1)
    return np.sort(np.stack([values[i], values[j]], axis=1), axis=1)


def _hypotheses(us: np.ndarray, vs: np.ndarray, aspect: float) -> np.ndarray:
    """Boxes (u_lo, u_hi, v_lo, v_hi) from side positions: all four sides seen, or three
    (the fourth placed by the card's aspect ratio)."""
    out = []
    pu, pv = _pairs(us), _pairs(vs)
    if len(pu) and len(pv):
        a = np.repeat(pu, len(pv), axis=0)
        b = np.tile(pv, (len(pu), 1))
        out.append(np.concatenate([a, b], axis=1))
    for pairs, singles, swap in ((pu, vs, False), (pv, us, True)):
        if not len(pairs) or not len(singles):
            continue
        span = pairs[:, 1] - pairs[:, 0]
        lengths = np.stack([span / aspect, span * aspect], axis=1)  # (p, 2)
        for sign in (-1.0, 1.0):
            other = singles[None, :, None] + sign * lengths[:, None, :]  # (p, s, 2)
            start = np.broadcast_to(singles[None, :, None], other.shape)
            lo_hi = np.sort(np.stack([start, other], axis=-1), axis=-1).reshape(-1, 2)
            fixed = np.repeat(pairs, other.shape[1] * 2, axis=0)
            box = np.concatenate([lo_hi, fixed] if swap else [fixed, lo_hi], axis=1)
            out.append(box)
    return np.concatenate(out) if out else np.zeros((0, 4))


def _rectangles(
    contour: np.ndarray, lo: float, hi: float, aspect: float
) -> list[tuple[float, np.ndarray]]:
    """Card-proportioned rectangles supported by straight runs of a blob's outline."""
    pts = contour.reshape(-1, 2).astype(np.float64)
    n = len(pts)
    if n < 40:
        return []
    step = 3
    delta = np.roll(pts, -step, axis=0) - np.roll(pts, step, axis=0)
    direction = np.mod(np.arctan2(delta[:, 1], delta[:, 0]), np.pi / 2)
    hist = np.bincount((np.degrees(direction)).astype(int) % 90, minlength=90).astype(np.float64)
    hist = hist + np.roll(hist, 1) + np.roll(hist, -1)
    found: list[tuple[float, np.ndarray]] = []
    tried: list[int] = []
    for peak in np.argsort(hist)[::-1][:4]:
        if hist[peak] < 0.2 * lo or any(min(abs(peak - t), 90 - abs(peak - t)) < 4 for t in tried):
            continue
        tried.append(int(peak))
        near = np.abs(np.degrees(direction) - peak)
        near = np.minimum(near, 90 - near)
        weights = np.exp(-(near / 6.0) ** 2)
        theta = np.radians(float(np.average(np.degrees(direction)[near < 6],
                                            weights=weights[near < 6]) if (near < 6).any()
                                 else peak))
        c, s = np.cos(theta), np.sin(theta)
        u = pts[:, 0] * c + pts[:, 1] * s
        v = -pts[:, 0] * s + pts[:, 1] * c
        raw = np.arctan2(delta[:, 1], delta[:, 0]) - theta
        horizontal = np.abs(np.sin(raw)) < 0.2  # runs along u: a top or bottom side
        vertical = np.abs(np.cos(raw)) < 0.2
        min_run = 0.25 * lo * 0.62
        us = _peaks(u[vertical], np.ones(int(vertical.sum())), 6, min_run)
        vs = _peaks(v[horizontal], np.ones(int(horizontal.sum())), 6, min_run)
        boxes = _hypotheses(np.array(us), np.array(vs), aspect)
        if len(boxes) == 0:
            continue
        width, height = boxes[:, 1] - boxes[:, 0], boxes[:, 3] - boxes[:, 2]
        long, short = np.maximum(width, height), np.minimum(width, height)
        keep = (long >= lo) & (long <= hi) & (short >= 0.6 * long) & (short <= 0.82 * long)
        boxes, width, height = boxes[keep], width[keep], height[keep]
        if len(boxes) == 0:
            continue
        uu, vv = u[None, :], v[None, :]
        u_lo, u_hi, v_lo, v_hi = (boxes[:, i : i + 1] for i in range(4))
        inside_u = (uu > u_lo - 2) & (uu < u_hi + 2)
        inside_v = (vv > v_lo - 2) & (vv < v_hi + 2)
        on = ((np.abs(vv - v_lo) < 2.5) | (np.abs(vv - v_hi) < 2.5)) & inside_u
        on |= ((np.abs(uu - u_lo) < 2.5) | (np.abs(uu - u_hi) < 2.5)) & inside_v
        support = on.sum(axis=1) / (2 * (width + height))
        for k in np.nonzero(support >= 0.45)[0]:
            u_lo_k, u_hi_k, v_lo_k, v_hi_k = (float(x) for x in boxes[k])
            found.append((float(support[k]), _rect_quad(u_lo_k, u_hi_k, v_lo_k, v_hi_k, theta)))
    return found


def _inside_share(mask: np.ndarray, quad: np.ndarray) -> float:
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int), 0)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    patch = mask[y0:y1, x0:x1]
    poly = np.zeros_like(patch)
    cv2.fillConvexPoly(poly, np.round(quad - [x0, y0]).astype(np.int32), 255)
    total = int(np.count_nonzero(poly))
    return float(np.count_nonzero(patch & poly)) / max(total, 1)


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return inter > 0.2 * min(cv2.contourArea(a.astype(np.float32)),
                             cv2.contourArea(b.astype(np.float32)))


def find_cards(frame: np.ndarray, min_height: float = 90, max_height: float = 340) -> list[Candidate]:
    """Card-shaped foreground regions of a BGR frame, as quads in full-frame pixels."""
    mask = foreground(frame)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    lo, hi = min_height * WORK_SCALE, max_height * WORK_SCALE
    found = []
    complex_blobs = []
    simple = []
    for contour in contours:
        area = cv2.contourArea(contour)
        if area < 0.5 * lo * lo * 0.6:
            continue
        hull = cv2.convexHull(contour)
        (cx, cy), (w, h), angle = cv2.minAreaRect(hull)
        long, short = max(w, h), min(w, h)
        fill = area / max(w * h, 1.0)
        if lo <= long <= hi and 0.64 <= short / long <= 0.8 and fill > 0.93:
            simple.append((long, contour, ((cx, cy), (w, h), angle), fill))
        else:
            complex_blobs.append(contour)
    aspect = 0.7
    if simple:  # cards of one camera are all about the same size; two cards merged are bigger
        typical = float(np.percentile([s[0] for s in simple], 25))
        lo, hi = max(lo, 0.85 * typical), min(hi, 1.2 * typical)
        aspect = float(np.median([min(s[2][1]) / max(s[2][1]) for s in simple]))
    for long, contour, rect, fill in simple:
        if lo <= long <= hi:
            box = cv2.boxPoints(rect).astype(np.float64)
            found.append(Candidate(_order(box / WORK_SCALE), float(fill), box))
        else:
            complex_blobs.append(contour)
    for contour in complex_blobs:
        chosen: list[np.ndarray] = []
        for _support, quad in sorted(_rectangles(contour, lo, hi, aspect), key=lambda t: -t[0]):
            if any(_overlap(quad, other) for other in chosen):
                continue
            share = _inside_share(mask, quad)
            if share < 0.85:
                continue
            chosen.append(quad)
            found.append(Candidate(_order(quad / WORK_SCALE), share, quad))
    return [Candidate(refine_quad(frame, c.quad), c.fill, c.quad) for c in found]


def _line_fit(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Least-squares slope and intercept of y ~ x."""
    mx, my = float(x.mean()), float(y.mean())
    var = float(((x - mx) ** 2).sum())
    slope = float(((x - mx) * (y - my)).sum()) / var if var > 1e-12 else 0.0
    return slope, my - slope * mx


def refine_quad(frame: np.ndarray, quad: np.ndarray, inward: float = 12.0,
                outward: float = 7.0) -> np.ndarray:
    """Move each side of a coarse quad onto the card's edge in the full-size frame.

    Each side is probed along its normal at points away from the rounded corners. The edge
    is the innermost strong colour step whose inner side looks like the card's rim (the
    colour just inside the card) and whose outer side does not, so a printed layout line
    next to a card is not taken for its edge. Probes that disagree (a hand, chips) are
    dropped; a side with too few good probes keeps its coarse position.
    """
    samples = 20
    t = np.linspace(0.14, 0.86, samples)
    inward = max(inward, round(0.09 * float(np.linalg.norm(quad[1] - quad[0]))))
    offsets = np.arange(-inward, outward + 1.0)
    steps = len(offsets)
    centre = quad.mean(axis=0)
    grid_x = np.empty((4 * samples, steps), np.float32)
    grid_y = np.empty_like(grid_x)
    frames = []
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        direction = (b - a) / max(np.linalg.norm(b - a), 1e-6)
        normal = np.array([direction[1], -direction[0]])
        if normal @ (a - centre) < 0:
            normal = -normal
        frames.append((a, b, direction, normal))
        probe = (a + t[:, None] * (b - a))[:, None, :] + offsets[None, :, None] * normal
        grid_x[k * samples : (k + 1) * samples] = probe[:, :, 0]
        grid_y[k * samples : (k + 1) * samples] = probe[:, :, 1]
    profile = cv2.remap(frame, grid_x, grid_y, cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    step = np.linalg.norm(profile[:, 2:] - profile[:, :-2], axis=2)  # at offsets[1:-1]
    rim = np.median(profile[:, :3].reshape(-1, 3), axis=0)
    far = np.linalg.norm(profile - rim, axis=2)
    inside, outside = far[:, :-2], far[:, 2:]
    valid = (outside > 1.5 * inside + 20.0) & (step > 25.0)
    strong = valid & (step >= 0.5 * np.where(valid, step, 0).max(axis=1, keepdims=True))
    first = np.where(strong.any(axis=1), strong.argmax(axis=1), -1)
    lines = []
    for k in range(4):
        a, b, direction, normal = frames[k]
        rows = slice(k * samples, (k + 1) * samples)
        pick = first[rows]
        good = pick >= 0
        idx = np.clip(pick, 1, steps - 4)
        rk = step[rows]
        ar = np.arange(samples)
        left, mid, right = rk[ar, idx - 1], rk[ar, idx], rk[ar, idx + 1]
        denom = left - 2 * mid + right
        sub = np.where(np.abs(denom) > 1e-6, 0.5 * (left - right) / np.where(denom == 0, 1, denom), 0)
        shift = offsets[1:-1][idx] + np.clip(sub, -0.5, 0.5)
        for _ in range(3):  # the side may be tilted against the coarse one: fit shift ~ t
            if good.sum() < 5:
                break
            slope, icept = _line_fit(t[good], shift[good])
            residual = np.abs(shift - (slope * t + icept))
            limit = max(1.5, 2.5 * float(np.median(residual[good])))
            good &= residual < limit
        if good.sum() < 5:
            lines.append((a, direction))
            continue
        slope, icept = _line_fit(t[good], shift[good])
        start = a + icept * normal
        lines.append((start, (b - a) + slope * normal))
    out = np.empty_like(quad)
    for k in range(4):
        (p1, d1), (p2, d2) = lines[(k - 1) % 4], lines[k]
        matrix = np.array([d1, -d2]).T
        if abs(np.linalg.det(matrix)) < 1e-6:
            out[k] = quad[k]
            continue
        s = np.linalg.solve(matrix, p2 - p1)
        out[k] = p1 + s[0] * d1
    if np.abs(out - quad).max() > 2.5 * inward:  # refinement went astray
        return quad
    return out
