"""Where a card face's corner indices lie, found from the face's own ink.

A corner index is the rank glyph with the suit pip under it, printed as one group near a
corner. `find_indices` looks for that group in the top-left corner (and, for decks that print
four indices, in the top-right one); the bottom-right and bottom-left indices are the same
boxes turned 180 degrees. A face whose top-left corner holds no such group (a design that
puts its rank and its suit in different corners, a picture reaching the corner) gets none:
training leaves such faces out rather than teach a wrong index.

Boxes are fractions of the face's width and height, so they hold at any rendered size.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

# the corner window searched for the index, as shares of the face's width and height
_WINDOW_W, _WINDOW_H = 0.30, 0.44
_INK_DISTANCE = 70.0  # colour distance from the paper that counts as printed ink
_VERSION = 3  # bump when the finder changes: cached boxes of older versions are found again


@dataclass(frozen=True)
class IndexBox:
    """One corner index on a face: its box (shares of the face's width and height) and its
    turn: 0 when the index reads upright with the face (its up is the face's up), 180 when it
    reads upside down (the bottom corners)."""

    x0: float
    y0: float
    x1: float
    y1: float
    turn: int

    @property
    def centre(self) -> tuple[float, float]:
        return (self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2

    def turned(self) -> IndexBox:
        """The same index printed in the opposite corner (the face turned 180 degrees)."""
        return IndexBox(1 - self.x1, 1 - self.y1, 1 - self.x0, 1 - self.y0, (self.turn + 180) % 360)

    def mirrored(self) -> IndexBox:
        """The box mirrored left to right (a top-left index seen in the top-right corner)."""
        return IndexBox(1 - self.x1, self.y0, 1 - self.x0, self.y1, self.turn)


def _ink(face: np.ndarray) -> np.ndarray:
    """Mask of printed ink: opaque pixels whose colour is far from the paper's."""
    h, w = face.shape[:2]
    rgb = face[:, :, :3].astype(np.float32)
    opaque = face[:, :, 3] > 128
    # the paper: the commonest colour in the middle band of the corner window
    probe = rgb[round(0.03 * h) : round(0.3 * h), round(0.04 * w) : round(0.25 * w)].reshape(-1, 3)
    paper = np.median(probe, axis=0)
    distance = np.sqrt(((rgb - paper) ** 2).sum(axis=2))
    ink = (distance > _INK_DISTANCE) & opaque
    # the card's own outline and anything within a hair of its edge is not an index
    inner = cv2.erode(opaque.astype(np.uint8), np.ones((3, 3), np.uint8),
                      iterations=max(2, round(0.02 * w)))
    return ink & (inner > 0)


def _group(ink: np.ndarray, w: int, h: int) -> tuple[int, int, int, int] | None:
    """The rank-and-pip group nearest the top-left corner of `ink` (a face-sized mask), as a
    pixel box (x0, y0, x1, y1), or None when there is none."""
    ww, wh = round(_WINDOW_W * w), round(_WINDOW_H * h)
    window = ink[:wh, :ww].astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(window, connectivity=8)
    parts = []
    for k in range(1, count):
        x, y, bw, bh, area = (int(v) for v in stats[k])
        if area < max(4, (0.006 * w) ** 2):
            continue  # specks
        if x + bw >= ww - 1 or y + bh >= wh - 1:
            continue  # runs out of the window: a picture, a big pip or a frame
        if bw > 0.2 * w or bh > 0.16 * h:
            continue  # too big for an index glyph
        parts.append((x, y, x + bw, y + bh))
    if not parts:
        return None
    seed = min(parts, key=lambda p: p[1] + 0.6 * p[0])
    x0, y0, x1, y1 = seed
    grown = True
    while grown:
        grown = False
        reach_x = 0.35 * max(x1 - x0, 0.6 * (y1 - y0))
        reach_y = 0.5 * max(y1 - y0, 0.02 * h)
        for p in parts:
            if p[0] >= x0 and p[1] >= y0 and p[2] <= x1 and p[3] <= y1:
                continue
            overlaps_x = p[0] < x1 + reach_x and p[2] > x0 - reach_x
            near_y = p[1] < y1 + reach_y and p[3] > y0 - 0.1 * h
            centred = x0 - reach_x < (p[0] + p[2]) / 2 < x1 + reach_x
            shared_y = min(p[3], y1) - max(p[1], y0)
            beside = (shared_y > 0.6 * min(p[3] - p[1], y1 - y0)
                      and max(p[0] - x1, x0 - p[2]) < 0.3 * (y1 - y0))  # the "1" and "0" of 10
            if (overlaps_x and near_y and centred) or beside:
                nx0, ny0 = min(x0, p[0]), min(y0, p[1])
                nx1, ny1 = max(x1, p[2]), max(y1, p[3])
                if nx1 - nx0 > 0.2 * w or ny1 - ny0 > 0.3 * h:
                    continue
                x0, y0, x1, y1 = nx0, ny0, nx1, ny1
                grown = True
    return x0, y0, x1, y1


def _plausible(box: tuple[int, int, int, int], w: int, h: int) -> bool:
    x0, y0, x1, y1 = box
    bw, bh = x1 - x0, y1 - y0
    return (1.3 <= bh / max(bw, 1) <= 4.5 and 0.08 * h <= bh <= 0.3 * h
            and (x0 + x1) / 2 < 0.2 * w and (y0 + y1) / 2 < 0.22 * h)


def find_indices(face: np.ndarray) -> list[IndexBox]:
    """The corner indices of a BGRA face (portrait), top-left first; empty when the top-left
    corner holds no rank-and-pip group."""
    h, w = face.shape[:2]
    ink = _ink(face)
    top_left = _group(ink, w, h)
    if top_left is None or not _plausible(top_left, w, h):
        return []
    box = IndexBox(top_left[0] / w, top_left[1] / h, top_left[2] / w, top_left[3] / h, 0)
    found = [box, box.turned()]
    top_right = _group(np.ascontiguousarray(ink[:, ::-1]), w, h)
    if top_right is not None and _plausible(top_right, w, h):
        tr = IndexBox(top_right[0] / w, top_right[1] / h, top_right[2] / w, top_right[3] / h, 0)
        similar = abs((tr.y1 - tr.y0) / (box.y1 - box.y0) - 1) < 0.25 and abs(tr.y0 - box.y0) < 0.04
        if similar:
            found += [tr.mirrored(), tr.mirrored().turned()]
    return found


def design_indices(name: str, faces: dict[str, np.ndarray],
                   cache: Path | None = None) -> dict[str, list[IndexBox]]:
    """`find_indices` for every face of a design (not the back), read from
    `cache/name/indices.json` when that was written by this version of the finder."""
    path = cache / name / "indices.json" if cache is not None else None
    if path is not None and path.exists():
        try:
            stored = json.loads(path.read_text())
            if stored.get("version") == _VERSION:
                return {code: [IndexBox(**b) for b in boxes]
                        for code, boxes in stored["faces"].items()}
        except (ValueError, KeyError, TypeError):
            pass  # an unreadable cache is found again
    found = {code: find_indices(face) for code, face in faces.items() if code != "back"}
    if path is not None and path.parent.is_dir():
        body = {"version": _VERSION,
                "faces": {code: [asdict(b) for b in boxes] for code, boxes in found.items()}}
        path.write_text(json.dumps(body))
    return found
