"""End to end: `shoe emulate` deals a whole shoe over a pty, `shoe listen` reads it, the audit
reads what was heard. Every game must come out unflagged with the cards the emulator dealt, and
each injected dealer mistake must raise its flag on the right game. And the shoe's link lost
mid-game on a pty: a new shoe after it makes the game INTERRUPTED (shoe_link_lost); the same
shoe dealing on after it raises nothing."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.config import ShoeConfig, load_paytables
from dealer_assist.devices.deal.dealing import deal_shoe_detailed
from dealer_assist.devices.deal.mistakes import MISTAKES, Mistake
from dealer_assist.devices.shoe import ShoeFeed
from dealer_assist.domain.house import HouseRules
from dealer_assist.services.audit import audit_lines
from dealer_assist.services.live_table import LiveTable
from dealer_assist.store.sqlite_log import SqliteEventLog
from hardware.shoe.adapters.reference import message_for
from hardware.shoe.protocol import encode
from hardware.shoe.transport import PtyTransport
from tests.tracebuild import BURN3, Trace

NAT = ("9H", "TS", "KD", "2C")

CLI = [sys.executable, "-m", "dealer_assist.cli"]
ROOT = Path(__file__).resolve().parents[2]


def house_args(house: HouseRules) -> list[str]:
    args = ["--decks", str(house.decks), "--variant", house.variant]
    return args + (["--burn-after-each-game"] if house.burn_after_each_game else [])


def emulate_and_listen(tmp_path: Path, house: HouseRules, *extra: str,
                       seed: int = 11) -> tuple[list[dict], list[dict], str]:
    """Run the emulator and the listener as a user would; return (dealt, heard, emulator log)."""
    link = tmp_path / "shoe"
    dealt_path = tmp_path / "dealt.jsonl"
    emulator = subprocess.Popen(
        [*CLI, "shoe", "emulate", "--fast", "--seed", str(seed), "--link", str(link),
         "--shoe-id", "E1", "--record-trace", str(dealt_path), "--linger", "60",
         *house_args(house), *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        pty_path = emulator.stdout.readline().strip()  # type: ignore[union-attr]
        assert pty_path.startswith("/dev/"), emulator.stderr.read()  # type: ignore[union-attr]
        assert os.path.realpath(link) == pty_path
        listen = subprocess.run(
            [*CLI, "shoe", "listen", str(link), "--exit-on-end-shoe", "--max-seconds", "60",
             "--shoe-id", "E1", *house_args(house)],
            cwd=ROOT, capture_output=True, text=True, timeout=90, check=False)
        assert listen.returncode == 0, listen.stderr
    finally:
        emulator.send_signal(signal.SIGINT)
        try:
            _, log = emulator.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            emulator.kill()
            _, log = emulator.communicate()
    dealt = [json.loads(line) for line in dealt_path.read_text().splitlines()]
    heard = [json.loads(line) for line in listen.stdout.splitlines()]
    return dealt, heard, log


def game_cards(dealt: list[dict]) -> list[tuple[list[str], list[str]]]:
    """The emulator's games, read from what it dealt by the audit of a trusted trace."""
    shoe = audit_lines(json.dumps(e) for e in dealt)["shoes"][0]
    return [(g["player"], g["banker"]) for g in shoe["games"]]


def flags(shoe: dict[str, Any]) -> list[tuple[str, int | None]]:
    out: list[tuple[str, int | None]] = [(f["code"], None) for f in shoe["flags"]]
    out += [(f["code"], g["game"]) for g in shoe["games"] for f in g["flags"]]
    return sorted(out, key=str)


