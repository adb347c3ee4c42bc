"""The pictures, drawn as SVG text on the server: no script, nothing loaded from anywhere.

Every value printed into the SVG is escaped (`html.escape`, quotes too). Each mark carries
its data as attributes (`data-label`, `data-value`, `data-code`...) and a `<title>` (the
tooltip a browser shows), so a test, or a person reading the source, sees what was drawn.
Words shown in a picture come from `words` (English by default; a page passes its own,
`translated_words(gettext)`), and a page's titles from `title(gettext, key, ...)`: `WORDS` and
`TITLES` are message ids of the catalogs (dealer_assist/i18n), a title's `{0}` its values.

    bar_chart     one bar per label: flags by hour, flags by dealer, flag rates
    fit_chart     a shoe's Banker / Player / Tie against the exact odds, with X2 and p
    timeline      a day's games, flags and decisions on a time axis
    results_plot  the shoes of an audit: each game's result and flags, game by game
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from html import escape
from typing import Any

from dealer_assist.charts.data import NO_DEALER
from dealer_assist.charts.fit import RESULTS, Fit

FONT = "font-family=\"sans-serif\""
COLOURS = {"banker": "#c0392b", "player": "#1f5fa8", "tie": "#2e8b57", "flag": "#e67e22",
           "decision": "#6c3483", "game": "#7f8c8d", "bar": "#34627f", "expected": "#bdc3c7"}
WORDS = {"banker": "Banker", "player": "Player", "tie": "Tie", "observed": "observed",
         "expected": "expected by the odds", "games": "games", "flags": "flags",
         "decisions": "decisions", "no_p": "too few games for a p-value", "game": "game",
         "nothing": "nothing to show", "shoe": "shoe", NO_DEALER: NO_DEALER,
         # a decision's action, in the timeline's tooltips (`timeline` shows the code otherwise)
         "accept": "accept", "correct": "correct", "void": "void", "void_shoe": "void_shoe"}
#: The pictures' titles on the web pages, `{0}`, `{1}` for their values (`title`).
TITLES = {"by_hour": "Flags by hour, last {0} h", "by_dealer": "Flags by dealer, last {0} h",
          "fit": "Shoe {0} against the exact odds", "day": "Table {0}, gaming day {1}",
          "table_rates": "Flag rate per table, {0}", "dealer_rates": "Flag rate per dealer, {0}"}


def translated_words(gettext: Callable[[str], str]) -> dict[str, str]:
    """`WORDS` in a page's language (`gettext`: accounts.pages.translator's)."""
    return {key: gettext(text) for key, text in WORDS.items()}


def title(gettext: Callable[[str], str], key: str, *values: Any) -> str:
    """The title `TITLES[key]` in a page's language, its `{0}`, `{1}` filled with `values`."""
    return re.sub(r"\{(\d)\}", lambda m: str(values[int(m.group(1))]), gettext(TITLES[key]))


def esc(value: Any) -> str:
    return escape(str(value), quote=True)


def _words(words: Mapping[str, str] | None) -> dict[str, str]:
    return {**WORDS, **(words or {})}


def _document(width: int, height: int, title: str, body: list[str], kind: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="chart {esc(kind)}" '
            f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="{esc(title)}"><title>{esc(title)}</title>'
            f'<text x="8" y="18" {FONT} font-size="14" font-weight="bold" class="heading">'
            f'{esc(title)}</text>{"".join(body)}</svg>')


def _number(value: float) -> str:
    return f"{value:g}" if float(value).is_integer() else f"{value:.1f}"


def bar_chart(title: str, bars: Sequence[tuple[str, float]], *, percent: bool = False,
              words: Mapping[str, str] | None = None, kind: str = "bars") -> str:
    """One bar per (label, value), the value written over it (`percent`: a share 0..1)."""
    w = _words(words)
    width = max(320, 60 + 48 * len(bars))
    height, top, base = 220, 34, 180
    peak = max((v for _, v in bars), default=0) or 1
    body = [f'<line x1="40" y1="{base}" x2="{width - 10}" y2="{base}" stroke="#555"/>']
    if not bars:
        body.append(f'<text x="50" y="100" {FONT} font-size="12">{esc(w["nothing"])}</text>')
    step = min((width - 60) / max(len(bars), 1), 64.0)
    for i, (label, value) in enumerate(bars):
        h = (base - top) * value / peak
        x = 44 + i * step
        shown = f"{value:.1%}" if percent else _number(value)
        body.append(
            f'<g class="bar" data-label="{esc(label)}" data-value="{esc(value)}">'
            f'<title>{esc(label)}: {esc(shown)}</title>'
            f'<rect x="{x:.1f}" y="{base - h:.1f}" width="{step * 0.7:.1f}" height="{h:.1f}" '
            f'fill="{COLOURS["bar"]}"/>'
            f'<text class="count" x="{x + step * 0.35:.1f}" y="{base - h - 4:.1f}" {FONT} '
            f'font-size="11" text-anchor="middle">{esc(shown)}</text>'
            f'<text class="label" x="{x + step * 0.35:.1f}" y="{base + 14}" {FONT} '
            f'font-size="10" text-anchor="middle">{esc(label)}</text></g>')
    return _document(width, height, title, body, kind)


