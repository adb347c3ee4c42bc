"""Each table's chain in a floor export is checked against the checkpoints the table signed,
with the table's own key, trusting the floor's key for none of it.

Every tampering here is done as the floor itself could do it: the zip is rebuilt and
re-signed with the floor's own key, so the floor's signature holds and only the tables'
signatures can catch it."""
# ruff: noqa: F811 - the fixtures imported from test_floor_export are parameters below

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dealer_assist.cli import main
from dealer_assist.config.paytables import load_paytables
from dealer_assist.export import manifest as mf
from dealer_assist.export.compare import Findings
from dealer_assist.export.floor_verifier import verify_floor_zip
from dealer_assist.export.verifier import verify_export
from dealer_assist.export.writer import LogTampered
from dealer_assist.floor.export import write_floor_export
from dealer_assist.floor_wire import public_pem
from dealer_assist.logformat import ChainHead, Checkpoint, signed_bytes
from dealer_assist.shipping.checkpoints import CheckpointShipper
from dealer_assist.shipping.ingest import Ingest
from dealer_assist.signing_keys import fingerprint, load_private_key, load_public_key
from dealer_assist.store.chain import canonical_json, link_hash
from tests.floor.test_floor_export import (  # noqa: F401 - fixtures
    DAY,
    NEXT,
    dealt,
    floor_zip,
    keys,
    shipped,
    signers,
    table_log_of,
)

Edit = Callable[[dict[str, bytes], dict[str, Any]], None]


def read_members(path: Path | bytes) -> dict[str, bytes]:
    source = io.BytesIO(path) if isinstance(path, bytes) else path
    with zipfile.ZipFile(source) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def resigned(members: dict[str, bytes], key: Ed25519PrivateKey, edit: Edit,
             listed: Callable[[str], bool]) -> bytes:
    """The zip with `edit` applied to its members and its manifest, the manifest's hashes of
    the `listed` files recomputed and signed again with `key`: what a key holder can do."""
    files = dict(members)
    manifest = json.loads(files.pop(mf.MANIFEST))
    files.pop(mf.SIGNATURE)
    edit(files, manifest)
    manifest["files"] = {name: {"sha256": hashlib.sha256(body).hexdigest(), "bytes": len(body)}
                         for name, body in files.items() if listed(name)}
    data = mf.manifest_bytes(manifest)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, body in {**files, mf.MANIFEST: data, mf.SIGNATURE: key.sign(data)}.items():
            zf.writestr(name, body)
    return out.getvalue()


def as_the_floor(floor_zip: Path, keys, edit: Edit, out: Path) -> Path:
    """The floor export rebuilt by whoever holds the floor's key, with `edit` applied."""
    out.write_bytes(resigned(read_members(floor_zip), load_private_key(keys.private), edit,
                             lambda name: name.startswith("tables/")))
    return out


def edit_part(table: str, change: Callable[[dict[str, Any]], None]) -> Edit:
    """An edit of the table's signed checkpoints (`tables/<TABLE>.checkpoints.json`)."""
    def edit(files: dict[str, bytes], manifest: dict[str, Any]) -> None:
        name = f"tables/{table}.checkpoints.json"
        part = json.loads(files[name])
        change(part)
        files[name] = mf.manifest_bytes(part)
        for entry in manifest["tables"]:
            if entry["table"] == table:
                entry["table_key"] = part["public_key"]["fingerprint"]
    return edit


def verify(path: Path, pubkey: Path, capsys) -> tuple[int, str]:
    status = main(["verify", str(path), "--pubkey", str(pubkey)])
    return status, capsys.readouterr().out


def test_re_signed_by_the_floor_unchanged_it_still_verifies(floor_zip, keys, tmp_path, capsys):
    """The control for every test below: the rebuilding alone breaks nothing."""
    out = as_the_floor(floor_zip, keys, lambda files, manifest: None, tmp_path / "same.zip")
    assert verify(out, keys.public, capsys)[0] == 0


