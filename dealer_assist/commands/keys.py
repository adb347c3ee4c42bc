"""`dealer-assist keys generate --out DIR`: make the Ed25519 key pair that signs exports."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dealer_assist.commands import command
from dealer_assist.commands.failed import CommandFailed
from dealer_assist.signing_keys import (
    ENV_SIGNING_KEY,
    PRIVATE_NAME,
    PUBLIC_NAME,
    KeyProblem,
    generate_keys,
)

HELP = f"""\
Keys that sign regulator exports (Ed25519).

  dealer-assist keys generate --out DIR

writes DIR/{PRIVATE_NAME} (the private key, PEM, mode 0600: keep it secret, back it up
offline) and DIR/{PUBLIC_NAME} (the public key, PEM: give it to the regulator, who checks
exports with `dealer-assist verify FILE.zip --pubkey {PUBLIC_NAME}` or with the recipe in
docs/export-format.md). DIR is made (mode 0700) if missing. An existing key is never
overwritten, and DIR may not lie inside a git working tree: a signing key never lives in a
repository. The service finds the private key through the environment variable
{ENV_SIGNING_KEY} (the key file's path) or `dealer-assist export --signing-key FILE`.
"""


def register(subparsers: Any) -> None:
    parser = command(subparsers, "keys", "make the key pair that signs regulator exports",
                     HELP)
    actions = parser.add_subparsers(dest="keys_action", metavar="ACTION")
    generate = command(actions, "generate", "create a new Ed25519 key pair in a folder",
                       HELP)
    generate.add_argument("--out", required=True, type=Path, metavar="DIR",
                          help="folder for the two key files (outside any repository)")
    generate.set_defaults(func=run_generate)
    parser.set_defaults(func=lambda args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def run_generate(args: argparse.Namespace) -> int:
    try:
        pair = generate_keys(args.out)
    except KeyProblem as exc:
        raise CommandFailed(str(exc)) from None
    except OSError as exc:
        raise CommandFailed(f"cannot write keys into {args.out}: {exc.strerror}") from None
    print(f"private key: {pair.private} (mode 0600; set {ENV_SIGNING_KEY}={pair.private})")
    print(f"public key:  {pair.public} (give this to the regulator)")
    print(f"fingerprint: {pair.fingerprint}")
    return 0
