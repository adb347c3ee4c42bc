"""Reading a trace: JSON Lines in, validated events out, every problem named by its line."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator

from dealer_assist.domain.events import Event, TraceError, parse_event


class TraceLineError(ValueError):
    """A malformed trace line; `line` is its 1-based number."""

    def __init__(self, line: int, problem: str) -> None:
        super().__init__(f"line {line}: {problem}")
        self.line = line
        self.problem = problem


def _line_error(number: int, error: ValueError) -> TraceLineError:
    if isinstance(error, TraceError):
        return TraceLineError(number, str(error))
    return TraceLineError(number, f"not valid JSON ({error})")


def _blank(line: str | bytes) -> bool:
    return not line.strip()


def for_each_event(lines: Iterable[str | bytes], act: Callable[[Event], object]) -> list[int]:
    """Call `act(event)` for every non-blank line; raise TraceLineError on a bad one.

    Returns the numbers of the blank lines skipped (see `line_number`). This is the loop every
    replay runs, kept tight: an audit's speed is this loop's speed.
    """
    loads = json.loads
    blanks: list[int] = []
    for number, line in enumerate(lines, 1):
        try:
            event = parse_event(loads(line))
        except ValueError as e:  # JSONDecodeError and TraceError alike
            if _blank(line):
                blanks.append(number)
                continue
            raise _line_error(number, e) from None
        act(event)
    return blanks


def line_number(index: int, blanks: list[int]) -> int:
    """The line of the event at `index` (0-based, counting events) given the blank lines skipped."""
    number = index + 1
    for blank in blanks:
        if blank <= number:
            number += 1
    return number


def read_events(lines: Iterable[str | bytes]) -> Iterator[tuple[int, Event]]:
    """Yield (line number, event) for every non-blank line; raise TraceLineError on a bad one."""
    loads = json.loads
    for number, line in enumerate(lines, 1):
        try:
            event = parse_event(loads(line))
        except ValueError as e:
            if _blank(line):
                continue
            raise _line_error(number, e) from None
        yield number, event


def event_line(event: Event) -> str:
    """One trace line for an event (compact JSON, no trailing newline)."""
    return json.dumps(event.as_dict(), separators=(",", ":"), ensure_ascii=False)
