"""`dealer-assist audit TRACE [--json]`: replay a trace and report every shoe and game."""

from __future__ import annotations

import argparse
import json
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from dealer_assist.commands import audit_trace
from dealer_assist.commands.failed import CommandFailed
from dealer_assist.config import ConfigError, load_paytables

#: One 8-deck shoe dealt by the rules with an unneeded draw and a missed draw: `--sample`.
SAMPLE = resources.files(__package__).joinpath("sample_shoe.jsonl")
WINNER = {"player": "PLAYER", "banker": "BANKER", "tie": "TIE", None: "-"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "audit",
        help="check a table trace against the house rules",
        description=(
            "Replay a table trace (JSON Lines, table-trace.md) through the table machine and report "
            "every shoe and game: cards by position, totals, winner, winning bets, flags and review "
            "status. TRACE may also be a table's own log (the SQLite file `dealer-assist run` "
            "writes, e.g. var/T1.events.db): it is read read-only while the table writes, its "
            "event seq n standing for line n. Exit status 0 whatever the flags; 2 if a line is "
            "malformed (the message names it), or if the trace holds no shoe (nothing to audit: "
            "an empty file says it holds no events), except with --json, which then prints "
            "{\"shoes\": []} with exit status 0 as the trace contract has it, and says why on "
            "standard error. "
            "--sample audits a shoe shipped with the package: 80 games, two of them misdealt. "
            "--plot FILE.svg also draws each shoe's results and flags game by game, with the "
            "shoe's score against the exact odds of the cards dealt (docs/charts.md); "
            "--lang th draws its words in Thai (en, th, zh-Hans or zh-Hant; the report "
            "printed stays English)."
        ),
    )
    p.add_argument("trace", nargs="?", help="trace file (JSON Lines), - for standard input, or "
                   "a table's log (SQLite)")
    p.add_argument("--sample", action="store_true",
                   help="audit the sample shoe shipped with the package instead of a TRACE")
    p.add_argument("--json", action="store_true", help="print one JSON object (the audit contract)")
    p.add_argument("--paytable", type=Path, default=None,
                   help="pay tables TOML (default: the shipped pay tables)")
    p.add_argument("--plot", type=Path, default=None, metavar="FILE.svg",
                   help="also write a picture (SVG) of each shoe's results and flags over the "
                        "games, with its chi-square score and p-value against the exact odds")
    p.add_argument("--lang", default=None, metavar="LANG",
                   help="the language of the picture's words (with --plot): en (default), th, "
                        "zh-Hans or zh-Hant")
    p.set_defaults(func=run)


def game_row(g: dict[str, Any]) -> str:
    """One game of the audit as the report prints it: number, hands, winner, status, review,
    flags and winning bets."""
    def hand(cards: list[str], total: int | None) -> str:
        return f"{' '.join(cards) or '-':<11} ({'?' if total is None else total})"

    flags = ",".join(f["code"] for f in g["flags"]) or "-"
    bets = " ".join(f"{b['bet']} {b['pays']}" for b in g["winning_bets"])
    status = g["status"] if g["status"] != "complete" else ""
    return (f"  {g['game']:>3}  P {hand(g['player'], g['player_total'])}  "
            f"B {hand(g['banker'], g['banker_total'])}  {WINNER[g['winner']]:<6} "
            f"{'N' if g['natural'] else ' '} {status:<10} review {g['review']:<8} flags {flags}"
            + (f"  wins: {bets}" if bets else ""))


def render_table(report: dict[str, Any]) -> str:
    out: list[str] = []
    for s in report["shoes"]:
        burn = s["burn"]
        out.append(
            f"shoe {s['shoe_id']}: {s['variant']}, {s['decks']} decks, {s['status']}, "
            f"{len(s['games'])} games, burn {len(burn['cards'])}/{burn['required'] or '?'} "
            f"({' '.join(burn['cards'])})"
        )
        out.extend(f"  shoe flag {f['code']} ({f['severity']}): {f['detail']}" for f in s["flags"])
        out.append(f"  {'#':>3}  {'player':<16}  {'banker':<16}  winner")
        out.extend(game_row(g) for g in s["games"])
    for problem in report.get("ignored", []):
        out.append(f"ignored line {problem['line']}: {problem['problem']}")
    return "\n".join(out)


