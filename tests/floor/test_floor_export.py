"""Floor exports: tables shipped to a real PostgreSQL, exported over a range as one signed zip
that `dealer-assist verify` checks offline; a changed byte anywhere in it is caught. Tables A
and B sign their checkpoints (each with its own key) and ship them; C does not sign.
(test_floor_export_checkpoints.py checks each table's chain against its own key.)"""

from __future__ import annotations

import argparse
import json
import random
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dealer_assist.cli import main
from dealer_assist.commands.floor_export import register_floor_export
from dealer_assist.config.paytables import load_paytables
from dealer_assist.devices.deal.dealing import deal_shoe
from dealer_assist.floor.export import write_floor_export
from dealer_assist.shipping.checkpoints import CheckpointShipper
from dealer_assist.shipping.shipper import Shipper
from dealer_assist.signing_keys import generate_keys, load_private_key
from dealer_assist.store.sqlite_log import SqliteEventLog

DAY = datetime(2026, 11, 29, tzinfo=UTC)
NEXT = datetime(2026, 11, 30, tzinfo=UTC)


def dealt(seed: int, shoe: str, start: datetime, mistakes: tuple[str, ...] = ()) -> list[dict]:
    return deal_shoe(random.Random(seed), shoe_id=shoe, mistakes=mistakes, start=start)


@pytest.fixture
def signers() -> dict[str, Ed25519PrivateKey]:
    """The keys tables A and B sign their checkpoints with (C does not sign)."""
    return {"A": Ed25519PrivateKey.generate(), "B": Ed25519PrivateKey.generate()}


def table_log_of(folder: Path, table: str, shoes: list[list[dict]],
                 key: Ed25519PrivateKey | None) -> SqliteEventLog:
    """A table's log as the service writes it: with a key, a signed checkpoint every 100
    events and at each shoe's end."""
    log = SqliteEventLog(folder / f"{table}.db", signer=key.sign if key else None,
                         table_id=table, checkpoint_every=100, checkpoint_interval=None)
    for shoe in shoes:
        for at in range(0, len(shoe), 40):
            log.append_many(shoe[at:at + 40])
        if key:
            log.checkpoint()
    return log


@pytest.fixture
def shipped(floor, tmp_path, signers):
    """Three tables in the central store: A with two shoes on the day and one the day after,
    B with one shoe on the day, C with one shoe the day after only; A's and B's signed
    checkpoints shipped with their keys."""
    tables = {}
    plan = {
        "A": [dealt(1, "A1", DAY.replace(hour=10), ("unneeded_draw",)),
              dealt(2, "A2", DAY.replace(hour=14)), dealt(3, "A3", NEXT.replace(hour=10))],
        "B": [dealt(4, "B1", DAY.replace(hour=12), ("missed_draw",))],
        "C": [dealt(5, "C1", NEXT.replace(hour=12))],
    }
    for name, shoes in plan.items():
        table, dsn = floor.add_table()
        log = table_log_of(tmp_path, table, shoes, signers.get(name))
        shipper = Shipper(str(log.path), table, dsn)
        assert shipper.ship_once() == sum(len(s) for s in shoes)
        shipper.stop()
        if name in signers:
            with psycopg.connect(dsn) as conn:
                cps = CheckpointShipper(log.path, table, signers[name].public_key())
                assert cps.ship(conn) == len(log.signed_checkpoints())
        log.close()
        tables[name] = (table, [e for shoe in shoes for e in shoe])
    return tables


@pytest.fixture
def keys(tmp_path_factory):
    return generate_keys(tmp_path_factory.mktemp("keys") / "floor")


@pytest.fixture
def floor_zip(floor, shipped, keys, tmp_path) -> Path:
    out = tmp_path / "floor.zip"
    write_floor_export(floor.owner, [shipped[n][0] for n in "ABC"], DAY, NEXT, out=out,
                       key=load_private_key(keys.private), paytables=load_paytables())
    return out


def verify(path: Path, pubkey: Path, capsys) -> tuple[int, str]:
    status = main(["verify", str(path), "--pubkey", str(pubkey)])
    return status, capsys.readouterr().out


