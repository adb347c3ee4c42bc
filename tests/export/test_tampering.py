"""Every kind of tampering is caught: in the database before an export, and in the zip after.

The database is changed as an outsider would, with Python's sqlite3 after dropping the
append-only triggers; the zip by rewriting files in it, by changing bytes of the zip file
itself, and by re-signing a changed manifest.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import sqlite3
import zipfile
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dealer_assist.cli import main
from dealer_assist.export.manifest import manifest_bytes
from dealer_assist.signing_keys import load_private_key
from tests.export.conftest import members, rezip
from tests.logtamper import outside, rechain_from, rehash, row


def other_card(body: str) -> str:
    event = json.loads(body)
    event["card"] = "QS" if event.get("card") != "QS" else "JS"
    return json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def card_seq(db: Path, after: int) -> int:
    conn = sqlite3.connect(db)
    seq = conn.execute("SELECT MIN(seq) FROM events WHERE type = 'card' AND seq > ?",
                       (after,)).fetchone()[0]
    conn.close()
    return seq


# ---- the database, before an export -------------------------------------------------------

def edit(db: Path) -> int:
    seq = card_seq(db, 100)
    outside(db, "UPDATE events SET body = ? WHERE seq = " + str(seq),
            params=(other_card(row(db, seq)[0]),))
    return seq


def delete(db: Path) -> int:
    outside(db, "DELETE FROM events WHERE seq = 200")
    return 200


def insert(db: Path) -> int:
    """A forged event between seq 299 and 300: later seqs move up by one."""
    body, prev, _ = row(db, 300)
    outside(db, "UPDATE events SET seq = -seq WHERE seq >= 300",
            "UPDATE events SET seq = -seq + 1 WHERE seq < 0")
    forged = other_card(body)
    digest = rehash(prev, forged)
    event = json.loads(forged)
    outside(db, "INSERT INTO events (seq, ts, src, type, body, prev_hash, hash) "
                "VALUES (300, ?, ?, ?, ?, ?, ?)",
            params=(event["ts"], event["src"], event["type"], forged, prev, digest))
    return 300


def reorder(db: Path) -> int:
    outside(db, "UPDATE events SET seq = -1 WHERE seq = 400",
            "UPDATE events SET seq = 400 WHERE seq = 401",
            "UPDATE events SET seq = 401 WHERE seq = -1")
    return 400


def edit_and_rechain(db: Path) -> int:
    """Change an event and recompute every hash after it: only a checkpoint can tell, so the
    seq reported is that of the first checkpoint after the change."""
    seq = card_seq(db, 100)
    rechain_from(db, seq, other_card)
    conn = sqlite3.connect(db)
    checkpoint = conn.execute("SELECT MIN(seq) FROM checkpoints WHERE seq >= ?", (seq,)).fetchone()
    conn.close()
    return checkpoint[0]


@pytest.mark.parametrize("tamper", [edit, delete, insert, reorder, edit_and_rechain])
def test_an_export_refuses_to_sign_a_tampered_log(day_log, export, tmp_path, capsys, tamper):
    seq = tamper(day_log.path)
    out = tmp_path / "t.zip"
    status, _, err = export(day_log.path, out)
    assert status == 2
    assert "refusing to sign" in err and f"seq {seq}" in err and "verify-log" in err
    assert not out.exists() and list(tmp_path.glob(".*partial")) == []
    assert main(["verify-log", str(day_log.path)]) == 1
    assert "FAIL at seq" in capsys.readouterr().out


# ---- the zip, after -----------------------------------------------------------------------

def flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x20]) + data[at + 1:]


@pytest.mark.parametrize("name", ["events.jsonl", "games.csv", "decisions.csv", "flags.csv",
                                  "manifest.json", "manifest.sig"])
def test_a_changed_byte_in_any_file_of_the_zip_is_caught(day_zip, verify, tmp_path, name):
    files = members(day_zip)
    files[name] = flip(files[name], len(files[name]) // 2)
    status, out = verify(rezip(files, tmp_path / "changed.zip"))
    assert status == 1
    assert out.rstrip().endswith("does not verify")
    culprit = "manifest.sig" if name.startswith("manifest") else name
    assert any(line.startswith(culprit) for line in out.splitlines()), out


@pytest.mark.parametrize("name", ["events.jsonl", "games.csv", "manifest.json", "manifest.sig"])
def test_a_changed_byte_in_the_zip_file_itself_is_caught(day_zip, verify, tmp_path, name):
    with zipfile.ZipFile(day_zip) as zf:
        info = zf.getinfo(name)
    data = day_zip.read_bytes()
    header = 30 + len(info.filename.encode()) + len(info.extra)
    # The local header's own extra field may differ from the central directory's: read it.
    name_len = int.from_bytes(data[info.header_offset + 26:info.header_offset + 28], "little")
    extra_len = int.from_bytes(data[info.header_offset + 28:info.header_offset + 30], "little")
    header = 30 + name_len + extra_len
    at = info.header_offset + header + info.compress_size // 2
    broken = tmp_path / "broken.zip"
    broken.write_bytes(flip(data, at))
    status, out = verify(broken)
    assert status == 1, out
    assert name.split(".")[0] in out or "manifest" in out


def test_a_manifest_signed_by_another_key_is_refused(day_zip, verify, other_keys, tmp_path):
    files = members(day_zip)
    files["manifest.sig"] = load_private_key(other_keys.private).sign(files["manifest.json"])
    status, out = verify(rezip(files, tmp_path / "resigned.zip"))
    assert status == 1
    assert out.startswith("manifest.sig: the signature of manifest.json does not verify")
    assert verify(tmp_path / "resigned.zip", other_keys.public)[0] == 0  # it is that key's


def resign(files: dict[str, bytes], key: Ed25519PrivateKey) -> dict[str, bytes]:
    """Re-hash the data files into the manifest and sign it again with `key`."""
    manifest = json.loads(files["manifest.json"])
    for name, entry in manifest["files"].items():
        entry["sha256"] = hashlib.sha256(files[name]).hexdigest()
        entry["bytes"] = len(files[name])
    files["manifest.json"] = manifest_bytes(manifest)
    files["manifest.sig"] = key.sign(files["manifest.json"])
    return files


def test_a_rewritten_export_signed_by_another_key_is_refused(day_zip, verify, other_keys,
                                                             tmp_path):
    files = members(day_zip)
    files["games.csv"] = files["games.csv"].replace(b",banker,", b",player,", 1)
    resign(files, load_private_key(other_keys.private))
    status, out = verify(rezip(files, tmp_path / "rewritten.zip"))
    assert status == 1
    assert out.startswith("manifest.sig: ")


def edit_csv(data: bytes, row_index: int, column: str, value: str) -> tuple[bytes, str]:
    rows = list(csv.reader(io.StringIO(data.decode(), newline="")))
    header = rows[0]
    old = rows[row_index][header.index(column)]
    rows[row_index][header.index(column)] = value
    buffer = io.StringIO(newline="")
    csv.writer(buffer).writerows(rows)
    return buffer.getvalue().encode(), old


def test_a_games_row_that_disagrees_with_the_events_is_caught(day_zip, verify, keys, tmp_path):
    """Signed with the right key, hashes right: only the re-audit can tell."""
    files = members(day_zip)
    files["games.csv"], old = edit_csv(files["games.csv"], 5, "winner", "tie")
    assert old != "tie"
    resign(files, load_private_key(keys.private))
    status, out = verify(rezip(files, tmp_path / "lying.zip"))
    assert status == 1
    assert out.splitlines()[0] == (f"games.csv row 5: shoe S1 (seq 1) game 5: winner says 'tie', "
                                   f"the events imply {old!r}")
    assert len(out.splitlines()) == 2


@pytest.mark.parametrize("name,column,value", [
    ("flags.csv", "detail", "nothing to see"),
    ("decisions.csv", "by", "S-999"),
])
def test_a_flag_or_decision_row_that_disagrees_is_caught(day_zip, verify, keys, tmp_path, name,
                                                         column, value):
    files = members(day_zip)
    files[name], _ = edit_csv(files[name], 1, column, value)
    resign(files, load_private_key(keys.private))
    status, out = verify(rezip(files, tmp_path / "lying.zip"))
    assert status == 1
    assert out.startswith(f"{name} row 1: ") and f"{column} says {value!r}" in out


def test_a_games_row_left_out_is_caught(day_zip, verify, keys, tmp_path):
    files = members(day_zip)
    lines = files["games.csv"].split(b"\r\n")
    files["games.csv"] = b"\r\n".join(lines[:10] + lines[11:])
    resign(files, load_private_key(keys.private))
    status, out = verify(rezip(files, tmp_path / "short.zip"))
    assert status == 1 and "games.csv row 10: " in out


def test_an_event_deleted_from_events_jsonl_is_caught_even_when_re_signed(day_zip, verify, keys,
                                                                        tmp_path):
    files = members(day_zip)
    lines = files["events.jsonl"].split(b"\n")
    files["events.jsonl"] = b"\n".join(lines[:50] + lines[51:])
    resign(files, load_private_key(keys.private))
    status, out = verify(rezip(files, tmp_path / "gap.zip"))
    assert status == 1
    assert "events.jsonl line 51: seq 52 follows seq 50 (expected seq 51)" in out


def test_an_edited_event_with_its_chain_recomputed_is_caught_at_the_signed_end(
        day_zip, verify, keys, tmp_path):
    files = members(day_zip)
    lines = [json.loads(line) for line in files["events.jsonl"].decode().splitlines()]
    victim = next(i for i, line in enumerate(lines) if line["event"]["type"] == "card" and i > 20)
    lines[victim]["event"]["card"] = "QS" if lines[victim]["event"]["card"] != "QS" else "JS"
    prev = lines[victim]["prev_hash"]
    for line in lines[victim:]:
        text = json.dumps(line["event"], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        line["prev_hash"], line["hash"] = prev, hashlib.sha256((prev + text).encode()).hexdigest()
        prev = line["hash"]
    files["events.jsonl"] = "".join(
        json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
        for line in lines).encode()
    resign(files, load_private_key(keys.private))
    status, out = verify(rezip(files, tmp_path / "rechained.zip"))
    assert status == 1
    assert "manifest.json: chain.end says" in out  # the signed head is not the chain's end
    assert "checkpoint" in out


def test_an_extra_file_in_the_zip_is_reported(day_zip, verify, tmp_path):
    files = members(day_zip)
    files["notes.txt"] = b"trust me"
    status, out = verify(rezip(files, tmp_path / "extra.zip"))
    assert status == 1 and "notes.txt: is in the zip but not part of an export" in out


def test_a_file_that_is_not_a_zip_is_reported(verify, tmp_path):
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip at all")
    status, out = verify(junk)
    assert status == 1 and "junk.zip: cannot be opened as a zip file" in out


def test_a_signed_manifest_of_the_wrong_shape_is_reported_not_a_crash(day_zip, verify, keys,
                                                                      tmp_path):
    files = members(day_zip)
    manifest = json.loads(files["manifest.json"])
    manifest["chain"] = ["not", "a", "chain"]
    manifest["files"] = "none"
    files["manifest.json"] = manifest_bytes(manifest)
    files["manifest.sig"] = load_private_key(keys.private).sign(files["manifest.json"])
    status, out = verify(rezip(files, tmp_path / "odd.zip"))
    assert status == 1
    assert "manifest.json: chain or counts are not in the documented form" in out
    assert "manifest.json: lists no SHA-256 for games.csv" in out


@pytest.mark.parametrize("name", ["events.jsonl", "manifest.json"])
def test_damaged_compressed_data_is_a_finding_never_a_crash(day_zip, verify, tmp_path, name):
    """Flipping bytes inside deflated data can make zlib itself fail: each is a finding."""
    with zipfile.ZipFile(day_zip) as zf:
        info = zf.getinfo(name)
    data = day_zip.read_bytes()
    name_len = int.from_bytes(data[info.header_offset + 26:info.header_offset + 28], "little")
    extra_len = int.from_bytes(data[info.header_offset + 28:info.header_offset + 30], "little")
    start = info.header_offset + 30 + name_len + extra_len
    broken = tmp_path / "broken.zip"
    for step in range(1, 25):
        broken.write_bytes(flip(data, start + info.compress_size * step // 25))
        status, out = verify(broken)
        assert status == 1, out
