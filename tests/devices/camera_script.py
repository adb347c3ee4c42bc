"""A table whose camera raised a flag, with its evidence frames: the shared set-up of the
evidence tests (devices, web, export).

Game 1 of shoe S1 deals KD TS 9H (Player KD 9H, Banker TS). The camera's frames are drawn
by the virtual camera's renderer (the project's own card art) and go through the real
`CameraWatch` into a `LiveTable` on a real SQLite log, with the evidence folder beside it:
KD face down in player1, then face up; 9H face up in banker1 (WRONG_POSITION: it belongs at
P2); then 9H is taken away (DROPPED_OPENED). The recognizer is a stand-in that reports what
the renderer drew (test-only: the plumbing apart from the networks, whose own tests are
hardware/camera's and the slow service test).
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from dealer_assist.config import CameraConfig, load_paytables
from dealer_assist.devices.camera import CameraWatch
from dealer_assist.domain.house import HouseRules
from dealer_assist.services.live_table import LiveTable
from dealer_assist.store.evidence import EvidenceFolder, evidence_folder
from dealer_assist.store.sqlite_log import SqliteEventLog
from hardware.camera.recognize import Sighting
from hardware.camera.virtual import Lying, OverheadRenderer
from hardware.camera.zones import load_zones
from tests.tracebuild import BURN3, Trace

REPO = Path(__file__).resolve().parents[2]
ZONES = REPO / "config" / "camera_zones.toml"
KD_DOWN, KD_UP = Lying("player1", "KD", False, 1), Lying("player1", "KD", True, 1)
NINE_WRONG = Lying("banker1", "9H", True, 2)
SCRIPT = [[KD_DOWN]] * 2 + [[KD_UP]] * 2 + [[KD_UP, NINE_WRONG]] * 2 + [[KD_UP]] * 2


class DrawnTruth:
    """TEST-ONLY recognizer: what the renderer drew in the frame handed over last."""

    def __init__(self, renderer: OverheadRenderer) -> None:
        self.renderer = renderer
        self.shown: list[Lying] = []

    def load(self) -> DrawnTruth:
        return self

    def __call__(self, frame: np.ndarray) -> list[Sighting]:
        out = []
        for card in self.shown:
            centre, _ = self.renderer.placement(card)
            up = card.face_up and card.code is not None
            out.append(Sighting(card.code if up else None, "up" if up else "down", centre,
                                self.renderer.quad(card), 1.0))
        return out


@dataclass
class FlaggedTable:
    database: Path
    log: SqliteEventLog
    live: LiveTable
    folder: EvidenceFolder
    watch: CameraWatch

    def camera_events(self) -> list[dict]:
        return [e for _, e in self.log.read() if e["type"] in ("card_seen", "card_lost")]


def frames(renderer: OverheadRenderer, truth: DrawnTruth) -> Iterator[np.ndarray]:
    for n, layout in enumerate(SCRIPT):
        truth.shown = layout
        yield renderer.render(layout, n)


def flagged_table(folder: Path, evidence: bool = True) -> FlaggedTable:
    """The table of the module's doc, its camera's frames taken; close `log` when done
    (`evidence=False`: the camera keeps no frames)."""
    database = folder / "T1.events.db"
    log = SqliteEventLog(database, table_id="T1")
    live = LiveTable(log, table_id="T1", house=HouseRules(), paytables=load_paytables())
    for event in Trace().new_shoe().burn(*BURN3).close().cards("KD", "TS", "9H").events:
        live.observe(event)
    kept = EvidenceFolder(evidence_folder(database))
    renderer = OverheadRenderer(load_zones(ZONES), seed=1)
    truth = DrawnTruth(renderer)
    config = CameraConfig(True, "virtual", None, ZONES, confirm_frames=2, lose_frames=2)
    watch = CameraWatch(config, live, source=[], recognizer=truth,  # type: ignore[arg-type]
                        evidence=kept.open() if evidence else None)
    for frame in frames(renderer, truth):
        watch.take(frame)
    return FlaggedTable(database, log, live, kept, watch)


def copied(master: FlaggedTable, folder: Path) -> FlaggedTable:
    """A copy of `master`'s log and frames in `folder`, its table rebuilt from the log (a test
    may change the copy); the camera's watch is `master`'s."""
    folder.mkdir(parents=True, exist_ok=True)
    database = folder / master.database.name
    with closing(sqlite3.connect(master.database)) as src, \
            closing(sqlite3.connect(database)) as dst:
        src.backup(dst)  # the master is open: its newest pages may be in its WAL yet
    shutil.copytree(master.folder.path, evidence_folder(database))
    log = SqliteEventLog(database, table_id="T1")
    live = LiveTable(log, table_id="T1", house=HouseRules(), paytables=load_paytables())
    return FlaggedTable(database, log, live, EvidenceFolder(evidence_folder(database)),
                        master.watch)


def flagged_master(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FlaggedTable]:
    """A module's flagged table (a fixture: `pytest.fixture(scope="module")(flagged_master)`),
    which its tests `copied` before changing it."""
    table = flagged_table(tmp_path_factory.mktemp("flagged"))
    yield table
    table.log.close()