@pytest.mark.parametrize("house", [
    HouseRules(),
    HouseRules(decks=6, variant="7up", burn_after_each_game=True),
], ids=["8-deck-standard", "6-deck-7up-burn"])
def test_a_whole_shoe_over_a_pty_audits_clean(tmp_path: Path, house: HouseRules) -> None:
    dealt, heard, log = emulate_and_listen(tmp_path, house, "--reveal")
    tally = json.loads(log.rsplit("done: ", 1)[1])
    assert tally["sent"] == len(dealt) and tally["lost"] == tally["corrupted"] == 0
    # The listener heard every frame, in order, with the shoe's settings on new_shoe.
    shoe_events = [e for e in heard if e["type"] != "link_status"]
    assert [(e["type"], e.get("card")) for e in shoe_events] == \
        [(e["type"], e.get("card")) for e in dealt]
    assert shoe_events[0] | {"ts": "", "seq": 0} == dealt[0] | {"ts": "", "seq": 0}
    # Through the audit command, as an operator would run it.
    trace = "".join(json.dumps(e) + "\n" for e in heard)
    audit = subprocess.run([*CLI, "audit", "-", "--json"], input=trace, cwd=ROOT,
                           capture_output=True, text=True, timeout=60, check=False)
    assert audit.returncode == 0, audit.stderr
    [shoe] = json.loads(audit.stdout)["shoes"]
    games = shoe["games"]
    assert shoe["status"] == "finished" and shoe["shoe_id"] == "E1"
    assert [(g["player"], g["banker"]) for g in games] == game_cards(dealt)
    assert len(games) > 20
    assert flags(shoe) == [("LAST_GAME", len(games))]  # the blue card's info, nothing else
    assert all(g["status"] == "complete" and g["review"] == "none" for g in games)


def test_dealer_mistakes_over_a_pty_raise_their_flags(tmp_path: Path) -> None:
    house = HouseRules()
    seed = 5
    mistakes = ["cards_pulled_together:3", "unneeded_draw:8", "missed_draw", "deal_after_last_game"]
    expected = deal_shoe_detailed(random.Random(seed), house, "E1", mistakes)
    dealt, heard, _ = emulate_and_listen(tmp_path, house, *(f"--mistake={m}" for m in mistakes),
                                         seed=seed)
    assert [e.get("card") for e in dealt] == [e.get("card") for e in expected.events]
    [shoe] = audit_lines(json.dumps(e) for e in heard)["shoes"]
    [last] = [g.game for g in expected.games if g.last]
    assert last == len(expected.games) - 1  # the game dealt after it is the extra one
    assert flags(shoe) == sorted([*expected.expected_flags, ("LAST_GAME", last)], key=str)
    assert {code for code, _ in expected.expected_flags} == {
        "MULTI_PULL", "UNNEEDED_DRAW", "MISSING_DRAW", "DEAL_AFTER_LAST_GAME"}


def test_a_short_burn_over_a_pty_voids_the_shoe(tmp_path: Path) -> None:
    _, heard, _ = emulate_and_listen(tmp_path, HouseRules(), "--mistake", "short_burn", seed=6)
    [shoe] = audit_lines(json.dumps(e) for e in heard)["shoes"]
    assert [f["code"] for f in shoe["flags"]] == ["BURN_SHORT"]
    assert shoe["status"] == "void"


def test_line_noise_and_retransmissions_lose_nothing(tmp_path: Path) -> None:
    dealt, heard, log = emulate_and_listen(tmp_path, HouseRules(), "--noise", "0.2",
                                           "--retransmit", "0.1", "--bad-checksum", "0", seed=3)
    tally = json.loads(log.rsplit("done: ", 1)[1])
    assert tally["noise_bytes"] > 0 and tally["retransmitted"] > 0
    [shoe] = audit_lines(json.dumps(e) for e in heard)["shoes"]
    assert [(g["player"], g["banker"]) for g in shoe["games"]] == game_cards(dealt)
    assert flags(shoe) == [("LAST_GAME", len(shoe["games"]))]


