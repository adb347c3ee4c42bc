"""Operations signals: `/healthz` for whatever restarts or balances the service, `/metrics`
for Prometheus.

- `GET /healthz` (public: it says nothing the table display does not): `{"ready", "log",
  "links"}`; 200 while the log can take events, 503 with the reason when it cannot. A shoe or
  camera link that is down is reported, not counted as the service's own failure.
- `GET /metrics` (from this machine only: 127.0.0.1 or ::1, where the scraper or the TLS
  proxy's host runs; anyone else gets 404): Prometheus's text format, version 0.0.4.

The router takes its collaborators as arguments: the live table, a check of the log
(`log_problem() -> reason or None`), when the table ships its log, the shipper's lag, and
the counts of snapshot files refused at start by reason, read at each scrape (None: the
table keeps no snapshots, having no signing key to seal them with; docs/service.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse, PlainTextResponse

from dealer_assist.services.live_table import LiveTable

LOCAL = frozenset({"127.0.0.1", "::1", "localhost"})
#: The shipper's lag as (events behind, seconds behind); None when no floor is configured.
ShippingLag = Callable[[], tuple[int, float] | None]


def health_router(table: LiveTable, log_problem: Callable[[], str | None],
                  shipping_lag: ShippingLag | None = None,
                  snapshots_refused: Mapping[str, int] | None = None) -> APIRouter:
    router = APIRouter()

    @router.get("/healthz")
    def healthz() -> Response:
        problem = log_problem()
        body = {"ready": problem is None, "log": problem or "writable",
                "links": table.signals()["links"]}
        return JSONResponse(body, status_code=200 if problem is None else 503)

    @router.get("/metrics")
    def metrics(request: Request) -> Response:
        if (request.client.host if request.client else "") not in LOCAL:
            return JSONResponse({"detail": "Not Found"}, status_code=404)
        lag = shipping_lag() if shipping_lag else None
        return PlainTextResponse(exposition(table.signals(), log_problem() is None, lag,
                                            refused=snapshots_refused),
                                 media_type="text/plain; version=0.0.4")

    return router


def exposition(signals: dict[str, Any], log_ok: bool, lag: tuple[int, float] | None,
               now: float | None = None, refused: Mapping[str, int] | None = None) -> str:
    """The signals in Prometheus's text format (`refused`: the snapshots refused at start by
    reason; None when the table keeps no snapshots)."""
    now = time.time() if now is None else now
    out: list[str] = []

    def metric(name: str, kind: str, text: str, samples: list[tuple[str, float]]) -> None:
        out.append(f"# HELP dealer_assist_{name} {text}")
        out.append(f"# TYPE dealer_assist_{name} {kind}")
        out.extend(f"dealer_assist_{name}{labels} {value:g}" for labels, value in samples)

    metric("events_appended_total", "counter", "Events in the table's log.",
           [("", signals["seq"])])
    metric("flags_raised_total", "counter", "Flags raised in the log, by code.",
           [(f'{{code="{code}"}}', n) for code, n in sorted(signals["flags"].items())])
    metric("link_up", "gauge", "1 while a device's link is up.",
           [(f'{{device="{name}"}}', float(status == "up"))
            for name, status in sorted(signals["links"].items())])
    metric("log_writable", "gauge", "1 while the log can take events.", [("", float(log_ok))])
    if signals["last_event"]:
        last = datetime.fromisoformat(signals["last_event"].replace("Z", "+00:00")).timestamp()
        metric("last_event_age_seconds", "gauge", "Seconds since the last event's time.",
               [("", max(0.0, now - last))])
    if signals["snapshot_at"] is not None:
        metric("snapshot_age_seconds", "gauge", "Seconds since the last snapshot was written.",
               [("", max(0.0, now - signals["snapshot_at"]))])
        metric("snapshot_seq", "gauge", "The seq of the last snapshot.",
               [("", signals["snapshot_seq"])])
    metric("snapshots_sealed", "gauge", "1 when the table keeps snapshots sealed with its key "
           "(0: no signing key, every start replays the whole log).",
           [("", float(refused is not None))])
    if refused is not None:
        metric("snapshots_refused_total", "counter", "Snapshot files refused at start (forged, "
               "changed, cut short, foreign...), by reason; the log was replayed instead.",
               [(f'{{reason="{reason}"}}', n) for reason, n in sorted(refused.items())])
    if lag is not None:
        metric("shipping_lag_events", "gauge", "Events not yet in the floor's central store.",
               [("", lag[0])])
        metric("shipping_lag_seconds", "gauge", "Event time the central copy is behind.",
               [("", lag[1])])
    return "\n".join(out) + "\n"