def test_a_floor_export_verifies_offline_with_each_tables_chain_head(floor, shipped, keys,
                                                                     floor_zip, capsys):
    status, out = verify(floor_zip, keys.public, capsys)
    assert status == 0, out
    a, b, c = (shipped[n][0] for n in "ABC")
    assert out.startswith("OK: floor export of 2 table(s)")
    assert f"table {a}: {len(shipped['A'][1]) - len(dealt(3, 'A3', NEXT))} events" in out
    assert f"no events in the range: {c}" in out
    with zipfile.ZipFile(floor_zip) as zf:
        assert sorted(zf.namelist()) == ["manifest.json", "manifest.sig",
                                         f"tables/{a}.checkpoints.json", f"tables/{a}.zip",
                                         f"tables/{b}.checkpoints.json", f"tables/{b}.zip"]
        manifest = json.loads(zf.read("manifest.json"))
        signed_a = json.loads(zf.read(f"tables/{a}.checkpoints.json"))
    assert manifest["not_checked"] == []  # every table's chain is checked against its key
    entries = {t["table"]: t for t in manifest["tables"]}
    # B's whole log is in the range: its chain ends at the central head.
    floor.owner.commit()
    head_b = floor.owner.execute("SELECT seq, hash FROM table_heads WHERE table_id = %s",
                                 (b,)).fetchone()
    assert entries[b]["chain"]["end"] == {"seq": head_b[0], "hash": head_b[1]}
    assert entries[b]["central_head"]["seq"] == head_b[0]
    # A's range stops before its third shoe; the central head is past it.
    assert entries[a]["chain"]["end"]["seq"] < entries[a]["central_head"]["seq"]
    assert entries[a]["chain"]["start"]["seq"] == 0
    assert entries[a]["counts"]["shoes"] == 2 and entries[b]["counts"]["flags"] >= 1
    # A's part: its key, its checkpoints through the range's end (the end of shoe A2, signed),
    # and the first one after it, which links back to that one.
    assert entries[a]["table_key"] == signed_a["public_key"]["fingerprint"]
    assert entries[a]["signed_checkpoints"] == f"tables/{a}.checkpoints.json"
    end_a = entries[a]["chain"]["end"]["seq"]
    seqs = [c["seq"] for c in signed_a["checkpoints"]]
    assert end_a in seqs and seqs[-1] > end_a and seqs[0] < 200
    assert signed_a["checkpoints"][-1]["prev_seq"] == end_a


def flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x20]) + data[at + 1:]


def test_a_changed_byte_anywhere_in_the_zip_is_caught(floor_zip, keys, capsys, tmp_path):
    """Bytes flipped inside every member's stored data, and inside each table's own members
    within it: every one fails to verify."""
    data = floor_zip.read_bytes()
    with zipfile.ZipFile(floor_zip) as zf:
        infos = zf.infolist()
    broken = tmp_path / "broken.zip"
    tried = 0
    for info in infos:
        name_len = int.from_bytes(data[info.header_offset + 26:info.header_offset + 28], "little")
        extra_len = int.from_bytes(data[info.header_offset + 28:info.header_offset + 30],
                                   "little")
        start = info.header_offset + 30 + name_len + extra_len
        for step in range(0, 8):
            at = start + info.compress_size * step // 8
            broken.write_bytes(flip(data, at))
            status, out = verify(broken, keys.public, capsys)
            assert status == 1, f"{info.filename} byte {at - start}: {out}"
            assert out.rstrip().endswith("does not verify")
            tried += 1
    assert tried == 8 * len(infos)


