"""`dealer-assist floor export`: a signed floor export of chosen tables over a time range.

`register_floor_export(floor_subparsers)` adds the action to `dealer-assist floor`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tqdm import tqdm

from dealer_assist.commands import command
from dealer_assist.commands.export_options import add_export_options, read_export_options
from dealer_assist.commands.failed import CommandFailed
from dealer_assist.commands.floor_dsn import add_dsn_options, central_dsn

HELP = """\
Export chosen tables of the floor from FROM to TO, read from the central store, as one zip
signed with the floor's Ed25519 key, that a regulator checks offline with
`dealer-assist verify FILE.zip --pubkey FLOOR.pub.pem`:

  tables/<TABLE>.zip               each table's export in the table's own format (events
                                   with seq, prev_hash and hash; games, flags and decisions
                                   as CSV; its manifest with its chain heads at both ends and
                                   the checkpoints the table signed), signed by the floor's key
  tables/<TABLE>.checkpoints.json  the table's public key and the checkpoints the table
                                   signed over its range, and the first one after it
  manifest.json                    every table's files with their SHA-256, its key, its range,
                                   its chain heads and the central head (the anchor)
  manifest.sig                     the Ed25519 signature of manifest.json

Each table's range is widened to whole shoes, as a table's own export is. Times are ISO 8601
(2026-11-29, 2026-11-29T06:00Z); FROM is included, TO is not: --from 2026-11-29 --to
2026-11-30 is that one day. Without --config, days start at midnight UTC and a time without an
offset is UTC; with --config (a table's), they are that site's gaming days and local times.
A table with no event in the range is named in the manifest and holds no file. All tables
are read in one snapshot of the store.
The private key comes from --signing-key or $DEALER_ASSIST_SIGNING_KEY.
The store is read as a login that reads every table (floor add-reader NAME --role regulator,
or --role floor): --dsn DSN without its password (that is in libpq's password file,
PGPASSFILE), --dsn-file PATH, or $DEALER_ASSIST_FLOOR_DSN; never the store's owner.

Each table's chain is checked by `verify` against the checkpoints the table signed with its
own key (shipped to the central store and verified there), so it does not rest on the floor's
key alone. What does (a table with no registered key, the events after a table's last signed
checkpoint in its range) is named in the manifest's `not_checked` and printed here.
It refuses (nothing written) a table whose central copy does not match its signed checkpoints,
or whose signed checkpoints are still catching up with its events after an outage.
See docs/floor.md, "Floor exports and the tables' signed checkpoints".
Exit status 0 written, 2 nothing written.
"""


def register(subparsers: Any) -> None:
    """No command of its own: `dealer-assist floor` adds this one as its action `export`
    (`register_floor_export`)."""


def register_floor_export(floor_subparsers: Any) -> argparse.ArgumentParser:
    """Add `export` to the actions of `dealer-assist floor`."""
    parser = command(floor_subparsers, "export",
                     "a signed export of chosen tables over a time range", HELP)
    parser.add_argument("--tables", required=True, metavar="T1,T2",
                        help="the tables, by id, separated by commas (or 'all')")
    add_export_options(parser)
    add_dsn_options(parser, "a login that reads every table (a regulator's or reader's)")
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    import psycopg

    from dealer_assist.export.source import NothingToExport
    from dealer_assist.export.writer import LogTampered
    from dealer_assist.floor.export import known_tables, write_floor_export

    dsn = central_dsn(args)
    given = read_export_options(args)
    try:
        conn = psycopg.connect(dsn, connect_timeout=10)
    except psycopg.Error as exc:
        raise CommandFailed(f"cannot connect to the central store: {exc}".strip()) from None
    bar = tqdm(unit="event", desc="floor export", file=sys.stderr,
               disable=not sys.stderr.isatty(), unit_scale=True)
    with conn:
        try:
            tables = [t.strip() for t in args.tables.split(",") if t.strip()]
            if tables == ["all"]:
                tables = known_tables(conn)
            written = write_floor_export(conn, tables, given.start, given.end, out=args.out,
                                         key=given.key, paytables=given.paytables,
                                         progress=bar.update)
        except (ValueError, NothingToExport) as exc:
            raise CommandFailed(str(exc)) from None
        except LogTampered as exc:
            raise CommandFailed(f"refusing to sign: {exc}") from None
        except psycopg.Error as exc:
            raise CommandFailed(f"the central store: {exc}".strip()) from None
        except OSError as exc:
            raise CommandFailed(f"cannot write {args.out}: {exc}") from None
        finally:
            bar.close()
    m = written.manifest
    print(f"wrote {written.path}: {len(m['tables'])} table(s), {m['requested']['from']} to "
          f"{m['requested']['to']}, signed by {m['signing_key']['fingerprint']}")
    for t in m["tables"]:
        end_head = t["chain"]["end"]
        print(f"  {t['table']}: seq {t['range']['first_seq']}..{t['range']['last_seq']}, "
              f"{t['counts']['games']} games, {t['counts']['flags']} flags; chain head seq "
              f"{end_head['seq']} hash {end_head['hash']}")
        if t.get("table_key"):
            print(f"    signed checkpoints of the table's key {t['table_key']}")
    if m["tables_without_events"]:
        print(f"  no events in the range: {', '.join(m['tables_without_events'])}")
    for caveat in m["not_checked"]:
        print(f"  not checked against a table's key: {caveat}")
    return 0
