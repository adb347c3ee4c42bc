"""Sub-commands of `dealer-assist`: each module defines `register(subparsers)`.

A module adds its parser with `command(subparsers, name, help, description)` and registers its
function with `set_defaults(func=...)`; `func(args)` returns the exit status.
A command that cannot go on raises `CommandFailed` (`commands.failed`): the CLI prints its message, prefixed with
the command's name, on standard error and exits with its status (2 unless said otherwise).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Iterator
from typing import IO, Any

from dealer_assist.commands.failed import CommandFailed

#: Traces above this size show a progress bar while they are audited (on a terminal).
PROGRESS_OVER = 16 << 20


def command(subparsers: Any, name: str, help: str, description: str) -> argparse.ArgumentParser:
    """A (sub-)command's parser: `help` in the list of commands, `description` (written with
    its own line breaks) atop its `--help`."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name, help=help, description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    return parser


def invoked_as() -> str:
    """How to call `dealer-assist` again as this process was called, for a line a newcomer
    copies: the script's path as given (`.venv/bin/dealer-assist` after `make run`, which is
    not on the PATH), or this Python with `-m dealer_assist.cli`; quoted for a shell."""
    import shlex
    from pathlib import Path

    if Path(sys.argv[0]).name == "dealer-assist":
        return shlex.quote(sys.argv[0])
    return f"{shlex.quote(sys.executable)} -m dealer_assist.cli"


def audit_trace(trace: str, paytables: Any = None) -> dict[str, Any]:
    """The audit of a trace file (`-`: standard input) or of a table's own log (an SQLite
    file, told by its header: its event seq n stands for line n), or CommandFailed naming
    what is wrong."""
    from dealer_assist.commands import table_log
    from dealer_assist.services.audit import audit_lines
    from dealer_assist.services.trace import TraceLineError

    name = "standard input" if trace == "-" else trace
    try:
        if trace == "-":
            return audit_lines(sys.stdin.buffer, paytables)
        if table_log.is_sqlite(trace):
            name = f"{trace} (a table's log: line n is event seq n)"
            return audit_lines(table_log.bodies(trace), paytables)
        if os.path.isdir(trace):
            raise CommandFailed(f"cannot read {trace}: it is a folder; give a trace file "
                                "(JSON Lines) or a table's log")
        with open(trace, "rb") as f:
            return audit_lines(_with_progress(f), paytables)
    except OSError as e:
        raise CommandFailed(f"cannot read {name}: {e.strerror}") from None
    except TraceLineError as e:
        raise CommandFailed(f"{name}, {e}") from None


def _with_progress(f: IO[bytes]) -> Iterable[bytes]:
    """The file's lines, with a progress bar on standard error for a big file on a terminal."""
    size = os.fstat(f.fileno()).st_size
    if size < PROGRESS_OVER or not sys.stderr.isatty():
        return f
    return _lines_with_bar(f, size)


def _lines_with_bar(f: IO[bytes], size: int) -> Iterator[bytes]:
    from tqdm import tqdm

    with tqdm(total=size, unit="B", unit_scale=True, desc="auditing", file=sys.stderr) as bar:
        done = 0
        for n, line in enumerate(f, 1):
            done += len(line)
            if not n & 0xFFFF:
                bar.update(done - bar.n)
            yield line
        bar.update(done - bar.n)
