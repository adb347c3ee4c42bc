"""Frame sources for the overhead camera, chosen by one string from config.

- `0`, `1`, ...: a camera by device index (`cv2.VideoCapture(index)`);
- `rtsp://...`, `http://...`, `https://...`: a network stream;
- a folder: its images in name order (`*.png`, `*.jpg`, ...), then the source ends;
- any other path: a video file, which ends at its last frame.

Live sources (devices and streams) reconnect when they drop: the source keeps trying, with a
growing pause, and reports each change of state once (`on_state("lost" | "back", detail)`),
never every failed read.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

log = logging.getLogger(__name__)
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class SourceError(RuntimeError):
    """A source that cannot be used at all (a missing folder, an unreadable file)."""


def describe(spec: str) -> str:
    """What kind of source a spec names: "device", "stream", "folder" or "file"."""
    if spec.strip().isdigit():
        return "device"
    if spec.split("://", 1)[0].lower() in ("rtsp", "rtsps", "http", "https", "udp", "tcp"):
        return "stream"
    return "folder" if Path(spec).is_dir() else "file"


@dataclass
class FrameSource:
    """Iterate to get BGR frames. `open_capture` is the one boundary to the camera driver."""

    spec: str
    on_state: Callable[[str, str], None] | None = None
    retry_first: float = 0.5
    retry_max: float = 10.0
    max_retries: int | None = None  # None: a live source never gives up
    open_capture: Callable[[Any], Any] = cv2.VideoCapture
    sleep: Callable[[float], None] = time.sleep
    kind: str = ""  # "device", "stream", "folder" or "file"; guessed from the spec if empty

    def __post_init__(self) -> None:
        self.kind = self.kind or describe(self.spec)

    def __iter__(self) -> Iterator[np.ndarray]:
        if self.kind == "folder":
            yield from self._folder()
        elif self.kind == "file":
            yield from self._file()
        else:
            yield from self._live()

    def _folder(self) -> Iterator[np.ndarray]:
        paths = sorted(p for p in Path(self.spec).iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        for path in paths:
            frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if frame is None:
                self._report("skipped", f"{path}: not a readable image")
                continue
            yield frame

    def _file(self) -> Iterator[np.ndarray]:
        if not Path(self.spec).exists():
            raise SourceError(f"{self.spec}: no such video file or folder")
        capture = self.open_capture(self.spec)
        try:
            if not capture.isOpened():
                raise SourceError(f"{self.spec}: not a video that OpenCV can read")
            while True:
                ok, frame = capture.read()
                if not ok:
                    return
                yield frame
        finally:
            capture.release()

    def _live(self) -> Iterator[np.ndarray]:
        target: Any = int(self.spec) if self.kind == "device" else self.spec
        pause, failures, up = self.retry_first, 0, None
        while True:
            capture = self.open_capture(target)
            try:
                while capture.isOpened():
                    ok, frame = capture.read()
                    if not ok:
                        break
                    if up is not True:
                        if up is False:
                            self._report("back", f"{self.kind} {self.spec} is back")
                        up, pause, failures = True, self.retry_first, 0
                    yield frame
            finally:
                capture.release()
            if up is not False:
                self._report("lost", f"{self.kind} {self.spec} dropped; reconnecting")
                up = False
            failures += 1
            if self.max_retries is not None and failures > self.max_retries:
                self._report("gave_up", f"{self.kind} {self.spec}: no frames after "
                             f"{self.max_retries} retries")
                return
            self.sleep(pause)
            pause = min(self.retry_max, pause * 2)

    def _report(self, state: str, detail: str) -> None:
        log.warning("camera: %s", detail)
        if self.on_state is not None:
            self.on_state(state, detail)
