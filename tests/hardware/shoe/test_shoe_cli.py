"""`dealer-assist shoe decode|listen|emulate` as a user (or an external check) runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import reduce
from pathlib import Path

import pytest

from dealer_assist.cli import main


def frame(body: str, checksum: int | None = None) -> bytes:
    raw = body.encode("latin-1")
    cs = reduce(lambda a, b: a ^ b, raw, 0) if checksum is None else checksum
    return b"$" + raw + b"*" + f"{cs:02X}".encode() + b"\r\n"


CAPTURE = b"".join([
    b"\x00\x13noise",
    frame("0040,BTN,NEWSHOE"),
    frame("0041,HBT"),
    frame("0042,CRD,QS"),
    frame("0042,CRD,QS"),  # sent again
    frame("0043,BTN,CLOSE"),
    frame("0044,CRD,TD,M"),
    frame("0045,CRD,??"),
    frame("0046,CRD,9H", checksum=0),
    frame("0047,XYZ"),
    frame("0048,CRD,9H" + "X" * 70),
    frame("0049,CRD,9\xc8"),
    frame("0050,CRD,ZZ"),
    frame("0052,CUT,B"),  # 51 lost
    frame("0053,BTN,REVEAL"),
    frame("0054,BTN,ENDSHOE"),
])

EXPECTED = [
    {"error": "noise", "bytes": 7},
    {"src": "dealer", "type": "new_shoe", "seq": 40},
    {"src": "shoe", "type": "card", "card": "QS", "seq": 42},
    {"error": "duplicate", "seq": 42},
    {"src": "dealer", "type": "bets_closed", "seq": 43},
    {"src": "shoe", "type": "card", "card": "TD", "multi": True, "seq": 44},
    {"src": "shoe", "type": "unreadable", "seq": 45},
    {"error": "checksum"},
    {"error": "unknown_type"},
    {"error": "too_long"},
    {"error": "non_ascii"},
    {"error": "malformed"},
    {"error": "gap", "missing": 6},  # 46 to 51: five dropped frames and the lost one
    {"src": "shoe", "type": "cut_card", "color": "blue", "seq": 52},
    {"src": "dealer", "type": "reveal", "seq": 53},
    {"src": "dealer", "type": "end_shoe", "seq": 54},
]


def matches(lines: list[str]) -> None:
    got = [json.loads(line) for line in lines]
    assert len(got) == len(EXPECTED), got
    for g, e in zip(got, EXPECTED, strict=True):
        assert {k: g.get(k) for k in e} == e, (g, e)
        if "error" not in g:
            assert g == e  # events carry exactly the trace fields and seq


def test_decode_a_capture_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capture = tmp_path / "shoe.cap"
    capture.write_bytes(CAPTURE)
    assert main(["shoe", "decode", str(capture)]) == 0
    out = capsys.readouterr().out
    assert all(line.startswith("{") and ": " not in line for line in out.splitlines())
    matches(out.splitlines())


def test_decode_standard_input_through_the_installed_command() -> None:
    result = subprocess.run([sys.executable, "-m", "dealer_assist.cli", "shoe", "decode", "-"],
                            input=CAPTURE, capture_output=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    matches(result.stdout.decode().splitlines())


def test_decode_a_capture_cut_mid_frame(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capture = tmp_path / "cut.cap"
    capture.write_bytes(frame("0001,CRD,AS") + frame("0002,CRD,KS")[:6])
    assert main(["shoe", "decode", str(capture)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0]["card"] == "AS" and lines[1]["error"] == "malformed"


def test_decode_a_missing_file_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["shoe", "decode", str(tmp_path / "nope.cap")]) == 2
    assert "nope.cap" in capsys.readouterr().err


def test_shoe_without_a_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["shoe"]) == 2
    assert "decode" in capsys.readouterr().out


@pytest.mark.parametrize("args, says", [
    (["--disconnect", "x"], "AFTER:SECONDS"),
    (["--mistake", "spilled_drink"], "unknown dealer mistake"),
    (["--mistake", "missed_draw:abc"], "KIND:GAME"),
    (["--trace", "no-such-trace.jsonl"], "no-such-trace"),
    (["--lose", "2"], "lose"),
    (["--tcp", "localhost:http"], "HOST:PORT"),
])
def test_emulate_refuses_bad_options(args: list[str], says: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["shoe", "emulate", "--fast", *args]) == 2
    assert says in capsys.readouterr().err


def test_emulate_refuses_a_speed_of_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["shoe", "emulate", "--speed", "0"]) == 2
    assert "--speed" in capsys.readouterr().err


def test_listen_stops_on_time_and_reports_a_missing_port(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["shoe", "listen", str(tmp_path / "no-port"), "--max-seconds", "0.5"]) == 0
    out, err = capsys.readouterr()
    status = json.loads(out.splitlines()[0])
    assert status["type"] == "link_status" and status["status"] == "down"
    assert "cannot open" in json.loads(err.splitlines()[0])["reason"]


def test_decode_shows_a_bar_on_a_terminal_and_none_in_a_pipe(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io

    import dealer_assist.commands.shoe as shoe

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    capture = tmp_path / "shoe.cap"
    capture.write_bytes(CAPTURE)
    monkeypatch.setattr(shoe, "_PROGRESS_OVER", 0)  # every capture counts as big
    assert main(["shoe", "decode", str(capture)]) == 0  # standard error is no terminal here
    assert capsys.readouterr().err == ""
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["shoe", "decode", str(capture)]) == 0
    assert "decoded" in terminal.getvalue() and "100%" in terminal.getvalue()
    matches(capsys.readouterr().out.splitlines())
