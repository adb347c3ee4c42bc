"""Verify an export with nothing but the zip and the casino's public key.

In order: the zip holds exactly the six files; manifest.sig is a good Ed25519 signature of
manifest.json; every file has the size and SHA-256 the manifest gives; every line of
events.jsonl is in the documented form and chains to the line before it, from the chain head
the manifest gives at the start to the one it gives at the end (and through its checkpoints);
and the events, re-audited by the table machine under the manifest's pay tables, imply
exactly the rows of games.csv, flags.csv and decisions.csv, the shoes' settings and the counts
the manifest states; the camera's frames under `evidence/` each hash to the SHA-256 that a
flag's event gives (a frame the table no longer had is reported, not failed:
export/evidence.py). Every problem is reported with its file and line or row.
A floor export (several tables' exports in one zip, floor_verifier.py) is recognised by its
manifest's format and each table's export in it is checked as above. `table_keys` (table id ->
the public key the verifier holds for it) pins the tables' keys of a floor export: then the
zip must be a floor export (NotAFloorExport) holding every table named (UnknownTables).
"""

from __future__ import annotations

import hashlib
import json
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from dealer_assist.domain.paytable import PayTable, PayTableError, paytables_from_mapping
from dealer_assist.export import manifest as mf
from dealer_assist.export.compare import CsvComparison, Findings
from dealer_assist.export.evidence import MEMBER, FlagFrame, FlagWitness, check_frames
from dealer_assist.export.floor_verifier import is_floor_manifest, verify_floor_zip
from dealer_assist.export.links import ChainWalk, LineError, read_line_bytes
from dealer_assist.export.reaudit import Reaudit, decision_reach
from dealer_assist.signing_keys import fingerprint, signature_holds

#: What reading a damaged member of the zip can raise (zlib.error is neither OSError nor
#: ValueError): each is a finding, never a crash.
_UNREADABLE = (zipfile.BadZipFile, OSError, ValueError, EOFError, zlib.error)

Progress = Callable[[int], None]
_NEEDLES = (b'"type":"decision"', b'"type":"new_shoe"')
_FRAMES = b'"frames":['
_CHUNK = 1 << 20
_PROGRESS_EVERY = 4096


@dataclass(frozen=True)
class Verification:
    findings: Findings
    manifest: dict[str, Any] | None
    #: What to report that is no problem (the evidence frames checked, or not kept).
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.findings


class NotAFloorExport(ValueError):
    """Tables' keys were given for a zip that is not a floor export (a table's export is
    signed with the casino's key only)."""


class UnknownTables(ValueError):
    """Tables' keys were given for tables the floor export does not hold: `unknown`, sorted;
    `held`, the tables it holds (with events, then without)."""

    def __init__(self, unknown: list[str], held: list[str]) -> None:
        super().__init__(f"the floor export holds no table {', '.join(unknown)}")
        self.unknown, self.held = unknown, held


def verify_export(path: Path, public_key: Ed25519PublicKey, progress: Progress | None = None,
                  table_keys: Mapping[str, Ed25519PublicKey] | None = None) -> Verification:
    findings = Findings()
    name = Path(path).name
    try:
        zf = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        findings.add(name, "", f"cannot be opened as a zip file: {exc}")
        return Verification(findings, None)
    with zf:
        if table_keys:
            return _verify_pinned(zf, public_key, table_keys)
        floor = _floor_manifest(zf)
        if floor is not None:  # a floor export: each table's export inside is checked below
            try:
                signature = zf.read(mf.SIGNATURE)
            except _UNREADABLE as exc:
                findings.add(mf.SIGNATURE, "", f"cannot be read: {exc}")
                signature = b""
            verify_floor_zip(zf, floor, zf.read(mf.MANIFEST), signature, public_key, findings,
                             verify_export)
            return Verification(findings, floor)
        manifest = _check_members_and_signature(zf, public_key, findings)
        if manifest is None:
            return Verification(findings, None)
        paytables = _paytables(manifest, findings)
        frames: list[FlagFrame] = []
        for file in mf.DATA_FILES:
            if file != mf.EVENTS:
                _compare_hash(file, _file_hash(zf, file, findings), manifest, findings)
        if paytables is None:  # the events cannot be re-audited; their hash is still checked
            digest = _file_hash(zf, mf.EVENTS, findings)
        else:
            try:
                digest = _check_events(zf, manifest, paytables, findings, progress, frames)
            except (AttributeError, TypeError, KeyError) as exc:  # fields of the wrong shape
                findings.add(mf.MANIFEST, "", f"chain or counts are not in the documented "
                             f"form ({type(exc).__name__}: {exc})")
                digest = _file_hash(zf, mf.EVENTS, findings)
        _compare_hash(mf.EVENTS, digest, manifest, findings)
        notes = check_frames(zf, manifest, frames, findings)
    return Verification(findings, manifest, tuple(notes))


