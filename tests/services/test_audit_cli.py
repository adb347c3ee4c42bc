"""`dealer-assist audit` as other tools run it: a real process, files and standard input."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent.parent / "fixtures" / "golden"
OK = '{"ts":"2026-11-29T10:00:00.000Z","src":"dealer","type":"new_shoe","shoe_id":"S1"}'


def audit(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dealer_assist.cli", "audit", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


def test_json_from_a_file_and_from_stdin_agree():
    path = GOLDEN / "standard.jsonl"
    from_file = audit(str(path), "--json")
    from_stdin = audit("-", "--json", stdin=path.read_text())
    assert from_file.returncode == 0 == from_stdin.returncode
    assert json.loads(from_file.stdout) == json.loads(from_stdin.stdout)
    assert json.loads(from_file.stdout) == json.loads((GOLDEN / "standard.audit.json").read_text())


def test_readable_table_has_one_line_per_game():
    out = audit(str(GOLDEN / "standard.jsonl")).stdout
    game_lines = [line for line in out.splitlines() if " P " in line and " B " in line]
    assert len(game_lines) == 6
    assert "UNNEEDED_DRAW" in game_lines[2] and "resolved" in game_lines[2]
    assert "TIE" in game_lines[5] and "LAST_GAME" in game_lines[5]


def test_flags_do_not_change_the_exit_status():
    r = audit(str(GOLDEN / "super6.jsonl"), "--json")
    assert r.returncode == 0 and "FOREIGN_CARD" in r.stdout


@pytest.mark.parametrize("bad, problem", [
    ("not json", "not valid JSON"),
    ('{"src":"shoe","type":"card","card":"QS"}', "missing field 'ts'"),
    ('{"ts":"2026-11-29T10:00:01Z","type":"card","card":"QS"}', "missing field 'src'"),
    ('{"ts":"2026-11-29T10:00:01Z","src":"shoe","card":"QS"}', "missing field 'type'"),
    ('{"ts":"2026-11-29T10:00:01Z","src":"shoe","type":"teleport"}', "unknown event type 'teleport'"),
    ('{"ts":"2026-11-29T10:00:01Z","src":"shoe","type":"card","card":"1X"}', "bad card code '1X'"),
    ('{"ts":"2026-11-29T10:00:01Z","src":"shoe","type":"card"}', "missing field 'card'"),
    ('{"ts":"yesterday","src":"shoe","type":"card","card":"QS"}', "not an ISO 8601 time"),
    ('[1, 2]', "must be a JSON object"),
    ('{"ts":"2026-11-29T10:00:01Z","src":"dealer","type":"new_shoe","variant":"mini"}', "variant"),
    ('{"ts":"2026-11-29T10:00:01Z","src":"supervisor","type":"decision","game":1,"action":"bless",'
     '"by":"S","reason":"r"}', "action"),
])
def test_malformed_line_stops_with_status_2_naming_the_line(bad, problem):
    r = audit("-", "--json", stdin=f"{OK}\n\n{bad}\n{OK}\n")
    assert r.returncode == 2 and r.stdout == ""
    assert "line 3" in r.stderr and problem in r.stderr


def test_missing_file_is_a_clear_error(tmp_path):
    r = audit(str(tmp_path / "nope.jsonl"))
    assert r.returncode == 2 and "cannot read" in r.stderr


def test_10_spelling_is_accepted_and_printed_as_T():
    trace = "\n".join([OK, *(f'{{"ts":"2026-11-29T10:00:0{i}Z","src":"shoe","type":"card","card":"{c}"}}'
                             for i, c in enumerate(["2S", "10H", "KH"], 1))])
    r = audit("-", "--json", stdin=trace)
    assert json.loads(r.stdout)["shoes"][0]["burn"]["cards"] == ["2S", "TH", "KH"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_big_trace_shows_progress_on_a_terminal(monkeypatch, tmp_path):
    import dealer_assist.commands as commands

    trace = tmp_path / "trace.jsonl"
    trace.write_text((GOLDEN / "standard.jsonl").read_text())
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(commands, "PROGRESS_OVER", 0)
    report = commands.audit_trace(str(trace))
    assert len(report["shoes"][0]["games"]) == 6
    assert "auditing" in terminal.getvalue() and "100%" in terminal.getvalue()
    monkeypatch.setattr(commands, "PROGRESS_OVER", 1 << 40)
    terminal.seek(0)
    terminal.truncate()
    commands.audit_trace(str(trace))
    assert terminal.getvalue() == ""


def test_json_keeps_to_the_contract_and_says_what_it_ignored_on_stderr():
    lines = [OK.replace('"new_shoe"', '"bets_closed"').replace(',"shoe_id":"S1"', ""), OK]
    r = audit("-", "--json", stdin="\n".join(lines) + "\n")
    assert r.returncode == 0 and set(json.loads(r.stdout)) == {"shoes"}
    assert "line 1: bets_closed with no shoe on the table (ignored)" in r.stderr
    shoe = json.loads(r.stdout)["shoes"][0]
    assert set(shoe) == {"shoe_id", "decks", "variant", "burn_after_each_game", "status", "burn",
                         "flags", "games"}


@pytest.mark.parametrize("nested", ["[" * 100_000 + "]" * 100_000,
                                    '{"a":' * 3_000 + "1" + "}" * 3_000],
                         ids=["a list 100,000 deep", "an object 3,000 deep"])
def test_json_nested_too_deep_is_a_malformed_line_not_a_traceback(nested: str):
    r = audit("-", "--json", stdin=OK + "\n" + nested + "\n")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == "dealer-assist audit: standard input, line 2: not valid JSON (nested too deep)\n"


@pytest.mark.parametrize("field", ["card", "type", "ts"])
def test_a_huge_bad_value_is_quoted_as_a_short_excerpt(field: str):
    event = {"ts": "2026-11-29T10:00:01.000Z", "src": "shoe", "type": "card", "card": "QS"}
    event[field] = "X" * 5_000_000
    r = audit("-", stdin=OK + "\n" + json.dumps(event) + "\n")
    assert r.returncode == 2 and "line 2:" in r.stderr
    assert len(r.stderr) < 400 and "XXX...XXX" in r.stderr


def test_the_sample_shoe_ships_with_the_package_and_shows_its_misdeals():
    r = audit("--sample")
    games = [line for line in r.stdout.splitlines() if " P " in line and " B " in line]
    assert r.returncode == 0 and r.stdout.startswith("shoe SAMPLE-1: standard, 8 decks, finished")
    assert len(games) == 80
    assert [g.split()[0] for g in games if "UNNEEDED_DRAW" in g or "MISSING_DRAW" in g] == ["16", "17"]


@pytest.mark.parametrize("args", [(), ("--sample", "-")])
def test_audit_wants_a_trace_or_the_sample_not_both(args):
    r = audit(*args)
    assert r.returncode == 2 and "a TRACE file (- for standard input) or --sample" in r.stderr


def table_log(path: Path, trace: Path) -> Path:
    """A table's own log (SQLite) holding the events of `trace`, as the table service writes."""
    from dealer_assist.store.sqlite_log import SqliteEventLog

    log = SqliteEventLog(path)
    log.append_many(json.loads(line) for line in trace.read_text().splitlines() if line.strip())
    log.close()
    return path


