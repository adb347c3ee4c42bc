"""Floor exports: a chosen set of tables and a time range from the central store, one signed zip.

The zip holds, per table with events in the range, that table's export in the table's own
format (docs/export-format.md: events.jsonl with seq, prev_hash and hash, games.csv,
decisions.csv, flags.csv, manifest.json and manifest.sig), written by the same writer from the
central copy of the table's log and signed with the floor's key, as `tables/<TABLE>.zip`;
beside it, when the table has a registered key, `tables/<TABLE>.checkpoints.json`: the
table's public key and the checkpoints the table signed over its range (floor/checkpoints.py),
so that the table's chain is checked against the table's own key, not only the floor's; and a
floor manifest.json listing every table's files with their SHA-256, the table's key, its
chain heads at both ends of its range and the central head (the anchor) when the export was
written, signed by the floor's Ed25519 key in manifest.sig. `dealer-assist verify` checks it
offline. Whatever is vouched for by the floor's key only is named in the manifest's
`not_checked`.

The central store reads through `PgLogSource`, the export's `LogSource` port on the `events`
table; each table's range is widened to whole shoes exactly as a table's own export is.
"""

from __future__ import annotations

import hashlib
import itertools
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dealer_assist.domain.paytable import PayTable
from dealer_assist.export import manifest as mf
from dealer_assist.export.floor_verifier import UNSIGNED_TAIL
from dealer_assist.export.source import ExportRange, NothingToExport, plan_range, stamp
from dealer_assist.export.writer import write_export
from dealer_assist.export.zipped import member, refuse_existing, written_whole
from dealer_assist.floor.checkpoints import export_member, signed_points
from dealer_assist.logformat import Point
from dealer_assist.signing_keys import fingerprint
from dealer_assist.store.log_range import LogQueries

FORMAT = "dealer-assist-floor-export/1"
TABLES_DIR = "tables/"
_CHUNK = 1 << 20

CHECKPOINTS_SUFFIX = ".checkpoints.json"

Progress = Callable[[int], None]
_cursors = itertools.count(1)
#: Rows a server-side cursor brings at a time.
_BATCH = 2048


class PgLogSource(LogQueries):
    """One table's central copy, read-only, as the export's `LogSource` (export/source.py):
    the queries of a table's own log (store/log_range.py), asked of its rows of `events`."""

    MARK = "%s"
    CONTAINS = "strpos"
    scope = ("table_id = ?",)

    def __init__(self, conn: psycopg.Connection, table: str) -> None:
        self.conn, self.table = conn, table
        self.scope_params = (table,)

    def _one(self, sql: str, params: tuple[object, ...]) -> Any:
        return self.conn.execute(sql, params).fetchone()

    def _all(self, sql: str, params: tuple[object, ...]) -> list[Any]:
        return self.conn.execute(sql, params).fetchall()

    def _batches(self, sql: str, params: tuple[object, ...]) -> Iterator[list[Any]]:
        with self.conn.cursor(name=f"floor_export_{next(_cursors)}") as cur:
            cur.itersize = _BATCH
            cur.execute(sql, params)
            while rows := cur.fetchmany(_BATCH):
                yield rows

    def checkpoints(self, first: int, last: int) -> list[Point]:
        """The checkpoints the table signed in first..last (verified at ingest): the table's
        export lists them, and its chain is checked against them."""
        return [Point(p.seq, p.hash, p.at) for p in signed_points(self.conn, self.table,
                                                                    first, last)]


@dataclass(frozen=True)
class FloorWritten:
    path: Path
    manifest: dict[str, Any]


def known_tables(conn: psycopg.Connection) -> list[str]:
    """The tables registered in the central store, by id."""
    rows = conn.execute("SELECT table_id FROM floor_tables ORDER BY table_id").fetchall()
    conn.commit()
    return [row[0] for row in rows]


def write_floor_export(conn: psycopg.Connection, tables: Sequence[str], start: datetime,
                       end: datetime, *, out: Path, key: Ed25519PrivateKey,
                       paytables: dict[str, PayTable], progress: Progress | None = None,
                       now: datetime | None = None) -> FloorWritten:
    """Write the floor export of `tables` over [start, end) to `out` (must not exist).

    Raises ValueError naming an unknown table or an empty range, NothingToExport when no
    chosen table has an event in the range, and export.writer.LogTampered when a table's
    central copy does not chain (nothing is written then)."""
    out = refuse_existing(out)
    if end <= start:
        raise ValueError(f"the time range is empty: {stamp(start)} is not before {stamp(end)}")
    chosen = list(dict.fromkeys(tables))
    if not chosen:
        raise ValueError("choose at least one table")
    unknown = sorted(set(chosen) - set(known_tables(conn)))
    if unknown:
        raise ValueError(f"the central store has no table {', '.join(unknown)}")
    created = (now or datetime.now(UTC)).astimezone(UTC)
    with written_whole(out, ".floor-export-") as (partial, folder), conn.transaction():
        # One snapshot for every table: the export is the floor as it was at one moment.
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        manifest = _write(conn, chosen, start, end, partial, folder, key, paytables, progress,
                          created)
    return FloorWritten(out, manifest)