def test_an_edited_checkpoint_does_not_verify_with_the_tables_key(floor_zip, keys, shipped,
                                                                  tmp_path, capsys):
    a = shipped["A"][0]

    def change(part: dict[str, Any]) -> None:
        part["checkpoints"][1]["hash"] = "ab" * 32

    status, out = verify(as_the_floor(floor_zip, keys, edit_part(a, change),
                                      tmp_path / "edited.zip"), keys.public, capsys)
    assert status == 1
    assert f"tables/{a}.checkpoints.json seq" in out
    assert f"the signature does not verify with table {a}'s key" in out
    assert "the file was changed" not in out  # the floor's own hashes all hold
    assert "removed" not in out  # the next one's link is not judged against a forgery


def test_a_checkpoint_removed_from_a_tables_part_is_named(floor_zip, keys, shipped, tmp_path,
                                                          capsys):
    a = shipped["A"][0]
    part = json.loads(read_members(floor_zip)[f"tables/{a}.checkpoints.json"])
    seqs = [c["seq"] for c in part["checkpoints"]]
    end = json.loads(read_members(floor_zip)[mf.MANIFEST])["tables"][0]["chain"]["end"]["seq"]
    cases = {
        1: f"signed checkpoints removed between seq {seqs[0]} and seq {seqs[2]}",
        0: f"signed checkpoints removed: the first one follows a signed checkpoint at seq "
           f"{seqs[0]}, inside the range",
        seqs.index(end): f"signed checkpoints removed between seq {seqs[seqs.index(end) - 1]} "
                         f"and seq {seqs[-1]}",
    }
    for index, message in cases.items():
        def drop(part: dict[str, Any], index: int = index) -> None:
            del part["checkpoints"][index]

        status, out = verify(as_the_floor(floor_zip, keys, edit_part(a, drop),
                                          tmp_path / f"dropped-{index}.zip"), keys.public, capsys)
        assert status == 1 and message in out, (index, out)


def test_another_key_in_a_tables_part_is_caught(floor_zip, keys, shipped, signers, tmp_path,
                                                capsys):
    a = shipped["A"][0]
    rogue = Ed25519PrivateKey.generate()

    def swap_key(part: dict[str, Any]) -> None:
        part["public_key"] = {"algorithm": "Ed25519", "fingerprint":
                              fingerprint(rogue.public_key()), "pem": public_pem(rogue.public_key())}

    status, out = verify(as_the_floor(floor_zip, keys, edit_part(a, swap_key),
                                      tmp_path / "swapped.zip"), keys.public, capsys)
    assert status == 1 and f"does not verify with table {a}'s key" \
        f" {fingerprint(rogue.public_key())}" in out

    def re_signed(part: dict[str, Any]) -> None:  # every checkpoint signed again by the rogue
        swap_key(part)
        for c in part["checkpoints"]:
            point = Checkpoint(c["seq"], c["hash"], c["at"])
            c["sig"] = rogue.sign(signed_bytes(a, point, ChainHead(c["prev_seq"],
                                                                   c["prev_hash"]))).hex()

    forged = as_the_floor(floor_zip, keys, edit_part(a, re_signed), tmp_path / "rogue.zip")
    # Consistent in itself: only the table's key, as the regulator holds it, tells.
    assert not check(forged, keys, {})
    findings = check(forged, keys, {a: signers["A"].public_key()})
    assert any(f"not table {a}'s key {fingerprint(signers['A'].public_key())}" in line
               for line in findings.lines()), findings.lines()
    assert not check(floor_zip, keys, {a: signers["A"].public_key(),
                                       shipped["B"][0]: signers["B"].public_key()})


def check(path: Path, keys, table_keys: dict[str, Any]) -> Findings:
    """verify_floor_zip with the tables' keys pinned, as the verifier holds them."""
    findings = Findings()
    with zipfile.ZipFile(path) as zf:
        data = zf.read(mf.MANIFEST)
        verify_floor_zip(zf, json.loads(data), data, zf.read(mf.SIGNATURE),
                         load_public_key(keys.public), findings, verify_export,
                         table_keys=table_keys)
    return findings


