"""Every input a browser can send, checked once before any route: what the stores refuse never
reaches one.

PostgreSQL's text cannot hold a NUL character, neither store takes text that is not UTF-8 (a
lone surrogate), and a route that passed such a value on would end in an HTTP 500 and a
traceback. `InputCheck`, an ASGI middleware each service registers with one line, refuses
them first, with a 400 that names the field (a page in the viewer's language, or JSON under
`/api/`) and a warning in the log:

- the path and every query field (names too): percent-decoded, they must be UTF-8 with no NUL
  or other C0 control character but tab, line feed and carriage return;
- a form body (`application/x-www-form-urlencoded`) as the query; a JSON body must parse
  (orjson: UTF-8, no lone surrogate) and hold no such character in any key or string;
- a body over `MAX_BODY` is refused with 413, a multipart form (no route takes a file) with
  415, before it is read whole.

A route that checks its own form keeps it (`own_forms`, by default the login: a name no account
can have is a refused login that the throttle counts, accounts/throttle.py); its query is
checked all the same.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Collection, Iterator
from typing import Any, NamedTuple
from urllib.parse import unquote_to_bytes

import orjson
from fastapi import Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dealer_assist.accounts.auth import SAFE_METHODS, current_session
from dealer_assist.accounts.pages import INVALID_FIELDS
from dealer_assist.accounts.throttle import shown

#: The largest request body taken (the longest form the pages send is a few kilobytes).
MAX_BODY = 4 * 1024 * 1024
#: Characters no field may hold: NUL (PostgreSQL refuses it) and the other C0 controls but tab,
#: line feed and carriage return (a reason may span lines), and lone surrogates.
_REFUSED = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff]")

_log = logging.getLogger(__name__)

#: The service's page that says why a request was not done (its `Pages.message`).
Say = Callable[..., HTMLResponse]


class Refusal(NamedTuple):
    """Why a request is refused: the field as the page names it, the reason for the log."""

    field: str
    why: str
    status: int = 400


def text_problem(text: str) -> str | None:
    """Why `text` cannot be taken (a NUL, a control character, a lone surrogate), or None."""
    found = _REFUSED.search(text)
    if found is None:
        return None
    char = found.group()
    return "a NUL character" if char == "\x00" else f"the character U+{ord(char):04X}"


def _decoded(raw: bytes, plus: bool) -> str:
    """A percent-encoded part, decoded as UTF-8 (UnicodeDecodeError when it is not)."""
    return unquote_to_bytes(raw.replace(b"+", b" ") if plus else raw).decode("utf-8")


def fields_problem(raw: bytes, where: str) -> Refusal | None:
    """The first field of a query string or urlencoded form (`raw`) that cannot be taken."""
    for part in raw.split(b"&"):
        if not part:
            continue
        key, _, value = part.partition(b"=")
        try:
            name = _decoded(key, plus=True)
        except UnicodeDecodeError:
            return Refusal(f"{where} field", "a name that is not UTF-8")
        why = text_problem(name)
        if why:
            return Refusal(f"{where} field", f"a name with {why}")
        try:
            why = text_problem(_decoded(value, plus=True))
        except UnicodeDecodeError:
            why = "text that is not UTF-8"
        if why:
            return Refusal(f"{where} {name[:40]}", why)
    return None


def _strings(value: Any) -> Iterator[str]:
    """Every key and string in a parsed JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def json_problem(raw: bytes) -> Refusal | None:
    """Why a JSON body cannot be taken (it does not parse, or holds a refused character)."""
    if not raw.strip():
        return None
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        return Refusal("body", f"not JSON ({str(e)[:100]})")
    for text in _strings(value):
        why = text_problem(text)
        if why:
            return Refusal("body", f"a JSON string with {why}")
    return None


def url_problem(scope: Scope) -> Refusal | None:
    """Why the path or the query string of a request cannot be taken, or None."""
    raw_path = scope.get("raw_path")
    try:
        path = _decoded(raw_path, plus=False) if raw_path else scope["path"]
    except UnicodeDecodeError:
        return Refusal("path", "text that is not UTF-8")
    why = text_problem(path) or text_problem(scope["path"])
    if why:
        return Refusal("path", why)
    return fields_problem(scope.get("query_string", b""), "query")


def _media_type(scope: Scope) -> str:
    for key, value in scope["headers"]:
        if key == b"content-type":
            return value.decode("latin-1").split(";", 1)[0].strip().lower()
    return ""


def _length(scope: Scope) -> int | None:
    for key, value in scope["headers"]:
        if key == b"content-length":
            return int(value) if value.isdigit() else None
    return None


class InputCheck:
    """The ASGI middleware: `app.add_middleware(InputCheck, say=pages.message)`."""

    def __init__(self, app: ASGIApp, say: Say, own_forms: Collection[str] = ("/login",)) -> None:
        self.app = app
        self.say = say
        self.own_forms = frozenset(own_forms)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = url_problem(scope)
        body: bytes | None = None
        if refusal is None and scope["method"] not in SAFE_METHODS:
            refusal, body = await self._body(scope, receive)
        if refusal is not None:
            await self._refuse(scope, refusal)(scope, receive, send)
            return
        await self.app(scope, receive if body is None else _replay(body, receive), send)

    async def _body(self, scope: Scope, receive: Receive) -> tuple[Refusal | None, bytes | None]:
        """(why the body is refused or None, the body when it was read)."""
        media = _media_type(scope)
        if media == "multipart/form-data":
            return Refusal("body", "a multipart form (no route takes a file)", 415), None
        is_json = media == "application/json" or media.endswith("+json")
        if media != "application/x-www-form-urlencoded" and not is_json:
            return None, None
        length = _length(scope)
        if length is not None and length > MAX_BODY:
            return Refusal("body", f"a body of {length} bytes", 413), None
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > MAX_BODY:
                return Refusal("body", f"a body over {MAX_BODY} bytes", 413), None
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if scope["path"] in self.own_forms:
            return None, body
        return (json_problem(body) if is_json else fields_problem(body, "form")), body

    def _refuse(self, scope: Scope, refusal: Refusal) -> Response:
        request = Request(scope)
        _log.warning("refused %s %s: %s: %s", scope["method"], shown(scope["path"]),
                     refusal.field, refusal.why)
        text = INVALID_FIELDS.format(refusal.field)
        if scope["path"].startswith("/api/"):
            return JSONResponse({"detail": text}, status_code=refusal.status)
        return self.say(request, "Bad request", text, current_session(request), refusal.status)


def _replay(body: bytes, receive: Receive) -> Receive:
    """`receive` for the app behind: the body read, then whatever the client sends next."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again
