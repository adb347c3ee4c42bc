"""The `dealer-assist` command. Each sub-command lives in `dealer_assist.commands`."""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

# The camera's recognizer is written for one core. numpy's OpenBLAS would otherwise start a
# thread per core for its larger products, which then wait on each other whenever the web
# server or the shoe link holds a core (a frame 20% slower here). It must be set before numpy
# loads, and a value the operator set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from dealer_assist import __version__, commands  # noqa: E402


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dealer-assist",
        description=(
            "Live baccarat dealer-assist and table audit: reads the card shoe and the overhead "
            "camera, checks every card against the house rules, flags misdeals for the "
            "supervisor, and keeps a tamper-evident log."
        ),
    )
    parser.add_argument("--version", action="version", version=f"dealer-assist {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except commands.CommandFailed as e:
        print(f"dealer-assist {args.command}: {e}", file=sys.stderr)
        return e.status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