def plot_language(name: str | None, plot: Path | None) -> str:
    """The shipped language --lang names (en when not given); CommandFailed (exit 2) naming
    the shipped languages for another, or when there is no picture to draw."""
    from dealer_assist import i18n
    from dealer_assist.config import languages

    if name is None:
        return i18n.SOURCE
    if plot is None:
        raise CommandFailed(f"--lang {name}: the language of the picture; give --plot "
                            "FILE.svg too (the report printed is English)")
    try:
        return languages.language(name)
    except languages.UnknownLanguage as e:
        raise CommandFailed(f"--lang: {e}") from None


def write_plot(report: dict[str, Any], out: Path, name: str, lang: str = "en") -> None:
    """The SVG of `report`'s shoes into `out`, its words in `lang`; CommandFailed (exit 2)
    saying why it cannot."""
    from dealer_assist import i18n
    from dealer_assist.charts.fit import shoe_fit
    from dealer_assist.charts.svg import results_plot, translated_words

    if out.suffix.lower() != ".svg":
        raise CommandFailed(f"--plot {out}: the picture is SVG; name a file ending in .svg")
    if out.is_dir():
        raise CommandFailed(f"--plot {out}: is a folder; name a file in it")
    if not out.parent.is_dir():
        raise CommandFailed(f"--plot {out}: no folder {out.parent}")
    shoes = report["shoes"]
    words = translated_words(i18n.translations(lang).gettext)
    picture = results_plot(f"dealer-assist audit {name}", shoes, [shoe_fit(s) for s in shoes],
                           words)
    try:
        out.write_text(picture, encoding="utf-8")
    except OSError as e:
        raise CommandFailed(f"--plot {out}: cannot write it: {e.strerror or e}") from None


def nothing_to_audit(trace: str) -> str:
    """Why a trace whose audit holds no shoe has nothing to report (`roads` says the same)."""
    from dealer_assist.commands import table_log

    name = "standard input" if trace == "-" else trace
    if trace == "-":
        return f"{name}: no shoe in the trace (no new_shoe event)"
    if table_log.is_sqlite(trace):
        if table_log.open_log(trace).head().seq == 0:
            return f"{name}: no shoe in the table's log: it holds no events"
        return f"{name}: no shoe in the table's log (no new_shoe event)"
    if _blank(Path(trace)):
        return f"{name}: no shoe in the trace: it holds no events"
    return f"{name}: no shoe in the trace (no new_shoe event)"


def _blank(path: Path) -> bool:
    """Whether the file holds nothing but white space."""
    with path.open("rb") as f:
        return all(not chunk.strip() for chunk in iter(lambda: f.read(1 << 20), b""))


def run(args: argparse.Namespace) -> int:
    if args.sample == (args.trace is not None):
        raise CommandFailed("give a TRACE file (- for standard input) or --sample, one of the two")
    lang = plot_language(args.lang, args.plot)
    try:
        paytables = load_paytables(args.paytable)
    except ConfigError as e:
        raise CommandFailed(str(e)) from None
    if args.sample:
        with resources.as_file(SAMPLE) as path:
            report = audit_trace(str(path), paytables)
    else:
        report = audit_trace(args.trace, paytables)
    if not report["shoes"]:
        for problem in report.pop("ignored", []):
            print(f"dealer-assist audit: line {problem['line']}: {problem['problem']} (ignored)",
                  file=sys.stderr)
        if not args.json:
            raise CommandFailed(nothing_to_audit(args.trace))
        # --json keeps to table-trace.md's contract (exit 0 unless a line is malformed): an
        # empty report, and why on stderr
        print(f"dealer-assist audit: {nothing_to_audit(args.trace)}", file=sys.stderr)
        sys.stdout.write('{"shoes": []}\n')
        return 0
    if args.plot is not None:
        write_plot(report, args.plot, args.trace or "--sample", lang)
    if args.json:
        # stdout keeps to the contract exactly; what was ignored is said on stderr
        for problem in report.pop("ignored", []):
            print(f"dealer-assist audit: line {problem['line']}: {problem['problem']} (ignored)",
                  file=sys.stderr)
        # json.dumps, not json.dump: only the one-shot encoder is the C one (5 times faster). The
        # report is a fresh tree of dicts and lists, so the check for cycles is skipped (20% more).
        sys.stdout.write(json.dumps(report, ensure_ascii=False, check_circular=False) + "\n")
    else:
        print(render_table(report))
    return 0
