"""The start-up check of the pay tables: each bet's house edge on a full shoe, exactly.

A mistyped pay (`1:11` for `11:1`, `9.5:1` for `0.95:1`) shows as a house edge far from
the usual. A negative house edge means the house loses money on every hand: the service
refuses to start unless the operator overrides it. An edge outside the band (by default
0.5 % to 40 %) only warns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from dealer_assist.analysis.composition import full_shoe
from dealer_assist.analysis.edge import BetValues
from dealer_assist.analysis.odds import shoe_odds
from dealer_assist.domain.paytable import BetPay, PayTable

#: House edges inside this band (fractions of the stake) pass without a warning.
DEFAULT_BAND: tuple[float, float] = (0.005, 0.40)


class PayTableRefused(ValueError):
    """A pay table with a bet the house loses on; the message is the printed report."""


@dataclass(frozen=True, slots=True)
class BetCheck:
    variant: str
    bet: str
    pays: str  # the pay as configured, e.g. "1:1, 1:2 on 6"
    house_edge: Fraction  # exact, on a full shoe
    status: str  # "ok", "warn" (outside the band) or "refuse" (negative)

    @property
    def detail(self) -> str:
        edge = f"{float(self.house_edge):.4%}"
        if self.status == "refuse":
            return (
                f"{self.variant} {self.bet} pays {self.pays}: "
                f"house edge {edge} is negative (the house loses)"
            )
        if self.status == "warn":
            return (
                f"{self.variant} {self.bet} pays {self.pays}: house edge {edge} is outside the band"
            )
        return f"{self.variant} {self.bet} pays {self.pays}: house edge {edge}"


@dataclass(frozen=True, slots=True)
class PayTableReport:
    decks: int
    band: tuple[float, float]
    checks: tuple[BetCheck, ...]

    @property
    def refused(self) -> bool:
        """True when some bet has a negative house edge: do not start without an override."""
        return any(c.status == "refuse" for c in self.checks)

    @property
    def errors(self) -> list[str]:
        return [c.detail for c in self.checks if c.status == "refuse"]

    @property
    def warnings(self) -> list[str]:
        return [c.detail for c in self.checks if c.status == "warn"]


def describe_pay(bet: BetPay) -> str:
    """A pay as the operator wrote it: `3:2`, `1:1, 1:2 on 6`, `2 sevens 2:1, 3 sevens 5:1`."""
    parts = [bet.pays.text] if bet.pays is not None else []
    parts += [f"{p.text} on {t}" for t, p in sorted(bet.on_total.items())]
    parts += [f"{n} sevens {p.text}" for n, p in sorted(bet.by_sevens.items())]
    return ", ".join(parts)


def check_paytables(
    paytables: Mapping[str, PayTable],
    decks: int = 8,
    band: tuple[float, float] = DEFAULT_BAND,
) -> PayTableReport:
    """Every bet's exact house edge on a full shoe of `decks` decks, judged against `band`."""
    lo, hi = band
    if not lo < hi:
        raise ValueError(f"house-edge band must be (low, high) with low < high, got {band!r}")
    checks = []
    for variant, table in paytables.items():
        edges = BetValues(table).house_edges(shoe_odds(full_shoe(decks), variant, exact=True))
        for bet, edge in edges.items():
            status = "refuse" if edge < 0 else ("warn" if not lo <= edge <= hi else "ok")
            checks.append(BetCheck(variant, bet, describe_pay(table.bets[bet]), edge, status))
    return PayTableReport(decks, (lo, hi), tuple(checks))


def format_paytable_report(report: PayTableReport) -> str:
    """The report as printed at start-up: one line a bet, then errors and warnings."""
    lo, hi = report.band
    lines = [
        f"Pay tables: house edge of each bet on a full {report.decks}-deck shoe "
        f"(band {lo:.2%} to {hi:.2%})"
    ]
    marks = {"ok": "", "warn": "  WARNING: outside the band", "refuse": "  REFUSED: negative"}
    for c in report.checks:
        lines.append(
            f"  {c.variant:<9} {c.bet:<12} {c.pays:<24} "
            f"{float(c.house_edge):>9.4%}{marks[c.status]}"
        )
    lines += [f"error: {e}" for e in report.errors]
    lines += [f"warning: {w}" for w in report.warnings]
    return "\n".join(lines)


def enforce_paytables(report: PayTableReport, allow_negative: bool = False) -> None:
    """Raise PayTableRefused (message: the formatted report) when a bet has a negative house
    edge and the operator has not allowed it."""
    if report.refused and not allow_negative:
        raise PayTableRefused(
            format_paytable_report(report)
            + "\nrefusing to start: fix the pay table, or override if this table is intended"
        )
