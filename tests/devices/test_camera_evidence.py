"""The camera's evidence frames: each event names the frames that show it (drawn, kept as JPEG
beside the log before the event is appended), and the frames of a flag are marked for
retention; end to end, the built-in shoe's virtual camera with a wrong-box mistake."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from dealer_assist.services.audit import audit_lines
from dealer_assist.store.evidence import FLAGGED, evidence_folder
from dealer_assist.store.verify import verify_chain
from tests.devices.camera_script import ZONES, FlaggedTable, flagged_table
from tests.tableconfig import camera_table


@pytest.fixture(scope="module")
def flagged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FlaggedTable]:
    table = flagged_table(tmp_path_factory.mktemp("flagged"))
    yield table
    table.log.close()


def test_every_camera_event_names_its_frames_kept_beside_the_log(flagged: FlaggedTable) -> None:
    events = flagged.camera_events()
    assert [(e["type"], e.get("card"), e["zone"]) for e in events] == [
        ("card_seen", None, "player1"), ("card_seen", "KD", "player1"),
        ("card_seen", "9H", "banker1"), ("card_lost", "9H", "banker1")]
    assert [[f["role"] for f in e["frames"]] for e in events] == [
        ["before", "settled"], ["before", "settled"], ["before", "settled"],
        ["last_seen", "before", "settled"]]
    folder = evidence_folder(flagged.database)
    assert folder == flagged.database.with_name("T1.events.evidence")
    for event in events:
        for frame in event["frames"]:
            data = (folder / f"{frame['sha256']}.jpg").read_bytes()
            assert hashlib.sha256(data).hexdigest() == frame["sha256"]
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
            assert image.shape == (1080, 1920, 3)
    # the frame that settled one event is the frame before the next one's
    assert events[0]["frames"][1]["sha256"] != events[1]["frames"][1]["sha256"]
    lost = events[3]["frames"]
    assert lost[0]["sha256"] == events[2]["frames"][1]["sha256"]  # 9H last seen there


def test_the_flags_raised_carry_their_frames_in_the_chain(flagged: FlaggedTable) -> None:
    game = flagged.live.machine.shoe.games[0]  # type: ignore[union-attr]
    assert [f.code for f in game.flags] == ["WRONG_POSITION", "DROPPED_OPENED"]
    marked = set((evidence_folder(flagged.database) / FLAGGED).read_text().split())
    events = flagged.camera_events()
    raised = {f["sha256"] for e in events[2:] for f in e["frames"]}
    assert marked == raised  # the frames of the two flagging events, none of the others
    # the frames' hashes are in events the chain covers
    assert verify_chain(flagged.log.raw_records, flagged.log.checkpoints()).ok


def test_the_audit_reads_a_log_with_frames_as_one_without(flagged: FlaggedTable) -> None:
    events = [e for _, e in flagged.log.read()]
    plain = [{k: v for k, v in e.items() if k != "frames"} for e in events]
    assert any("frames" in e for e in events)
    assert audit_lines(map(json.dumps, events)) == audit_lines(map(json.dumps, plain))


def test_the_frames_are_drawn_with_the_quads_and_the_zones(flagged: FlaggedTable) -> None:
    from hardware.camera.virtual import OverheadRenderer
    from hardware.camera.zones import load_zones

    plain = OverheadRenderer(load_zones(ZONES), seed=1).render([], 0)
    settled = flagged.camera_events()[2]["frames"][-1]["sha256"]
    data = (evidence_folder(flagged.database) / f"{settled}.jpg").read_bytes()
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    # the zones' white outlines and the green quad of a face-up card are drawn over the felt
    white = (image > 235).all(axis=2).sum() - (plain > 235).all(axis=2).sum()
    green = ((image[:, :, 1] > 170) & (image[:, :, 0] < 110) & (image[:, :, 2] < 110)).sum()
    assert white > 2000 and green > 500


def test_without_a_keeper_the_events_are_as_before(tmp_path: Path) -> None:
    table = flagged_table(tmp_path, evidence=False)
    table.log.close()
    assert [sorted(e) for e in table.camera_events()][:1] == [
        ["face", "src", "ts", "type", "zone"]]
    assert not any("frames" in e for e in table.camera_events())
    assert not evidence_folder(table.database).exists()


@pytest.mark.slow
def test_a_service_run_keeps_the_frames_of_a_wrong_box_flag(tmp_path: Path) -> None:
    """End to end: `open_table` with the built-in shoe and its virtual camera, the real
    recognizer: the WRONG_POSITION events name their frames, which lie beside the log."""
    from dealer_assist.bootstrap import open_table
    from dealer_assist.config import load_table_config

    path = camera_table(tmp_path, "virtual", None, ZONES, "T8")
    path.write_text(path.read_text() + "evidence_days = 30\nevidence_max_mb = 500\n")
    config = load_table_config(path)
    assert (config.camera.evidence_days, config.camera.evidence_max_mb) == (30, 500)
    config = replace(config, shoe=replace(config.shoe, emulator_speed=2.0, emulator_seed=3,
                                          emulator_mistakes=("wrong_box:1",)),
                     camera=replace(config.camera, confirm_frames=2, lose_frames=3))
    table = open_table(config)
    try:
        deadline = time.monotonic() + 90
        while not any(f.code == "WRONG_POSITION" for g in (table.live.machine.shoe.games
                      if table.live.machine.shoe else []) for f in g.flags):
            assert time.monotonic() < deadline, table.live.links
            time.sleep(0.1)
        events = [e for _, e in table.log.read() if e["type"] == "card_seen"]
    finally:
        table.close()
    folder = evidence_folder(config.database)
    wrong = [e for e in events if e.get("card") and e["zone"] in ("player2", "banker2")]
    assert wrong and all(e["frames"] for e in events)
    for event in wrong:
        for frame in event["frames"]:
            data = (folder / f"{frame['sha256']}.jpg").read_bytes()
            assert hashlib.sha256(data).hexdigest() == frame["sha256"]
    marked = set((folder / FLAGGED).read_text().split())
    assert marked & {f["sha256"] for e in wrong for f in e["frames"]}
