"""Verify a floor export (format `dealer-assist-floor-export/1`) with nothing but the zip and
the floor's public key.

In order: the zip holds exactly manifest.json, manifest.sig and the tables' files the manifest
lists; manifest.sig is a good Ed25519 signature of manifest.json; every file has the size and
SHA-256 the manifest gives; each table's file is a table export that verifies on its own with
the same key (export/verifier.py: its chain from its start head to its end head, the re-audit
of its games, flags and decisions); and what the floor manifest says of each table (its id, its
range, its chain heads, its counts) is what that table's own signed manifest says, its end
head no further than the central head. Every problem is reported with the member it is in.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from dealer_assist.export import manifest as mf
from dealer_assist.export.compare import Findings
from dealer_assist.export.keys import fingerprint, signature_holds

FLOOR_FORMAT = "dealer-assist-floor-export/1"
_UNREADABLE = (zipfile.BadZipFile, OSError, ValueError, EOFError)
_CHUNK = 1 << 20


def verify_floor_zip(zf: zipfile.ZipFile, manifest: dict[str, Any], data: bytes,
                     signature: bytes, public_key: Ed25519PublicKey, findings: Findings,
                     verify_table: Any) -> None:
    """Check an opened floor export whose manifest.json (`data`, parsed as `manifest`) is
    of the floor format; `verify_table(path, key)` verifies one table's export."""
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
    listed = {entry.get("file") for entry in tables if isinstance(entry, dict)}
    for name in sorted(set(files) - listed):
        findings.add(mf.MANIFEST, "", f"lists {name} among its files but not among its tables")
    with tempfile.TemporaryDirectory(prefix="floor-verify-") as folder:
        for entry in tables:
            if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
                findings.add(mf.MANIFEST, "", f"a table entry is not in the documented form: "
                             f"{entry!r:.200}")
                continue
            _check_table(zf, entry, files.get(entry["file"]), Path(folder), public_key,
                         findings, verify_table)


def _check_table(zf: zipfile.ZipFile, entry: dict[str, Any], stated: Any, folder: Path,
                 public_key: Ed25519PublicKey, findings: Findings, verify_table: Any) -> None:
    name = entry["file"]
    if not isinstance(stated, dict):
        findings.add(mf.MANIFEST, "", f"lists no SHA-256 for {name}")
        return
    if name not in zf.namelist():
        return  # reported as missing
    copy = folder / f"table-{len(list(folder.iterdir()))}.zip"
    try:
        digest, size = _extract(zf, name, copy)
    except _UNREADABLE as exc:
        findings.add(name, "", f"cannot be read (the zip is damaged): {exc}")
        return
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

