"""`dealer-assist export`: a signed zip of a table's log over a time range, for regulators."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from tqdm import tqdm

from dealer_assist.commands.export_options import add_export_options, read_export_options
from dealer_assist.commands.failed import CommandFailed
from dealer_assist.export.source import plan_range
from dealer_assist.export.writer import LogTampered, write_export
from dealer_assist.logformat import DEFAULT_CHECKPOINT_EVERY
from dealer_assist.signing_keys import ENV_SIGNING_KEY, public_check
from dealer_assist.store.evidence import EvidencedLogSource
from dealer_assist.store.signed_checkpoints import check_signed
from dealer_assist.store.sqlite_log import NotAnEventLog, SqliteEventReader

HELP = f"""\
Export a table's log from FROM to TO as a signed zip that a regulator checks offline:

  events.jsonl   the events as stored, with seq, prev_hash and hash
  games.csv      one row per game: cards by position, totals, winner, winning bets, flags,
                 review status and the supervisor's decision
  decisions.csv  every supervisor decision;  flags.csv  every flag
  manifest.json  software version, each shoe's rules, pay tables, counts, time range,
                 SHA-256 of every file, the chain heads at both ends
  manifest.sig   the Ed25519 signature of manifest.json

Whole shoes: a range that starts or ends inside a shoe is widened to the whole shoe (from
its new_shoe to the event before the next one), so every game audits exactly as the table
saw it. Times are ISO 8601 (2026-11-29, 2026-11-29T10:00Z...); FROM is included, TO is
not. With --config, the times are the site's: a day alone is the instant that gaming day
starts (--from 2026-03-29 --to 2026-03-30 is gaming day 2026-03-29, 23 or 25 hours on a
clock change) and a time without an offset is local; without it, days start at midnight UTC
and times without an offset are UTC. The log and the manifest stay in UTC.

The table id (--table, by default the database's file name up to its first dot, e.g. T1 for
T1.events.db) is written into the manifest and every CSV row. The private key comes from
--signing-key or {ENV_SIGNING_KEY}.

The export re-checks the chain of its range and refuses a log that was tampered with, and
checks the log against the checkpoints the table signed, with the public half of the key:
it refuses a log cut back past a signed checkpoint, rewritten under one, or whose signed
checkpoints were removed (docs/log-integrity.md). A log with no signed checkpoint (written
before the table signed them) is exported with a warning. The database is opened read-only.
Exit status 0 done, 2 nothing written.
See docs/export-format.md.
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "export", help="write a signed regulator export of a table's log",
        description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_export_options(parser)
    parser.add_argument("--db", required=True, type=Path, metavar="FILE",
                        help="the table's event log (SQLite file)")
    parser.add_argument("--table", metavar="ID",
                        help="the table's id (default: the database file name up to its first dot)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    given = read_export_options(args)
    key, paytables = given.key, given.paytables
    try:
        source = EvidencedLogSource(args.db)  # with the camera's frames beside it
        span = plan_range(source, given.start, given.end)
    except (ValueError, FileNotFoundError, NotAnEventLog) as exc:
        raise CommandFailed(str(exc)) from None
    table = args.table or args.db.name.split(".", 1)[0]
    _check_signed_checkpoints(args.db, key, table)
    bar = tqdm(total=span.events, unit="event", desc="export", file=sys.stderr,
               disable=not sys.stderr.isatty(), unit_scale=True)
    try:
        written = write_export(source, span, table=table, out=args.out, key=key,
                               paytables=paytables, progress=bar.update)
    except LogTampered as exc:
        raise CommandFailed(f"refusing to sign: {exc}") from None
    except OSError as exc:
        raise CommandFailed(f"cannot write {args.out}: {exc}") from None
    finally:
        bar.close()
    m = written.manifest
    counts, chain = m["counts"], m["chain"]
    print(f"wrote {written.path}: table {table}, events seq {m['range']['first_seq']}.."
          f"{m['range']['last_seq']} ({m['range']['first_utc']} to {m['range']['last_utc']})")
    print(f"  {counts['shoes']} shoes, {counts['games']} games, {counts['flags']} flags, "
          f"{counts['decisions']} decisions")
    print(f"  chain head at the end: seq {chain['end']['seq']} hash {chain['end']['hash']}")
    print(f"  signed by {m['signing_key']['fingerprint']}")
    return 0


def _check_signed_checkpoints(db: Path, key: Ed25519PrivateKey, table: str) -> None:
    """Refuse a log that does not verify against the checkpoints the table signed."""
    try:
        reader = SqliteEventReader(db)
        if not reader.signed_checkpoints():
            print(f"export: warning: {db} holds no signed checkpoint: nothing outside the file "
                  "anchors its chain", file=sys.stderr)
            return
        finding = check_signed(reader, public_check(key.public_key()), DEFAULT_CHECKPOINT_EVERY,
                               table)
    except NotAnEventLog as exc:
        raise CommandFailed(str(exc)) from None
    if finding is not None:
        raise CommandFailed(f"refusing to sign: {finding} (see `dealer-assist verify-log {db} "
                            "--pubkey KEY`)")
