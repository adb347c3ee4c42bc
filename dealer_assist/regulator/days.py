"""A day named in a regulator page's path or form: `YYYY-MM-DD`, inside the calendar's ends.

A page links to the day before and after a day (and the table's to its month), so a day is
only accepted at least `margin` inside the calendar's first and last days: the links around it
stay dates.
"""

from __future__ import annotations

from datetime import date, timedelta


class DayOutOfRange(ValueError):
    """A well-written day too close to the calendar's ends for the page to draw."""


def calendar_day(text: str, margin: timedelta) -> date:
    """The date `text` names; ValueError if it is not written `YYYY-MM-DD`, DayOutOfRange (a
    ValueError too) if it lies less than `margin` inside the calendar's ends."""
    when = date.fromisoformat(text)
    if not date.min + margin <= when <= date.max - margin:
        raise DayOutOfRange(f"{text} is out of range")
    return when