def _verify_pinned(zf: zipfile.ZipFile, public_key: Ed25519PublicKey,
                   table_keys: Mapping[str, Ed25519PublicKey]) -> Verification:
    """A floor export checked as `verify_export` checks it, with the tables' keys pinned;
    NotAFloorExport or UnknownTables when the keys do not fit the zip."""
    data = _member(zf, mf.MANIFEST)
    manifest = None if data is None else is_floor_manifest(data)
    if manifest is None:
        raise NotAFloorExport("not a floor export")
    tables = [str(t.get("table")) for t in manifest.get("tables") or [] if isinstance(t, dict)]
    empty = [str(t) for t in manifest.get("tables_without_events") or []]
    unknown = sorted(set(table_keys) - set(tables) - set(empty))
    if unknown:
        raise UnknownTables(unknown, tables + empty)
    findings = Findings()
    signature = _member(zf, mf.SIGNATURE)
    if signature is None and mf.SIGNATURE in zf.namelist():  # a missing one is reported below
        findings.add(mf.SIGNATURE, "", "cannot be read (the zip is damaged)")
    verify_floor_zip(zf, manifest, data or b"", signature or b"", public_key, findings,
                     verify_export, table_keys=table_keys)
    return Verification(findings, manifest)


def _member(zf: zipfile.ZipFile, name: str) -> bytes | None:
    """A member's bytes, None when it is missing or cannot be read."""
    try:
        return zf.read(name)
    except (*_UNREADABLE, KeyError):
        return None


def _floor_manifest(zf: zipfile.ZipFile) -> dict[str, Any] | None:
    """The manifest of a floor export (floor_verifier.py), None for anything else."""
    names = zf.namelist()
    if mf.MANIFEST not in names or mf.SIGNATURE not in names:
        return None
    try:
        return is_floor_manifest(zf.read(mf.MANIFEST))
    except _UNREADABLE:
        return None


def _check_members_and_signature(zf: zipfile.ZipFile, public_key: Ed25519PublicKey,
                                 findings: Findings) -> dict[str, Any] | None:
    names = zf.namelist()
    for member in mf.MEMBERS:
        if names.count(member) > 1:
            findings.add(member, "", f"the zip holds {names.count(member)} files of this name")
        elif member not in names:
            findings.add(member, "", "missing from the zip")
    for member in sorted(set(names) - set(mf.MEMBERS)):
        if MEMBER.fullmatch(member):  # a camera's frame: checked with the events
            continue
        findings.add(member, "", "is in the zip but not part of an export")
    if mf.MANIFEST not in names or mf.SIGNATURE not in names:
        return None
    try:
        data, signature = zf.read(mf.MANIFEST), zf.read(mf.SIGNATURE)
    except _UNREADABLE as exc:
        findings.add(mf.MANIFEST, "", f"cannot be read: {exc}")
        return None
    if not signature_holds(public_key, signature, data):
        findings.add(mf.SIGNATURE, "", "the signature of manifest.json does not verify with the "
                     f"public key {fingerprint(public_key)}: the manifest was changed or signed "
                     "by another key")
    try:
        manifest = json.loads(data)
    except ValueError as exc:
        findings.add(mf.MANIFEST, "", f"not JSON: {exc}")
        return None
    if not isinstance(manifest, dict) or manifest.get("format") != mf.FORMAT:
        got = manifest.get("format") if isinstance(manifest, dict) else type(manifest).__name__
        findings.add(mf.MANIFEST, "", f"not a manifest of format {mf.FORMAT} (format {got!r})")
        return None
    return manifest


