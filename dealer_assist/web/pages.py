"""The HTML of the console pages (login, review queue, history, dealer's buttons).

Plain server-rendered HTML: every value passes through `esc`; every form carries the CSRF
token; no inline scripts (the pages' scripts are static files, allowed by the CSP).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from dealer_assist.web.auth import Account

SUITS = {"S": ("\u2660", "black"), "H": ("\u2665", "red"), "D": ("\u2666", "red"),
         "C": ("\u2663", "black")}
ACTIONS = {"accept": "Accept as read", "correct": "Correct the cards", "void": "Void the game",
           "void_shoe": "Void the shoe from this game"}


def esc(value: object) -> str:
    return escape("" if value is None else str(value), quote=True)


def card(code: str | None) -> str:
    """A card as text: `Q♥` in red, `10♠`; `??` for an unreadable card."""
    if not code:
        return '<span class="card none">&ndash;</span>'
    if code == "??" or len(code) != 2:
        return f'<span class="card unknown">{esc(code)}</span>'
    rank = "10" if code[0] == "T" else code[0]
    symbol, colour = SUITS.get(code[1], ("?", "black"))
    return f'<span class="card {colour}" title="{esc(code)}">{esc(rank)}{symbol}</span>'


def page(title: str, body: str, account: Account | None = None, csrf: str | None = None,
         scripts: Sequence[str] = ()) -> str:
    who = ""
    if account is not None and csrf is not None:
        who = (f'<span class="who">{esc(account.name)} ({esc(account.role)})</span>'
               f'<form method="post" action="/logout" class="inline">{hidden("csrf", csrf)}'
               '<button type="submit" class="link">Log out</button></form>')
    nav = ""
    if account is not None and account.role == "supervisor":
        nav = ('<nav><a href="/supervisor">Review queue</a><a href="/supervisor/history">'
               'History</a><a href="/dealer">Dealer</a><a href="/" target="_blank">Table display'
               '</a></nav>')
    tags = "".join(f'<script src="/static/{esc(s)}" defer></script>' for s in scripts)
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{esc(title)} - dealer-assist</title>'
        f'<link rel="stylesheet" href="/static/console.css">{tags}</head><body>'
        f'<header><h1>{esc(title)}</h1>{nav}<div class="session">{who}</div></header>'
        f'<main>{body}</main></body></html>'
    )


def hidden(name: str, value: object) -> str:
    return f'<input type="hidden" name="{esc(name)}" value="{esc(value)}">'


def notice(text: str | None, kind: str = "ok") -> str:
    return f'<p class="notice {esc(kind)}" role="status">{esc(text)}</p>' if text else ""


def login_page(next_path: str, csrf: str, error: str | None = None, name: str = "") -> str:
    body = (
        f'{notice(error, "error")}'
        '<form method="post" action="/login" class="login">'
        f'{hidden("csrf", csrf)}{hidden("next", next_path)}'
        f'<label>Name <input name="name" autocomplete="username" required value="{esc(name)}">'
        '</label><label>Password <input name="password" type="password" '
        'autocomplete="current-password" required></label>'
        '<button type="submit">Log in</button></form>'
    )
    return page("Log in", body)


def message_page(title: str, text: str, account: Account | None = None,
                 csrf: str | None = None) -> str:
    return page(title, f'<p class="notice error">{esc(text)}</p>', account, csrf)


# ---- the review queue ---------------------------------------------------------------------

def _positions(item: dict[str, Any]) -> str:
    by_pos = {c["pos"]: c for c in item["cards"]}
    rows = []
    for side, label, total in (("P", "Player", item["player_total"]),
                               ("B", "Banker", item["banker_total"])):
        cells = []
        for n in (1, 2, 3):
            pos = f"{side}{n}"
            if item["seven_up"] and pos == "P1":
                cells.append(f'<td data-pos="{pos}"><span class="card fixed">7</span>'
                             '<small>fixed</small></td>')
                continue
            c = by_pos.get(pos)
            hint = "" if c is None or c["revealed"] else "<small>not yet opened</small>"
            cells.append(f'<td data-pos="{pos}">{card(c["card"] if c else None)}{hint}</td>')
        rows.append(f'<tr><th>{label}</th>{"".join(cells)}'
                    f'<td class="total">{esc("?" if total is None else total)}</td></tr>')
    return ('<table class="hand"><thead><tr><th></th><th>1</th><th>2</th><th>3</th>'
            f'<th>Total</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')


def _flags(item: dict[str, Any]) -> str:
    rows = "".join(
        f'<li class="flag sev-{esc(f["severity"])}{" decided" if f["decided"] else ""}">'
        f'<b>{esc(f["code"])}</b> <span class="sev">{esc(f["severity"])}</span> '
        f'{esc(f["detail"])}<div class="rule">Rule: {esc(f["rule"])}</div></li>'
        for f in item["flags"])
    return f'<ul class="flags">{rows}</ul>' if rows else '<p>No flags.</p>'


def _proposals(item: dict[str, Any]) -> str:
    if not item["proposals"]:
        return ""
    rows = "".join(f'<li><b>{esc(ACTIONS.get(p["action"], p["action"]))}</b>: {esc(p["text"])}'
                   f' <small>({esc(p["flag"])})</small></li>' for p in item["proposals"])
    return f'<div class="proposal"><h4>The rules propose</h4><ol>{rows}</ol></div>'


def decision_form(item: dict[str, Any], csrf: str, reason: str = "") -> str:
    proposed = item["proposals"][0]["action"] if item["proposals"] else "accept"
    choices = "".join(
        f'<label><input type="radio" name="action" value="{a}"'
        f'{" checked" if a == proposed else ""}> {esc(text)}</label>'
        for a, text in ACTIONS.items())
    by_pos = {c["pos"]: c["card"] for c in item["cards"]}
    inputs = []
    for pos in ("P1", "P2", "P3", "B1", "B2", "B3"):
        if item["seven_up"] and pos == "P1":
            inputs.append('<label>P1 <input value="7 (fixed)" disabled size="8"></label>')
            continue
        value = by_pos.get(pos, "")
        shown = "" if value == "??" else value
        inputs.append(f'<label>{pos} <input name="{pos}" value="{esc(shown)}"'
                      ' size="3" maxlength="3" pattern="(10|[2-9TJQKAtjqka])[SHDCshdc]" '
                      'placeholder="-"></label>')
    return (
        '<form method="post" action="/supervisor/decide" class="decide">'
        f'{hidden("csrf", csrf)}{hidden("shoe", item["shoe_id"])}{hidden("game", item["game"])}'
        f'<fieldset class="actions"><legend>Decision</legend>{choices}</fieldset>'
        '<fieldset class="cards"><legend>Cards by position (for a correction; leave a third '
        f'card empty when the rules give none)</legend>{"".join(inputs)}</fieldset>'
        '<label class="reason">Reason (required) <textarea name="reason" required '
        f'maxlength="500" rows="2">{esc(reason)}</textarea></label>'
        '<button type="submit">Record decision</button></form>'
    )


def review_block(item: dict[str, Any], csrf: str, error: str | None = None,
                 reason: str = "") -> str:
    winner = item["winner"] or item["status"]
    return (
        f'<article class="review" data-shoe="{esc(item["shoe_id"])}" data-game="{item["game"]}">'
        f'<h3>Shoe {esc(item["shoe_id"])} &middot; game {item["game"]} '
        f'<span class="status {esc(item["status"])}">{esc(winner)}</span>'
        f'{" &middot; last game" if item["last_game"] else ""}</h3>'
        f'{notice(error, "error")}{_positions(item)}'
        + (f'<p>Set aside: {" ".join(card(c) for c in item["set_aside"])}</p>'
           if item["set_aside"] else "")
        + f'{_flags(item)}{_proposals(item)}{decision_form(item, csrf, reason)}</article>'
    )


def queue_fragment(items: list[dict[str, Any]], csrf: str) -> str:
    if not items:
        return '<p class="empty" id="queue-empty">No game waits for a decision.</p>'
    return "".join(review_block(item, csrf) for item in items)


def _links(links: dict[str, dict[str, Any]], problems: dict[str, int]) -> str:
    rows = "".join(f'<li class="link {esc(v["status"])}"><b>{esc(k)}</b> {esc(v["status"])}: '
                   f'{esc(v["reason"])}</li>' for k, v in links.items())
    if problems:
        rows += "<li>Frames dropped: " + ", ".join(
            f"{esc(k)} {n}" for k, n in sorted(problems.items())) + "</li>"
    return f'<ul class="links">{rows}</ul>'


def _alerts(alerts: list[dict[str, Any]]) -> str:
    if not alerts:
        return "<p>No side-bet alert.</p>"
    rows = "".join(
        f'<tr><td>{esc(a.get("ts"))}</td><td>{esc(a.get("shoe_id"))}</td><td>{esc(a.get("bet"))}'
        f'</td><td>{float(a.get("edge", 0)):.3%}</td><td>{sum((a.get("remaining") or {}).values())}'
        '</td></tr>' for a in alerts)
    return ('<table class="alerts"><thead><tr><th>Time</th><th>Shoe</th><th>Bet</th>'
            f'<th>House edge</th><th>Cards left</th></tr></thead><tbody>{rows}</tbody></table>')


def _shoe_flags(shoes: list[dict[str, Any]]) -> str:
    rows = "".join(
        f'<li class="flag sev-{esc(f["severity"])}"><b>{esc(s["shoe_id"])}</b> '
        f'{esc(f["code"])} ({esc(f["severity"])}): '
        f'{esc(f["detail"])}<div class="rule">Rule: {esc(f["rule"])}</div></li>'
        for s in shoes for f in s["flags"])
    return f'<ul class="flags">{rows}</ul>' if rows else "<p>None.</p>"


def console_page(account: Account, csrf: str, items: list[dict[str, Any]],
                 alerts: list[dict[str, Any]], links: dict[str, dict[str, Any]],
                 problems: dict[str, int], shoes: list[dict[str, Any]],
                 message: str | None = None) -> str:
    body = (
        f'{notice(message)}<section><h2>Links</h2>{_links(links, problems)}</section>'
        f'<section><h2>Review queue <span id="queue-count">{len(items)}</span></h2>'
        f'<div id="queue">{queue_fragment(items, csrf)}</div></section>'
        f'<section><h2>Shoe flags</h2>{_shoe_flags(shoes)}</section>'
        f'<section><h2>Side-bet alerts (supervisors only)</h2>{_alerts(alerts)}</section>'
    )
    return page("Supervisor console", body, account, csrf, scripts=["console.js"])


def history_page(account: Account, csrf: str, rows: list[dict[str, Any]], shoe_ids: Iterable[str],
                 flag_codes: Iterable[str], shoe: str | None, flag: str | None) -> str:
    def options(values: Iterable[str], chosen: str | None, label: str) -> str:
        opts = "".join(f'<option value="{esc(v)}"{" selected" if v == chosen else ""}>{esc(v)}'
                       '</option>' for v in values)
        return f'<option value="">{label}</option>{opts}'

    filters = (
        '<form method="get" action="/supervisor/history" class="filters">'
        f'<label>Shoe <select name="shoe">{options(shoe_ids, shoe, "every shoe")}</select></label>'
        f'<label>Flag <select name="flag">{options(flag_codes, flag, "every flag")}'
        '</select></label>'
        '<button type="submit">Filter</button></form>'
    )
    lines = "".join(
        f'<tr data-seq="{r["seq"]}"><td>{esc(r["ts"])}</td><td>{esc(r["shoe_id"])}</td>'
        f'<td>{esc(r["game"])}</td><td>{esc(r["action"])}</td><td>{esc(r["by"])}</td>'
        f'<td>{esc(r["reason"])}</td><td>{esc(", ".join(r["flags"]))}</td>'
        f'<td>{" ".join(card(c) for c in (r["player"] or []))} / '
        f'{" ".join(card(c) for c in (r["banker"] or []))}</td></tr>' for r in rows)
    table = ('<table class="history"><thead><tr><th>Time</th><th>Shoe</th><th>Game</th>'
             '<th>Decision</th><th>By</th><th>Reason</th><th>Flags</th><th>Correction</th>'
             f'</tr></thead><tbody>{lines}</tbody></table>' if rows
             else '<p class="empty">No decision matches.</p>')
    return page("Decision history", filters + table, account, csrf)


def dealer_page(account: Account, csrf: str, public: dict[str, Any],
                message: str | None = None) -> str:
    game = public.get("game") or {}
    buttons = "".join(
        f'<button type="submit" name="side" value="{v}">{label}</button>'
        for v, label in (("all", "All cards opened"), ("player", "Player's cards opened"),
                         ("banker", "Banker's cards opened")))
    body = (
        f'{notice(message)}<p class="headline">{esc(public["action"]["headline"])}</p>'
        f'<p>Game {esc(game.get("number", "-"))}, {esc(game.get("cards_out", 0))} card(s) out.</p>'
        '<form method="post" action="/dealer/reveal" class="reveal">'
        f'{hidden("csrf", csrf)}{buttons}</form>'
        '<p>Press when the cards lie open on the table (there is no camera to see them).</p>'
    )
    return page("Dealer", body, account, csrf)
