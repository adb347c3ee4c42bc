"""`dealer-assist export` of a day's log, and `dealer-assist verify` of it untouched."""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
import zipfile
from pathlib import Path

from dealer_assist import __version__
from dealer_assist.export.rows import DECISION_COLUMNS, FLAG_COLUMNS, GAME_COLUMNS
from dealer_assist.services.audit import audit_lines
from tests.export.conftest import DAY, NEXT_DAY, SHOES, members

DOC = Path(__file__).resolve().parents[2] / "docs" / "export-format.md"


def csv_of(path: Path, name: str) -> list[dict[str, str]]:
    with zipfile.ZipFile(path) as zf, zf.open(name) as raw:
        return list(csv.DictReader(io.TextIOWrapper(raw, encoding="utf-8", newline="")))


def manifest_of(path: Path) -> dict:
    return json.loads(members(path)["manifest.json"])


def documented_columns(file: str) -> list[str]:
    """The column names in the table under the heading `### <file>` of the export format doc."""
    text = DOC.read_text()
    section = text.split(f"### `{file}`", 1)[1].split("\n#", 1)[0]
    return re.findall(r"^\| `([A-Za-z0-9_]+)` \|", section, flags=re.M)


def test_a_days_export_verifies_ok_with_the_public_key(day_zip, verify):
    status, out = verify(day_zip)
    assert status == 0, out
    assert out.startswith("OK: table T1, ")
    assert "the CSV files say exactly what the events imply" in out


def test_the_zip_holds_the_six_files_in_order(day_zip):
    assert list(members(day_zip)) == ["events.jsonl", "games.csv", "decisions.csv", "flags.csv",
                                      "manifest.json", "manifest.sig"]


def test_csv_files_open_with_the_documented_columns(day_zip):
    for name, columns in (("games.csv", GAME_COLUMNS), ("flags.csv", FLAG_COLUMNS),
                          ("decisions.csv", DECISION_COLUMNS)):
        rows = csv_of(day_zip, name)
        assert rows, f"{name} has rows"
        assert list(rows[0]) == documented_columns(name) == list(columns)
    assert len(csv_of(day_zip, "games.csv")) == manifest_of(day_zip)["counts"]["games"]


def test_games_csv_says_what_a_full_audit_of_the_events_says(day_zip, day_log_master):
    lines = [json.dumps(e) for e in day_log_master.events]
    audit = audit_lines(lines)
    expected = {(s["shoe_id"], g["game"]): g for s in audit["shoes"] for g in s["games"]}
    rows = csv_of(day_zip, "games.csv")
    assert len(rows) == len(expected)
    for row in rows:
        game = expected[(row["shoe"], int(row["game"]))]
        player = [row[p] for p in ("P1", "P2", "P3") if row[p]]
        banker = [row[p] for p in ("B1", "B2", "B3") if row[p]]
        assert (player, banker) == (game["player"], game["banker"]), row
        assert row["winner"] == (game["winner"] or "")
        assert row["player_total"] == str(game["player_total"])
        assert row["status"] == game["status"] and row["review"] == game["review"]
        assert row["flags"] == "; ".join(f["code"] for f in game["flags"])
        assert row["winning_bets"] == "; ".join(f"{b['bet']} {b['pays']}"
                                                for b in game["winning_bets"])
        assert row["natural"] == str(game["natural"]).lower()


def test_decisions_reach_their_games_even_when_made_after_the_next_shoe_started(
        day_zip, day_log_master):
    games = {(r["shoe"], int(r["game"])): r for r in csv_of(day_zip, "games.csv")}
    for shoe, game in day_log_master.decided:
        assert games[(shoe, game)]["decision_action"] in ("accept", "void")
    late = games[("S1", 2)]
    assert (late["decision_by"], late["decision_action"], late["status"]) == (
        "S-007", "void", "void")
    decisions = csv_of(day_zip, "decisions.csv")
    assert len(decisions) == len(day_log_master.decided) + 1
    stray = [d for d in decisions if d["game"] == "999"]
    assert stray[0]["applied"].startswith("false: decision for game 999")
    assert all(d["applied"] == "true" for d in decisions if d["game"] != "999")


def test_the_manifest_states_rules_counts_range_and_chain_heads(day_zip, day_log_master):
    m = manifest_of(day_zip)
    assert m["software"] == {"name": "dealer-assist", "version": __version__}
    assert m["table"] == "T1"  # from T1.events.db
    assert [(s["shoe"], s["variant"], s["decks"], s["burn_after_each_game"]) for s in m["shoes"]] \
        == [(f"S{n}", h.variant, h.decks, h.burn_after_each_game)
            for n, (h, _) in enumerate(SHOES, 1)]
    assert m["requested"] == {"from": f"{DAY}T00:00:00.000Z", "to": f"{NEXT_DAY}T00:00:00.000Z"}
    conn = sqlite3.connect(day_log_master.path)
    head = conn.execute("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1").fetchone()
    conn.close()
    assert m["chain"]["start"] == {"seq": 0, "hash": "0" * 64}
    assert m["chain"]["end"] == {"seq": head[0], "hash": head[1]}
    assert len(m["chain"]["checkpoints"]) == head[0] // 500
    assert m["counts"]["events"] == len(day_log_master.events) == head[0]
    assert m["range"]["first_utc"] == day_log_master.events[0]["ts"]
    assert m["files"]["events.jsonl"]["bytes"] == len(members(day_zip)["events.jsonl"])


