"""The seal on snapshot files, attacked as someone who can write the state folder and has the
source but not the table's signing key would: every forged, edited, cut or foreign snapshot is
refused with a warning before anything in it is unpickled, the whole log is replayed (the
table is exactly the full replay's) and the refusal is counted for `/metrics`."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.domain.house import HouseRules
from dealer_assist.services import table_state
from dealer_assist.services.table_state import settings_key
from dealer_assist.store.snapshot import MAGIC, REASONS, TableSnapshots
from dealer_assist.store.snapshot_seal import SnapshotSeal
from dealer_assist.store.sqlite_log import SqliteEventReader
from dealer_assist.web.health import exposition
from tests.store.sealing import OTHER_KEY, seal
from tests.store.snapshot_tables import (
    EVENTS,
    PAYTABLES,
    Opened,
    assert_full_replay,
    full_replay,
    open_table,
    restart,
    run_table,
    snapshot_files,
)

KEY = settings_key("T1", HouseRules(), PAYTABLES)


# ---- the file as an attacker reads and writes it ---------------------------------------------

def read(path: Path) -> tuple[dict[str, Any], bytes, bytes]:
    """A snapshot's header, seal and state bytes."""
    data = path.read_bytes()
    assert data.startswith(MAGIC)
    header, mac, payload = data[len(MAGIC):].split(b"\n", 2)
    return json.loads(header), bytes.fromhex(mac.decode()), payload


def write(path: Path, header: dict[str, Any], mac: bytes, payload: bytes) -> None:
    """The file with its header made to fit `payload` (the size recomputed)."""
    header = {**header, "size": len(payload)}
    path.write_bytes(MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n"
                     + mac.hex().encode() + b"\n" + payload)


def reseal(path: Path, sealed: SnapshotSeal) -> None:
    """Seal the file again as it is, under `sealed` (another key, another table)."""
    header, _, payload = read(path)
    text = json.dumps(header, sort_keys=True).encode()
    write(path, header, sealed.seal(header["seq"], header["head"], text, payload), payload)


def without_flags(payload: bytes) -> bytes:
    """The issue's attack: every flag removed and the variant set to super6 (unpickled with
    plain pickle: the attacker's own machine)."""
    outer = pickle.loads(payload)
    shoes = []
    for blob in outer["shoes"]:
        shoe = pickle.loads(blob)
        shoe.flags = []
        for game in shoe.games:
            game.flags = []
        shoe.house = dataclasses.replace(shoe.house, variant="super6")
        shoes.append(pickle.dumps(shoe))
    return pickle.dumps({**outer, "shoes": shoes})


# ---- the attacks ---------------------------------------------------------------------------

def forged_header_recomputed(path: Path) -> None:
    header, mac, payload = read(path)
    write(path, header, mac, without_flags(payload))


def forged_and_sealed_with_another_key(path: Path) -> None:
    forged_header_recomputed(path)
    reseal(path, seal("T1", OTHER_KEY))


def another_keys_snapshot(path: Path) -> None:
    reseal(path, seal("T1", OTHER_KEY))


def another_tables_snapshot(path: Path) -> None:
    """What table T2, on the same signing key, would have written at the same seq."""
    header, _, payload = read(path)
    write(path, {**header, "key": {**header["key"], "table": "T2"}}, b"", payload)
    reseal(path, seal("T2"))


def another_tables_snapshot_claiming_this_table(path: Path) -> None:
    reseal(path, seal("T2"))  # the same signing key, the seal of table T2


def seq_moved_back(path: Path) -> None:
    header, mac, payload = read(path)
    write(path, {**header, "seq": header["seq"] - 1}, mac, payload)


def head_replaced(path: Path) -> None:
    header, mac, payload = read(path)
    write(path, {**header, "head": hashlib.sha256(b"another chain").hexdigest()}, mac, payload)


