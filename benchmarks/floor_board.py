"""benchmarks/floor.py's pit boards: the floor service in its own process, and `--browsers`
clients reading its pit board's server-sent events as a browser's EventSource does.

`FloorService` runs the floor service's app (floor/web/app.py: its folder, its listener, the
pit's routes) on a free port in a child process, on the floor service's own login, as
`dealer-assist floor serve` does. `Browsers` logs B clients in through the login form as a
supervisor (the CSRF token of the form, the session cookie) and opens `/pit/stream` in each,
one thread apiece, noting when each `table` event arrives: the floor service sends one when
it has folded a batch of that table (the `table_status` trigger's NOTIFY, floor/web/listen.py).
`board_lags` matches them with the tables' events: an event reaches a board with the first
`table` event for its table that arrives after the event's central commit (a fold that was
under way at that commit may stand for it, so a figure may be early by one fold's time).
"""

from __future__ import annotations

import json
import multiprocessing as mp
import re
import threading
import time
from bisect import bisect_left
from collections.abc import Iterable
from typing import Any

CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def serve(dsn: str, urls: Any, stop: Any) -> None:
    """The child process: the floor service on `dsn`, its address put on `urls` once it
    listens to the store, until `stop` is set."""
    import logging
    import secrets

    from dealer_assist.accounts.session import KEY_SIZE
    from dealer_assist.bootstrap import ServerThread
    from dealer_assist.floor.web.app import create_floor_app

    logging.basicConfig(level=logging.WARNING, format="floor service: %(message)s")
    app = create_floor_app(dsn, session_key=secrets.token_bytes(KEY_SIZE))
    server = ServerThread(app).start(timeout=60.0)
    try:
        while not app.state.listener.listening.wait(0.1):
            pass
        urls.put(server.url)
        stop.wait()
    finally:
        server.stop()


class FloorService:
    """The floor service in a child process: `start()` returns its address, `stop()`."""

    def __init__(self, dsn: str) -> None:
        ctx = mp.get_context("spawn")
        self.urls: Any = ctx.Queue()
        self.stopping = ctx.Event()
        self.process = ctx.Process(target=serve, args=(dsn, self.urls, self.stopping),
                                   name="floor service")

    def start(self, timeout: float = 90.0) -> str:
        self.process.start()
        url: str = self.urls.get(timeout=timeout)
        return url

    def stop(self) -> None:
        self.stopping.set()
        self.process.join(15)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(5)


class Browser:
    """One pit board: logged in, its EventSource open in a thread; `arrivals` by table."""

    def __init__(self, url: str, name: str, password: str) -> None:
        import httpx2

        self.client = httpx2.Client(base_url=url, timeout=httpx2.Timeout(30.0, read=None))
        form = self.client.get("/login")
        found = CSRF.search(form.text)
        assert found, "no CSRF token on the login form"
        done = self.client.post("/login", data={"name": name, "password": password,
                                                "csrf": found.group(1), "next": ""},
                                follow_redirects=False)
        if done.status_code != 303:
            raise RuntimeError(f"the pit board's login failed: HTTP {done.status_code}")
        self.arrivals: dict[str, list[float]] = {}
        self.hello = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True, name="browser")

    def _read(self) -> None:
        import httpx2

        kind = ""
        try:
            with self.client.stream("GET", "/pit/stream") as response:
                for line in response.iter_lines():
                    if line.startswith("event: "):
                        kind = line[7:]
                    elif line.startswith("data: ") and kind == "table":
                        at = time.time()
                        table = json.loads(line[6:]).get("table", "")
                        self.arrivals.setdefault(table, []).append(at)
                    elif kind == "hello":
                        self.hello.set()
        except httpx2.HTTPError:  # the service went away: the stream is over
            return

    def close(self) -> None:
        self.thread.join(10)
        self.client.close()


class Browsers:
    """B pit boards on the floor service at `url`, each reading the stream in its thread."""

    def __init__(self, url: str, count: int, name: str, password: str) -> None:
        self.boards = [Browser(url, name, password) for _ in range(count)]

    def open(self, timeout: float = 30.0) -> None:
        for board in self.boards:
            board.thread.start()
        for board in self.boards:
            if not board.hello.wait(timeout):
                raise RuntimeError("a pit board never heard the stream's hello")

    def close(self) -> None:
        """After the service has stopped (which ends every stream)."""
        for board in self.boards:
            board.close()


def board_lags(events: Iterable[tuple[str, float, float]],
               boards: list[dict[str, list[float]]]) -> tuple[list[float], int]:
    """Milliseconds from each event's append to its arrival on each board, from (table,
    append time, central commit time); and how many arrivals never came."""
    lags: list[float] = []
    missed = 0
    for table, appended, committed in events:
        for arrivals in boards:
            times = arrivals.get(table, ())
            i = bisect_left(times, committed)
            if i < len(times):
                lags.append((times[i] - appended) * 1000.0)
            else:
                missed += 1
    return lags, missed
