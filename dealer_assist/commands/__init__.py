"""Sub-commands of `dealer-assist`: each module defines `register(subparsers)`.

A module registers its parser with `set_defaults(func=...)`; `func(args)` returns the exit status.
A command that cannot go on raises `CommandFailed`: the CLI prints its message, prefixed with
the command's name, on standard error and exits with its status (2 unless said otherwise).
"""

from __future__ import annotations

import sys
from typing import Any


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
            return audit_lines(f, paytables)
    except OSError as e:
        raise CommandFailed(f"cannot read {name}: {e.strerror}") from None
    except TraceLineError as e:
        raise CommandFailed(f"{name}, {e}") from None
