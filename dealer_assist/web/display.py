"""The public table display: the page, its live stream, its snapshot. No login.

What it shows is `services.public_view` (never a card before it is revealed, never the
shoe's composition). Updates are pushed as server-sent events: the page never polls.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, JSONResponse, StreamingResponse

from dealer_assist.web.stream import sse

router = APIRouter()
STATIC = Path(__file__).resolve().parent / "static"


@router.get("/", include_in_schema=False)
async def display_page() -> FileResponse:
    """The page: static HTML; its script renders what the stream sends."""
    return FileResponse(STATIC / "display.html", media_type="text/html",
                        headers={"Cache-Control": "no-cache"})


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