def test_a_tables_log_database_is_audited_like_its_trace(tmp_path):
    db = table_log(tmp_path / "T1.events.db", GOLDEN / "standard.jsonl")
    from_db = audit(str(db), "--json")
    assert from_db.returncode == 0, from_db.stderr
    assert json.loads(from_db.stdout) == json.loads((GOLDEN / "standard.audit.json").read_text())
    assert audit(str(db)).stdout == audit(str(GOLDEN / "standard.jsonl")).stdout


def test_roads_reads_a_tables_log_database_too(tmp_path):
    db = table_log(tmp_path / "T1.events.db", GOLDEN / "standard.jsonl")
    roads = [subprocess.run([sys.executable, "-m", "dealer_assist.cli", "roads", str(path),
                             "--json"], capture_output=True, text=True, timeout=60)
             for path in (db, GOLDEN / "standard.jsonl")]
    assert roads[0].returncode == 0 == roads[1].returncode, roads[0].stderr
    assert json.loads(roads[0].stdout) == json.loads(roads[1].stdout)


def test_an_empty_log_database_has_no_events(tmp_path):
    from dealer_assist.store.sqlite_log import SqliteEventLog

    SqliteEventLog(tmp_path / "T1.events.db").close()
    r = audit(str(tmp_path / "T1.events.db"))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == f"dealer-assist audit: {tmp_path / 'T1.events.db'}: no shoe in the table's log: it holds no events\n"


@pytest.mark.parametrize("content", ["", "\n\n  \n"], ids=["empty", "blank lines"])
@pytest.mark.parametrize("command", ["audit", "roads"])
def test_an_empty_trace_says_so_with_status_2_as_roads_does(tmp_path, content, command):
    trace = tmp_path / "empty.jsonl"
    trace.write_text(content)
    said = f"dealer-assist {command}: {trace}: no shoe in the trace: it holds no events\n"
    for json_flag in ([], ["--json"]):
        r = subprocess.run([sys.executable, "-m", "dealer_assist.cli", command, str(trace),
                            *json_flag], capture_output=True, text=True, timeout=60)
        assert r.stderr == said
        if command == "audit" and json_flag:
            # the trace contract: exit 0 unless a line is malformed, one JSON object
            assert r.returncode == 0 and json.loads(r.stdout) == {"shoes": []}
        else:
            assert r.returncode == 2 and r.stdout == ""


def test_a_trace_with_no_shoe_says_so_with_status_2_and_what_it_ignored():
    card = OK.replace('"new_shoe","shoe_id":"S1"', '"card","card":"QS"')
    for args in ([], ["--json"]):
        r = audit("-", *args, stdin=card + "\n")
        assert (r.returncode, r.stdout) == ((0, '{"shoes": []}\n') if args else (2, ""))
        assert "line 1: card with no shoe on the table (ignored)" in r.stderr
        assert r.stderr.endswith("dealer-assist audit: standard input: no shoe in the trace "
                                 "(no new_shoe event)\n")


@pytest.mark.parametrize("which", ["folder", "another SQLite file", "a broken log"])
def test_what_is_not_a_trace_nor_a_log_is_a_clear_message(tmp_path, which):
    import sqlite3

    path = {"folder": tmp_path, "another SQLite file": tmp_path / "users.db",
            "a broken log": tmp_path / "broken.db"}[which]
    if which != "folder":
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE users (name TEXT)")
        if which == "a broken log":
            conn.execute("PRAGMA user_version = 2")  # a log's version, and no events table
        conn.commit()
        conn.close()
    r = audit(str(path))
    said = {"folder": "it is a folder", "another SQLite file": "not a table's event log",
            "a broken log": "not a table's event log (no such table: events)"}[which]
    assert r.returncode == 2 and r.stdout == "" and said in r.stderr
    assert "Traceback" not in r.stderr and "utf-8" not in r.stderr
