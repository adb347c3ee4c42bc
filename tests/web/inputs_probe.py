"""Sends what a browser can send but the stores refuse to every route of a running service.

For each route of the app (`app.routes`: its path, query and form fields as FastAPI reads
them, and each static mount), with the route's method: the path's fields, then every query
field (and `lang`), then every form field, set to a NUL, to percent-encoded bytes that are not
UTF-8 (an encoded surrogate) and to an escape character; each POST also as a JSON body with a
NUL and with a lone surrogate. Each is sent by each client given (a visitor, and a session of
each role, with its CSRF token). `Answer`s are what came back; `ErrorLog` records whatever the
server logs at ERROR meanwhile (a traceback).
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx2
from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from starlette.routing import Mount

#: Percent-encoded values: a NUL, an encoded surrogate (not UTF-8), ESC.
BAD_URL = {"NUL": "a%00b", "not UTF-8": "a%ED%A0%80b", "ESC": "a%1Bb"}
#: JSON strings: a NUL, a lone surrogate.
BAD_JSON = {"NUL": '"a\\u0000b"', "surrogate": '"a\\ud800b"'}
NOTICE = re.compile(r'<p class="notice error"[^>]*>([^<]+)</p>')


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    path_fields: tuple[str, ...]
    query_fields: tuple[str, ...]
    form_fields: tuple[str, ...]


def _fields(dependant: Dependant, kind: str) -> tuple[str, ...]:
    """The names of a route's fields of a kind (path_params, query_params, body_params),
    its dependencies' included."""
    names = [field.alias for field in getattr(dependant, kind)]
    for sub in dependant.dependencies:
        names.extend(_fields(sub, kind))
    return tuple(dict.fromkeys(names))


def routes(app: FastAPI) -> list[Route]:
    """Every route the app serves, with the fields it reads (the routers it includes walked:
    this FastAPI keeps them as `_IncludedRouter`s, each with its prefix)."""
    return list(_routes(app.routes, ""))


def _routes(candidates: list[Any], prefix: str) -> Iterator[Route]:
    for route in candidates:
        if isinstance(route, APIRoute):
            for method in sorted((route.methods or set()) - {"HEAD"}):
                yield Route(method, prefix + route.path,
                            _fields(route.dependant, "path_params"),
                            _fields(route.dependant, "query_params"),
                            _fields(route.dependant, "body_params"))
        elif isinstance(route, Mount):
            yield Route("GET", prefix + route.path + "/{file}", ("file",), (), ())
        elif type(route).__name__ == "_IncludedRouter":
            yield from _routes(route.original_router.routes,
                               prefix + route.include_context.prefix)
        else:
            raise AssertionError(f"a route of a kind the probe does not know: {route!r}")


@dataclass(frozen=True)
class Sent:
    who: str
    method: str
    url: str
    body: str


@dataclass(frozen=True)
class Answer:
    sent: Sent
    status: int
    message: str


def _fill(path: str, fields: tuple[str, ...], value: str) -> str:
    for name in fields:
        path = path.replace("{" + name + "}", value).replace("{" + name + ":path}", value)
    return path


def requests(route: Route, who: str, csrf: str) -> Iterator[tuple[Sent, dict[str, str]]]:
    """The bad requests for `route` as `who` (whose CSRF token is `csrf`), with their headers."""
    form = {"content-type": "application/x-www-form-urlencoded"}
    plain = _fill(route.path, route.path_fields, "x")
    token = f"csrf={csrf}"
    for value in BAD_URL.values():
        if route.path_fields:
            yield Sent(who, route.method, _fill(route.path, route.path_fields, value),
                       token), form
        query = "&".join(f"{name}={value}" for name in (*route.query_fields, "lang"))
        yield Sent(who, route.method, f"{plain}?{query}", token), form
        if route.method == "POST":
            fields = [f"{name}={value}" for name in (*route.form_fields, "note")
                      if name != "csrf"]
            yield Sent(who, "POST", plain, "&".join([token, *fields])), form
    if route.method == "POST":
        for value in BAD_JSON.values():
            names = route.form_fields or ("value",)
            body = "{" + ", ".join(f'"{name}": {value}' for name in names) + "}"
            yield Sent(who, "POST", plain, body), {"content-type": "application/json"}


def said(response: httpx2.Response) -> str:
    """What the answer tells the person: its JSON `detail`, or the page's error notice."""
    if response.headers.get("content-type", "").startswith("application/json"):
        return str(response.json().get("detail", ""))
    found = NOTICE.search(response.text)
    return html.unescape(found.group(1).strip()) if found else ""


def probe(app: FastAPI, clients: dict[str, tuple[httpx2.Client, str]]) -> list[Answer]:
    """Every bad request to every route of `app`, by each client (who -> (client, csrf))."""
    answers = []
    for route in routes(app):
        for who, (client, csrf) in clients.items():
            for sent, headers in requests(route, who, csrf):
                response = client.request(sent.method, sent.url, headers=headers,
                                          content=sent.body.encode()
                                          if sent.method == "POST" else None)
                answers.append(Answer(sent, response.status_code, said(response)))
    return answers


class ErrorLog(logging.Handler):
    """Records at ERROR and above from the root logger and uvicorn's (which do not propagate)
    while in a `with` block."""

    LOGGERS = ("", "uvicorn", "uvicorn.error", "uvicorn.asgi")

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(f"{record.name}: {record.getMessage()[:300]}")

    def __enter__(self) -> ErrorLog:
        for name in self.LOGGERS:
            logging.getLogger(name).addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        for name in self.LOGGERS:
            logging.getLogger(name).removeHandler(self)
