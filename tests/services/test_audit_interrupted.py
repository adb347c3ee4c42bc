"""`dealer-assist audit` on traces holding the system's `interrupted` events, as an operator
runs it (a real process, a file and standard input): the game the system cut short is
INTERRUPTED with its reason, never MISSING_DRAW; a game that continued is clean; a malformed
`interrupted` stops the audit naming its line. The golden traces, which hold no such event,
keep their outputs byte for byte (test_golden.py)."""

import json
import subprocess
import sys
from pathlib import Path

from tests.tracebuild import BURN3, Trace

NAT = ("9H", "TS", "KD", "2C")


def audit(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dealer_assist.cli", "audit", *args], input=stdin,
                          capture_output=True, text=True, timeout=60, check=False)


def restarted_and_relinked() -> Trace:
    """Shoe R1: game 2 cut short by a restart, then the built-in shoe's next shoe (R2), where the
    link is lost mid-game and comes back with the same shoe's cards; R2 ends while game 2 of it
    still needs a card, with no interruption: the dealer's MISSING_DRAW."""
    t = Trace().new_shoe("R1").burn(*BURN3).game(*NAT).close().cards("2H", "3S")
    t.ev("system", "interrupted", reason="restart")
    t.new_shoe("R2").burn(*BURN3).close().cards("2H")
    t.ev("shoe", "link_status", status="down", reason="no frame and no heartbeat for 3 s")
    t.ev("system", "interrupted", reason="shoe_link_lost")
    t.ev("shoe", "link_status", status="up", reason="frames arriving")
    t.cards("3S", "2D", "4C", "5S").game("2H", "3S", "2D", "4C").end()
    return t


def test_the_json_audit_flags_the_cut_short_game_interrupted(tmp_path: Path) -> None:
    trace = tmp_path / "restarted.jsonl"
    trace.write_text("\n".join(restarted_and_relinked().lines()) + "\n", encoding="utf-8")
    r = audit(str(trace), "--json")
    assert r.returncode == 0 and r.stderr == ""  # nothing ignored
    r1, r2 = json.loads(r.stdout)["shoes"]
    assert [(g["game"], g["flags"]) for g in r1["games"]] == [(1, []), (2, [
        {"code": "INTERRUPTED", "severity": "review",
         "detail": "game 2 was interrupted (restart) and did not continue"}])]
    assert r1["games"][1]["status"] == "incomplete" and r1["games"][1]["review"] == "pending"
    assert r1["status"] == "finished"
    assert [[f["code"] for f in g["flags"]] for g in r2["games"]] == [[], ["MISSING_DRAW"]]
    assert r2["games"][0]["player"] == ["2H", "2D", "5S"] and r2["games"][0]["status"] == "complete"
    from_stdin = audit("-", "--json", stdin=trace.read_text(encoding="utf-8"))
    assert from_stdin.returncode == 0 and from_stdin.stdout == r.stdout


def test_the_readable_audit_shows_it_on_the_games_line() -> None:
    r = audit("-", stdin="\n".join(restarted_and_relinked().lines()))
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stdout.splitlines() if " P " in line and " B " in line]
    assert len(lines) == 4
    assert "incomplete" in lines[1] and "review pending" in lines[1]
    assert lines[1].endswith("flags INTERRUPTED") and "MISSING_DRAW" not in lines[1]
    assert "flags -" in lines[2] and "complete" not in lines[2]
    assert "flags MISSING_DRAW" in lines[3]


def test_a_malformed_interruption_stops_the_audit_naming_its_line() -> None:
    t = Trace().new_shoe().burn(*BURN3).close().cards("2H")
    t.ev("system", "interrupted", reason="power cut")
    r = audit("-", "--json", stdin="\n".join(t.lines()) + "\n")
    assert r.returncode == 2 and r.stdout == ""
    assert "line 7" in r.stderr
    assert "'reason' must be one of restart, shoe_link_lost, shoe_replaced" in r.stderr
