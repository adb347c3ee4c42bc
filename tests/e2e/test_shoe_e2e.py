"""End to end: `shoe emulate` deals a whole shoe over a pty, `shoe listen` reads it, the audit
reads what was heard. Every game must come out unflagged with the cards the emulator dealt, and
each injected dealer mistake must raise its flag on the right game."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.domain.house import HouseRules
from dealer_assist.services.audit import audit_lines
from dealer_assist.services.shoe_deal import MISTAKES, Mistake, deal_shoe_detailed

pytestmark = pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs pseudo-terminals (POSIX)")

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
