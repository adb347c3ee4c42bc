"""Write an export: a range of a table's log as a signed zip (docs/export-format.md).

The range is read twice (see `reaudit`): once for the `new_shoe` and `decision` events only,
once in full. events.jsonl is streamed straight into the zip, hashed and deflated on a thread
of its own (`hashed.BackgroundFile`) while the events are re-audited; the CSV files are
written to temporary files beside the output while the events stream, then copied in. Every
file's SHA-256 is taken as it is written. Memory stays flat however long the range.

Before it signs, the export re-checks every link of the chain in its range (and the
checkpoints there): a log that was tampered with is refused, not signed.

With the frames the table's camera kept beside the log (`evidence`, by default the source's:
store.evidence.EvidencedLogSource), the frames of the events that raised a flag go into the
zip under `evidence/` and the manifest says which it carries and which the table no longer
had (export/evidence.py); with none to carry the zip is exactly as without.
"""

from __future__ import annotations

import csv
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dealer_assist.domain.paytable import PayTable
from dealer_assist.export import manifest as mf
from dealer_assist.export.evidence import NEEDLE, FlagWitness, first_seqs, member_name
from dealer_assist.export.hashed import BackgroundFile, HashedFile
from dealer_assist.export.links import ChainWalk, decode_event, event_line
from dealer_assist.export.reaudit import NEEDLES, Reaudit, decision_reach
from dealer_assist.export.rows import DECISION_COLUMNS, FLAG_COLUMNS, GAME_COLUMNS
from dealer_assist.export.source import (
    EvidenceFrames,
    ExportRange,
    LogSource,
    evidence_of,
    stamp,
)
from dealer_assist.export.zipped import member, refuse_existing, written_whole
from dealer_assist.logformat import Point
from dealer_assist.signing_keys import fingerprint

Progress = Callable[[int], None]
_CHUNK = 1 << 20
_PROGRESS_EVERY = 4096


class LogTampered(RuntimeError):
    """The log's chain does not hold in the range asked for: nothing is signed."""


@dataclass(frozen=True)
class Written:
    path: Path
    manifest: dict[str, Any]


class _CsvSink:
    """The rows of the re-audit, written to the three CSV files."""

    def __init__(self, folder: Path) -> None:
        self.files: dict[str, HashedFile] = {}
        self.writers = {}
        for name, columns in ((mf.GAMES, GAME_COLUMNS), (mf.DECISIONS, DECISION_COLUMNS),
                              (mf.FLAGS, FLAG_COLUMNS)):
            hashed = HashedFile(open(folder / name, "wb"))  # noqa: SIM115 - closed in close()
            self.files[name] = hashed
            writer = csv.writer(hashed)
            writer.writerow(columns)
            self.writers[name] = writer.writerow
        self.game = self.writers[mf.GAMES]
        self.flag = self.writers[mf.FLAGS]
        self.decision = self.writers[mf.DECISIONS]
        self.shoes: list[dict[str, Any]] = []

    def shoe(self, settings: dict[str, Any]) -> None:
        self.shoes.append(settings)

    def close(self) -> None:
        for hashed in self.files.values():
            hashed.close()


def write_export(
    source: LogSource,
    span: ExportRange,
    *,
    table: str,
    out: Path,
    key: Ed25519PrivateKey,
    paytables: dict[str, PayTable],
    progress: Progress | None = None,
    now: datetime | None = None,
    evidence: EvidenceFrames | None = None,
) -> Written:
    """Write the export of `span` to `out` (which must not exist); returns its manifest."""
    out = refuse_existing(out)
    created = (now or datetime.now(UTC)).astimezone(UTC)
    frames = evidence if evidence is not None else evidence_of(source)
    with written_whole(out, ".export-") as (partial, folder):
        manifest = _write_zip(source, span, table, partial, folder, key, paytables, progress,
                              created, frames)
    return Written(out, manifest)


def _write_zip(source: LogSource, span: ExportRange, table: str, partial: Path, folder: Path,
               key: Ed25519PrivateKey, paytables: dict[str, PayTable],
               progress: Progress | None, created: datetime,
               evidence: EvidenceFrames | None) -> dict[str, Any]:
    first, last = span.first_seq, span.last_seq
    start_hash = source.hash_at(first - 1)
    if start_hash is None:
        raise LogTampered(f"the log has no event at seq {first - 1}, before the range")
    reach = decision_reach(
        (record.seq - first, decode_event(record.body))
        for record in source.records(first, last, NEEDLES)
    )
    sink = _CsvSink(folder)
    try:
        return _write_files(source, span, table, partial, folder, key, paytables, progress,
                            created, start_hash, reach, sink, evidence)
    finally:
        sink.close()


