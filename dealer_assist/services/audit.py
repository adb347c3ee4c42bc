"""Auditing a trace: replay its events through the table machine and report every shoe and game."""

from __future__ import annotations

import gc
from collections.abc import Iterable
from typing import Any

from dealer_assist.config import load_paytables
from dealer_assist.domain.paytable import PayTable
from dealer_assist.domain.report import shoe_view
from dealer_assist.domain.table import TableMachine
from dealer_assist.services.trace import for_each_event, line_number


def replay(lines: Iterable[str | bytes]) -> tuple[TableMachine, list[int]]:
    """Feed every event of a trace to a fresh machine; return it and the blank lines skipped."""
    machine = TableMachine(record=False)
    blanks = for_each_event(lines, machine.apply)
    return machine, blanks


def audit_lines(lines: Iterable[str | bytes], paytables: dict[str, PayTable] | None = None) -> dict[str, Any]:
    """The `dealer-assist audit --json` object for a trace (raises TraceLineError if malformed)."""
    if paytables is None:
        paytables = load_paytables()
    # The audit builds many small objects and no cycles: the cycle collector only slows it.
    collecting = gc.isenabled()
    gc.disable()
    try:
        machine, blanks = replay(lines)
        report: dict[str, Any] = {"shoes": [shoe_view(s, paytables) for s in machine.shoes]}
    finally:
        if collecting:
            gc.enable()
    if machine.problems:
        report["ignored"] = [
            {"line": line_number(i, blanks), "problem": p} for i, p in machine.problems]
    return report