def cut_short_with_its_size_fixed(path: Path) -> None:
    header, mac, payload = read(path)
    write(path, header, mac, payload[: len(payload) // 2])


def cut_short(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-100])


def cut_in_its_header(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:60])


def one_byte_flipped(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-500] ^= 0x01
    path.write_bytes(bytes(data))


def unsealed_old_version(path: Path) -> None:
    """What the version before the seal wrote: a header with a SHA-256 the writer computed."""
    header, _, payload = read(path)
    old = {**header, "sha256": hashlib.sha256(without_flags(payload)).hexdigest(),
           "size": len(without_flags(payload))}
    path.write_bytes(b"dealer-assist table snapshot 1\n" + json.dumps(old).encode() + b"\n"
                     + without_flags(payload))


ATTACKS: list[tuple[Callable[[Path], None], str, str]] = [
    (forged_header_recomputed, "seal", "its seal does not verify"),
    (forged_and_sealed_with_another_key, "seal", "its seal does not verify"),
    (another_keys_snapshot, "seal", "its seal does not verify"),
    (another_tables_snapshot, "foreign", "it was taken with table 'T2'; the table has 'T1'"),
    (another_tables_snapshot_claiming_this_table, "seal", "its seal does not verify"),
    (seq_moved_back, "seal", "its seal does not verify"),
    (head_replaced, "seal", "its seal does not verify"),
    (cut_short_with_its_size_fixed, "seal", "its seal does not verify"),
    (one_byte_flipped, "seal", "its seal does not verify"),
    (cut_short, "truncated", "its contents are cut short or grown"),
    (cut_in_its_header, "unreadable", "not a table snapshot of this version"),
    (unsealed_old_version, "unreadable", "not a table snapshot of this version"),
]


def assert_refused(opened: Opened, db: Path, caplog: pytest.LogCaptureFixture, reason: str,
                   why: str) -> None:
    """Refused with a warning, the whole log replayed, the table the full replay's, counted."""
    table = opened.table
    assert_full_replay(table, caplog, why)
    whole = full_replay(db)
    assert (table.review_queue(), table.shoes(), table.public(), table.history()) == \
        (whole.review_queue(), whole.shoes(), whole.public(), whole.history())
    assert opened.snapshots.refused == {r: int(r == reason) for r in REASONS}
    lines = exposition(table.signals(), True, None, refused=opened.snapshots.refused,
                       now=0.0).splitlines()
    assert f'dealer_assist_snapshots_refused_total{{reason="{reason}"}} 1' in lines
    assert "dealer_assist_snapshots_sealed 1" in lines


@pytest.mark.parametrize("attack, reason, why", ATTACKS, ids=[a.__name__ for a, _, _ in ATTACKS])
def test_a_forged_changed_cut_or_foreign_snapshot_is_refused_and_the_log_replayed(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, attack: Callable[[Path], None],
        reason: str, why: str) -> None:
    db = tmp_path / "T1.events.db"
    before = run_table(db, EVENTS[:300])
    assert len(before.review_queue()) == 2
    (path,) = snapshot_files(db)
    attack(path)
    opened = restart(db, caplog)
    assert f"snapshot {path.name} refused: {why}" in caplog.text
    assert_refused(opened, db, caplog, reason, why)
    assert len(opened.table.review_queue()) == 2  # the flags the forgery removed are there


