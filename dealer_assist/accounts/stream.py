"""Server-sent events: one hub fans the table's updates out to every open screen.

The live table calls `publish` on whatever thread made the change; the hub hands the text to
the web server's event loop, which puts it on each client's queue. Each update is a whole
view, so a client that falls behind loses only views that a newer one replaces.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

KEEPALIVE_S = 15.0
QUEUE_SIZE = 32
_CLOSE = ""


def sse(event: str, seq: int, data: Any) -> str:
    """One server-sent event, its data one line of JSON."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return f"id: {seq}\nevent: {event}\ndata: {text}\n\n"


class Hub:
    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._clients: dict[str, set[asyncio.Queue[str]]] = {}
        self.closed = False

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """The event loop of the web server (set when it starts)."""
        self._loop = loop
        self.closed = False

    def publish(self, channel: str, text: str) -> None:
        """Send `text` to every client of `channel`; safe from any thread."""
        loop = self._loop
        if loop is None or loop.is_closed() or not self._clients.get(channel):
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(self._fan_out, channel, text)

    def _fan_out(self, channel: str, text: str) -> None:
        for queue in list(self._clients.get(channel, ())):
            if queue.full():
                while not queue.empty():
                    queue.get_nowait()
            queue.put_nowait(text)

    def close(self) -> None:
        """End every stream (the server is stopping); safe from any thread."""
        self.closed = True
        loop = self._loop
        if loop is not None and not loop.is_closed():
            for channel in list(self._clients):
                try:
                    loop.call_soon_threadsafe(self._fan_out, channel, _CLOSE)
                except RuntimeError:
                    return

    def clients(self, channel: str) -> int:
        return len(self._clients.get(channel, ()))

    async def stream(self, channel: str, first: str) -> AsyncIterator[str]:
        """The stream of one client: `first` (the current view), then every update."""
        queue: asyncio.Queue[str] = asyncio.Queue(QUEUE_SIZE)
        self._clients.setdefault(channel, set()).add(queue)
        try:
            yield "retry: 1000\n" + first
            while not self.closed:
                try:
                    text = await asyncio.wait_for(queue.get(), KEEPALIVE_S)
                except TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                if text == _CLOSE:
                    return
                yield text
        finally:
            self._clients.get(channel, set()).discard(queue)
