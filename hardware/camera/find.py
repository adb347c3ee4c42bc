"""The finder stage: a frame in, corner-index and card-back candidates out.

The frame is shrunk so that its long side is `spec.WORK_LONG_SIDE` (never enlarged), padded
to multiples of `spec.STRIDE_PAD`, and run through `corners.onnx`. Its index heat is cut to
peaks (a cell that is the largest of its 3x3 neighbourhood and above
`Settings.index_heat`); at each peak the geometry channels give the card's up, width and
centre. Back heat peaks the same way give face-down cards. Everything returned is in the
full-resolution frame's pixels.
"""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from hardware.camera.model.settings import Settings
from hardware.camera.model.spec import (
    HEAT_BACK,
    HEAT_INDEX,
    LOG_WIDTH,
    MAP_STRIDE,
    STRIDE_PAD,
    TO_CENTRE_X,
    TO_CENTRE_Y,
    UP_COS,
    UP_SIN,
    WORK_LONG_SIDE,
)


class ModelMissing(RuntimeError):
    """A network's ONNX file is not where the recognizer looks for it, or does not load."""


def load_session(name: str, settings: Settings) -> Any:
    """An onnxruntime session of the network file `name` (from `settings.model_dir`, else the
    package's model folder), on `settings.threads` threads, CPU only."""
    import onnxruntime as ort  # imported here: commands that never read a frame skip it

    if settings.model_dir is not None:
        path = Path(settings.model_dir) / name
        if not path.is_file():
            raise ModelMissing(f"{path}: no such model file (a model folder holds corners.onnx "
                               "and index.onnx, as `dealer-assist vision train` writes them)")
        data = path.read_bytes()
    else:
        resource = importlib.resources.files("hardware.camera.model") / name
        if not resource.is_file():
            raise ModelMissing(f"the camera's model file {name} is not installed with the "
                               "package (hardware/camera/model/): reinstall dealer-assist, or "
                               "train one with `dealer-assist vision train`")
        data = resource.read_bytes()
    options = ort.SessionOptions()
    options.intra_op_num_threads = settings.threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        return ort.InferenceSession(data, sess_options=options,
                                    providers=["CPUExecutionProvider"])
    except Exception as err:  # onnxruntime raises its own untyped errors on a bad file
        raise ModelMissing(f"the camera's model file {name} does not load: {err}") from None


@dataclass(frozen=True)
class IndexSpot:
    """A corner index the finder sees, in frame pixels: its centre, the card's up as seen
    from it (a unit vector, pip toward rank glyph), the card's width and the card's centre."""

    at: tuple[float, float]
    up: tuple[float, float]
    width: float
    card_centre: tuple[float, float]
    heat: float


@dataclass(frozen=True)
class BackSpot:
    """The centre of a face-down card, in frame pixels."""

    at: tuple[float, float]
    heat: float


def working_picture(frame: np.ndarray) -> tuple[np.ndarray, float]:
    """The finder's input [1, 3, H, W] float32 BGR in [0, 1], and the scale from frame pixels
    to working pixels."""
    h, w = frame.shape[:2]
    scale = min(1.0, WORK_LONG_SIDE / max(h, w))
    if scale < 1.0:
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        small = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
    else:
        small = frame
    sh, sw = small.shape[:2]
    ph, pw = -(-sh // STRIDE_PAD) * STRIDE_PAD, -(-sw // STRIDE_PAD) * STRIDE_PAD
    padded = np.zeros((1, 3, ph, pw), np.float32)
    padded[0, :, :sh, :sw] = small.transpose(2, 0, 1)
    padded *= 1.0 / 255.0
    return padded, scale


def peaks(heat: np.ndarray, threshold: float) -> list[tuple[int, int]]:
    """Cells (row, column) that are the largest of their 3x3 neighbourhood and above
    `threshold`, strongest first."""
    biggest = cv2.dilate(heat, np.ones((3, 3), np.uint8))
    rows, cols = np.nonzero((heat >= biggest) & (heat > threshold))
    order = np.argsort(-heat[rows, cols], kind="stable")
    return [(int(rows[k]), int(cols[k])) for k in order]


def _refined(heat: np.ndarray, i: int, j: int) -> tuple[float, float]:
    """The peak's position in working pixels: the cell's centre moved toward the heat's
    centroid over its 3x3 neighbourhood."""
    i0, i1, j0, j1 = max(0, i - 1), min(heat.shape[0], i + 2), max(0, j - 1), min(heat.shape[1], j + 2)
    patch = heat[i0:i1, j0:j1].astype(np.float64)
    total = float(patch.sum()) or 1.0
    di = float((patch.sum(axis=1) * (np.arange(i0, i1) - i)).sum()) / total
    dj = float((patch.sum(axis=0) * (np.arange(j0, j1) - j)).sum()) / total
    return (j + 0.5 + dj) * MAP_STRIDE, (i + 0.5 + di) * MAP_STRIDE


@dataclass
class Finder:
    """`corners.onnx` on a frame: `Finder()(frame) -> (index spots, back spots)`."""

    settings: Settings = Settings()

    @cached_property
    def session(self) -> Any:
        return load_session("corners.onnx", self.settings)

    def maps(self, frame: np.ndarray) -> tuple[np.ndarray, float]:
        """The finder's output maps [MAP_CHANNELS, h, w] for `frame`, and the frame's scale."""
        picture, scale = working_picture(frame)
        (maps,) = self.session.run(["maps"], {"image": picture})
        return maps[0], scale

    def __call__(self, frame: np.ndarray) -> tuple[list[IndexSpot], list[BackSpot]]:
        maps, scale = self.maps(frame)
        return self.spots(maps, scale, frame.shape[:2])

    def spots(self, maps: np.ndarray, scale: float, shape: tuple[int, ...]
              ) -> tuple[list[IndexSpot], list[BackSpot]]:
        """Index and back spots from the finder's maps of a frame of `shape` at `scale`."""
        h, w = shape[:2]
        heat = np.ascontiguousarray(maps[HEAT_INDEX])
        indices = []
        for i, j in peaks(heat, self.settings.index_heat):
            x, y = _refined(heat, i, j)
            if x >= w * scale or y >= h * scale:  # in the padding
                continue
            ux, uy = float(maps[UP_COS, i, j]), float(maps[UP_SIN, i, j])
            norm = float(np.hypot(ux, uy))
            if norm < 1e-6:
                continue
            width = float(np.exp(np.clip(maps[LOG_WIDTH, i, j], -3.0, 9.0)))
            cx = x + float(maps[TO_CENTRE_X, i, j]) * width
            cy = y + float(maps[TO_CENTRE_Y, i, j]) * width
            indices.append(IndexSpot((x / scale, y / scale), (ux / norm, uy / norm),
                                     width / scale, (cx / scale, cy / scale), float(heat[i, j])))
        back = np.ascontiguousarray(maps[HEAT_BACK])
        backs = []
        for i, j in peaks(back, self.settings.back_heat):
            x, y = _refined(back, i, j)
            if x < w * scale and y < h * scale:
                backs.append(BackSpot((x / scale, y / scale), float(back[i, j])))
        return indices, backs