def test_lost_frames_become_data_gaps_for_review(tmp_path: Path) -> None:
    _, heard, log = emulate_and_listen(tmp_path, HouseRules(), "--lose", "0.01", seed=4)
    tally = json.loads(log.rsplit("done: ", 1)[1])
    gaps = [e for e in heard if e["type"] == "gap"]
    assert tally["lost"] >= 2 and gaps
    assert sum(g["missing"] for g in gaps) == len(tally["missing_seqs"])
    [shoe] = audit_lines(json.dumps(e) for e in heard)["shoes"]
    gapped = [g for g in shoe["games"] if any(f["code"] == "DATA_GAP" for f in g["flags"])]
    assert gapped and all(g["review"] == "pending" for g in gapped)


@pytest.mark.parametrize("kind", MISTAKES)
@pytest.mark.parametrize("house", [HouseRules(), HouseRules(variant="7up", burn_after_each_game=True),
                                   HouseRules(decks=1, variant="super6")],
                         ids=["standard", "7up-burn", "1-deck-super6"])
def test_each_mistake_flags_the_right_game_in_the_audit(kind: str, house: HouseRules) -> None:
    """Without the link: the dealt trace straight into the audit, over many shoes."""
    for seed in range(8):
        shoe = deal_shoe_detailed(random.Random(seed), house, "M1", [Mistake(kind)])
        [audited] = audit_lines(json.dumps(e) for e in shoe.events)["shoes"]
        last = [g.game for g in shoe.games if g.last]
        assert flags(audited) == sorted(
            [*shoe.expected_flags, *(("LAST_GAME", g) for g in last)], key=str), seed
    assert shoe.expected_flags


def test_clean_shoes_audit_clean_with_the_same_cards() -> None:
    start = time.perf_counter()
    for seed in range(40):
        house = HouseRules(decks=(8, 6, 1)[seed % 3], variant=("standard", "super6", "7up")[seed % 3],
                           burn_after_each_game=seed % 2 == 1)
        shoe = deal_shoe_detailed(random.Random(seed), house, f"C{seed}", reveal=seed % 4 == 0)
        [audited] = audit_lines(json.dumps(e) for e in shoe.events)["shoes"]
        assert [(g["player"], g["banker"]) for g in audited["games"]] == \
            [(g.player, g.banker) for g in shoe.games]
        assert flags(audited) == [("LAST_GAME", len(shoe.games))]
        assert audited["burn"] == {"cards": shoe.burn, "required": shoe.burn_required}
    assert time.perf_counter() - start < 60


def test_a_trace_file_is_played_as_dealt(tmp_path: Path) -> None:
    house = HouseRules(variant="super6", burn_after_each_game=True)
    shoe = deal_shoe_detailed(random.Random(21), house, "E1", ["unneeded_draw:4"])
    trace = tmp_path / "given.jsonl"
    trace.write_text("".join(json.dumps(e) + "\n" for e in shoe.events))
    _, heard, _ = emulate_and_listen(tmp_path, house, "--trace", str(trace))
    assert [(e["type"], e.get("card")) for e in heard if e["type"] != "link_status"] == \
        [(e["type"], e.get("card")) for e in shoe.events]
    [audited] = audit_lines(json.dumps(e) for e in heard)["shoes"]
    assert flags(audited) == sorted([("UNNEEDED_DRAW", 4), ("LAST_GAME", len(shoe.games))], key=str)


# ---- the shoe's link lost mid-game, on a real pseudo-terminal --------------------------------

class PtyShoe:
    """A shoe the test plays by hand: reference frames, in sequence, on a pseudo-terminal kept
    behind a symlink (a cable pulled and plugged again gives a fresh pty at the same name)."""

    def __init__(self, link: Path) -> None:
        self.transport = PtyTransport(link)
        self.transport.open()
        self.seq = 0

    def plug(self) -> None:
        """A fresh pty at the link's name (the cable plugged in again)."""
        self.transport.open()

    def send(self, trace: Trace) -> None:
        assert self.transport.wait_reader(threading.Event(), timeout=20), "the link never read"
        self._frames(trace)

    def _frames(self, trace: Trace) -> None:
        for event in trace.events:
            message = message_for(event, self.seq)
            assert message is not None, event
            assert self.transport.send(encode(message)), "the link is not reading"
            self.seq += 1