def p_text(fit: Fit, words: Mapping[str, str] | None = None) -> str:
    """The score line: `X2 = 0.78, p = 0.675 (80 games)`."""
    w = _words(words)
    p = w["no_p"] if fit.p_value is None else f"p = {fit.p_value:.3f}"
    return f"X\u00b2 = {fit.chi2:.2f}, {p} ({fit.games} {w['games']})"


def fit_chart(fit: Fit, title: str, words: Mapping[str, str] | None = None) -> str:
    """Observed and expected Banker, Player and Tie of a shoe, with the score and p-value."""
    w = _words(words)
    width, height, top, base = 420, 250, 40, 190
    peak = max([*fit.observed.values(), *fit.expected.values(), 1])
    body = [f'<line x1="30" y1="{base}" x2="{width - 10}" y2="{base}" stroke="#555"/>']
    for i, result in enumerate(RESULTS):
        x = 50 + i * 120
        for j, (cls, value, colour) in enumerate((
                ("observed", fit.observed[result], COLOURS[result]),
                ("expected", fit.expected[result], COLOURS["expected"]))):
            h = (base - top) * value / peak
            shown = _number(round(value, 1))
            body.append(
                f'<g class="{cls}" data-result="{result}" data-value="{value:.3f}">'
                f'<title>{esc(w[result])}, {esc(w[cls])}: {shown}</title>'
                f'<rect x="{x + j * 42}" y="{base - h:.1f}" width="38" height="{h:.1f}" '
                f'fill="{colour}"/><text class="count" x="{x + j * 42 + 19}" '
                f'y="{base - h - 4:.1f}" {FONT} font-size="11" text-anchor="middle">{shown}'
                f'</text></g>')
        body.append(f'<text class="label" x="{x + 40}" y="{base + 16}" {FONT} font-size="12" '
                    f'text-anchor="middle">{esc(w[result])}</text>')
    body.append(f'<text class="legend" x="30" y="{base + 34}" {FONT} font-size="11">'
                f'{esc(w["observed"])} / {esc(w["expected"])}</text>')
    body.append(f'<text class="score" data-chi2="{fit.chi2:.4f}" '
                f'data-p="{"" if fit.p_value is None else f"{fit.p_value:.4f}"}" x="30" '
                f'y="{base + 52}" {FONT} font-size="12">{esc(p_text(fit, w))}</text>')
    return _document(width, height + 10, title, body, "fit")


def _x(moment: datetime, start: datetime, end: datetime, left: int, span: int) -> float:
    total = (end - start).total_seconds() or 1.0
    return left + span * min(max((moment - start).total_seconds() / total, 0.0), 1.0)


