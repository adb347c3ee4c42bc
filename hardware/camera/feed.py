"""The live camera feed: sightings per frame in, stable `card_seen` / `card_lost` events out.

Theory of operation. Each card on the layout is a *track*: sightings in the same zone near
where the track was last seen extend it. A track's state (face up as a code, or face down)
counts only once the same state has been read in `confirm_frames` frames running; only then
is `card_seen` emitted, and again whenever a new state is confirmed (a card turned face up).
An "unsure" reading keeps a track alive but neither confirms nor breaks a state. A track
unseen for `lose_frames` frames running is gone: `card_lost` if it had been reported, with
`opened` telling whether it was ever confirmed face up. A card glimpsed for fewer frames
than that (flicker, a reflection, a card sliding through) produces no event at all.

Events are dicts in the trace format (`src` "camera"); a face-down `card_seen` has no `card`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from hardware.camera.recognize import Sighting
from hardware.camera.zones import Zones
from hardware.clock import utc_stamp

State = tuple[str, str | None]  # ("up", code) or ("down", None)


@dataclass(eq=False)  # tracks are told apart by identity (they hold arrays)
class _Track:
    zone: str
    center: np.ndarray
    size: float
    missing: int = 0
    reported: State | None = None
    candidate: State | None = None
    streak: int = 0
    opened: bool = False
    card: str | None = None


@dataclass
class CameraFeed:
    """Debounces per-frame sightings into trace events (see the module's docstring)."""

    zones: Zones
    confirm_frames: int = 3
    lose_frames: int = 5
    _tracks: list[_Track] = field(default_factory=list)

    def update(self, sightings: Iterable[Sighting], ts: str | None = None) -> list[dict]:
        """Take one frame's sightings; returns the events this frame settles (often none)."""
        stamp = ts or utc_stamp()
        events: list[dict] = []
        unmatched = list(self._tracks)
        for sighting in sightings:
            zone = self.zones.zone_of(sighting.center)
            if zone is None:
                continue
            track = self._match(sighting, zone, unmatched)
            if track is None:
                corners = np.array(sighting.quad)
                size = float(np.linalg.norm(corners[3] - corners[0]))
                track = _Track(zone, np.array(sighting.center), size)
                self._tracks.append(track)
            else:
                unmatched.remove(track)
                track.center = np.array(sighting.center)
                track.missing = 0
            self._observe(track, sighting, stamp, events)
        for track in unmatched:
            track.missing += 1
            track.streak = 0
            if track.missing >= self.lose_frames:
                self._tracks.remove(track)
                if track.reported is not None:
                    event: dict[str, object] = {
                        "ts": stamp, "src": "camera", "type": "card_lost", "zone": track.zone,
                    }
                    if track.card:
                        event["card"] = track.card
                    event["opened"] = track.opened
                    events.append(event)
        return events

    def _match(self, sighting: Sighting, zone: str, pool: list[_Track]) -> _Track | None:
        best, best_distance = None, float("inf")
        for track in pool:
            if track.zone != zone:
                continue
            distance = float(np.linalg.norm(track.center - np.array(sighting.center)))
            if distance < 0.5 * track.size and distance < best_distance:
                best, best_distance = track, distance
        return best

    def _observe(self, track: _Track, sighting: Sighting, stamp: str, events: list[dict]) -> None:
        if sighting.face == "unsure":
            return
        state: State = ("up", sighting.card) if sighting.face == "up" else ("down", None)
        if state == track.candidate:
            track.streak += 1
        else:
            track.candidate, track.streak = state, 1
        if track.streak < self.confirm_frames or state == track.reported:
            return
        track.reported = state
        event: dict[str, object] = {"ts": stamp, "src": "camera", "type": "card_seen"}
        if state[0] == "up":
            track.opened, track.card = True, state[1]
            event["card"] = state[1]
        event.update({"zone": track.zone, "face": state[0]})
        events.append(event)


def run_feed(
    frames: Iterable[np.ndarray],
    recognize: Callable[[np.ndarray], list[Sighting]],
    feed: CameraFeed,
    clock: Callable[[], str] = utc_stamp,
) -> Iterator[dict]:
    """Frames in, trace events out, one frame at a time (at the camera's frame rate)."""
    for frame in frames:
        yield from feed.update(recognize(frame), clock())
