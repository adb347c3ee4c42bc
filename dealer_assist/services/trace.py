"""Reading a trace: JSON Lines in, validated events out, every problem named by its line."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from dealer_assist.domain.events import Event, TraceError, parse_event


class TraceLineError(ValueError):
    """A malformed trace line; `line` is its 1-based number."""

    def __init__(self, line: int, problem: str) -> None:
        super().__init__(f"line {line}: {problem}")
        self.line = line
        self.problem = problem


def read_events(lines: Iterable[str | bytes]) -> Iterator[tuple[int, Event]]:
    """Yield (line number, event) for every non-blank line; raise TraceLineError on a bad one."""
    loads = json.loads
    for number, line in enumerate(lines, 1):
        try:
            obj = loads(line)
        except ValueError as e:
            if not line.strip():
                continue
            raise TraceLineError(number, f"not valid JSON ({e})") from None
        try:
            yield number, parse_event(obj)
        except TraceError as e:
            raise TraceLineError(number, str(e)) from None


def event_line(event: Event) -> str:
    """One trace line for an event (compact JSON, no trailing newline)."""
    return json.dumps(event.as_dict(), separators=(",", ":"), ensure_ascii=False)