def wait_until(what: Any, why: str, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not what():
        assert time.monotonic() < deadline, why
        time.sleep(0.02)


def linked_table(tmp_path: Path) -> tuple[LiveTable, SqliteEventLog, PtyShoe, ShoeFeed]:
    """A live table on its SQLite log, its shoe link reading the test's pty (0.5 s heartbeat)."""
    shoe = PtyShoe(tmp_path / "shoe")
    log = SqliteEventLog(tmp_path / "T1.db")
    live = LiveTable(log, table_id="T1", house=HouseRules(), paytables=load_paytables())
    feed = ShoeFeed(ShoeConfig(url=str(tmp_path / "shoe"), heartbeat_timeout=0.5),
                    str(tmp_path / "shoe"), live).start()
    return live, log, shoe, feed


def types_logged(log: SqliteEventLog) -> list[str]:
    return [e["type"] for _, e in log.read()]


def deal_game_one_to_two_cards(live: LiveTable, shoe: PtyShoe) -> None:
    shoe.send(Trace().new_shoe().burn(*BURN3).close().cards("2H", "3S"))
    wait_until(lambda: live.machine.shoe is not None and live.machine.shoe.current is not None
               and len(live.machine.shoe.current.cards) == 2, "game 1 was not dealt")


def test_a_link_lost_mid_game_then_a_new_shoe_is_interrupted(tmp_path: Path) -> None:
    live, log, shoe, feed = linked_table(tmp_path)
    try:
        deal_game_one_to_two_cards(live, shoe)
        first = live.machine.shoe.shoe_id  # type: ignore[union-attr]
        shoe.transport.drop()  # the cable is pulled
        wait_until(lambda: "interrupted" in types_logged(log), "no interruption was logged")
        shoe.plug()  # plugged again: a new shoe is loaded
        shoe.send(Trace().new_shoe().burn(*BURN3).game(*NAT))
        wait_until(lambda: len(live.machine.shoes) == 2 and live.machine.shoe.current is not None
                   and live.machine.shoe.current.complete, "the new shoe's game was not dealt")
    finally:
        feed.stop()
        shoe.transport.close()
    [(_, interrupted)] = [(s, e) for s, e in log.read() if e["type"] == "interrupted"]
    assert (interrupted["src"], interrupted["reason"]) == ("system", "shoe_link_lost")
    [queued] = live.review_queue()
    assert (queued["shoe_id"], queued["game"]) == (first, 1)
    assert [(f["code"], f["detail"]) for f in queued["flags"]] == [
        ("INTERRUPTED", "game 1 was interrupted (shoe_link_lost) and did not continue")]
    events = [e for _, e in log.read()]
    down = [e["type"] for e in events].index("interrupted") - 1
    assert (events[down]["type"], events[down]["status"]) == ("link_status", "down")
    log.close()


def test_a_link_that_resumes_with_the_same_shoe_raises_nothing(tmp_path: Path) -> None:
    live, log, shoe, feed = linked_table(tmp_path)
    try:
        deal_game_one_to_two_cards(live, shoe)
        # the shoe falls silent (no frame, no heartbeat) past the link's 0.5 s
        wait_until(lambda: "interrupted" in types_logged(log), "no interruption was logged")
        assert live.links["shoe"]["status"] == "down"
        shoe.send(Trace().cards("2D", "4C", "5S").game(*NAT).end())  # the same shoe deals on
        wait_until(lambda: live.machine.shoe.ended, "the shoe did not end")  # type: ignore[union-attr]
    finally:
        feed.stop()
        shoe.transport.close()
    assert live.links["shoe"]["status"] == "up"
    [s] = live.shoe_reports()
    assert [(g["player"], g["flags"]) for g in s["games"]] == [
        (["2H", "2D", "5S"], []), (["9H", "KD"], [])]
    assert live.review_queue() == []
    assert [e.get("reason") for _, e in log.read() if e["type"] == "interrupted"] == [
        "shoe_link_lost"]
    log.close()
