"""The overhead camera at a live table: frames in, `card_seen` / `card_lost` observations out.

`CameraWatch` reads the camera's frame source on its own thread, recognizes the cards in each
frame, debounces them by layout zone and hands the sightings to the live table; the camera's
link shows up while frames arrive and down while the source is lost or has ended.

The recognizer needs no enrolled deck: it reads any standard deck (`hardware/camera/`). A
`source` of frames may stand in for the configured camera (the emulator's virtual camera):
it is read as it is, with the same link semantics (up at the first frame, down when it ends).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import Any

import numpy as np

from dealer_assist.config import CameraConfig
from dealer_assist.services.live_table import LiveTable
from dealer_assist.services.refusals import Refused
from hardware.camera.feed import CameraFeed, run_feed
from hardware.camera.recognize import Recognizer
from hardware.camera.source import FrameSource, SourceError
from hardware.camera.zones import load_zones

_log = logging.getLogger("dealer_assist")


class CameraWatch:
    """The overhead camera feeding the live table: frames -> sightings -> card_seen / card_lost.

    The frame source reconnects by itself and reports each change once; the display shows the
    camera's link as up while frames arrive, down while the source is lost or has ended.
    """

    def __init__(self, config: CameraConfig, table: LiveTable,
                 source: Iterable[np.ndarray] | None = None,
                 recognizer: Recognizer | None = None) -> None:
        assert config.zones is not None
        self.table = table
        self.feed = CameraFeed(load_zones(config.zones), confirm_frames=config.confirm_frames,
                               lose_frames=config.lose_frames)
        # the networks load here, at start: a missing model file stops the start, not a shift
        self.recognize = (recognizer or Recognizer()).load()
        self.source: Iterable[np.ndarray] = (
            source if source is not None else FrameSource(config.source, on_state=self._state))
        self.frames_seen = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)

    def start(self) -> CameraWatch:
        self.table.link_changed("camera", "unknown", "waiting for the first frame")
        self._thread.start()
        return self

    def _state(self, state: str, detail: str) -> None:
        if state in ("lost", "gave_up", "back"):
            self.table.link_changed("camera", "up" if state == "back" else "down", detail)

    def _frames(self) -> Any:
        for frame in self.source:
            if self._stop.is_set():
                return
            if self.frames_seen == 0:
                self.table.link_changed("camera", "up", "frames arriving")
            self.frames_seen += 1
            yield frame

    def _run(self) -> None:
        try:
            for event in run_feed(self._frames(), self.recognize, self.feed):
                try:
                    self.table.observe(event)
                except Refused as e:
                    _log.warning("camera: %s", e)
        except SourceError as e:
            self.table.link_changed("camera", "down", str(e))
            return
        except Exception:  # a broken frame or model: say so, never take the table down
            _log.exception("camera: the feed stopped")
            self.table.link_changed("camera", "down", "the camera feed stopped on an error")
            return
        if not self._stop.is_set():
            self.table.link_changed("camera", "down", "the camera source ended")

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(3.0)
