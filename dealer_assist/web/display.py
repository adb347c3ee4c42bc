"""The public table display: the page, its live stream, its snapshot. No login.

What it shows is `services.public_view` (never a card before it is revealed, never the
shoe's composition). Updates are pushed as server-sent events: the page never polls.

The page speaks the table's languages (`DisplayConfig` in `app.state.display`: one language,
or two for a bilingual board; `?lang=th` or `?lang=zh-Hant,en` previews others) and lays
itself out for a TV or a vertical monitor (`?layout=portrait` previews). The words its script
draws come from the page: a JSON catalog of `DISPLAY_TEXTS` in each of its languages.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, JSONResponse, StreamingResponse
from markupsafe import Markup

from dealer_assist import i18n
from dealer_assist.accounts.stream import sse
from dealer_assist.config.display import LAYOUTS, MOST_LANGUAGES, DisplayConfig
from dealer_assist.config.languages import HTML_LANG, UnknownLanguage, language
from dealer_assist.domain.rules import VARIANTS
from dealer_assist.services.public_view import FLAG_TITLE
from dealer_assist.web.pages import templates

router = APIRouter()
STATIC = Path(__file__).resolve().parent / "static"


#: The texts the display's script draws: its own words and the server's (the next action,
#: the shoe's state, the links, results and bets). `{0}`, `{1}`: a number or name in the text.
DISPLAY_TEXTS: tuple[str, ...] = (
    "PLAYER WINS", "BANKER WINS", "TIE", "GAME VOID", "natural", "no shoe", "{0} card",
    "{0} cards", "B", "P", "T", "Banker", "Player", "Tie",
    # the shoe's state
    "waiting", "shoe void", "shoe finished", "burn in progress", "burn in progress: {0} more",
    "last game", "dealing", "burn after the game", "betting",
    # links
    "working", "not connected", "waiting for the device", "not fitted",
    # the next action (domain/next_action.py)
    "load a new shoe", "burn: turn up the first card",
    "burn: the first card was not read; call a supervisor", "burn {0} more card",
    "burn {0} more cards", "burn complete: close bets for game 1", "open the cards",
    "PLAYER DRAWS", "BANKER DRAWS", "PLAYER STANDS", "BANKER STANDS",
    "natural {0}: both stand", "an unreadable card: check the hand",
    "result unknown: an unreadable card needs a supervisor", "Tie {0} to {1}",
    "Player wins {0} to {1}", "Banker wins {0} to {1}", "deal Player's first card",
    "deal Player's second card", "deal Player's third card", "deal Banker's first card",
    "deal Banker's second card", "deal Banker's third card",
    "bets closed early: complete this game first", "shoe finished",
    "last game of the shoe", "next game is the last game of the shoe", "burn one card",
    "close bets for game {0}", "game void",
    # the supervisor banner: flags by their public names (services.public_view.FLAG_TITLE)
    "Supervisor review", "Game {0}: supervisor called to the table", "Game {0}: {1}",
    "Shoe void from game {0}: {1}", ", ", *FLAG_TITLE.values(),
    # bets
    "banker", "player", "tie", "banker pair", "player pair", "super six", "super7", "big", "small",
    # the shoe's game variant (domain/rules.py)
    *VARIANTS,
)


def board_languages(request: Request) -> tuple[str, ...]:
    """The table's languages, or those of `?lang=` (comma-separated) for a preview."""
    config: DisplayConfig = getattr(request.app.state, "display", None) or DisplayConfig()
    asked = request.query_params.get("lang")
    if not asked:
        return config.languages
    try:
        chosen = tuple(dict.fromkeys(language(n) for n in asked.split(",") if n.strip()))
    except UnknownLanguage:
        return config.languages
    return chosen[:MOST_LANGUAGES] or config.languages


def board_layout(request: Request) -> str:
    config: DisplayConfig = getattr(request.app.state, "display", None) or DisplayConfig()
    asked = request.query_params.get("layout")
    return asked if asked in LAYOUTS else config.layout


def display_catalog(languages: tuple[str, ...]) -> dict[str, Any]:
    """What the page's script reads: its languages and each display text in each of them."""
    return {"languages": [HTML_LANG[lang] for lang in languages],
            "messages": [{t: i18n.gettext(lang, t) for t in DISPLAY_TEXTS}
                         for lang in languages]}


@router.get("/", include_in_schema=False)
async def display_page(request: Request) -> HTMLResponse:
    """The page in the table's languages; its script renders what the stream sends."""
    languages = board_languages(request)
    data = orjson.dumps(display_catalog(languages)).decode().replace("</", "<\\/")
    html = templates.get_template("display.html").render(
        languages=languages, layout=board_layout(request), catalog_json=Markup(data),
        say=i18n.gettext, HTML_LANG=HTML_LANG)
    return HTMLResponse(html, headers={"Cache-Control": "no-cache"})


@router.get("/events")
async def display_events(request: Request) -> StreamingResponse:
    """The public view now, then after every change (text/event-stream, event `table`)."""
    table = request.app.state.table
    update = await run_in_threadpool(table.update)
    stream = request.app.state.hub.stream("public", sse("table", update.seq, update.public))
    return StreamingResponse(stream, media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@router.get("/api/table")
def display_snapshot(request: Request) -> JSONResponse:
    """The public view now, as JSON."""
    return JSONResponse(request.app.state.table.public())