def test_a_table_export_swapped_or_dropped_is_caught(floor_zip, keys, capsys, tmp_path):
    with zipfile.ZipFile(floor_zip) as zf:
        files = {i.filename: zf.read(i.filename) for i in zf.infolist()}
    tables = sorted(n for n in files if n.startswith("tables/"))

    def rezip(changed: dict[str, bytes], name: str) -> Path:
        path = tmp_path / name
        with zipfile.ZipFile(path, "w") as zf:
            for member, body in changed.items():
                zf.writestr(member, body)
        return path

    swapped = dict(files)
    swapped[tables[0]], swapped[tables[1]] = files[tables[1]], files[tables[0]]
    status, out = verify(rezip(swapped, "swapped.zip"), keys.public, capsys)
    assert status == 1 and "the file was changed" in out
    dropped = {n: b for n, b in files.items() if n != tables[1]}
    status, out = verify(rezip(dropped, "dropped.zip"), keys.public, capsys)
    assert status == 1 and f"{tables[1]}: missing from the zip" in out
    added = {**files, "tables/extra.zip": files[tables[0]]}
    status, out = verify(rezip(added, "added.zip"), keys.public, capsys)
    assert status == 1 and "not listed in the floor manifest" in out


def test_another_key_does_not_verify_it(floor_zip, tmp_path, capsys):
    other = generate_keys(tmp_path / "other")
    status, out = verify(floor_zip, other.public, capsys)
    assert status == 1 and "does not verify with the public key" in out


def test_an_unknown_table_or_an_empty_range_writes_nothing(floor, shipped, keys, tmp_path):
    key, out = load_private_key(keys.private), tmp_path / "none.zip"
    with pytest.raises(ValueError, match="no table NOPE"):
        write_floor_export(floor.owner, ["NOPE"], DAY, NEXT, out=out, key=key,
                           paytables=load_paytables())
    with pytest.raises(ValueError, match="no chosen table has an event"):
        write_floor_export(floor.owner, [shipped["C"][0]], DAY, NEXT, out=out, key=key,
                           paytables=load_paytables())
    assert not out.exists() and list(tmp_path.glob(".*partial")) == []


def test_the_floor_export_command(floor, shipped, keys, tmp_path, capsys, monkeypatch):
    parser = argparse.ArgumentParser()
    register_floor_export(parser.add_subparsers())
    out = tmp_path / "cli.zip"
    a, b = shipped["A"][0], shipped["B"][0]
    args = parser.parse_args(["export", "--tables", f"{a},{b}", "--from", "2026-11-29",
                              "--to", "2026-11-30", "--out", str(out), "--dsn", floor.dsn(),
                              "--signing-key", str(keys.private)])
    assert args.func(args) == 0
    said = capsys.readouterr().out
    assert f"wrote {out}" in said and a in said and b in said
    assert said.count("signed checkpoints of the table's key SHA256:") == 2
    assert "not checked" not in said
    assert verify(out, keys.public, capsys)[0] == 0
    args = parser.parse_args(["export", "--tables", "NOPE", "--from", "2026-11-29", "--to",
                              "2026-11-30", "--out", str(tmp_path / "x.zip"), "--dsn",
                              floor.dsn(), "--signing-key", str(keys.private)])
    from dealer_assist.commands.failed import CommandFailed

    with pytest.raises(CommandFailed, match="no table NOPE"):
        args.func(args)
    # On a site's clock: gaming day 2026-11-29 at UTC+10 from 06:00 local is 20:00Z the day
    # before to 20:00Z that day.
    config = tmp_path / "site.toml"
    config.write_text('[table]\nid = "X"\ndatabase = "x.db"\nusers = "u.db"\n'
                      'time_zone = "Australia/Brisbane"\ngaming_day_starts = 6\n')
    args = parser.parse_args(["export", "--tables", f"{a},{b}", "--from", "2026-11-29",
                              "--to", "2026-11-30", "--config", str(config), "--out",
                              str(tmp_path / "site.zip"), "--dsn", floor.dsn(),
                              "--signing-key", str(keys.private)])
    assert args.func(args) == 0
    assert "2026-11-28T20:00:00.000Z to 2026-11-29T20:00:00.000Z" in capsys.readouterr().out


def test_verify_json_names_the_floor_export(floor_zip, keys, capsys):
    status = main(["verify", str(floor_zip), "--pubkey", str(keys.public), "--json"])
    result = json.loads(capsys.readouterr().out)
    assert status == 0 and result["ok"] is True and result["problems"] == []
    assert result["manifest"]["format"] == "dealer-assist-floor-export/1"
    assert len(result["manifest"]["tables"]) == 2