def _paytables(manifest: dict[str, Any], findings: Findings) -> dict[str, PayTable] | None:
    try:
        return paytables_from_mapping(manifest.get("paytables"))
    except PayTableError as exc:
        findings.add(mf.MANIFEST, "", f"paytables: {exc}")
        return None


def _lines(member: IO[bytes]) -> Iterator[bytes]:
    """The lines of a member without their newline (a last line may lack one)."""
    pending = b""
    while chunk := member.read(_CHUNK):
        parts = (pending + chunk).split(b"\n")
        pending = parts.pop()
        yield from parts
    if pending:
        yield pending


def _file_hash(zf: zipfile.ZipFile, name: str, findings: Findings) -> tuple[str, int] | None:
    sha, size = hashlib.sha256(), 0
    try:
        with zf.open(name) as member:
            while chunk := member.read(_CHUNK):
                sha.update(chunk)
                size += len(chunk)
    except KeyError:
        return None
    except _UNREADABLE as exc:
        findings.add(name, "", f"cannot be read (the zip is damaged): {exc}")
        return None
    return sha.hexdigest(), size


def _compare_hash(name: str, got: tuple[str, int] | None, manifest: dict[str, Any],
                  findings: Findings) -> None:
    files = manifest.get("files")
    entry = files.get(name) if isinstance(files, dict) else None
    if not isinstance(entry, dict):
        findings.add(mf.MANIFEST, "", f"lists no SHA-256 for {name}")
        return
    if got is None:
        return
    digest, size = got
    if entry.get("sha256") != digest or entry.get("bytes") != size:
        findings.add(name, "", f"SHA-256 {digest} ({size} bytes) is not the manifest's "
                     f"{entry.get('sha256')} ({entry.get('bytes')} bytes): the file was changed")


def _check_events(zf: zipfile.ZipFile, manifest: dict[str, Any],
                  paytables: dict[str, PayTable], findings: Findings,
                  progress: Progress | None, frames: list[FlagFrame]) -> tuple[str, int] | None:
    """Hash events.jsonl, then walk its chain and re-audit it against the CSV files; the
    frames of the events that raised flags go to `frames`."""
    if mf.EVENTS not in zf.namelist():
        return None
    try:
        digest, reach = _first_pass(zf, progress)
    except _UNREADABLE as exc:
        findings.add(mf.EVENTS, "", f"cannot be read (the zip is damaged): {exc}")
        return None
    chain = manifest.get("chain") or {}
    start = chain.get("start") or {}
    walk = ChainWalk(start.get("seq", 0), start.get("hash", ""))
    points: dict[int, list[dict[str, Any]]] = {}
    for point in chain.get("checkpoints") or []:
        points.setdefault(point.get("seq"), []).append(point)
    _check_point(points, walk.seq, walk.hash or "", findings)
    table = str(manifest.get("table", ""))
    try:
        comparison = CsvComparison(zf, findings)
    except KeyError:
        return digest
    reaudit = Reaudit(table, paytables, reach, comparison)
    witness = FlagWitness(reaudit.machine)
    try:
        _second_pass(zf, walk, points, reaudit, findings, progress, witness)
    except _UNREADABLE as exc:
        findings.add(mf.EVENTS, "", f"cannot be read (the zip is damaged): {exc}")
        return digest
    frames.extend(witness.frames)
    reaudit.finish()
    comparison.finish()
    derived = mf.derived_fields(
        first_seq=start.get("seq", 0) + 1, last_seq=walk.seq,
        first_ts=reaudit.first_ts, last_ts=reaudit.last_ts,
        start=(start.get("seq", 0), start.get("hash", "")), end=(walk.seq, walk.hash or ""),
        checkpoints=chain.get("checkpoints") or [], shoes=comparison.shoes,
        counts=reaudit.counts,
    )
    for key in mf.DERIVED:
        _compare_field(key, manifest.get(key), derived[key], findings)
    return digest


