"""The pages of both web apps: one Jinja2 environment each over the app's own templates and the
ones both share (`accounts/templates/`), rendered in the page's language.

The shared templates: the page chrome (`page.html`: title, who is logged in, the log-out form,
the language chooser, the page's scripts; each app's `base.html` extends it with its links),
the login form, the message page, the small macros (`macros.html`: a card, a hidden field, a
notice), and the fragments both show of a game (`flags.html`; `review_parts.html`: a hand,
the rules' proposals, the decision form). An app's own template of the same name comes first.

Autoescaping is on: every value is escaped as `html.escape` does, and None prints as nothing.
Every form carries the CSRF token; no inline scripts (the pages' scripts are static files,
allowed by the CSP). Every text is a gettext message (`{{ _("Review queue") }}`, Jinja2's i18n
extension; catalogs in `dealer_assist/i18n`). A page speaks the language of its request:
`?lang=` if it names a shipped language, else the account's language, else English. `gettext`
here translates into the language of the page being rendered (a context variable set by
`render`), so macros and included templates translate as the page does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextvars import ContextVar
from datetime import timedelta
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson
from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.templating import Jinja2Templates
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, pass_context
from markupsafe import Markup
from starlette.routing import NoMatchFound

from dealer_assist import i18n
from dealer_assist.accounts.users import Account
from dealer_assist.charts.data import NO_DEALER
from dealer_assist.config import languages
from dealer_assist.i18n.sheets import RULE_SHEETS

TEMPLATES = Path(__file__).resolve().parent / "templates"
#: The pages' stylesheet and the site's icon, served under /static/ by both apps.
STATIC = Path(__file__).resolve().parent / "static"
#: The site's icon (a card on the felt, 16, 32 and 48 px): every browser asks for it.
FAVICON = STATIC / "favicon.ico"
#: A card's suit: its symbol and colour.
SUITS = {"S": ("\u2660", "black"), "H": ("\u2665", "red"), "D": ("\u2666", "red"),
         "C": ("\u2663", "black")}
#: A supervisor's decisions, as the review form names them.
ACTIONS = {"accept": "Accept as read", "correct": "Correct the cards", "void": "Void the game",
           "void_shoe": "Void the shoe from this game"}
#: The card positions of a game, in the decision form and the regulator's games table.
POSITIONS = ("P1", "P2", "P3", "B1", "B2", "B3")
#: What a request whose fields do not parse is told (its fields named, e.g. "query game").
INVALID_FIELDS = "{0} is missing or not valid"

_LANGUAGE: ContextVar[str] = ContextVar("page_language", default=i18n.SOURCE)


def favicon() -> FileResponse:
    """/favicon.ico: the icon, cached for a day."""
    return FileResponse(FAVICON, media_type="image/x-icon",
                        headers={"Cache-Control": "public, max-age=86400"})


def gettext(message: str) -> str:
    """`message` in the language of the page being rendered."""
    return i18n.gettext(_LANGUAGE.get(), message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return i18n.translations(_LANGUAGE.get()).ngettext(singular, plural, n)


def page_language(request: Request, account: Account | None) -> str:
    """`?lang=` if it names a shipped language, else the account's, else English."""
    for name in (request.query_params.get("lang"), getattr(account, "language", None)):
        if name:
            try:
                return languages.language(name)
            except languages.UnknownLanguage:
                continue
    return i18n.SOURCE


def translator(request: Request, who: Any = None) -> Callable[[str], str]:
    """gettext into the language `render` gives the page of `request` for the session `who`:
    for texts made before the page is rendered (the words of a picture drawn in Python)."""
    lang = page_language(request, getattr(who, "account", None))
    return lambda message: i18n.gettext(lang, message)


def _finalize(value: object) -> object:
    """Every printed value: None as nothing, text escaped as `html.escape(quote=True)` does
    (so the pages' entities stay what they were); macros' output (Markup) as it is."""
    if isinstance(value, Markup):
        return value
    return Markup(escape("" if value is None else str(value), quote=True))


