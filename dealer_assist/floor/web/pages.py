"""The floor service's pages: its templates (`floor/templates/`) over the ones both web apps
share (accounts/pages.py: the environment, the page chrome, the login form, the message page,
a game's flags, hand and decision form); the floor's `base.html` extends the shared
`page.html` with the pit's links and styles.

A page speaks the language of its request as a console page does (`?lang=`, else the floor
user's language, else English). A page previewed with `?lang=` keeps the preview in the
fragments its script fetches and in its links (`lang_query`), and the header's language
chooser comes back to the page with its query (a review page needs its table, shoe and game).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from jinja2 import pass_context

from dealer_assist.accounts.pages import Pages, gettext
from dealer_assist.charts.data import NO_DEALER
from dealer_assist.config import languages
from dealer_assist.floor_wire import STATUS_TEXT

FLOOR_TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
STATIC = Path(__file__).resolve().parent / "static"

#: The texts the pit's script writes (static/pit.js), sent in the page's language.
SCRIPT_TEXTS = ("Live", "Reconnecting to the floor...")


def preview(request: Request) -> str:
    """The shipped language `?lang=` previews (as a page's `lang` names it), else "": the
    fragments a page's script fetches and its links carry it, so they speak as the page does."""
    asked = request.query_params.get("lang")
    if not asked:
        return ""
    try:
        return languages.HTML_LANG[languages.language(asked[:40])]
    except languages.UnknownLanguage:
        return ""


def back_here(request: Request) -> str:
    """This page's path and query without `lang`: where the language chooser comes back to
    (a review page needs its table, shoe and game; a preview would hide the choice)."""
    query = urlencode([(k, v) for k, v in request.query_params.multi_items() if k != "lang"])
    return request.url.path + (f"?{query}" if query else "")


def _chrome(request: Request) -> dict[str, Any]:
    lang = preview(request)
    return {"chooser_next": back_here(request), "preview_lang": lang,
            "lang_query": f"?lang={lang}" if lang else ""}


@pass_context
def _dealer(context: Any, name: object) -> object:
    """A dealer's name; a game with none signed in (or none known), in the page's words."""
    return gettext(NO_DEALER) if name in (None, NO_DEALER) else name


PAGES = Pages(FLOOR_TEMPLATES, SCRIPT_TEXTS, _chrome)
PAGES.templates.env.globals["STATUS_TEXT"] = STATUS_TEXT
PAGES.templates.env.filters["dealer"] = _dealer
render = PAGES.render
message = PAGES.message