def test_the_forgery_would_work_were_it_sealed_with_the_tables_key(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The control of the attack above: with the key (which the attacker has not), the
    forged state loads and hides the flags. So the seal is what refuses it."""
    db = tmp_path / "T1.events.db"
    run_table(db, EVENTS[:300])
    (path,) = snapshot_files(db)
    forged_header_recomputed(path)
    reseal(path, seal("T1"))
    table = restart(db, caplog).table
    assert table.started == "snapshot at seq 300, 0 events replayed"
    assert table.review_queue() == [] and table.shoes()[0]["variant"] == "super6"


def test_a_valid_snapshot_is_used_and_nothing_is_counted(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "T1.events.db"
    run_table(db, EVENTS[:300])
    opened = restart(db, caplog)
    assert opened.table.started == "snapshot at seq 300, 0 events replayed"
    assert opened.table.review_queue() == full_replay(db).review_queue()
    assert set(opened.snapshots.refused.values()) == {0}
    assert "refused" not in caplog.text


def test_a_sealed_snapshot_of_another_log_is_refused_by_the_log(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Sealed by this table with its key, but at a seq whose event the log does not hold:
    the seal binds the head hash, the log says it is not its own."""
    db = tmp_path / "T1.events.db"
    run_table(db, EVENTS[:300])
    (path,) = snapshot_files(db)
    kept = path.read_bytes()
    for old in tmp_path.glob("T1.events.db*"):
        old.unlink()
    run_table(db, EVENTS[:299] + [{**EVENTS[299], "ts": "2026-12-31T23:59:59.000Z"}])
    for new in snapshot_files(db):
        new.unlink()
    path.write_bytes(kept)
    opened = restart(db, caplog)
    assert_refused(opened, db, caplog, "log", "the log's event 300 is not the one it was taken at")


def test_the_newest_snapshot_forged_the_one_before_it_is_used(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "T1.events.db"
    run_table(db, EVENTS[:300], snapshot_every=100)
    older, newest = snapshot_files(db)
    forged_header_recomputed(newest)
    opened = restart(db, caplog)
    assert opened.table.started == "snapshot at seq 200, 100 events replayed"
    assert opened.table.review_queue() == full_replay(db).review_queue()
    assert opened.snapshots.refused["seal"] == 1


# ---- nothing is unpickled before the seal and the log vouch for it ------------------------

class Hostile:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> Any:
        return (os.system, (f"touch {self.marker}",))


def hostile_snapshot(db: Path, marker: Path, sealed: SnapshotSeal) -> None:
    """A table's log of 50 events and, beside it, a snapshot at 50 whose state runs a command
    when unpickled, sealed with `sealed`."""
    opened = open_table(db)
    for event in EVENTS[:50]:
        opened.table.observe(event)
    TableSnapshots(opened.log, db, sealed).save(KEY, 50, pickle.dumps(Hostile(marker)))
    opened.log.close()


@pytest.mark.parametrize("sealed, runs", [(seal("T1", OTHER_KEY), False), (seal("T1"), True)],
                         ids=["another key: never unpickled", "the table's key: the control"])
def test_no_pickle_is_loaded_before_the_seal_is_checked(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch,
        sealed: SnapshotSeal, runs: bool) -> None:
    """With the restricting unpickler taken away (the second wall gone), a hostile state under
    a wrong seal still runs nothing: it is never unpickled. The control, under the table's own
    seal, shows that the same bytes do run once they reach pickle."""
    db, marker = tmp_path / "T1.events.db", tmp_path / "pwned"
    hostile_snapshot(db, marker, sealed)
    monkeypatch.setattr(table_state, "_DomainOnly", pickle.Unpickler)
    opened = restart(db, caplog)
    assert marker.exists() is runs
    assert opened.table.started == f"{opened.table.seq} events replayed"  # refused either way
    assert opened.snapshots.refused["seal" if not runs else "state"] == 1


@pytest.mark.parametrize("attack", [forged_header_recomputed, another_keys_snapshot, cut_short,
                                    seq_moved_back])
def test_the_state_is_never_decoded_for_a_refused_snapshot(
        tmp_path: Path, attack: Callable[[Path], None]) -> None:
    db = tmp_path / "T1.events.db"
    run_table(db, EVENTS[:120])
    (path,) = snapshot_files(db)
    attack(path)
    decoded: list[int] = []

    def decode(data: bytes, seq: int) -> None:
        decoded.append(seq)

    snapshots = TableSnapshots(SqliteEventReader(db), db, seal("T1"))
    with pytest.raises(LookupError, match="refused|seal|cut short"):
        snapshots.newest(KEY, decode)
    assert decoded == []
