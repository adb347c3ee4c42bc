"""The floor service's pages: Jinja2 templates in `floor/templates/`, falling back to the
table's (`web/templates/`: login form, message page, the review page's macros), which the floor
reuses read-only. The environment is the table's (autoescape, the same globals, filters and
printing of values); only the loader differs, and the floor's `base.html` (its own links)
comes first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from jinja2 import ChoiceLoader, Environment, FileSystemLoader

from dealer_assist.web import pages as table_pages

FLOOR_TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
STATIC = Path(__file__).resolve().parent / "static"


def _environment() -> Environment:
    table = table_pages.templates.env
    env = Environment(loader=ChoiceLoader([FileSystemLoader(FLOOR_TEMPLATES),
                                           FileSystemLoader(table_pages.TEMPLATES)]),
                      autoescape=True, finalize=table.finalize, trim_blocks=True,
                      lstrip_blocks=True)
    env.globals.update(table.globals)
    env.filters.update(table.filters)
    return env


templates = Jinja2Templates(env=_environment())


def render(request: Request, template: str, who: Any = None, status: int = 200,
           headers: dict[str, str] | None = None, **context: Any) -> HTMLResponse:
    """The page `template` for the session `who` (None for a visitor)."""
    return templates.TemplateResponse(
        request, template, {"account": getattr(who, "account", None),
                            "csrf": getattr(who, "csrf", None), **context},
        status_code=status, headers=headers)


def message(request: Request, title: str, text: str, who: Any = None, status: int = 400,
            back: tuple[str, str] | None = None) -> HTMLResponse:
    """A page that only says why a request was not done."""
    return render(request, "message.html", who, status, title=title, text=text, back=back)