def test_a_checkpoint_left_out_of_a_tables_own_export_is_named(floor_zip, keys, shipped,
                                                               tmp_path, capsys):
    """The floor rebuilds A's own export without one signed checkpoint, or with another hash
    at it, so that its chain is not walked through it."""
    a = shipped["A"][0]
    floor_key = load_private_key(keys.private)
    inner_name = f"tables/{a}.zip"
    seq = json.loads(read_members(floor_zip)[f"tables/{a}.checkpoints.json"])[
        "checkpoints"][1]["seq"]

    def rebuild(change: Callable[[list[dict[str, Any]]], None]) -> Edit:
        def edit(files: dict[str, bytes], manifest: dict[str, Any]) -> None:
            def inner_edit(inner: dict[str, bytes], own: dict[str, Any]) -> None:
                change(own["chain"]["checkpoints"])
            files[inner_name] = resigned(read_members(files[inner_name]), floor_key,
                                         inner_edit, lambda name: name in mf.DATA_FILES)
        return edit

    def left_out(points: list[dict[str, Any]]) -> None:
        points[:] = [p for p in points if p["seq"] != seq]

    status, out = verify(as_the_floor(floor_zip, keys, rebuild(left_out),
                                      tmp_path / "left-out.zip"), keys.public, capsys)
    assert status == 1, out
    assert f"the table's export does not list the checkpoint table {a} signed at seq {seq}" \
        in out

    def other_hash(points: list[dict[str, Any]]) -> None:
        for p in points:
            if p["seq"] == seq:
                p["hash"] = "cd" * 32

    status, out = verify(as_the_floor(floor_zip, keys, rebuild(other_hash),
                                      tmp_path / "other-hash.zip"), keys.public, capsys)
    assert status == 1 and f"rewritten at seq {seq}: table {a} signed hash" in out


def test_a_table_without_a_key_is_named_in_not_checked(floor, shipped, keys, tmp_path, capsys):
    a, c = shipped["A"][0], shipped["C"][0]
    out = tmp_path / "next.zip"
    written = write_floor_export(floor.owner, [a, c], NEXT, NEXT + timedelta(days=1),
                                 out=out, key=load_private_key(keys.private),
                                 paytables=load_paytables())
    assert verify(out, keys.public, capsys)[0] == 0
    not_checked = written.manifest["not_checked"]
    assert len(not_checked) == 1 and not_checked[0].startswith(f"table {c}: no key registered")
    entries = {t["table"]: t for t in written.manifest["tables"]}
    assert "signed_checkpoints" not in entries[c] and entries[a]["signed_checkpoints"]


def rewrite_history(floor, table: str, seq: int, signed_too: bool) -> None:
    """What the central store's owner can do: one of the table's events changed, the chain
    after it recomputed, and (`signed_too`) the signed checkpoints' hashes made to match."""
    conn = floor.owner
    conn.execute("ALTER TABLE events DISABLE TRIGGER USER")
    rows = conn.execute("SELECT seq, body, prev_hash FROM events WHERE table_id = %s "
                        "AND seq >= %s ORDER BY seq", (table, seq)).fetchall()
    prev, hashes = rows[0][2], {}
    for number, body, _ in rows:
        if number == seq:
            event = json.loads(body)
            event["src"] = "rewritten"
            body = canonical_json(event)
        hashes[number] = link_hash(prev, body)
        conn.execute("UPDATE events SET body = %s, prev_hash = %s, hash = %s "
                     "WHERE table_id = %s AND seq = %s", (body, prev, hashes[number], table,
                                                         number))
        prev = hashes[number]
    conn.execute("UPDATE table_heads SET hash = %s WHERE table_id = %s", (prev, table))
    conn.execute("ALTER TABLE events ENABLE TRIGGER USER")
    if signed_too:
        conn.execute("ALTER TABLE signed_checkpoints DISABLE TRIGGER USER")
        for number, digest in hashes.items():
            conn.execute("UPDATE signed_checkpoints SET hash = %s WHERE table_id = %s "
                         "AND seq = %s", (digest, table, number))
            conn.execute("UPDATE signed_checkpoints SET prev_hash = %s WHERE table_id = %s "
                         "AND prev_seq = %s", (digest, table, number))
        conn.execute("ALTER TABLE signed_checkpoints ENABLE TRIGGER USER")
    conn.commit()


