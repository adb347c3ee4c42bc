"""`dealer-assist log DB`: a table's log read from the command line, on a real SQLite log.

The log holds the golden standard trace (6 games, 2 decisions), its bets_closed naming the
dealers D-1 (games 1-3) and D-2 (games 4-6), as the table service writes them.
"""

from __future__ import annotations

import json
import re
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.cli import main
from dealer_assist.store.sqlite_log import SqliteEventLog

GOLDEN = Path(__file__).resolve().parent / "fixtures" / "golden" / "standard.jsonl"


def trace() -> list[dict[str, Any]]:
    events = [json.loads(line) for line in GOLDEN.read_text().splitlines() if line.strip()]
    closed = 0
    for event in events:
        if event["type"] == "bets_closed":
            closed += 1
            event["dealer"] = "D-1" if closed <= 3 else "D-2"
    return events


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "T1.events.db"
    log = SqliteEventLog(path)
    log.append_many(trace())
    log.close()
    return path


def log(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    """`dealer-assist log ...` in this process: (exit status, lines printed, standard error)."""
    try:
        status = main(["log", *args])
    except SystemExit as exit_:  # argparse's own refusals
        status = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


def seq_of(line: str) -> int:
    return int(line.split()[0])


def test_every_event_one_line_with_its_seq_time_shoe_game_type_and_fields(db, capsys):
    status, lines, _ = log(capsys, str(db))
    events = trace()
    assert status == 0 and len(lines) == len(events)
    first_card = lines[1].split()
    assert first_card[:8] == ["2", events[1]["ts"], "shoe", "STD-1", "game", "0", "shoe", "card"]
    assert first_card[8] == f"card={events[1]['card']}"
    decision = next(line for line in lines if " decision " in line)
    assert 'reason="checked on video"' in decision and "by=S-104" in decision


def test_game_filter_takes_the_events_from_its_bets_closed_to_the_next_and_its_decisions(
        db, capsys):
    events = trace()
    closed = [seq for seq, e in enumerate(events, 1) if e["type"] == "bets_closed"]
    decided = [seq for seq, e in enumerate(events, 1)
               if e["type"] == "decision" and e["game"] == 3]
    status, lines, _ = log(capsys, str(db), "--shoe", "STD-1", "--game", "3")
    assert status == 0 and decided
    assert [seq_of(line) for line in lines] == [*range(closed[2], closed[3]), *decided]
    status, burn, _ = log(capsys, str(db), "--game", "0")
    assert [seq_of(line) for line in burn] == list(range(1, closed[0]))


def test_types_repeated_or_in_a_comma_list(db, capsys):
    events = trace()
    wanted = [seq for seq, e in enumerate(events, 1) if e["type"] in ("new_shoe", "decision",
                                                                      "bets_closed")]
    _, lines, _ = log(capsys, str(db), "--type", "new_shoe,decision", "--type", "bets_closed")
    assert [seq_of(line) for line in lines] == wanted


def test_time_filters_take_since_and_leave_until(db, capsys):
    events = trace()
    since, until = events[10]["ts"], events[20]["ts"]
    _, lines, _ = log(capsys, str(db), "--since", since, "--until", until)
    assert [seq_of(line) for line in lines] == list(range(11, 21))
    # the same instants in another zone's clock, and a day alone (midnight UTC)
    _, shifted, _ = log(capsys, str(db), "--since", since.replace("T10:", "T17:").replace(
        "Z", "+07:00"), "--until", until.replace("Z", ""))
    assert shifted == lines
    _, none, err = log(capsys, str(db), "--since", "2026-11-30")
    assert none == [] and "no event in" in err and "matches" in err


def test_json_lines_are_the_events_as_stored_with_their_seq(db, capsys):
    status, lines, _ = log(capsys, str(db), "--json", "--last", "3")
    events = trace()
    assert status == 0
    assert [json.loads(line) for line in lines] == [
        {"seq": seq, **events[seq - 1]} for seq in range(len(events) - 2, len(events) + 1)]


def test_games_one_line_each_with_result_flags_and_dealer(db, capsys):
    status, lines, _ = log(capsys, str(db), "--games")
    assert status == 0 and len(lines) == 6
    assert [line.split()[4] for line in lines] == ["1", "2", "3", "4", "5", "6"]
    assert [line.rsplit(" ", 1)[1] for line in lines] == ["D-1"] * 3 + ["D-2"] * 3
    assert "UNNEEDED_DRAW" in lines[2] and "BANKER" in lines[2] and "resolved" in lines[2]
    assert "TIE" in lines[5] and "LAST_GAME" in lines[5]
    status, chosen, _ = log(capsys, str(db), "--games", "--json", "--game", "4")
    game = json.loads(chosen[0])
    assert len(chosen) == 1 and game["dealer"] == "D-2" and game["shoe_id"] == "STD-1"
    closed = [e for e in trace() if e["type"] == "bets_closed"]
    assert game["started"] == closed[3]["ts"] and game["winner"] == "player"
    assert [f["code"] for f in game["flags"]] == ["MISSING_DRAW"]


def test_decisions_say_who_when_what_and_why(db, capsys):
    status, lines, _ = log(capsys, str(db), "--decisions")
    decisions = [e for e in trace() if e["type"] == "decision"]
    assert status == 0 and len(lines) == len(decisions) == 2
    for line, decision in zip(lines, decisions, strict=True):
        assert decision["ts"] in line and re.search(rf"game +{decision['game']} ", line)
        assert f"{decision['action']} " in line and f"by {decision['by']}: " in line
        assert decision["reason"] in line
    assert "player 2H 2D 5S" in lines[1] and "banker 3D 4C" in lines[1]  # the correction
    _, as_json, _ = log(capsys, str(db), "--decisions", "--json", "--game", "4")
    assert [json.loads(line)["action"] for line in as_json] == ["correct"]


@pytest.mark.parametrize("args, said", [
    (["--game", "x"], "'x' is not a game number"),
    (["--game", "-2"], "game numbers start at 1"),
    (["--type", "teleport"], "--type teleport: not an event type; known: bets_closed"),
    (["--since", "yesterday"], "'yesterday' is not an ISO 8601 date or time"),
    (["--since", "2026-11-30", "--until", "2026-11-29"], "--since must come before --until"),
    (["--games", "--type", "card"], "--type chooses events"),
    (["--games", "--decisions"], "not allowed with argument"),
    (["--last", "0"], "give a number of lines, 1 or more"),
])
def test_a_bad_filter_is_a_clear_message_and_status_2(db, capsys, args, said):
    status, lines, err = log(capsys, str(db), *args)
    assert status == 2 and lines == [] and said in err and "Traceback" not in err


def files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    jsonl = tmp_path / "trace.jsonl"
    jsonl.write_text(GOLDEN.read_text())
    other = tmp_path / "users.db"
    sqlite3.connect(other).execute("CREATE TABLE users (name TEXT)").connection.commit()
    return {"missing": (tmp_path / "nope.db", "no such file"),
            "folder": (tmp_path, "is a folder, not a table's log"),
            "a trace": (jsonl, "not a table's event log"),
            "another SQLite file": (other, "not a table's event log")}


@pytest.mark.parametrize("which", ["missing", "folder", "a trace", "another SQLite file"])
def test_not_a_table_log_is_a_clear_message_and_status_2(tmp_path, which):
    path, said = files(tmp_path)[which]
    done = subprocess.run([sys.executable, "-m", "dealer_assist.cli", "log", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"dealer-assist log: {path}: {said}" + done.stderr.split(said, 1)[1]
    assert "Traceback" not in done.stderr


def test_it_reads_the_log_while_the_table_service_writes_it(tmp_path):
    events = trace()
    path = tmp_path / "T1.events.db"
    writer = SqliteEventLog(path)  # the one writer holds the log open (and its lock)
    try:
        writer.append_many(events[:20])
        command = [sys.executable, "-m", "dealer_assist.cli", "log", str(path), "--json"]
        first = subprocess.run(command, capture_output=True, text=True, timeout=60)
        writer.append_many(events[20:])
        second = subprocess.run([*command, "--since", events[20]["ts"]], capture_output=True,
                                text=True, timeout=60)
        writer.append(events[0])  # and the writer goes on
    finally:
        writer.close()
    assert first.returncode == 0 == second.returncode, first.stderr + second.stderr
    assert [json.loads(line)["seq"] for line in first.stdout.splitlines()] == list(range(1, 21))
    assert [json.loads(line)["seq"] for line in second.stdout.splitlines()] == list(
        range(21, len(events) + 1))


def test_help_names_every_filter_and_the_two_views(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["log", "--help"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0
    for option in ("--shoe", "--game", "--type", "--since", "--until", "--games",
                   "--decisions", "--json", "--last", "read-only"):
        assert option in out


def test_follow_prints_the_new_events_as_the_table_logs_them_until_ctrl_c(tmp_path):
    events = trace()
    path = tmp_path / "T1.events.db"
    writer = SqliteEventLog(path)
    follow = None
    try:
        writer.append_many(events[:10])
        follow = subprocess.Popen(
            [sys.executable, "-m", "dealer_assist.cli", "log", str(path), "--follow", "--last",
             "2", "--type", "card,decision", "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert follow.stdout is not None
        killer = threading.Timer(60, follow.kill)  # a hung reading fails, never hangs the run
        killer.start()
        first = [json.loads(follow.stdout.readline())["seq"] for _ in range(2)]
        writer.append_many(events[10:])
        wanted = [seq for seq, e in enumerate(events, 1)
                  if seq > 10 and e["type"] in ("card", "decision")]
        later = [json.loads(follow.stdout.readline())["seq"] for _ in wanted]
        follow.send_signal(signal.SIGINT)
        rest, err = follow.communicate(timeout=30)
        killer.cancel()
    finally:
        writer.close()
        if follow is not None and follow.poll() is None:
            follow.kill()
            follow.wait()
    cards = [seq for seq, e in enumerate(events[:10], 1) if e["type"] == "card"]
    assert first == cards[-2:] and later == wanted
    assert follow.returncode == 0 and rest == "" and "Traceback" not in err


def test_follow_is_for_events_not_games(db, capsys):
    status, lines, err = log(capsys, str(db), "--games", "--follow")
    assert status == 2 and lines == [] and "--follow prints events or decisions" in err
