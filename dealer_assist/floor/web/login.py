"""The floor service's front door: the shared login, logout and language routes
(accounts/routes.py) with the floor's homes per role, and `/`, which sends each role home."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from dealer_assist.accounts.auth import current_session, safe_next
from dealer_assist.accounts.routes import front_door
from dealer_assist.floor.web.pages import PAGES

#: Where each role lands after logging in.
HOME = {"supervisor": "/pit", "surveillance": "/pit", "regulator": "/regulator"}
ROLES = tuple(HOME)


def landing(next_path: str, role: str) -> str:
    """A local path only (never another site), else the role's home."""
    chosen = safe_next(next_path, "/")
    return HOME.get(role, "/login") if chosen == "/" else chosen


router = front_door(ROLES, landing, PAGES)


@router.get("/")
def home(request: Request) -> Response:
    session = current_session(request)
    return RedirectResponse(HOME.get(session.account.role, "/login") if session else "/login",
                            status_code=303)