# The page's language is known when a page is rendered, not when its template is compiled:
# `pass_context` keeps Jinja2 from working out `{{ "P1" | tr }}` once, at compile time, in
# whatever language the first page had.
@pass_context
def _tr(context: Any, text: object) -> object:
    """A text that is data (a server message, a flag's rule, its detail): translated, then
    escaped as any value is (`_()` is for the templates' own literal texts)."""
    return i18n.say(_LANGUAGE.get(), str(text)) if text else text


@pass_context
def _dealer(context: Any, name: object) -> object:
    """A dealer's name; the games dealt with no dealer signed in, in the page's words."""
    return gettext(NO_DEALER) if name == NO_DEALER else name


def _routed(request: Request, name: str) -> bool:
    """Whether the app serves the route `name` (a router the composition root may mount)."""
    try:
        request.app.url_path_for(name)
    except NoMatchFound:
        return False
    return True


class Pages:
    """One app's pages: its `folder` of templates before the shared ones; `script_texts`, the
    texts its scripts write (sent in the page's language); `chrome`, more of what the page
    chrome is given for a request (e.g. where the language chooser comes back to)."""

    def __init__(self, folder: Path, script_texts: Sequence[str] = (),
                 chrome: Callable[[Request], dict[str, Any]] | None = None) -> None:
        self.script_texts = tuple(script_texts)
        self._chrome = chrome
        env = Environment(loader=ChoiceLoader([FileSystemLoader(folder),
                                               FileSystemLoader(TEMPLATES)]),
                          autoescape=True, finalize=_finalize, trim_blocks=True,
                          lstrip_blocks=True, extensions=["jinja2.ext.i18n"])
        env.install_gettext_callables(gettext, ngettext, newstyle=True)  # type: ignore[attr-defined]
        env.globals.update(SUITS=SUITS, ACTIONS=ACTIONS, POSITIONS=POSITIONS,
                           ONE_DAY=timedelta(days=1), HTML_LANG=languages.HTML_LANG,
                           RULE_SHEETS=RULE_SHEETS, LANGUAGE_NAMES=languages.NAMES,
                           script_catalog=self.script_catalog,
                           page_lang=lambda: languages.HTML_LANG[_LANGUAGE.get()])
        env.filters["tr"] = _tr
        env.filters["dealer"] = _dealer
        env.filters["urlquote"] = lambda text: quote(str(text), safe="")
        env.filters["percent"] = lambda share: f"{float(share):.3%}"
        self.templates = Jinja2Templates(env=env)

    def script_catalog(self) -> Markup:
        """The scripts' texts in the page's language, as JSON safe inside a <script> element."""
        data = orjson.dumps({t: gettext(t) for t in self.script_texts}).decode()
        return Markup(data.replace("</", "<\\/"))

    def render(self, request: Request, template: str, who: Any = None, status: int = 200,
               headers: dict[str, str] | None = None, **context: Any) -> HTMLResponse:
        """The page `template` for the session `who` (its account and CSRF token for the
        header; None for a visitor), in its language, with `context` for the template."""
        account: Account | None = getattr(who, "account", None)
        chrome = {"account": account, "csrf": getattr(who, "csrf", None),
                  "language_chooser": _routed(request, "choose_language"),
                  **(self._chrome(request) if self._chrome else {})}
        token = _LANGUAGE.set(page_language(request, account))
        try:
            return self.templates.TemplateResponse(request, template, {**chrome, **context},
                                                   status_code=status, headers=headers)
        finally:
            _LANGUAGE.reset(token)

    def message(self, request: Request, title: str, text: str, who: Any = None,
                status: int = 400, back: tuple[str, str] | None = None) -> HTMLResponse:
        """A page that only says why a request was not done; `back`: a link (href, text) back.
        `title`, `text` and the link's text are message ids: the page shows them translated."""
        return self.render(request, "message.html", who, status, title=title, text=text,
                           back=back)


def invalid_request(request: Request, exc: RequestValidationError, who: Any,
                    say: Callable[..., HTMLResponse]) -> Response:
    """A request whose query, form or path fields are missing or do not parse: a 400 that names
    them (a page, or JSON under /api/), not the framework's 422. `say`: the app's `message`."""
    fields = sorted({" ".join(str(part) for part in error.get("loc", ())) or "request"
                     for error in exc.errors()})
    text = INVALID_FIELDS.format(", ".join(fields)[:200])
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": text}, status_code=400)
    return say(request, "Bad request", text, who, 400)
