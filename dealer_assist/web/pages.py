"""The HTML pages of the console and the regulator: Jinja2 templates in `web/templates/`.

A base layout, one template per page and shared macros (`macros.html`: a card, a hidden field,
a notice; `flags.html`, `decisions.html`, `games.html`: each kind of table, written once).
Autoescaping is on: every value is escaped as `html.escape` does, and None prints as nothing.
Every form carries the CSRF token; no inline scripts (the pages' scripts are static files,
allowed by the CSP).
"""

from __future__ import annotations

from datetime import timedelta
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from jinja2 import Environment, FileSystemLoader
from markupsafe import Markup

from dealer_assist.web.auth import Account

TEMPLATES = Path(__file__).resolve().parent / "templates"
#: A card's suit: its symbol and colour.
SUITS = {"S": ("\u2660", "black"), "H": ("\u2665", "red"), "D": ("\u2666", "red"),
         "C": ("\u2663", "black")}
#: A supervisor's decisions, as the review form names them.
ACTIONS = {"accept": "Accept as read", "correct": "Correct the cards", "void": "Void the game",
           "void_shoe": "Void the shoe from this game"}
#: The card positions of a game, in the regulator's games table.
POSITIONS = ("P1", "P2", "P3", "B1", "B2", "B3")


def _finalize(value: object) -> object:
    """Every printed value: None as nothing, text escaped as `html.escape(quote=True)` does
    (so the pages' entities stay what they were); macros' output (Markup) as it is."""
    if isinstance(value, Markup):
        return value
    return Markup(escape("" if value is None else str(value), quote=True))


def _environment() -> Environment:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, finalize=_finalize,
                      trim_blocks=True, lstrip_blocks=True)
    env.globals.update(SUITS=SUITS, ACTIONS=ACTIONS, POSITIONS=POSITIONS,
                       ONE_DAY=timedelta(days=1))
    env.filters["urlquote"] = lambda text: quote(str(text), safe="")
    env.filters["percent"] = lambda share: f"{float(share):.3%}"
    return env


templates = Jinja2Templates(env=_environment())


def render(request: Request, template: str, who: Any = None, status: int = 200,
           headers: dict[str, str] | None = None, **context: Any) -> HTMLResponse:
    """The page `template` for the session `who` (its account and CSRF token for the header; None
    for a visitor), with `context` for the template."""
    account: Account | None = getattr(who, "account", None)
    csrf: str | None = getattr(who, "csrf", None)
    return templates.TemplateResponse(request, template, {"account": account, "csrf": csrf,
                                                      **context},
                                      status_code=status, headers=headers)


def message(request: Request, title: str, text: str, who: Any = None, status: int = 400,
            back: tuple[str, str] | None = None) -> HTMLResponse:
    """A page that only says why a request was not done; `back`: a link (href, text) back."""
    return render(request, "message.html", who, status, title=title, text=text, back=back)
