"""Verify a floor export (format `dealer-assist-floor-export/1`) with nothing but the zip and
the floor's public key.

In order: the zip holds exactly manifest.json, manifest.sig and the tables' files the manifest
lists; manifest.sig is a good Ed25519 signature of manifest.json; every file has the size and
SHA-256 the manifest gives; each table's file is a table export that verifies on its own with
the same key (export/verifier.py: its chain from its start head to its end head, the re-audit
of its games, flags and decisions); and what the floor manifest says of each table (its id, its
range, its chain heads, its counts) is what that table's own signed manifest says, its end
head no further than the central head.

Then each table's chain on its own, against the checkpoints the **table** signed
(`tables/<TABLE>.checkpoints.json`, with the table's public key), trusting the floor's key for
none of it: every signature holds with the table's key (`table_keys`, when given, pins that key
to the one the verifier holds); the signed checkpoints link one to the next (none was left
out); the first does not follow one inside the range, and the range ends no more than the
table's checkpoint interval past the last (unless one signed after the range links to it); and
the chain holds, at each signed seq in the range, exactly the hash the table signed (the
table's export lists each signed checkpoint, and its own check walks the events through them).
Every problem is reported with the member it is in.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from dealer_assist.export import manifest as mf
from dealer_assist.export.compare import Findings
from dealer_assist.logformat import DEFAULT_CHECKPOINT_EVERY, ChainHead, Checkpoint, signed_bytes
from dealer_assist.signing_keys import fingerprint, signature_holds

FLOOR_FORMAT = "dealer-assist-floor-export/1"
CHECKPOINTS_FORMAT = "dealer-assist-signed-checkpoints/1"
#: The most events a table leaves past its last signed checkpoint (it signs one at least every
#: this many events, and at each shoe's end): the same bound `verify-log --pubkey` uses.
UNSIGNED_TAIL = DEFAULT_CHECKPOINT_EVERY
_UNREADABLE = (zipfile.BadZipFile, OSError, ValueError, EOFError)
_CHUNK = 1 << 20


def verify_floor_zip(zf: zipfile.ZipFile, manifest: dict[str, Any], data: bytes,
                     signature: bytes, public_key: Ed25519PublicKey, findings: Findings,
                     verify_table: Any,
                     table_keys: Mapping[str, Ed25519PublicKey] | None = None) -> None:
    """Check an opened floor export whose manifest.json (`data`, parsed as `manifest`) is
    of the floor format; `verify_table(path, key)` verifies one table's export. `table_keys`
    (table id -> the table's public key, as the verifier holds it) pins the tables' keys."""
    if not signature_holds(public_key, signature, data):
        findings.add(mf.SIGNATURE, "", "the signature of manifest.json does not verify with the "
                     f"public key {fingerprint(public_key)}: the manifest was changed or signed "
                     "by another key")
    files = manifest.get("files")
    tables = manifest.get("tables")
    if not isinstance(files, dict) or not isinstance(tables, list):
        findings.add(mf.MANIFEST, "", "files or tables are not in the documented form")
        return
    names = zf.namelist()
    expected = [*files, mf.MANIFEST, mf.SIGNATURE]
    for member in expected:
        if names.count(member) > 1:
            findings.add(member, "", f"the zip holds {names.count(member)} files of this name")
        elif member not in names:
            findings.add(member, "", "missing from the zip")
    for member in sorted(set(names) - set(expected)):
        findings.add(member, "", "is in the zip but not listed in the floor manifest")
    listed = {entry.get(field) for entry in tables if isinstance(entry, dict)
              for field in ("file", "signed_checkpoints")}
    for name in sorted(set(files) - listed):
        findings.add(mf.MANIFEST, "", f"lists {name} among its files but not among its tables")
    with tempfile.TemporaryDirectory(prefix="floor-verify-") as folder:
        for entry in tables:
            if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
                findings.add(mf.MANIFEST, "", f"a table entry is not in the documented form: "
                             f"{entry!r:.200}")
                continue
            inner = _check_table(zf, entry, files.get(entry["file"]), Path(folder),
                                 public_key, findings, verify_table)
            if inner is not None:
                pinned = (table_keys or {}).get(str(entry.get("table")))
                _check_signed(zf, entry, inner, findings, pinned)


def _check_table(zf: zipfile.ZipFile, entry: dict[str, Any], stated: Any, folder: Path,
                 public_key: Ed25519PublicKey, findings: Findings,
                 verify_table: Any) -> dict[str, Any] | None:
    """Check one table's export in the zip; return its own manifest (None if unreadable)."""
    name = entry["file"]
    if not isinstance(stated, dict):
        findings.add(mf.MANIFEST, "", f"lists no SHA-256 for {name}")
        return None
    if name not in zf.namelist():
        return None  # reported as missing
    copy = folder / f"table-{len(list(folder.iterdir()))}.zip"
    try:
        digest, size = _extract(zf, name, copy)
    except _UNREADABLE as exc:
        findings.add(name, "", f"cannot be read (the zip is damaged): {exc}")
        return None
    if stated.get("sha256") != digest or stated.get("bytes") != size:
        findings.add(name, "", f"SHA-256 {digest} ({size} bytes) is not the manifest's "
                     f"{stated.get('sha256')} ({stated.get('bytes')} bytes): the file was changed")
    result = verify_table(copy, public_key)
    for finding in result.findings.shown:
        findings.add(name, f"{finding.file} {finding.where}".strip(), finding.message)
    for file, more in result.findings.more.items():
        findings.add(name, file, f"and {more} more problem(s)")
    inner = result.manifest or {}
    for field, got in (("table", inner.get("table")), ("range", inner.get("range")),
                       ("chain", _ends(inner.get("chain"))), ("counts", inner.get("counts"))):
        if entry.get(field) != got:
            findings.add(mf.MANIFEST, entry["file"], f"{field} says {entry.get(field)!r:.300}; "
                         f"the table's own manifest says {got!r:.300}")
    anchor, end = entry.get("central_head"), (entry.get("chain") or {}).get("end") or {}
    if isinstance(anchor, dict) and isinstance(end.get("seq"), int) \
            and isinstance(anchor.get("seq"), int) and end["seq"] > anchor["seq"]:
        findings.add(mf.MANIFEST, name, f"the chain ends at seq {end['seq']}, past the "
                     f"central head {anchor['seq']}")
    if isinstance(anchor, dict) and end.get("seq") == anchor.get("seq") \
            and end.get("hash") != anchor.get("hash"):
        findings.add(mf.MANIFEST, name, f"the chain's end hash at seq {end.get('seq')} is not "
                     "the central head's")
    return inner if isinstance(result.manifest, dict) else None


def _check_signed(zf: zipfile.ZipFile, entry: dict[str, Any], inner: dict[str, Any],
                  findings: Findings, pinned: Ed25519PublicKey | None) -> None:
    """The table's chain in its export against the checkpoints the table signed."""
    table, name = str(entry.get("table")), entry.get("signed_checkpoints")
    if name is None:
        if pinned is not None:
            findings.add(mf.MANIFEST, entry["file"], f"table {table} carries no signed "
                         "checkpoints: its chain cannot be checked against its own key")
        return
    if not isinstance(name, str) or name not in zf.namelist():
        return  # reported as missing, or not listed
    part = _signed_part(zf, name, table, findings)
    if part is None:
        return
    key, cps = part
    got = fingerprint(key)
    if entry.get("table_key") != got:
        findings.add(mf.MANIFEST, entry["file"], f"names the table's key "
                     f"{entry.get('table_key')}, but {name} holds {got}")
    if pinned is not None and fingerprint(pinned) != got:
        findings.add(name, "", f"the checkpoints are signed with the key {got}, not table "
                     f"{table}'s key {fingerprint(pinned)}: another key was put in its place")
        return
    chain: dict[str, Any] = inner["chain"] if isinstance(inner.get("chain"), dict) else {}
    start, end = _head(chain.get("start")), _head(chain.get("end"))
    if start is None or end is None:
        return  # the table's export is already reported
    listed: dict[Any, set[tuple[Any, Any]]] = {}
    for point in chain.get("checkpoints") or []:
        if isinstance(point, dict):
            listed.setdefault(point.get("seq"), set()).add((point.get("hash"), point.get("at")))
    prev: ChainHead | None = None
    judged = True  # False after a checkpoint that did not verify: the next link is not judged
    for point, link, sig in cps:
        where = f"seq {point.seq}"
        if not signature_holds(key, sig, signed_bytes(table, point, link)):
            findings.add(name, where, f"the signature does not verify with table {table}'s "
                         f"key {got}: the checkpoint was changed, or not signed by the table")
            prev, judged = None, False
            continue
        problem = _link_problem(prev, link, point.seq, start, table) if judged else None
        if problem is not None:
            findings.add(name, where, problem)
        if start.seq <= point.seq <= end.seq:
            _check_in_chain(point, start, listed, name, table, findings)
        prev, judged = ChainHead(point.seq, point.hash), True
    _check_tail(cps, start, end, name, table, findings)


def _link_problem(prev: ChainHead | None, link: ChainHead, seq: int, start: ChainHead,
                  table: str) -> str | None:
    """What is wrong with the link of the signed checkpoint at `seq` to the one before it
    (`prev`, None for the first in the part), or None."""
    if prev is not None and link != prev:
        return (f"signed checkpoints removed between seq {prev.seq} and seq {seq}: this one "
                f"follows a signed checkpoint at seq {link.seq} that the export does not hold")
    if prev is None and start.seq < link.seq:
        return (f"signed checkpoints removed: the first one follows a signed checkpoint at seq "
                f"{link.seq}, inside the range")
    if link.seq == start.seq and link.seq > 0 and link.hash != start.hash:
        return (f"the chain's start hash at seq {start.seq} is not the one table {table} "
                "signed there")
    return None


def _check_in_chain(point: Checkpoint, start: ChainHead,
                    listed: dict[Any, set[tuple[Any, Any]]], name: str, table: str,
                    findings: Findings) -> None:
    """The chain holds, at the signed seq, the hash the table signed."""
    where = f"seq {point.seq}"
    if point.seq == start.seq:
        if point.hash != start.hash:
            findings.add(name, where, f"rewritten: table {table} signed hash {point.hash} at "
                         f"seq {point.seq}, but the table's export starts from {start.hash}")
        return
    here = listed.get(point.seq, set())
    if (point.hash, point.at) in here:
        return  # the table's export lists it, and its chain was walked through it
    if any(digest != point.hash for digest, _ in here):
        findings.add(name, where, f"rewritten at seq {point.seq}: table {table} signed hash "
                     f"{point.hash} there, but the table's export holds another")
    else:
        findings.add(name, where, f"the table's export does not list the checkpoint table "
                     f"{table} signed at seq {point.seq}: its chain was not checked against it")


def _check_tail(cps: list[tuple[Checkpoint, ChainHead, bytes]], start: ChainHead,
                end: ChainHead, name: str, table: str, findings: Findings) -> None:
    """No more events past the last signed checkpoint than the table leaves unsigned."""
    if any(point.seq > end.seq for point, _, _ in cps):
        return  # one signed after the range links back to the last inside it
    last = max((point.seq for point, _, _ in cps), default=None)
    since = start.seq if last is None else last
    if end.seq - since <= UNSIGNED_TAIL:
        return
    what = f"after seq {last}" if last is not None else \
        f"all of them: none in seq {start.seq}..{end.seq}"
    findings.add(name, "", f"signed checkpoints removed ({what}): the range ends at seq "
                 f"{end.seq}, {end.seq - since} events past the last, but table {table} signs "
                 f"one at least every {UNSIGNED_TAIL} events")


def _signed_part(zf: zipfile.ZipFile, name: str, table: str, findings: Findings
                 ) -> tuple[Ed25519PublicKey, list[tuple[Checkpoint, ChainHead, bytes]]] | None:
    """The table's public key and signed checkpoints in `name`, or None (reported)."""
    try:
        part = json.loads(zf.read(name))
    except (*_UNREADABLE, UnicodeDecodeError) as exc:
        findings.add(name, "", f"cannot be read as JSON: {exc}")
        return None
    try:
        if not isinstance(part, dict) or not isinstance(part.get("checkpoints"), list) \
                or not isinstance(part.get("public_key"), dict):
            raise ValueError("not a JSON object with a public_key and a list of checkpoints")
        if part["format"] != CHECKPOINTS_FORMAT:
            raise ValueError(f"format {part['format']!r}, not {CHECKPOINTS_FORMAT}")
        if part["table"] != table:
            raise ValueError(f"it is table {part['table']!r}'s, not {table!r}'s")
        key = serialization.load_pem_public_key(part["public_key"]["pem"].encode("ascii"))
        if not isinstance(key, Ed25519PublicKey):
            raise ValueError("the public key is not an Ed25519 key")
        cps = [(Checkpoint(_int(c["seq"]), _text(c["hash"]), _text(c["at"])),
                ChainHead(_int(c["prev_seq"]), _text(c["prev_hash"])), bytes.fromhex(c["sig"]))
               for c in part["checkpoints"]]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        findings.add(name, "", f"not in the documented form: {exc}")
        return None
    return key, cps


def _head(value: Any) -> ChainHead | None:
    if isinstance(value, dict) and type(value.get("seq")) is int \
            and isinstance(value.get("hash"), str):
        return ChainHead(value["seq"], value["hash"])
    return None


def _int(value: Any) -> int:
    if type(value) is not int:
        raise TypeError(f"{value!r} is not a whole number")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{value!r} is not text")
    return value


def _ends(chain: Any) -> Any:
    if not isinstance(chain, dict):
        return chain
    return {"start": chain.get("start"), "end": chain.get("end")}


def _extract(zf: zipfile.ZipFile, name: str, copy: Path) -> tuple[str, int]:
    sha, size = hashlib.sha256(), 0
    with zf.open(name) as src, open(copy, "wb") as dst:
        while chunk := src.read(_CHUNK):
            sha.update(chunk)
            size += len(chunk)
            dst.write(chunk)
    return sha.hexdigest(), size


def is_floor_manifest(data: bytes) -> dict[str, Any] | None:
    """The parsed manifest when `data` is a floor export's manifest.json, else None."""
    try:
        manifest = json.loads(data)
    except ValueError:
        return None
    return manifest if isinstance(manifest, dict) and manifest.get("format") == FLOOR_FORMAT \
        else None

