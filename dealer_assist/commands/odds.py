"""`dealer-assist odds`: exact odds of the next game and every bet's house edge."""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

from dealer_assist.analysis.composition import (
    CompositionError,
    as_mapping,
    full_shoe,
    parse_remaining,
)
from dealer_assist.analysis.edge import BetValues
from dealer_assist.analysis.odds import ShoeOdds, shoe_odds
from dealer_assist.analysis.paytable_check import describe_pay
from dealer_assist.commands import command
from dealer_assist.config import ConfigError, load_paytables
from dealer_assist.domain.rules import VARIANTS

_HELP = """\
Print the exact odds of the next game dealt from a shoe (no simulation): Banker, Player and
Tie, 4/5/6 cards dealt, the pairs, the sevens of 7up, the joint table of final totals, and the
house edge of every bet of the variant's pay table.

The shoe is a full shoe of --decks decks, or the cards left in it, --remaining: 13 counts in
rank order A 2 3 4 5 6 7 8 9 T J Q K, e.g. 31,32,32,30,32,32,29,32,32,31,32,32,32, or
rank=count pairs naming every rank, e.g. A=31,2=32,...,K=32.
"""


def register(subparsers: Any) -> None:
    p = command(subparsers, "odds", "exact odds and house edges for a full or depleted shoe",
                _HELP)
    shoe = p.add_mutually_exclusive_group()
    shoe.add_argument(
        "--decks", type=int, default=8, help="a full shoe of this many decks (default 8)"
    )
    shoe.add_argument("--remaining", metavar="COUNTS", help="the cards left, by rank (see above)")
    p.add_argument(
        "--variant", choices=VARIANTS, default="standard", help="game variant (default standard)"
    )
    p.add_argument(
        "--paytable",
        type=Path,
        metavar="FILE",
        help="pay tables TOML (default: the pay tables shipped with the package)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.add_argument("--exact", action="store_true", help="exact fractions (JSON: strings 'a/b')")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        counts = parse_remaining(args.remaining) if args.remaining else full_shoe(args.decks)
        paytable = load_paytables(args.paytable)[args.variant]
        odds = shoe_odds(counts, args.variant, exact=args.exact)
    except (CompositionError, ConfigError) as e:
        print(f"dealer-assist odds: {e}", file=sys.stderr)
        return 2
    edges = BetValues(paytable).house_edges(odds)
    report = _report(odds, edges, {b: describe_pay(p) for b, p in paytable.bets.items()})
    if args.json:
        print(json.dumps(report, default=_number))
    else:
        print(_text(report, odds, args))
    return 0


def _number(x: Any) -> Any:
    if isinstance(x, Fraction):
        return f"{x.numerator}/{x.denominator}"
    return float(x)


def _report(odds: ShoeOdds, edges: dict[str, Any], pays: dict[str, str]) -> dict[str, Any]:
    totals = odds.totals
    out: dict[str, Any] = {
        "variant": odds.variant,
        "cards_left": sum(odds.remaining),
        "remaining": as_mapping(odds.remaining),
        "exact": odds.exact,
        "probabilities": {
            "banker": odds.banker,
            "player": odds.player,
            "tie": odds.tie,
            "cards": {str(n): p for n, p in odds.cards.items()},
            "player_pair": odds.player_pair,
            "banker_pair": odds.banker_pair,
            "totals": [[totals[p, b] for b in range(10)] for p in range(10)],
        },
        "bets": {b: {"pays": pays[b], "house_edge": e} for b, e in edges.items()},
    }
    if odds.variant == "7up":
        out["probabilities"]["sevens"] = {str(n): p for n, p in odds.sevens.items()}
    return out


def _fmt(x: Any, exact: bool) -> str:
    return f"{x.numerator}/{x.denominator}" if exact else f"{float(x):.6f}"


def _text(report: dict[str, Any], odds: ShoeOdds, args: argparse.Namespace) -> str:
    ex = odds.exact
    pr = report["probabilities"]
    shoe = f"{args.decks}-deck shoe, full" if args.remaining is None else "the remaining shoe"
    lines = [
        f"Next game from {report['cards_left']} cards ({shoe}), variant {odds.variant}",
        "  "
        + "   ".join(f"{k.capitalize()} {_fmt(pr[k], ex)}" for k in ("banker", "player", "tie")),
        "  Cards dealt: " + "   ".join(f"{n}: {_fmt(p, ex)}" for n, p in pr["cards"].items()),
        f"  Player pair {_fmt(pr['player_pair'], ex)}   Banker pair {_fmt(pr['banker_pair'], ex)}",
    ]
    if "sevens" in pr:
        lines.append(
            "  Sevens in the game: "
            + "  ".join(f"{n}: {_fmt(p, ex)}" for n, p in pr["sevens"].items())
        )
    lines.append("  Final totals (rows Player 0-9, columns Banker 0-9):")
    for p, row in enumerate(pr["totals"]):
        lines.append(f"    {p} " + " ".join(f"{float(x):.5f}" for x in row))
    lines.append(f"Bets ({args.paytable or 'shipped pay tables'}):")
    for bet, b in report["bets"].items():
        edge = b["house_edge"]
        shown = f"{float(edge):>9.4%}" + (f"  = {edge.numerator}/{edge.denominator}" if ex else "")
        lines.append(f"  {bet:<12} pays {b['pays']:<24} house edge {shown}")
    return "\n".join(lines)