def timeline(title: str, start: datetime, end: datetime,
             games: Sequence[tuple[datetime, str]], flags: Sequence[tuple[datetime, str]],
             decisions: Sequence[tuple[datetime, str]],
             words: Mapping[str, str] | None = None) -> str:
    """Three lanes on one time axis from `start` to `end` (aware datetimes, drawn on their
    own clock): games (label), flags (code), decisions (action). Hours are ticked."""
    w = _words(words)
    width, left, span = 900, 90, 790
    lanes = (("games", 50, COLOURS["game"]), ("flags", 90, COLOURS["flag"]),
             ("decisions", 130, COLOURS["decision"]))
    body = []
    for name, y, _colour in lanes:
        body.append(f'<text x="8" y="{y + 4}" {FONT} font-size="12">{esc(w[name])}</text>'
                    f'<line x1="{left}" y1="{y}" x2="{left + span}" y2="{y}" stroke="#ddd"/>')
    hours = int((end - start).total_seconds() // 3600)
    every = timedelta(hours=max(1, hours // 12))
    tick = start.replace(minute=0, second=0, microsecond=0)
    tick += timedelta(hours=1) if tick < start else timedelta(0)
    while tick <= end:
        x = _x(tick, start, end, left, span)
        body.append(f'<line x1="{x:.1f}" y1="36" x2="{x:.1f}" y2="146" stroke="#eee"/>'
                    f'<text class="tick" x="{x:.1f}" y="164" {FONT} font-size="10" '
                    f'text-anchor="middle">{tick:%H:%M}</text>')
        tick += every
    for moment, label in games:
        x = _x(moment, start, end, left, span)
        body.append(f'<line class="game" data-game="{esc(label)}" x1="{x:.1f}" y1="42" '
                    f'x2="{x:.1f}" y2="58" stroke="{COLOURS["game"]}"><title>{esc(w["game"])} '
                    f'{esc(label)}, {moment:%H:%M:%S}</title></line>')
    for moment, code in flags:
        x = _x(moment, start, end, left, span)
        body.append(f'<circle class="flag" data-code="{esc(code)}" cx="{x:.1f}" cy="90" r="5" '
                    f'fill="{COLOURS["flag"]}"><title>{esc(code)}, {moment:%H:%M:%S}</title>'
                    f'</circle>')
    for moment, action in decisions:
        x = _x(moment, start, end, left, span)
        body.append(f'<rect class="decision" data-action="{esc(action)}" x="{x - 4:.1f}" '
                    f'y="126" width="8" height="8" fill="{COLOURS["decision"]}"><title>'
                    f'{esc(w.get(action, action))}, {moment:%H:%M:%S}</title></rect>')
    counts = (f"{len(games)} {w['games']}, {len(flags)} {w['flags']}, "
              f"{len(decisions)} {w['decisions']}")
    body.append(f'<text class="counts" x="{left}" y="186" {FONT} font-size="12">'
                f'{esc(counts)}</text>')
    return _document(width, 200, title, body, "timeline")


def results_plot(title: str, shoes: Sequence[Mapping[str, Any]], fits: Sequence[Fit],
                 words: Mapping[str, str] | None = None) -> str:
    """For each shoe of an audit report, a band: every game's result as a dot in the Banker,
    Player or Tie lane (in game order: over time), every flag a triangle under it, and the
    shoe's score against the exact odds."""
    w = _words(words)
    most = max((len(s["games"]) for s in shoes), default=0)
    step, left = 9, 70
    width = max(480, left + step * most + 20)
    band = 130
    body = []
    for n, (shoe, fit) in enumerate(zip(shoes, fits, strict=True)):
        top = 34 + n * band
        flagged = sum(1 for g in shoe["games"] if g["flags"])
        body.append(f'<g class="shoe" data-shoe="{esc(shoe["shoe_id"])}" '
                    f'data-games="{len(shoe["games"])}" data-flagged="{flagged}">'
                    f'<text x="8" y="{top + 12}" {FONT} font-size="12" font-weight="bold">'
                    f'{esc(w["shoe"])} {esc(shoe["shoe_id"])}: {esc(p_text(fit, w))}</text>')
        lanes = {r: top + 30 + 18 * i for i, r in enumerate(RESULTS)}
        for result, y in lanes.items():
            body.append(f'<text x="8" y="{y + 4}" {FONT} font-size="11">{esc(w[result])}</text>'
                        f'<line x1="{left}" y1="{y}" x2="{width - 10}" y2="{y}" '
                        f'stroke="#eee"/>')
        for i, game in enumerate(shoe["games"]):
            x = left + step * i + step / 2
            winner = game["winner"]
            if winner in lanes:
                body.append(f'<circle class="result" data-game="{game["game"]}" '
                            f'data-winner="{winner}" cx="{x:.1f}" cy="{lanes[winner]}" r="3.5" '
                            f'fill="{COLOURS[winner]}"><title>{esc(w["game"])} {game["game"]}: '
                            f'{esc(w[winner])}</title></circle>')
            if game["flags"]:
                codes = ", ".join(f["code"] for f in game["flags"])
                y = top + 30 + 18 * 3
                body.append(f'<path class="flag" data-game="{game["game"]}" '
                            f'data-codes="{esc(codes)}" d="M{x:.1f} {y - 5} l4 8 h-8 z" '
                            f'fill="{COLOURS["flag"]}"><title>{esc(w["game"])} {game["game"]}: '
                            f'{esc(codes)}</title></path>')
        body.append("</g>")
    return _document(width, 40 + band * max(len(shoes), 1), title, body, "results")