def _first_pass(zf: zipfile.ZipFile,
                progress: Progress | None) -> tuple[tuple[str, int], dict[int, int]]:
    """The file's SHA-256 and size, and where the decisions that reach each shoe are."""
    sha, size = hashlib.sha256(), 0
    wanted: list[tuple[int, Any]] = []
    position = 0
    pending = b""
    with zf.open(mf.EVENTS) as member:
        while chunk := member.read(_CHUNK):
            sha.update(chunk)
            size += len(chunk)
            lines = (pending + chunk).split(b"\n")
            pending = lines.pop()
            for line in lines:
                if _NEEDLES[0] in line or _NEEDLES[1] in line:
                    _wanted(position, line, wanted)
                position += 1
            if progress:
                progress(len(lines))
    if pending:
        _wanted(position, pending, wanted)
    return (sha.hexdigest(), size), decision_reach(wanted)


def _wanted(position: int, line: bytes, wanted: list[tuple[int, Any]]) -> None:
    try:
        obj = json.loads(line)
    except ValueError:
        return
    if isinstance(obj, dict):
        wanted.append((position, obj.get("event")))


def _second_pass(zf: zipfile.ZipFile, walk: ChainWalk, points: dict[int, list[dict[str, Any]]],
                 reaudit: Reaudit, findings: Findings, progress: Progress | None,
                 witness: FlagWitness) -> None:
    feed = reaudit.feed
    position = -1
    with zf.open(mf.EVENTS) as member:
        for position, raw in enumerate(_lines(member)):
            where = f"line {position + 1}"
            try:
                record, event = read_line_bytes(raw)
            except (UnicodeDecodeError, LineError) as exc:
                findings.add(mf.EVENTS, where, str(exc))
                walk.skip()
                continue
            problem = walk.step(record)
            if problem is not None:
                findings.add(mf.EVENTS, where, problem)
            if record.seq in points:
                _check_point(points, record.seq, record.hash, findings, where)
            if _FRAMES in raw:
                witness.apply(record.seq, event, partial(feed, position, record.seq, event))
            else:
                feed(position, record.seq, event)
            if progress and (position + 1) % _PROGRESS_EVERY == 0:
                progress(_PROGRESS_EVERY)
        if progress and position >= 0:
            progress((position + 1) % _PROGRESS_EVERY)


def _check_point(points: dict[int, list[dict[str, Any]]], seq: int, digest: str,
                 findings: Findings, where: str = "") -> None:
    for point in points.get(seq, ()):
        if point.get("hash") != digest:
            findings.add(mf.EVENTS, where, f"seq {seq} has hash {digest}, but the checkpoint of "
                         f"{point.get('at')} recorded {point.get('hash')}")


def _compare_field(key: str, stated: Any, derived: Any, findings: Findings) -> None:
    if stated == derived:
        return
    if isinstance(stated, dict) and isinstance(derived, dict):
        for name in sorted(set(stated) | set(derived)):
            if stated.get(name) != derived.get(name):
                findings.add(mf.MANIFEST, "", f"{key}.{name} says {stated.get(name)!r}; the "
                             f"events imply {derived.get(name)!r}")
        return
    if isinstance(stated, list) and isinstance(derived, list):
        for index, (s, d) in enumerate(zip(stated, derived, strict=False)):
            if s != d:
                findings.add(mf.MANIFEST, "", f"{key}[{index}] says {s!r}; the events imply {d!r}")
        if len(stated) != len(derived):
            findings.add(mf.MANIFEST, "", f"{key} lists {len(stated)} entries; the events imply "
                         f"{len(derived)}")
        return
    findings.add(mf.MANIFEST, "", f"{key} says {stated!r}; the events imply {derived!r}")