def _write_files(source: LogSource, span: ExportRange, table: str, partial: Path, folder: Path,
                 key: Ed25519PrivateKey, paytables: dict[str, PayTable],
                 progress: Progress | None, created: datetime, start_hash: str,
                 reach: dict[int, int], sink: _CsvSink,
                 evidence: EvidenceFrames | None) -> dict[str, Any]:
    first, last = span.first_seq, span.last_seq
    reaudit = Reaudit(table, paytables, reach, sink)
    witness = FlagWitness(reaudit.machine) if evidence is not None else None
    points = source.checkpoints(first - 1, last)
    recorded: dict[int, list[Point]] = {}
    for point in points:
        recorded.setdefault(point.seq, []).append(point)
    stamp_at = created.timetuple()[:6]
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as zf:
        walk = ChainWalk(first - 1, start_hash)
        _check_point(recorded, first - 1, start_hash)
        events = BackgroundFile(zf.open(_info(mf.EVENTS, stamp_at), "w", force_zip64=True))
        try:
            _stream_events(source, span, walk, recorded, reaudit, events, progress, witness)
        finally:
            events.close()
        if walk.seq != last:
            raise LogTampered(f"the log ends at seq {walk.seq}, before seq {last}: run "
                              "`dealer-assist verify-log` on the log")
        reaudit.finish()
        sink.close()
        files = {mf.EVENTS: events.entry()}
        for name, hashed in sink.files.items():
            files[name] = hashed.entry()
            with open(folder / name, "rb") as src, \
                    zf.open(_info(name, stamp_at), "w", force_zip64=True) as dst:
                while chunk := src.read(_CHUNK):
                    dst.write(chunk)
        carried = _carry_frames(zf, witness, evidence, stamp_at)
        manifest = {
            "format": mf.FORMAT,
            "software": mf.software(),
            "table": table,
            "created_utc": stamp(created),
            "requested": {"from": span.requested_from, "to": span.requested_to},
            "paytables": mf.paytables_mapping(paytables),
            "signing_key": {"algorithm": "Ed25519", "fingerprint": fingerprint(key.public_key())},
            "files": files,
            **mf.derived_fields(
                first_seq=first, last_seq=last,
                first_ts=reaudit.first_ts, last_ts=reaudit.last_ts,
                start=(first - 1, start_hash), end=(walk.seq, walk.hash or ""),
                checkpoints=[{"seq": p.seq, "hash": p.hash, "at": p.at} for p in points],
                shoes=sink.shoes, counts=reaudit.counts,
            ),
            **({"evidence": carried} if carried else {}),
        }
        data = mf.manifest_bytes(manifest)
        zf.writestr(_info(mf.MANIFEST, stamp_at), data)
        zf.writestr(_info(mf.SIGNATURE, stamp_at), key.sign(data))
    return manifest


def _stream_events(source: LogSource, span: ExportRange, walk: ChainWalk,
                   recorded: dict[int, list[Point]], reaudit: Reaudit, events: BackgroundFile,
                   progress: Progress | None, witness: FlagWitness | None) -> None:
    """Every record of the range: its link checked, its line written, its event audited
    (with `witness`, the frames of the events that raise flags noted)."""
    lines: list[str] = []
    feed, step = reaudit.feed, walk.step
    count = 0
    for record in source.records(span.first_seq, span.last_seq):
        problem = step(record)
        if problem is not None:
            raise LogTampered(f"{problem}: run `dealer-assist verify-log` on the log")
        at = record.seq
        if at in recorded:
            _check_point(recorded, at, record.hash)
        lines.append(event_line(record))
        obj = decode_event(record.body)
        if witness is not None and NEEDLE in record.body:
            witness.apply(at, obj, partial(feed, count, at, obj))
        else:
            feed(count, at, obj)
        count += 1
        if count % _PROGRESS_EVERY == 0:
            events.write(("\n".join(lines) + "\n").encode("utf-8"))
            lines.clear()
            if progress:
                progress(_PROGRESS_EVERY)
    if lines:
        events.write(("\n".join(lines) + "\n").encode("utf-8"))
    if progress:
        progress(count % _PROGRESS_EVERY)


def _carry_frames(zf: zipfile.ZipFile, witness: FlagWitness | None,
                  evidence: EvidenceFrames | None,
                  stamp_at: tuple[int, ...]) -> dict[str, Any] | None:
    """The frames of the flags' events into `evidence/` (stored: JPEG is compressed); the
    manifest's `evidence`, or None when the flags of the range name no frame."""
    if witness is None or evidence is None or not witness.frames:
        return None
    carried: list[str] = []
    not_kept: list[dict[str, Any]] = []
    for sha, seq in first_seqs(witness.frames).items():
        data = evidence.frame(sha)
        if data is None:
            why = evidence.status(sha)
            if why == "damaged":
                raise LogTampered(f"the evidence frame {sha}.jpg of seq {seq} does not match "
                                  "the SHA-256 its event gives: it was changed (remove it to "
                                  "export without it)")
            not_kept.append({"sha256": sha, "seq": seq, "why": why})
            continue
        zf.writestr(member(member_name(sha), stamp_at, zipfile.ZIP_STORED), data)
        carried.append(sha)
    return {"carried": carried, "not_kept": not_kept}


def _info(name: str, date_time: tuple[int, ...]) -> zipfile.ZipInfo:
    return member(name, date_time, zipfile.ZIP_DEFLATED)


def _check_point(recorded: dict[int, list[Point]], seq: int, digest: str) -> None:
    for point in recorded.get(seq, ()):
        if point.hash != digest:
            raise LogTampered(f"seq {seq}'s hash is not the one the checkpoint of {point.at} "
                              "recorded: run `dealer-assist verify-log` on the log")

