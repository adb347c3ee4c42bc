"""Evidence frames of the camera's events: the frames that show a change, drawn and kept.

`FrameWitness` remembers the camera's last few frames with what the recognizer saw in each
(enough to reach back past `lose_frames`: the frames are the source's own arrays, not
copies). For each `card_seen` / `card_lost` the feed settles it names the frames that show
it, as `frames: [{"sha256", "role"}]` (export/evidence.py has the field):

- `before`: the frame just before the one that settled the event;
- `last_seen`: for a lost card, the last frame with a card in its zone (when it is not the
  frame before);
- `settled`: the frame that settled the event.

Each frame is drawn as the supervisor reviews it: the layout's zones outlined and named, and
every card the recognizer found outlined by its quad (green face up with its code, blue face
down, amber unsure), then encoded as JPEG and handed to the keeper (`EvidenceKeeper`: the
store's folder beside the log), which writes it before the event is appended and names it by
its SHA-256. A frame shown by several events of one update is drawn and written once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np

from hardware.camera.recognize import Sighting
from hardware.camera.zones import Zones

#: JPEG quality of the evidence frames: cards' indices stay legible at 1080p.
QUALITY = 85
_COLOURS = {"up": (60, 200, 60), "down": (230, 140, 40), "unsure": (0, 190, 255)}  # BGR
_ZONE = (255, 255, 255)


class EvidenceKeeper(Protocol):
    """Where the frames go (store.evidence.EvidenceFolder)."""

    def keep(self, jpeg: bytes) -> str:
        """Write the JPEG whole and return its SHA-256."""
        ...

    def mark_flagged(self, shas: list[str]) -> None:
        """These frames showed an event that raised a flag: kept longest."""
        ...


def drawn(frame: np.ndarray, sightings: Sequence[Sighting], zones: Zones) -> np.ndarray:
    """A copy of `frame` with the zones outlined and named and each sighting's quad drawn."""
    out = frame.copy()
    scale = max(1, round(min(out.shape[:2]) / 540))
    for name, poly in zones.polygons.items():
        points = np.round(poly).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [points], True, _ZONE, scale, cv2.LINE_AA)
        x, y = (int(v) for v in poly.min(axis=0))
        _label(out, name, (x + 4 * scale, y + 14 * scale), _ZONE, scale)
    for s in sightings:
        colour = _COLOURS.get(s.face, _COLOURS["unsure"])
        quad = np.round(np.array(s.quad)).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [quad], True, colour, 2 * scale, cv2.LINE_AA)
        text = s.card if s.face == "up" and s.card else s.face
        corners = np.array(s.quad)
        x, y = int(corners[:, 0].min()), int(corners[:, 1].max())
        _label(out, str(text), (x, min(out.shape[0] - 4, y + 16 * scale)), colour, scale)
    return out


def _label(image: np.ndarray, text: str, at: tuple[int, int], colour: tuple[int, int, int],
           scale: int) -> None:
    cv2.putText(image, text, at, cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, (0, 0, 0), 3 * scale,
                cv2.LINE_AA)
    cv2.putText(image, text, at, cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, colour, scale,
                cv2.LINE_AA)


def jpeg(image: np.ndarray, quality: int = QUALITY) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("the frame could not be encoded as JPEG")
    return data.tobytes()


@dataclass(eq=False)
class _Seen:
    frame: np.ndarray
    sightings: list[Sighting]
    sha256: str | None = None


class FrameWitness:
    """The last frames and their sightings; the frames of each event, kept (module's doc)."""

    def __init__(self, zones: Zones, keeper: EvidenceKeeper, remember: int = 6) -> None:
        self.zones, self.keeper = zones, keeper
        self._past: deque[_Seen] = deque(maxlen=max(2, remember))
        self._now: _Seen | None = None

    def frames_of(self, event: dict, frame: np.ndarray,
                  sightings: list[Sighting]) -> list[dict[str, str]]:
        """The `frames` field of an event the current frame settled (frames kept now)."""
        now = self._current(frame, sightings)
        shown: list[tuple[str, _Seen]] = []
        if self._past:
            shown.append(("before", self._past[-1]))
        if event.get("type") == "card_lost":
            last = next((s for s in reversed(self._past)
                         if any(self.zones.zone_of(x.center) == event.get("zone")
                                for x in s.sightings)), None)
            if last is not None and (not self._past or last is not self._past[-1]):
                shown.insert(0, ("last_seen", last))
        shown.append(("settled", now))
        return [{"sha256": self._kept(seen), "role": role} for role, seen in shown]

    def _current(self, frame: np.ndarray, sightings: list[Sighting]) -> _Seen:
        if self._now is None or self._now.frame is not frame:
            self._now = _Seen(frame, sightings)
        return self._now

    def _kept(self, seen: _Seen) -> str:
        if seen.sha256 is None:
            seen.sha256 = self.keeper.keep(jpeg(drawn(seen.frame, seen.sightings, self.zones)))
        return seen.sha256

    def remember(self, frame: np.ndarray, sightings: list[Sighting]) -> None:
        """The frame is done with: it becomes the frame before the next one."""
        self._past.append(self._current(frame, sightings))
        self._now = None
