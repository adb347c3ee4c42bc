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


def _views(machine: TableMachine, paytables: dict[str, PayTable]) -> list[dict[str, Any]]:
    """Every shoe's view, each shoe let go once its view is made (so the view takes its lists
    of cards, uncopied): the memory it held is reused for the views that follow, not asked of
    the system anew (a third of the peak)."""
    shoes, machine.shoes, machine.shoe = machine.shoes, [], None
    shoes.reverse()
    views = []
    while shoes:
        views.append(shoe_view(shoes.pop(), paytables, share=True))
    return views


def audit_lines(lines: Iterable[str | bytes], paytables: dict[str, PayTable] | None = None) -> dict[str, Any]:
    """The `dealer-assist audit --json` object for a trace (raises TraceLineError if malformed)."""
    if paytables is None:
        paytables = load_paytables()
    # The audit builds millions of small objects and no cycles: the cycle collector only slows
    # it. They are then put in its oldest generation (`gc.freeze`, then `gc.unfreeze`), which
    # it seldom walks: else its first collection after the audit would walk every one of them
    # (a tenth of a 1,000-shoe audit's time).
    collecting = gc.isenabled()
    gc.disable()
    try:
        machine, blanks = replay(lines)
        report: dict[str, Any] = {"shoes": _views(machine, paytables)}
    finally:
        gc.freeze()
        gc.unfreeze()
        if collecting:
            gc.enable()
    if machine.problems:
        report["ignored"] = [
            {"line": line_number(i, blanks), "problem": p} for i, p in machine.problems]
    return report
