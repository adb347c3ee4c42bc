"""Auditing a trace: replay its events through the table machine and report every shoe and game."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dealer_assist.domain.paytable import PayTable
from dealer_assist.domain.report import shoe_view
from dealer_assist.domain.table import TableMachine
from dealer_assist.services.trace import read_events
from dealer_assist.settings import load_paytables


def replay(lines: Iterable[str | bytes]) -> tuple[TableMachine, dict[int, int]]:
    """Feed every event of a trace to a fresh machine; return it and event index -> line number."""
    machine = TableMachine()
    apply = machine.apply
    line_of: dict[int, int] = {}
    for index, (number, event) in enumerate(read_events(lines)):
        line_of[index] = number
        apply(event)
    return machine, line_of


def audit_lines(lines: Iterable[str | bytes], paytables: dict[str, PayTable] | None = None) -> dict[str, Any]:
    """The `dealer-assist audit --json` object for a trace (raises TraceLineError if malformed)."""
    if paytables is None:
        paytables = load_paytables()
    machine, line_of = replay(lines)
    report: dict[str, Any] = {"shoes": [shoe_view(s, paytables) for s in machine.shoes]}
    if machine.problems:
        report["ignored"] = [{"line": line_of.get(i), "problem": p} for i, p in machine.problems]
    return report
