"""The overhead camera at a live table: frames in, `card_seen` / `card_lost` observations out.

`CameraWatch` reads the camera's frame source on its own thread, recognizes the cards in each
frame, debounces them by layout zone and hands the sightings to the live table; the camera's
link shows up while frames arrive and down while the source is lost or has ended.

With an `evidence` keeper (the folder beside the log, `[camera] evidence`), every event it
hands the table names the frames that show it, drawn with what the recognizer saw and kept
as JPEG before the event is appended (devices/camera_evidence.py); the frames of an event
that raised a flag are marked so that retention removes them last.

The recognizer needs no enrolled deck: it reads any standard deck (`hardware/camera/`). A
`source` of frames may stand in for the configured camera (the emulator's virtual camera):
it is read as it is, with the same link semantics (up at the first frame, down when it ends).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from dealer_assist.config import CameraConfig
from dealer_assist.devices.camera_evidence import EvidenceKeeper, FrameWitness
from dealer_assist.services.live_table import LiveTable
from dealer_assist.services.refusals import Refused
from hardware.camera.feed import CameraFeed
from hardware.camera.recognize import Recognizer
from hardware.camera.source import FrameSource, SourceError
from hardware.camera.zones import load_zones
from hardware.clock import utc_stamp

_log = logging.getLogger("dealer_assist")


class CameraWatch:
    """The overhead camera feeding the live table: frames -> sightings -> card_seen / card_lost.

    The frame source reconnects by itself and reports each change once; the display shows the
    camera's link as up while frames arrive, down while the source is lost or has ended.
    """

    def __init__(self, config: CameraConfig, table: LiveTable,
                 source: Iterable[np.ndarray] | None = None,
                 recognizer: Recognizer | None = None,
                 evidence: EvidenceKeeper | None = None) -> None:
        assert config.zones is not None
        self.table = table
        zones = load_zones(config.zones)
        self.feed = CameraFeed(zones, confirm_frames=config.confirm_frames,
                               lose_frames=config.lose_frames)
        self.witness = None if evidence is None else FrameWitness(
            zones, evidence, remember=config.lose_frames + 1)
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

    def _frames(self) -> Iterator[np.ndarray]:
        for frame in self.source:
            if self._stop.is_set():
                return
            if self.frames_seen == 0:
                self.table.link_changed("camera", "up", "frames arriving")
            self.frames_seen += 1
            yield frame

    def _run(self) -> None:
        try:
            for frame in self._frames():
                self.take(frame)
        except SourceError as e:
            self.table.link_changed("camera", "down", str(e))
            return
        except Exception:  # a broken frame or model: say so, never take the table down
            _log.exception("camera: the feed stopped")
            self.table.link_changed("camera", "down", "the camera feed stopped on an error")
            return
        if not self._stop.is_set():
            self.table.link_changed("camera", "down", "the camera source ended")

    def take(self, frame: np.ndarray) -> None:
        """One frame: its sightings, the events it settles (with their frames) to the table."""
        sightings = self.recognize(frame)
        for event in self.feed.update(sightings, utc_stamp()):
            if self.witness is not None:
                event["frames"] = self.witness.frames_of(event, frame, sightings)
            self._observe(event)
        if self.witness is not None:
            self.witness.remember(frame, sightings)

    def _observe(self, event: dict[str, Any]) -> None:
        before = self._flags() if self.witness is not None else 0
        try:
            self.table.observe(event)
        except Refused as e:
            _log.warning("camera: %s", e)
            return
        if self.witness is not None and self._flags() > before:
            self.witness.keeper.mark_flagged([f["sha256"] for f in event["frames"]])

    def _flags(self) -> int:
        """The flags of the table's current shoe (read to mark the frames of flags for
        retention; a flag another device raises meanwhile only keeps frames longer)."""
        shoe = self.table.machine.shoe
        return 0 if shoe is None else sum(len(g.flags) for g in shoe.games[-3:])

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(3.0)
