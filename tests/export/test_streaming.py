"""The export's fast paths say exactly what the documented ones say.

A log longer than one read from SQLite and one block of events.jsonl exports line for line as
stored and verifies; orjson's reading of an event or a line is the standard library's (the
same value, the same record, the same complaint); the background writer hashes and writes
every block and hands its error to the writer's thread.
"""

from __future__ import annotations

import hashlib
import io
import json
import random
import sqlite3
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer_assist.cli import main
from dealer_assist.devices.deal.dealing import deal_shoe
from dealer_assist.domain.house import HouseRules
from dealer_assist.export.hashed import DEPTH, BackgroundFile, HashedFile
from dealer_assist.export.links import (
    LineError,
    canonical_json,
    decode_event,
    event_line,
    read_line,
    read_line_bytes,
)
from dealer_assist.logformat import Record
from dealer_assist.services.audit import audit_lines
from dealer_assist.store import log_range
from dealer_assist.store.sqlite_log import SqliteEventLog
from tests.export.conftest import members


@pytest.fixture(scope="module")
def long_log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """About 2.5 reads of SQLite (log_range._FETCH rows each) of one-deck shoes."""
    rng = random.Random(66)
    start = datetime(2026, 11, 29, 6, tzinfo=UTC)
    events: list[dict[str, Any]] = []
    n = 0
    while len(events) < int(log_range._FETCH * 2.5):
        n += 1
        events += deal_shoe(rng, HouseRules(decks=1), shoe_id=f"S{n}", start=start)
        start += timedelta(minutes=20)
    path = tmp_path_factory.mktemp("long") / "T1.events.db"
    log = SqliteEventLog(path, checkpoint_every=1000, checkpoint_interval=None)
    log.append_many(events)
    log.close()
    return path, events


@pytest.mark.slow
def test_a_log_longer_than_a_read_exports_every_line_as_stored_and_verifies(
        long_log, keys, tmp_path, capsys):
    path, events = long_log
    out = tmp_path / "long.zip"
    assert main(["export", "--from", "2026-11-29", "--to", "2026-12-31", "--db", str(path),
                 "--out", str(out), "--signing-key", str(keys.private)]) == 0
    conn = sqlite3.connect(path)
    stored = conn.execute("SELECT seq, body, prev_hash, hash FROM events ORDER BY seq").fetchall()
    conn.close()
    files = members(out)
    with zipfile.ZipFile(out) as zf:
        assert {info.compress_type for info in zf.infolist()} == {zipfile.ZIP_DEFLATED}
    expected = "".join(event_line(Record(*row)) + "\n" for row in stored).encode()
    assert len(stored) == len(events) > 2 * log_range._FETCH
    assert files["events.jsonl"] == expected
    manifest = json.loads(files["manifest.json"])
    assert manifest["files"]["events.jsonl"] == {
        "sha256": hashlib.sha256(expected).hexdigest(), "bytes": len(expected)}
    assert manifest["files"]["games.csv"]["sha256"] == hashlib.sha256(
        files["games.csv"]).hexdigest()
    audit = audit_lines([json.dumps(e) for e in events])
    games = sum(len(s["games"]) for s in audit["shoes"])
    assert manifest["counts"]["games"] == games == files["games.csv"].count(b"\r\n") - 1
    assert manifest["chain"]["end"] == {"seq": stored[-1][0], "hash": stored[-1][3]}
    capsys.readouterr()
    assert main(["verify", str(out), "--pubkey", str(keys.public)]) == 0
    assert capsys.readouterr().out.startswith(f"OK: table T1, {len(events)} events")


# ---- orjson's reading is json's ------------------------------------------------------------
_numbers = st.one_of(
    st.integers(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1e16, 1e-05, 0.00001, 1e22, -0.0, 5e-324, 123456789.123]))
_scalars = st.one_of(st.none(), st.booleans(), _numbers,
                     st.text(alphabet=st.characters(exclude_categories=("Cs",))))
_values = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=12)
_events = st.dictionaries(st.text(max_size=8), _values, max_size=6)


def _outcome(read: Any, given_: Any) -> Any:
    try:
        record, event = read(given_)
    except (LineError, UnicodeDecodeError) as exc:
        return type(exc).__name__, str(exc)
    return record, json.dumps(event, sort_keys=True)  # floats compared by their repr