def test_events_jsonl_holds_the_stored_events_with_their_hashes(day_zip, day_log_master):
    lines = members(day_zip)["events.jsonl"].decode().splitlines()
    assert len(lines) == len(day_log_master.events)
    first = json.loads(lines[0])
    assert first["event"] == day_log_master.events[0]
    assert first["seq"] == 1 and first["prev_hash"] == "0" * 64
    assert json.loads(lines[1])["prev_hash"] == first["hash"]


def ts_of(db: Path, sql: str) -> list[tuple[int, str]]:
    conn = sqlite3.connect(db)
    rows = conn.execute(sql).fetchall()
    conn.close()
    return rows


def test_a_range_that_starts_and_ends_inside_shoes_is_widened_to_whole_shoes(
        day_log, export, verify, tmp_path):
    starts = ts_of(day_log.path, "SELECT seq, ts FROM events WHERE type = 'new_shoe' ORDER BY seq")
    s2, s3, s4 = starts[1][0], starts[2][0], starts[3][0]
    inside = dict(ts_of(day_log.path, f"SELECT seq, ts FROM events WHERE seq IN ({s2 + 100}, "
                                      f"{s3 + 100})"))
    out = tmp_path / "mid.zip"
    status, said, err = export(day_log.path, out, inside[s2 + 100], inside[s3 + 100])
    assert status == 0, err
    m = manifest_of(out)
    assert (m["range"]["first_seq"], m["range"]["last_seq"]) == (s2, s4 - 1)
    assert [s["shoe"] for s in m["shoes"]] == ["S2", "S3"]
    assert m["chain"]["start"]["seq"] == s2 - 1
    assert m["requested"] == {"from": inside[s2 + 100], "to": inside[s3 + 100]}
    assert f"events seq {s2}..{s4 - 1}" in said
    assert verify(out)[0] == 0


def test_the_table_id_is_recorded_in_the_manifest_and_every_row(day_log, export, tmp_path):
    out = tmp_path / "t7.zip"
    assert export(day_log.path, out, DAY, NEXT_DAY, "--table", "T7")[0] == 0
    assert manifest_of(out)["table"] == "T7"
    for name in ("games.csv", "flags.csv", "decisions.csv"):
        assert {r["table"] for r in csv_of(out, name)} == {"T7"}


def test_an_export_is_never_overwritten(day_log, export, tmp_path):
    out = tmp_path / "x.zip"
    out.write_bytes(b"an earlier export")
    status, _, err = export(day_log.path, out)
    assert status == 2 and "exists" in err
    assert out.read_bytes() == b"an earlier export"


def test_a_range_without_events_writes_nothing(day_log, export, tmp_path):
    out = tmp_path / "empty.zip"
    status, _, err = export(day_log.path, out, "2026-12-01", "2026-12-02")
    assert status == 2 and "no event from 2026-12-01T00:00:00.000Z" in err
    assert not out.exists() and list(tmp_path.glob(".*partial")) == []


def test_bad_times_are_named(day_log, export, tmp_path):
    status, _, err = export(day_log.path, tmp_path / "x.zip", "yesterday", NEXT_DAY)
    assert status == 2 and "'yesterday' is not a time" in err
    status, _, err = export(day_log.path, tmp_path / "x.zip", NEXT_DAY, DAY)
    assert status == 2 and "the time range is empty" in err
    # a valid time whose instant in UTC falls before year 1 or after 9999
    status, _, err = export(day_log.path, tmp_path / "x.zip", "0001-01-01T00:00:00+14:00", DAY)
    assert status == 2 and "passes the calendar's ends" in err and "Traceback" not in err
    status, _, err = export(day_log.path, tmp_path / "x.zip", DAY, "9999-12-31T23:59:59-14:00")
    assert status == 2 and "passes the calendar's ends" in err


def test_the_signing_key_comes_from_the_environment(day_log, keys, tmp_path, monkeypatch, capsys):
    from dealer_assist.cli import main

    out = tmp_path / "env.zip"
    args = ["export", "--from", DAY, "--to", NEXT_DAY, "--db", str(day_log.path),
            "--out", str(out)]
    monkeypatch.delenv("DEALER_ASSIST_SIGNING_KEY", raising=False)
    assert main(args) == 2
    assert "set DEALER_ASSIST_SIGNING_KEY" in capsys.readouterr().err
    monkeypatch.setenv("DEALER_ASSIST_SIGNING_KEY", str(keys.private))
    assert main(args) == 0
    assert manifest_of(out)["signing_key"]["fingerprint"] == keys.fingerprint


def test_verify_json_reports_ok(day_zip, keys, capsys):
    from dealer_assist.cli import main

    assert main(["verify", str(day_zip), "--pubkey", str(keys.public), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["ok"] is True and result["problems"] == []
    assert result["key"] == keys.fingerprint
