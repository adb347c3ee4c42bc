"""`dealer-assist verify FILE.zip --pubkey KEY`: check a regulator export (a table's or the
floor's) offline."""

from __future__ import annotations

import argparse
import json
import sys
import zipfile
import zlib
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from tqdm import tqdm

from dealer_assist.commands.failed import CommandFailed
from dealer_assist.export.floor_verifier import FLOOR_FORMAT
from dealer_assist.export.manifest import EVENTS, MANIFEST
from dealer_assist.export.verifier import (
    NotAFloorExport,
    UnknownTables,
    Verification,
    verify_export,
)
from dealer_assist.signing_keys import KeyProblem, fingerprint, load_public_key

HELP = """\
Check a regulator export (a zip written by `dealer-assist export`) with the casino's public
key, trusting nothing else in it:

  - manifest.sig is a good Ed25519 signature of manifest.json by that key;
  - every file has the SHA-256 and size that the manifest gives;
  - every line of events.jsonl is a stored event in canonical form and chains to the one
    before it, from the chain head the manifest gives at the start to the one at the end;
  - the events, replayed through the table machine under the manifest's pay tables, imply
    exactly the rows of games.csv, flags.csv and decisions.csv, the shoes' settings and
    the counts of the manifest;
  - each camera frame under evidence/ hashes to the SHA-256 that the event that raised its
    flag gives; a frame the table no longer had (removed by retention) is reported, not
    failed: its event still verifies.

A floor export (`dealer-assist floor export`: several tables in one zip, signed with the
floor's key) is recognised by its manifest: its signature and the SHA-256 of every table's
file are checked, then each table's export in it as above, and each table's chain heads,
range and counts against what the floor manifest says of them.

A floor export's summary names each table's own key (the fingerprint of the key that signed
its checkpoints) and what the floor's key alone vouches for (the manifest's `not_checked`).
The floor's key would sign a part that swapped a table's key for another; --table-key T=FILE
pins table T's key to the public key you hold for it (its `signing-key.pub.pem`), and a part
signed with any other key is a problem (repeat it for each table).

Prints OK, or every problem with its file and line (events.jsonl) or row (CSV files, data
rows counted from 1). Exit status 0 OK, 1 problems found, 2 a key cannot be read, or
--table-key names a table the floor export does not hold or is given for a table's export.
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "verify", help="check a regulator export against the casino's public key",
        description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("zip", type=Path, metavar="FILE.zip", help="the export to check")
    parser.add_argument("--pubkey", required=True, type=Path, metavar="KEY",
                        help="the casino's public key (PEM)")
    parser.add_argument("--table-key", action="append", default=[], metavar="T=KEY",
                        help="a floor export: table T's checkpoints must be signed with this "
                             "public key (PEM, the table's signing-key.pub.pem); repeatable")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        key = load_public_key(args.pubkey)
    except KeyProblem as exc:
        raise CommandFailed(str(exc)) from None
    pinned = _table_keys(args.table_key)
    bar = tqdm(total=2 * _events(args.zip), unit="line", desc="verify", file=sys.stderr,
               disable=args.json or not sys.stderr.isatty(), unit_scale=True)
    try:
        result = verify_export(args.zip, key, progress=bar.update, table_keys=pinned)
    except NotAFloorExport:
        raise CommandFailed(f"--table-key is for a floor export; {args.zip} is not one "
                            "(a table's export is signed with the casino's key only)") from None
    except UnknownTables as exc:
        raise CommandFailed(f"--table-key {', '.join(exc.unknown)}: the floor export holds no "
                            f"such table (it holds {', '.join(exc.held) or 'none'})") from None
    finally:
        bar.close()
    if args.json:
        print(json.dumps(_as_json(result, fingerprint(key), pinned)))
    elif result.ok:
        print(_summary(result, fingerprint(key), pinned))
        for note in result.notes:
            print(f"  {note}")
    else:
        for line in result.findings.lines():
            print(line)
        print(f"FAILED: {args.zip} does not verify")
    return 0 if result.ok else 1


def _table_keys(given: list[str]) -> dict[str, Ed25519PublicKey]:
    """--table-key T=FILE, each read: table id -> the public key held for it."""
    keys: dict[str, Ed25519PublicKey] = {}
    for text in given:
        table, sep, file = text.partition("=")
        if not sep or not table.strip() or not file.strip():
            raise CommandFailed(f"--table-key {text}: give TABLE=PUBKEYFILE, e.g. "
                                "T1=t1-signing-key.pub.pem")
        table = table.strip()
        if table in keys:
            raise CommandFailed(f"--table-key: table {table} is given twice")
        try:
            keys[table] = load_public_key(Path(file.strip()))
        except KeyProblem as exc:
            raise CommandFailed(f"--table-key {table}: {exc}") from None
    return keys


def _events(path: Path) -> int:
    """The event count the manifest states, for the progress bar only (0 if unknown)."""
    try:
        with zipfile.ZipFile(path) as zf:
            count = json.loads(zf.read(MANIFEST))["counts"]["events"]
    except (OSError, KeyError, TypeError, ValueError, zipfile.BadZipFile, zlib.error):
        return 0
    return count if isinstance(count, int) else 0


def _summary(result: Verification, key: str,
             pinned: dict[str, Ed25519PublicKey] | None = None) -> str:
    m = result.manifest or {}
    if m.get("format") == FLOOR_FORMAT:
        return _floor_summary(m, key, pinned or {})
    counts, chain, span = m.get("counts", {}), m.get("chain", {}), m.get("range", {})
    return (
        f"OK: table {m.get('table')}, {counts.get('events')} events (seq "
        f"{span.get('first_seq')}..{span.get('last_seq')}, {span.get('first_utc')} to "
        f"{span.get('last_utc')}), {counts.get('shoes')} shoes, {counts.get('games')} games; "
        f"chain head seq {chain.get('end', {}).get('seq')} hash "
        f"{chain.get('end', {}).get('hash')}; signed by {key}; "
        f"{EVENTS} re-audited: the CSV files say exactly what the events imply"
    )


def _floor_summary(m: dict[str, Any], key: str, pinned: dict[str, Ed25519PublicKey]) -> str:
    lines = [f"OK: floor export of {len(m.get('tables', []))} table(s), "
             f"{m.get('requested', {}).get('from')} to {m.get('requested', {}).get('to')}; "
             f"signed by {key}"]
    for t in m.get("tables", []):
        end, counts = t.get("chain", {}).get("end", {}), t.get("counts", {})
        lines.append(f"  table {t.get('table')}: {counts.get('events')} events (seq "
                     f"{t.get('range', {}).get('first_seq')}..{t.get('range', {}).get('last_seq')})"
                     f", {counts.get('games')} games; chain head seq {end.get('seq')} hash "
                     f"{end.get('hash')}; re-audited")
        lines.append(f"    {_table_key_line(t, pinned)}")
    if m.get("tables_without_events"):
        lines.append(f"  no events in the range: {', '.join(m['tables_without_events'])}")
    not_checked = m.get("not_checked") or []
    if not_checked:
        lines.append("  not checked (vouched for by the floor's key alone):")
        lines.extend(f"    {line}" for line in not_checked)
    return "\n".join(lines)


def _table_key_line(entry: dict[str, Any], pinned: dict[str, Ed25519PublicKey]) -> str:
    """What the table's own key vouches for in a verified floor export."""
    table = str(entry.get("table"))
    if not entry.get("signed_checkpoints"):
        return "table key: none (no signed checkpoints: see not checked below)"
    how = "pinned by --table-key" if table in pinned else \
        "as the export carries it: pin it with --table-key"
    return f"table key {entry.get('table_key')} ({how}): its signed checkpoints hold"


def _as_json(result: Verification, key: str,
             pinned: dict[str, Ed25519PublicKey] | None = None) -> dict[str, Any]:
    return {
        "ok": result.ok,
        "key": key,
        "table_keys_pinned": {t: fingerprint(k) for t, k in (pinned or {}).items()},
        "problems": [{"file": f.file, "where": f.where, "message": f.message}
                     for f in result.findings.shown],
        "more": result.findings.more,
        "manifest": result.manifest,
        **({"notes": list(result.notes)} if result.notes else {}),
    }
