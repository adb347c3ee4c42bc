"""Sub-commands of `dealer-assist`: each module defines `register(subparsers)`.

A module adds its parser with `command(subparsers, name, help, description)` and registers its
function with `set_defaults(func=...)`; `func(args)` returns the exit status.
A command that cannot go on raises `CommandFailed`: the CLI prints its message, prefixed with
the command's name, on standard error and exits with its status (2 unless said otherwise).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Iterator
from typing import IO, Any

#: Traces above this size show a progress bar while they are audited (on a terminal).
PROGRESS_OVER = 16 << 20


def command(subparsers: Any, name: str, help: str, description: str) -> argparse.ArgumentParser:
    """A (sub-)command's parser: `help` in the list of commands, `description` (written with
    its own line breaks) atop its `--help`."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name, help=help, description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    return parser


class CommandFailed(Exception):
    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def audit_trace(trace: str, paytables: Any = None) -> dict[str, Any]:
    """The audit of a trace file (`-`: standard input), or CommandFailed naming what is wrong."""
    from dealer_assist.services.audit import audit_lines
    from dealer_assist.services.trace import TraceLineError

    name = "standard input" if trace == "-" else trace
    try:
        if trace == "-":
            return audit_lines(sys.stdin.buffer, paytables)
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
