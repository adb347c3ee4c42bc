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
from dealer_assist.commands.failed import CommandFailed  # noqa: E402


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with `command`, only that command's module when one is named so
    (`verify-log` lives in `verify_log`): `dealer-assist vision detect` then does not import
    the other commands' libraries (a third of a second)."""
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
    names = sorted(m.name for m in pkgutil.iter_modules(commands.__path__))
    one = command.replace("-", "_") if command else None
    for name in [one] if one in names else names:
        module = importlib.import_module(f"{commands.__name__}.{name}")
        register = getattr(module, "register", None)
        if register is not None:  # a part of another command (vision_train: `vision train`)
            register(sub)
    if one in names and command not in sub.choices:
        return build_parser()  # the module is named like the command but registers others
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv and not argv[0].startswith("-") else None)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except CommandFailed as e:
        print(f"dealer-assist {args.command}: {e}", file=sys.stderr)
        return e.status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