def test_history_rewritten_in_the_central_store_fails_on_the_tables_signatures(
        floor, shipped, keys, tmp_path, capsys):
    """The floor's own software refuses to sign a table's copy that no longer matches the
    table's signed checkpoints; with those changed too, the export it signs does not verify."""
    b = shipped["B"][0]
    key = load_private_key(keys.private)

    def export(name: str) -> Path:
        out = tmp_path / name
        write_floor_export(floor.owner, [b], DAY, NEXT, out=out, key=key,
                           paytables=load_paytables())
        return out

    rewrite_history(floor, b, 150, signed_too=False)
    with pytest.raises(LogTampered, match="checkpoint"):
        export("refused.zip")
    rewrite_history(floor, b, 150, signed_too=True)
    status, out = verify(export("rewritten.zip"), keys.public, capsys)
    assert status == 1
    assert f"tables/{b}.checkpoints.json seq 200: the signature does not verify with table " \
        f"{b}'s key" in out


def long_table(floor, tmp_path: Path, checkpoints_upto: int | None = None) -> tuple[str, int]:
    """A signing table with three shoes on the day, all shipped (its signed checkpoints only
    up to `checkpoints_upto` when given); its id and head seq."""
    signer = Ed25519PrivateKey.generate()
    table, dsn = floor.add_table()
    shoes = [dealt(10 + n, f"L{n}", DAY.replace(hour=8 + 3 * n)) for n in range(3)]
    log = table_log_of(tmp_path, table, shoes, signer)
    with psycopg.connect(dsn) as conn:
        ingest = Ingest(conn, table)
        records = list(log.raw_records())
        ingest.ship(records[:checkpoints_upto])
        CheckpointShipper(log.path, table, signer.public_key()).ship(conn)
        if checkpoints_upto is not None:
            ingest.ship(records[checkpoints_upto:])
    head = log.head().seq
    log.close()
    return table, head


def test_a_table_whose_checkpoints_lag_far_behind_is_refused_not_signed(floor, keys,
                                                                         tmp_path):
    table, head = long_table(floor, tmp_path, checkpoints_upto=300)
    out = tmp_path / "behind.zip"
    with pytest.raises(ValueError, match=f"table {table}'s signed checkpoints in the central "
                       "store end .* its shipper is still catching up"):
        write_floor_export(floor.owner, [table], DAY, NEXT, out=out,
                           key=load_private_key(keys.private), paytables=load_paytables())
    assert not out.exists()


def test_signed_checkpoints_cut_off_at_the_end_of_a_long_range_are_caught(floor, keys,
                                                                            tmp_path, capsys):
    """Three shoes, the range up to the table's head: with every signed checkpoint past seq
    300 removed, over 1,000 events lie past the last, more than the table ever leaves."""
    table, head = long_table(floor, tmp_path)
    out = tmp_path / "long.zip"
    write_floor_export(floor.owner, [table], DAY, NEXT, out=out,
                       key=load_private_key(keys.private), paytables=load_paytables())
    assert verify(out, keys.public, capsys)[0] == 0

    def cut(part: dict[str, Any]) -> None:
        part["checkpoints"] = [c for c in part["checkpoints"] if c["seq"] <= 300]

    status, said = verify(as_the_floor(out, keys, edit_part(table, cut), tmp_path / "cut.zip"),
                          keys.public, capsys)
    kept = max(c["seq"] for c in json.loads(read_members(out)[
        f"tables/{table}.checkpoints.json"])["checkpoints"] if c["seq"] <= 300)
    assert status == 1 and head - kept > 1000
    assert f"signed checkpoints removed (after seq {kept}): the range ends at seq {head}, " \
        f"{head - kept} events past the last" in said


def test_a_malformed_tables_part_is_a_finding_not_a_crash(floor_zip, keys, shipped, tmp_path,
                                                          capsys):
    a = shipped["A"][0]
    for n, body in enumerate((b"[]", b"not json", b'{"format": "x"}',
                              json.dumps({"format": "dealer-assist-signed-checkpoints/1",
                                          "table": a, "public_key": {"pem": 5},
                                          "checkpoints": []}).encode())):
        def garble(files: dict[str, bytes], manifest: dict[str, Any],
                   body: bytes = body) -> None:
            files[f"tables/{a}.checkpoints.json"] = body

        status, out = verify(as_the_floor(floor_zip, keys, garble, tmp_path / f"g{n}.zip"),
                             keys.public, capsys)
        assert status == 1 and f"tables/{a}.checkpoints.json" in out, out
        assert "Traceback" not in out
