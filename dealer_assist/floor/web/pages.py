"""The floor service's pages: Jinja2 templates in `floor/templates/`, falling back to the
table's (`web/templates/`: login form, message page, the review page's macros), which the floor
reuses read-only; `table/NAME` names a table template even where the floor has its own of that
name (the floor's `base.html` extends `table/base.html`: one header for both services).

The environment is the table's (autoescape, gettext, the same globals, filters and printing of
values); only the loader and the page language differ. A page speaks the language of its
request as a console page does (`web.pages.page_language`: `?lang=`, else the floor user's
language, else English); `gettext`, the `tr` and `dealer` filters and the pit script's catalog
translate into the language of the page being rendered (a context variable set by `render`),
so the table's macros and included templates translate as the page does.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import orjson
from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, PrefixLoader, pass_context
from markupsafe import Markup

from dealer_assist import i18n
from dealer_assist.charts.data import NO_DEALER
from dealer_assist.floor.requests import STATUS_TEXT
from dealer_assist.web import pages as table_pages

FLOOR_TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
STATIC = Path(__file__).resolve().parent / "static"

#: The texts the pit's script writes (static/pit.js), sent in the page's language.
SCRIPT_TEXTS = ("Live", "Reconnecting to the floor...")

_LANGUAGE: ContextVar[str] = ContextVar("floor_page_language", default=i18n.SOURCE)


def gettext(message: str) -> str:
    """`message` in the language of the page being rendered."""
    return i18n.gettext(_LANGUAGE.get(), message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return i18n.translations(_LANGUAGE.get()).ngettext(singular, plural, n)


def script_catalog() -> Markup:
    """SCRIPT_TEXTS in the page's language, as JSON safe inside a <script> element."""
    data = orjson.dumps({t: gettext(t) for t in SCRIPT_TEXTS}).decode()
    return Markup(data.replace("</", "<\\/"))


def _environment() -> Environment:
    table = table_pages.templates.env
    tables = FileSystemLoader(table_pages.TEMPLATES)
    env = Environment(loader=ChoiceLoader([FileSystemLoader(FLOOR_TEMPLATES),
                                           PrefixLoader({"table": tables}), tables]),
                      autoescape=True, finalize=table.finalize, trim_blocks=True,
                      lstrip_blocks=True, extensions=["jinja2.ext.i18n"])
    env.globals.update(table.globals)
    env.filters.update(table.filters)
    # the page language is the floor's, not the table's (after the table's globals, which
    # hold the table's own gettext callables)
    env.install_gettext_callables(gettext, ngettext, newstyle=True)  # type: ignore[attr-defined]
    env.globals.update(STATUS_TEXT=STATUS_TEXT, script_catalog=script_catalog,
                       page_lang=lambda: i18n.HTML_LANG[_LANGUAGE.get()])
    env.filters["tr"] = _tr
    env.filters["dealer"] = _dealer
    return env


# `pass_context`, as the table's filters: the page's language is known when a page is rendered,
# not when a template is compiled (Jinja2 would fold `{{ "P1" | tr }}` once, in any language).
@pass_context
def _tr(context: Any, text: object) -> object:
    return i18n.say(_LANGUAGE.get(), str(text)) if text else text


@pass_context
def _dealer(context: Any, name: object) -> object:
    return gettext(NO_DEALER) if name in (None, NO_DEALER) else name


templates = Jinja2Templates(env=_environment())


def preview(request: Request) -> str:
    """The shipped language `?lang=` previews (as a page's `lang` names it), else "": the
    fragments a page's script fetches and its links carry it, so they speak as the page does."""
    asked = request.query_params.get("lang")
    if not asked:
        return ""
    try:
        return i18n.HTML_LANG[i18n.language(asked[:40])]
    except i18n.UnknownLanguage:
        return ""


def translator(request: Request, who: Any = None) -> Callable[[str], str]:
    """gettext into the language `render` gives the page of `request` for the session `who`:
    for texts made before the page is rendered (the words of a picture drawn in Python)."""
    lang = table_pages.page_language(request, getattr(who, "account", None))
    return lambda message: i18n.gettext(lang, message)


def back_here(request: Request) -> str:
    """This page's path and query without `lang`: where the language chooser comes back to
    (a review page needs its table, shoe and game; a preview would hide the choice)."""
    query = urlencode([(k, v) for k, v in request.query_params.multi_items() if k != "lang"])
    return request.url.path + (f"?{query}" if query else "")


def render(request: Request, template: str, who: Any = None, status: int = 200,
           headers: dict[str, str] | None = None, **context: Any) -> HTMLResponse:
    """The page `template` for the session `who` (None for a visitor), in its language."""
    account = getattr(who, "account", None)
    lang = preview(request)
    token = _LANGUAGE.set(table_pages.page_language(request, account))
    try:
        return templates.TemplateResponse(
            request, template, {"account": account, "csrf": getattr(who, "csrf", None),
                                "language_chooser": True, "chooser_next": back_here(request),
                                "preview_lang": lang,
                                "lang_query": f"?lang={lang}" if lang else "",
                                **context},
            status_code=status, headers=headers)
    finally:
        _LANGUAGE.reset(token)


def message(request: Request, title: str, text: str, who: Any = None, status: int = 400,
            back: tuple[str, str] | None = None) -> HTMLResponse:
    """A page that only says why a request was not done; `title`, `text` and the link's text
    are message ids (or texts with an id's pattern): the page shows them translated."""
    return render(request, "message.html", who, status, title=title, text=text, back=back)
