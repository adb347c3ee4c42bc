"""Reading a trace: JSON Lines in, validated events out, every problem named by its line."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator

import orjson

from dealer_assist.domain import events
from dealer_assist.domain.events import Event, TraceError, parse_event


class TraceLineError(ValueError):
    """A malformed trace line; `line` is its 1-based number."""

    def __init__(self, line: int, problem: str) -> None:
        super().__init__(f"line {line}: {problem}")
        self.line = line
        self.problem = problem


# Events whose every field the parser checks to be a string, a bool or an integer: orjson reads
# their lines as `json.loads` does. orjson refuses what `json.loads` takes (NaN, a byte-order mark,
# other encodings than UTF-8) and reads an integer over 64 bits as a float, which a new shoe's or a
# decision's id and a noted event's fields would keep; those lines are read again by `json.loads`.
_READ_ALIKE = frozenset({events.CardDealt, events.BetsClosed, events.ShoeEnded,
                         events.CardsRevealed, events.UnreadableDealt, events.CutCardOut,
                         events.FramesLost, events.CardSeen, events.CardLost})


def _exact_event(number: int, line: str | bytes) -> Event | None:
    """The event of a line read by `json.loads`; None for a blank line; TraceLineError if bad."""
    try:
        return parse_event(json.loads(line))
    except RecursionError:  # orjson refused it at 1,024 levels; json.loads runs out of stack
        raise TraceLineError(number, "not valid JSON (nested too deep)") from None
    except ValueError as e:  # JSONDecodeError and TraceError alike
        if not line.strip():
            return None
        if isinstance(e, TraceError):
            raise TraceLineError(number, str(e)) from None
        raise TraceLineError(number, f"not valid JSON ({e})") from None


def for_each_event(lines: Iterable[str | bytes], act: Callable[[Event], object]) -> list[int]:
    """Call `act(event)` for every non-blank line; raise TraceLineError on a bad one.

    Returns the numbers of the blank lines skipped (see `line_number`). This is the loop every
    replay runs, kept tight: an audit's speed is this loop's speed.
    """
    loads, parse, read_alike, exact = orjson.loads, parse_event, _READ_ALIKE, _exact_event
    blanks: list[int] = []
    for number, line in enumerate(lines, 1):
        try:
            event: Event | None = parse(loads(line))
        except ValueError:  # orjson's JSONDecodeError and TraceError alike
            event = None
        if type(event) not in read_alike:
            event = exact(number, line)
        if event is None:
            blanks.append(number)
            continue
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
    for number, line in enumerate(lines, 1):
        try:
            event: Event | None = parse_event(orjson.loads(line))
        except ValueError:
            event = None
        if type(event) not in _READ_ALIKE:
            event = _exact_event(number, line)
        if event is not None:
            yield number, event


def event_line(event: Event) -> str:
    """One trace line for an event (compact JSON, no trailing newline)."""
    return json.dumps(event.as_dict(), separators=(",", ":"), ensure_ascii=False)
