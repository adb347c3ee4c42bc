"""An account chooses its console language: `POST /account/language` (any signed-in user).

The choice is kept with the account (`Accounts.set_language`, the users file) and takes effect
on the session at once; the form is in every console page's header (base.html) once this router
is mounted. `?lang=` on any page previews a language without keeping it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import RedirectResponse, Response

from dealer_assist import i18n
from dealer_assist.web import pages
from dealer_assist.web.auth import Session, check_csrf, require, safe_next

PATH = "/account/language"
router = APIRouter()
AnyUser = Annotated[Session, Depends(require("dealer", "supervisor", "regulator"))]


@router.post(PATH)
def choose_language(request: Request, session: AnyUser, csrf: str = Form(""),
                    lang: str = Form(""), next: str = Form("")) -> Response:
    refused = keep_language(request, session, csrf, lang, pages.message)
    return refused or RedirectResponse(safe_next(next, session.account.role), status_code=303)


def keep_language(request: Request, session: Session, csrf: str, lang: str,
                  message: Callable[..., Response],
                  refusals: tuple[type[Exception], ...] = ()) -> Response | None:
    """Keep the language `lang` names for the session's account and the session: None when
    kept, else the page (`message`: the service's own) that says why not. The table's console
    and the floor service share it; `refusals`: the account store's own errors (a 400)."""
    check_csrf(session.csrf, csrf)
    try:
        chosen = i18n.language(lang[:40])
    except i18n.UnknownLanguage as e:
        return message(request, "Bad request", str(e), session, 400)
    keep = getattr(request.app.state.accounts, "set_language", None)
    if keep is None:
        return message(request, "Not allowed",
                       "These accounts keep no language: use ?lang= to preview one.",
                       session, 403)
    try:
        keep(session.account.name, chosen)
    except refusals as e:
        return message(request, "Bad request", str(e), session, 400)
    session.account = replace(session.account, language=chosen)
    return None
