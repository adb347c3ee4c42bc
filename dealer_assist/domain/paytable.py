"""Pay tables as data: which bets a variant offers and what each pays.

A pay is written `a:b` (`0.95:1`, `3:2`): a winning stake of b is paid a. A bet's entry
in a table is either a pay (`banker = "0.95:1"`) or a table with a general `pays` and
exceptions: `on_total` (Player, Banker, Tie: by the winning total) and `by_sevens` (Super 7's:
by the number of sevens in the completed game). Bets on Player or Banker push on a tie.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dealer_assist.domain.rules import VARIANTS

#: Bets each variant may offer, in the order results list them.
BETS_BY_VARIANT: dict[str, tuple[str, ...]] = {
    "standard": ("player", "banker", "tie", "player_pair", "banker_pair", "big", "small"),
    "super6": ("player", "banker", "tie", "player_pair", "banker_pair", "big", "small"),
    "7up": ("player", "banker", "tie", "super7"),
}
_ON_TOTAL_BETS = frozenset({"player", "banker", "tie"})
_PAY_RE = re.compile(r"^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$")
#: Super 7's needs at least this many sevens (the fixed Player 7 counts as one).
SUPER7_MIN_SEVENS = 2


class PayTableError(ValueError):
    """A pay table that cannot be used: unknown bet, malformed pay, missing bet."""


@dataclass(frozen=True, slots=True)
class Pay:
    """A pay `a:b`; `ratio` is a/b, what one unit of stake wins."""

    text: str
    ratio: Fraction

    @classmethod
    def parse(cls, text: object, where: str) -> Pay:
        m = _PAY_RE.match(text) if isinstance(text, str) else None
        if m is None:
            raise PayTableError(f"{where}: pay must be written 'a:b' like '0.95:1' or '3:2', got {text!r}")
        a, b = Fraction(m.group(1)), Fraction(m.group(2))
        if a == 0 or b == 0:
            raise PayTableError(f"{where}: pay {text!r} must have both sides above zero")
        return cls(m.group(0), a / b)


@dataclass(frozen=True, slots=True)
class BetPay:
    """What one bet pays: `pays` in general, `on_total` / `by_sevens` where they say so."""

    pays: Pay | None
    on_total: dict[int, Pay] = field(default_factory=dict)
    by_sevens: dict[int, Pay] = field(default_factory=dict)

    def for_total(self, total: int) -> Pay | None:
        return self.on_total.get(total, self.pays)

    def for_sevens(self, sevens: int) -> Pay | None:
        if sevens < SUPER7_MIN_SEVENS:
            return None
        return self.by_sevens.get(sevens, self.pays)


@dataclass(frozen=True, slots=True)
class PayTable:
    variant: str
    bets: dict[str, BetPay]
    _won: dict[tuple, tuple[tuple[str, str], ...]] = field(default_factory=dict, compare=False, repr=False)
    _won_views: dict[tuple, list[dict[str, str]]] = field(
        default_factory=dict, compare=False, repr=False)

    def winning_bets(
        self,
        winner: str,
        player_total: int,
        banker_total: int,
        player_pair: bool,
        banker_pair: bool,
        cards: int,
        sevens: int,
        super7_offered: bool,
    ) -> tuple[tuple[str, str], ...]:
        """(bet, pay text) of every bet this table offers that wins on this result."""
        key = (winner, player_total, banker_total, player_pair, banker_pair, cards, sevens,
               super7_offered)
        won = self._won.get(key)
        if won is None:
            won = self._won[key] = tuple(self._winning_bets(*key))
        return won

    def winning_bets_view(self, won: tuple[tuple[str, str], ...]) -> list[dict[str, str]]:
        """`winning_bets`' answer as an audit's game lists it (`{"bet", "pays"}` each), one
        list for every game of that result: a view that holds it must never change it."""
        view = self._won_views.get(won)
        if view is None:
            view = self._won_views[won] = [{"bet": b, "pays": p} for b, p in won]
        return view

    def _winning_bets(
        self, winner: str, player_total: int, banker_total: int, player_pair: bool,
        banker_pair: bool, cards: int, sevens: int, super7_offered: bool,
    ) -> list[tuple[str, str]]:
        won: list[tuple[str, str]] = []
        for name, bet in self.bets.items():
            pay: Pay | None = None
            if name == winner:
                pay = bet.for_total(player_total if winner == "player" else banker_total)
            elif name == "player_pair" and player_pair or name == "banker_pair" and banker_pair or name == "big" and cards >= 5 or name == "small" and cards == 4:
                pay = bet.pays
            elif name == "super7" and super7_offered:
                pay = bet.for_sevens(sevens)
            if pay is not None:
                won.append((name, pay.text))
        return won


def _int_keys(table: Any, where: str, allowed: range) -> dict[int, Any]:
    if not isinstance(table, dict):
        raise PayTableError(f"{where}: expected a table like {{ 7 = \"3:2\" }}, got {table!r}")
    out: dict[int, Any] = {}
    for key, pay in table.items():
        try:
            n = int(key)
        except (TypeError, ValueError):
            n = -1
        if n not in allowed:
            raise PayTableError(f"{where}: key {key!r} must be a number from {allowed[0]} to {allowed[-1]}")
        out[n] = pay
    return out


def _bet_pay(variant: str, name: str, raw: Any) -> BetPay:
    where = f"pay table {variant!r}, bet {name!r}"
    if not isinstance(raw, dict):
        return BetPay(Pay.parse(raw, where))
    known = {"pays"} | ({"on_total"} if name in _ON_TOTAL_BETS else set())
    known |= {"by_sevens"} if name == "super7" else set()
    unknown = sorted(set(raw) - known)
    if unknown:
        raise PayTableError(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(known))}")
    pays = Pay.parse(raw["pays"], where) if "pays" in raw else None
    on_total = {
        t: Pay.parse(p, f"{where}, on_total {t}")
        for t, p in _int_keys(raw.get("on_total", {}), f"{where}, on_total", range(10)).items()
    }
    by_sevens = {
        s: Pay.parse(p, f"{where}, by_sevens {s}")
        for s, p in _int_keys(raw.get("by_sevens", {}), f"{where}, by_sevens", range(2, 7)).items()
    }
    if pays is None and not on_total and not by_sevens:
        raise PayTableError(f"{where}: give 'pays' or at least one exception")
    return BetPay(pays, on_total, by_sevens)


def paytable_from_mapping(variant: str, raw: Any) -> PayTable:
    """Validate one variant's table (e.g. parsed TOML); raise PayTableError saying what is wrong."""
    if variant not in BETS_BY_VARIANT:
        raise PayTableError(f"unknown variant {variant!r} in pay tables; known: {', '.join(VARIANTS)}")
    if not isinstance(raw, dict) or not raw:
        raise PayTableError(f"pay table {variant!r} must be a non-empty table of bets")
    offered = BETS_BY_VARIANT[variant]
    unknown = [name for name in raw if name not in offered]
    if unknown:
        raise PayTableError(
            f"pay table {variant!r}: unknown bet(s) {', '.join(map(repr, unknown))}; "
            f"bets of {variant}: {', '.join(offered)}"
        )
    for main in ("player", "banker", "tie"):
        if main not in raw:
            raise PayTableError(f"pay table {variant!r}: the {main!r} bet is required")
    bets = {name: _bet_pay(variant, name, raw[name]) for name in offered if name in raw}
    return PayTable(variant, bets)


def paytables_from_mapping(raw: Any) -> dict[str, PayTable]:
    """All variants' tables from one mapping `{variant: {bet: pay}}`; every variant is required."""
    if not isinstance(raw, dict):
        raise PayTableError("pay tables must be a table of variants")
    unknown = sorted(set(raw) - set(VARIANTS))
    if unknown:
        raise PayTableError(f"unknown variant(s) in pay tables: {', '.join(unknown)}; known: {', '.join(VARIANTS)}")
    missing = [v for v in VARIANTS if v not in raw]
    if missing:
        raise PayTableError(f"pay tables lack the variant(s): {', '.join(missing)}")
    return {v: paytable_from_mapping(v, raw[v]) for v in VARIANTS}