def _variants(event: dict[str, Any], seq: int) -> list[bytes]:
    """The canonical line of `event` and lines that differ from it in the ways a hand or
    another tool would change one."""
    body = canonical_json(event)
    digest = hashlib.sha256(("0" * 64 + body).encode()).hexdigest()
    line = event_line(Record(seq, body, "0" * 64, digest))
    spaced = json.dumps({"event": event, "hash": digest, "prev_hash": "0" * 64, "seq": seq},
                        sort_keys=True, ensure_ascii=False)
    unsorted = json.dumps({"seq": seq, "event": event, "hash": digest, "prev_hash": "0" * 64},
                          separators=(",", ":"), ensure_ascii=False)
    escaped = json.dumps(json.loads(line), sort_keys=True, separators=(",", ":"))
    return [text.encode("utf-8", "surrogatepass") for text in
            (line, spaced, unsorted, escaped, line + " ", line.replace(':"0', ':"1', 1),
             line.replace('"seq":', '"seq":1.', 1) + "0", line[:-1] + ',"x":1}', line[:-3])]


@settings(max_examples=300, deadline=None)
@given(_events, st.integers(min_value=0, max_value=2**66))
def test_a_line_read_fast_is_the_line_read_as_documented(event, seq):
    for raw in _variants(event, seq):
        assert _outcome(read_line_bytes, raw) == _outcome(
            lambda b: read_line(b.decode("utf-8")), raw), raw


@pytest.mark.parametrize("raw", [
    b'{"event":{"a":1e16},"hash":"h","prev_hash":"p","seq":1}',
    b'{"event":{"a":0.00001},"hash":"h","prev_hash":"p","seq":1}',
    b'{"event":{"a":"\\ud800"},"hash":"h","prev_hash":"p","seq":1}',
    b'{"event":{"a":NaN},"hash":"h","prev_hash":"p","seq":1}',
    b'{"event":{"a":1,"a":2},"hash":"h","prev_hash":"p","seq":1}',
    b'{"event":{"a":1},"hash":"h\\"","prev_hash":"p","seq":1}',
    b'{"event":{"a":1},"hash":"h","prev_hash":"p","seq":true}',
    b'{"event":[1],"hash":"h","prev_hash":"p","seq":1}',
    b'\xff{"event":{},"hash":"h","prev_hash":"p","seq":1}',
    b'[]', b'',
])
def test_odd_lines_are_read_fast_as_documented(raw):
    assert _outcome(read_line_bytes, raw) == _outcome(
        lambda b: read_line(b.decode("utf-8")), raw)


def _json_loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


@settings(max_examples=300, deadline=None)
@given(_values)
def test_an_event_decoded_fast_is_the_event_json_decodes(value):
    canonical = canonical_json(value)
    for text in (canonical, json.dumps(value), json.dumps(value, ensure_ascii=True)):
        assert json.dumps(decode_event(text), sort_keys=True) == json.dumps(
            _json_loads(text), sort_keys=True)


@pytest.mark.parametrize("text", [
    "NaN", '{"a":Infinity}', "123456789012345678901234567890", '{"a":"\\ud800"}', "",
    "not json", '{"a":1,"a":2}', "[" * 300 + "]" * 300, '{"a": 1.0}', "1e400"])
def test_odd_texts_are_decoded_fast_as_json_decodes_them(text):
    assert repr(decode_event(text)) == repr(_json_loads(text))


# ---- the files' hashes ---------------------------------------------------------------------
def test_a_hashed_file_holds_and_hashes_every_row_written():
    handle = io.BytesIO()
    hashed = HashedFile(handle)
    rows = [f"row {n}, é\r\n" for n in range(50_000)]
    for row in rows:
        hashed.write(row)
    data = "".join(rows).encode()
    hashed.flush()
    assert handle.getvalue() == data
    assert hashed.entry() == {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}


def test_the_background_file_writes_and_hashes_every_block_in_order():
    handle = io.BytesIO()
    blocks = [bytes([n % 251]) * (1000 + n) for n in range(DEPTH * 10)]
    background = BackgroundFile(handle)
    for block in blocks:
        background.write(block)
    data = b"".join(blocks)
    background.close()
    assert handle.closed
    assert background.entry() == {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}


class _FullDisk(io.BytesIO):
    def write(self, data: Any) -> int:
        if self.tell() > 5000:
            raise OSError(28, "No space left on device")
        return super().write(data)


def test_an_error_on_the_background_thread_is_raised_to_the_writer_never_a_hang():
    background = BackgroundFile(_FullDisk())
    with pytest.raises(OSError, match="No space left"):
        for _ in range(DEPTH * 50):
            background.write(b"x" * 4096)
        background.close()
    background.close()  # closing again is harmless