def _write(conn: psycopg.Connection, tables: list[str], start: datetime, end: datetime,
           partial: Path, folder: Path, key: Ed25519PrivateKey,
           paytables: dict[str, PayTable], progress: Progress | None,
           created: datetime) -> dict[str, Any]:
    entries: list[dict[str, Any]] = []
    empty: list[str] = []
    not_checked: list[str] = []
    files: dict[str, dict[str, Any]] = {}
    stamp_at = created.timetuple()[:6]
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_STORED) as zf:
        for table in tables:
            source = PgLogSource(conn, table)
            try:
                span = plan_range(source, start, end)
            except NothingToExport:
                empty.append(table)
                continue
            signed = export_member(conn, table, span.first_seq - 1, span.last_seq)
            _refuse_if_behind(table, span, signed)
            inner = folder / f"{table}.zip"
            written = write_export(source, span, table=table, out=inner, key=key,
                                   paytables=paytables, progress=progress, now=created)
            name = f"{TABLES_DIR}{table}.zip"
            files[name] = _copy_in(zf, inner, name, stamp_at)
            inner.unlink()
            entry = _entry(conn, table, name, span, written.manifest)
            if signed is not None:
                member = f"{TABLES_DIR}{table}{CHECKPOINTS_SUFFIX}"
                data = mf.manifest_bytes(signed)
                zf.writestr(_info(member, stamp_at), data)
                files[member] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
                entry["signed_checkpoints"] = member
                entry["table_key"] = signed["public_key"]["fingerprint"]
            not_checked.extend(_unsigned(table, span, signed))
            entries.append(entry)
        if not entries:
            raise NothingToExport(f"no chosen table has an event from {stamp(start)} to "
                                  f"{stamp(end)}")
        manifest = {
            "format": FORMAT,
            "software": mf.software(),
            "created_utc": stamp(created),
            "requested": {"from": stamp(start), "to": stamp(end)},
            "tables": entries,
            "tables_without_events": empty,
            "files": files,
            "signing_key": {"algorithm": "Ed25519", "fingerprint": fingerprint(key.public_key())},
            "not_checked": not_checked,
        }
        data = mf.manifest_bytes(manifest)
        zf.writestr(_info(mf.MANIFEST, stamp_at), data)
        zf.writestr(_info(mf.SIGNATURE, stamp_at), key.sign(data))
    return manifest


def _refuse_if_behind(table: str, span: ExportRange, signed: dict[str, Any] | None) -> None:
    """Refuse (ValueError) a table whose signed checkpoints lag its events by more than a
    table ever leaves unsigned: its part would not verify (the shipper is catching up)."""
    if signed is None:
        return
    seqs = [p["seq"] for p in signed["checkpoints"]]
    if any(seq > span.last_seq for seq in seqs):
        return
    since = max((seq for seq in seqs if seq >= span.first_seq - 1), default=span.first_seq - 1)
    if span.last_seq - since > UNSIGNED_TAIL:
        raise ValueError(f"table {table}'s signed checkpoints in the central store end "
                         f"{span.last_seq - since} events before its events do (seq {since} of "
                         f"{span.last_seq}): its shipper is still catching up, or stopped on an "
                         "alarm; export again once it has caught up")


def _unsigned(table: str, span: ExportRange, signed: dict[str, Any] | None) -> list[str]:
    """What the table's signed checkpoints leave to the floor's key alone, in words."""
    if signed is None:
        return [f"table {table}: no key registered, so no signed checkpoint: its chain is "
                "vouched for by the central head and the floor's signature only"]
    inside = [p["seq"] for p in signed["checkpoints"]
              if span.first_seq - 1 <= p["seq"] <= span.last_seq]
    through = max(inside, default=None)
    if through is None:
        return [f"table {table}: no signed checkpoint in seq {span.first_seq - 1}.."
                f"{span.last_seq}: its chain there is vouched for by the floor's signature only"]
    if through < span.last_seq:
        return [f"table {table}: seq {through + 1}..{span.last_seq}, after its last signed "
                "checkpoint in the range, is vouched for by the floor's signature only"]
    return []


def _entry(conn: psycopg.Connection, table: str, name: str, span: ExportRange,
           inner: dict[str, Any]) -> dict[str, Any]:
    row = conn.execute("SELECT seq, hash, at FROM table_heads WHERE table_id = %s",
                       (table,)).fetchone()
    anchor = {"seq": row[0], "hash": row[1], "at": stamp(row[2])} if row else None
    return {
        "table": table,
        "file": name,
        "range": inner["range"],
        "chain": {"start": inner["chain"]["start"], "end": inner["chain"]["end"]},
        "central_head": anchor,
        "counts": inner["counts"],
    }


def _copy_in(zf: zipfile.ZipFile, path: Path, name: str,
             stamp_at: tuple[int, ...]) -> dict[str, Any]:
    sha, size = hashlib.sha256(), 0
    with open(path, "rb") as src, zf.open(_info(name, stamp_at), "w", force_zip64=True) as dst:
        while chunk := src.read(_CHUNK):
            sha.update(chunk)
            size += len(chunk)
            dst.write(chunk)
    return {"sha256": sha.hexdigest(), "bytes": size}


def _info(name: str, date_time: tuple[int, ...]) -> zipfile.ZipInfo:
    return member(name, date_time, zipfile.ZIP_STORED)  # the tables' zips are compressed already
