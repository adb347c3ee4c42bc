"""`dealer-assist verify-log`: changes made behind the application's back are caught.

The outside tool is Python's sqlite3 module (and the sqlite3 command-line tool where it is
installed): it drops the append-only triggers, then edits, deletes, inserts or reorders rows.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from dealer_assist.cli import main
from dealer_assist.store.sqlite_log import TRIGGERS, SqliteEventLog
from tests.logtamper import outside, rechain_from, rehash, row

EVENTS = 10


@pytest.fixture
def db(tmp_path: Path, make_event) -> Path:
    """A closed log of ten events and no checkpoints."""
    path = tmp_path / "table.db"
    log = SqliteEventLog(path, checkpoint_every=None, checkpoint_interval=None)
    log.append_many(make_event(n) for n in range(EVENTS))
    log.close()
    return path




def forge(body: str) -> str:
    """The same event with another card."""
    event = json.loads(body)
    event["card"] = "QS" if event["card"] != "QS" else "JS"
    return json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)



def verify(db: Path, capsys) -> tuple[int, str, str]:
    status = main(["verify-log", str(db)])
    out = capsys.readouterr()
    return status, out.out.strip(), out.err.strip()


def failure(db: Path, capsys) -> tuple[int, str, str]:
    """(seq, kind, detail) of the first problem, through --json."""
    assert main(["verify-log", str(db), "--json"]) == 1
    problem = json.loads(capsys.readouterr().out)["problem"]
    return problem["seq"], problem["kind"], problem["detail"]


def test_an_untouched_log_verifies(db, capsys):
    status, out, err = verify(db, capsys)
    assert status == 0
    assert out.startswith(f"OK: {EVENTS} events, chain head seq {EVENTS} hash ")
    assert err == ""


def test_an_edited_event_is_caught(db, capsys):
    body = row(db, 4)[0]
    outside(db, f"UPDATE events SET body = '{forge(body)}' WHERE seq = 4")
    status, out, _ = verify(db, capsys)
    assert status == 1
    assert out == "FAIL at seq 4: edited: the stored event does not match its hash"


def test_an_edited_query_column_is_caught(db, capsys):
    outside(db, "UPDATE events SET ts = '2026-11-30T00:00:00.000Z' WHERE seq = 6")
    seq, kind, detail = failure(db, capsys)
    assert (seq, kind) == (6, "edited")
    assert "column ts" in detail


def test_an_event_rewritten_out_of_canonical_form_is_caught(db, capsys):
    body, prev, _ = row(db, 3)
    pretty = json.dumps(json.loads(body), indent=1)
    outside(db, f"UPDATE events SET body = '{pretty}', hash = '{rehash(prev, pretty)}' "
                "WHERE seq = 3")
    assert failure(db, capsys)[:2] == (3, "edited")


def test_an_edit_with_its_hash_recomputed_breaks_the_next_link(db, capsys):
    body, prev, _ = row(db, 4)
    forged = forge(body)
    outside(db, f"UPDATE events SET body = '{forged}', hash = '{rehash(prev, forged)}' "
                "WHERE seq = 4")
    seq, kind, detail = failure(db, capsys)
    assert (seq, kind) == (5, "deleted")
    assert "seq 4 was edited and its hash recomputed" in detail


def test_an_edit_with_the_whole_chain_recomputed_is_caught_by_a_checkpoint(tmp_path, make_event,
                                                                          capsys):
    db = tmp_path / "table.db"
    log = SqliteEventLog(db, checkpoint_every=3, checkpoint_interval=None)
    log.append_many(make_event(n) for n in range(EVENTS))  # one checkpoint, at seq 10
    for n in range(EVENTS, EVENTS + 6):
        log.append(make_event(n))  # checkpoints at 12 and 15
    log.close()
    rechain_from(db, 4, forge)
    seq, kind, detail = failure(db, capsys)
    assert (seq, kind) == (10, "edited")
    assert "checkpoint" in detail


def test_a_recomputed_chain_without_checkpoints_is_beyond_the_log_alone(db, capsys):
    """The limit: only a head kept elsewhere (checkpoints, signed exports) catches this."""
    rechain_from(db, 4, forge)
    assert verify(db, capsys)[0] == 0



@pytest.mark.parametrize(
    ("statements", "seq", "says"),
    [
        (["DELETE FROM events WHERE seq = 4"], 4, "seq 4 missing"),
        (["DELETE FROM events WHERE seq IN (4, 5, 6)"], 4, "seq 4..6 missing"),
        (["DELETE FROM events WHERE seq = 1"], 1, "seq 1 missing"),
        (["DELETE FROM events WHERE seq = 4", "UPDATE events SET seq = seq - 1 WHERE seq > 4"],
         4, "seq 4 does not chain to seq 3"),
        (["DELETE FROM events WHERE seq = 1", "UPDATE events SET seq = seq - 1"],
         1, "does not chain to the start of the log"),
    ],
)
def test_a_deleted_event_is_caught(db, capsys, statements, seq, says):
    outside(db, *statements)
    found_seq, kind, detail = failure(db, capsys)
    assert (found_seq, kind) == (seq, "deleted")
    assert says in detail


def test_events_deleted_at_the_end_are_caught_by_a_checkpoint(tmp_path, make_event, capsys):
    db = tmp_path / "table.db"
    log = SqliteEventLog(db, checkpoint_every=None, checkpoint_interval=None)
    log.append_many(make_event(n) for n in range(EVENTS))
    log.checkpoint()
    log.close()
    outside(db, "DELETE FROM events WHERE seq > 7")
    seq, kind, detail = failure(db, capsys)
    assert (seq, kind) == (8, "deleted")
    assert "seq 8..10 were deleted" in detail


def make_room(db: Path, at: int) -> list[str]:
    """Statements that move seq `at` onwards one place up."""
    return [f"UPDATE events SET seq = -seq WHERE seq >= {at}",
            "UPDATE events SET seq = 1 - seq WHERE seq < 0"]


def test_an_inserted_event_that_chains_is_caught(db, capsys, make_event):
    prev = row(db, 3)[2]
    body = json.dumps(make_event(99), sort_keys=True, separators=(",", ":"))
    outside(db, *make_room(db, 4),
            "INSERT INTO events VALUES (4, '2026-11-29T10:01:39.099Z', 'shoe', 'card', "
            f"'{body}', '{prev}', '{rehash(prev, body)}')")
    seq, kind, detail = failure(db, capsys)
    assert (seq, kind) == (4, "inserted")
    assert "seq 5 chains directly to seq 3" in detail


def test_an_inserted_event_with_a_made_up_hash_is_caught(db, capsys, make_event):
    body = json.dumps(make_event(99), sort_keys=True, separators=(",", ":"))
    outside(db, *make_room(db, 4),
            "INSERT INTO events VALUES (4, '2026-11-29T10:01:39.099Z', 'shoe', 'card', "
            f"'{body}', '{'1' * 64}', '{'2' * 64}')")
    seq, kind, detail = failure(db, capsys)
    assert (seq, kind) == (4, "inserted")
    assert "seq 5 chains directly to seq 3" in detail


def test_an_event_inserted_before_the_first_is_caught(db, capsys, make_event):
    body = json.dumps(make_event(99), sort_keys=True, separators=(",", ":"))
    genesis = "0" * 64
    outside(db, *make_room(db, 1),
            "INSERT INTO events VALUES (1, '2026-11-29T10:01:39.099Z', 'shoe', 'card', "
            f"'{body}', '{genesis}', '{rehash(genesis, body)}')")
    seq, kind, detail = failure(db, capsys)
    assert (seq, kind) == (1, "inserted")
    assert detail == "seq 1 was inserted: seq 2 chains directly to the start of the log"


@pytest.mark.parametrize(
    ("statements", "seq"),
    [
        (["UPDATE events SET seq = -3 WHERE seq = 3", "UPDATE events SET seq = 3 WHERE seq = 5",
          "UPDATE events SET seq = 5 WHERE seq = -3"], 3),
        (["UPDATE events SET seq = 11 WHERE seq = 2", "UPDATE events SET seq = seq - 1 "
          "WHERE seq > 2"], 2),
        (["UPDATE events SET seq = -seq", "UPDATE events SET seq = 11 + seq"], 1),
    ],
    ids=["swapped", "moved-to-the-end", "reversed"],
)
def test_reordered_events_are_caught(db, capsys, statements, seq):
    outside(db, *statements)
    found_seq, kind, detail = failure(db, capsys)
    assert (found_seq, kind) == (seq, "reordered")
    assert "chains to the event stored after it" in detail


def test_a_renumbered_event_is_caught(db, capsys):
    outside(db, "UPDATE events SET seq = 30 WHERE seq = 10")
    assert failure(db, capsys)[:2] == (30, "edited")


def test_dropped_triggers_are_reported_even_when_the_chain_holds(db, capsys):
    outside(db)
    status, out, err = verify(db, capsys)
    assert status == 0 and out.startswith("OK")
    assert "lacks the append-only triggers" in err and "events_no_update" in err


def test_a_file_that_is_not_a_log_is_an_error_not_a_verdict(tmp_path, capsys):
    assert main(["verify-log", str(tmp_path / "missing.db")]) == 2
    assert "no event log" in capsys.readouterr().err
    plain = tmp_path / "plain.db"
    sqlite3.connect(plain).execute("CREATE TABLE t (x)").connection.close()
    assert main(["verify-log", str(plain)]) == 2
    assert "not an event log" in capsys.readouterr().err


def test_the_sqlite3_command_line_tool_cannot_change_the_log_unseen(db, capsys):
    tool = shutil.which("sqlite3")
    if tool is None:
        pytest.skip("the sqlite3 command-line tool is not installed (apt-get install sqlite3)")
    refused = subprocess.run([tool, str(db), "DELETE FROM events WHERE seq = 2;"],
                             capture_output=True, text=True)
    assert "append-only" in refused.stderr
    drops = " ".join(f"DROP TRIGGER {name};" for name in TRIGGERS)
    subprocess.run([tool, str(db), drops + " UPDATE events SET body = replace(body, '7H', '8H') "
                    "WHERE seq = 9;"], check=True)
    assert failure(db, capsys)[:2] == (9, "edited")
