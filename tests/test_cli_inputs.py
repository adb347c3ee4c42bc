"""The command line's rough edges: what a newcomer gives a command by mistake, and the lines a
command prints for a newcomer to run next."""

from __future__ import annotations

import shlex
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from dealer_assist.cli import build_parser, main
from dealer_assist.commands.floor_demo import _export_lines
from dealer_assist.signing_keys import KeyPair


@pytest.mark.parametrize("action", ["detect", "calibrate"])
def test_vision_given_a_folder_says_it_is_one_and_what_reads_a_folder(tmp_path, capsys, action):
    (tmp_path / "frame.png").write_bytes(b"")
    status = main(["vision", action, str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 2
    assert err == (f"dealer-assist vision: {tmp_path}: is a folder; give one image of it (a "
                   f"folder of frames is read by `dealer-assist vision watch {tmp_path}`)\n")


def test_vision_detect_help_says_it_reads_one_image(capsys):
    with pytest.raises(SystemExit):
        main(["vision", "detect", "--help"])
    assert "vision watch FOLDER" in capsys.readouterr().out


def test_the_floor_demo_prints_a_floor_export_and_its_check_ready_to_run(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", [".venv/bin/dealer-assist", "floor-demo"])
    key = KeyPair(tmp_path / "key dir" / "signing-key.pem",
                  tmp_path / "key dir" / "signing-key.pub.pem", "fp")
    dsn = f"host={tmp_path}/floor-pg port=5433 dbname=floor user=svc passfile={tmp_path}/s.pgpass"
    before = datetime.now(UTC).date()
    lines = [shlex.split(line) for line in _export_lines(dsn, key, tmp_path).splitlines()]
    assert [line[0] for line in lines] == [".venv/bin/dealer-assist"] * 2
    export = build_parser().parse_args(lines[0][1:])
    check = build_parser().parse_args(lines[1][1:])
    assert (export.command, export.floor_action, export.tables) == ("floor", "export", "all")
    start = date.fromisoformat(export.start)
    assert before <= start <= datetime.now(UTC).date()
    assert date.fromisoformat(export.end) == start + timedelta(days=1)
    assert export.dsn == dsn and Path(export.signing_key) == key.private
    assert export.out.parent == tmp_path and not export.out.exists()
    assert check.command == "verify" and check.zip == export.out and check.pubkey == key.public


def test_the_floor_demo_names_python_when_not_started_as_dealer_assist(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["-m"])
    key = KeyPair(tmp_path / "k.pem", tmp_path / "k.pub.pem", "fp")
    line = shlex.split(_export_lines("dbname=floor", key, tmp_path).splitlines()[0])
    assert line[:3] == [sys.executable, "-m", "dealer_assist.cli"]
