"""The options a table's `export` and `floor export` share, read the same way by both: the time
range (FROM included, TO not) on UTC or a site's clock, the zip to write, the signing key and
the pay tables. Anything wrong is a CommandFailed naming it (exit 2, nothing written)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dealer_assist.commands.failed import CommandFailed
from dealer_assist.domain.paytable import PayTable
from dealer_assist.signing_keys import ENV_SIGNING_KEY


@dataclass(frozen=True)
class ExportInputs:
    """The shared options, read: the range as UTC instants, the key, the pay tables."""

    start: datetime
    end: datetime
    key: Ed25519PrivateKey
    paytables: dict[str, PayTable]


def add_export_options(parser: argparse.ArgumentParser) -> None:
    """Add --from, --to, --config, --out, --signing-key and --paytable."""
    parser.add_argument("--from", dest="start", required=True, metavar="FROM",
                        help="start of the time range (included)")
    parser.add_argument("--to", dest="end", required=True, metavar="TO",
                        help="end of the time range (excluded)")
    parser.add_argument("--config", type=Path, metavar="FILE",
                        help="a table's configuration: read days and times on its site's clock "
                             "(time zone, gaming-day start); default: UTC, days from midnight")
    parser.add_argument("--out", required=True, type=Path, metavar="FILE.zip",
                        help="the zip to write (must not exist)")
    parser.add_argument("--signing-key", metavar="FILE",
                        help=f"the private key (default: the file named by ${ENV_SIGNING_KEY})")
    parser.add_argument("--paytable", type=Path, metavar="FILE",
                        help="pay tables TOML the games are settled with "
                             "(default: config/paytables.toml)")


def read_export_options(args: argparse.Namespace) -> ExportInputs:
    """The options `add_export_options` added, read and checked; CommandFailed if not."""
    from dealer_assist.config import ConfigError, load_paytables, load_table_config
    from dealer_assist.export.source import parse_when
    from dealer_assist.signing_keys import KeyProblem, load_private_key, signing_key_path

    try:
        site = load_table_config(args.config).gaming_day if args.config else None
        start, end = parse_when(args.start, site), parse_when(args.end, site)
        key = load_private_key(signing_key_path(args.signing_key))
        paytables = load_paytables(args.paytable)
    except (ValueError, KeyProblem, ConfigError, FileNotFoundError) as exc:
        raise CommandFailed(str(exc)) from None
    if args.out.exists():
        raise CommandFailed(f"{args.out} exists: refusing to overwrite an export")
    return ExportInputs(start, end, key, paytables)
