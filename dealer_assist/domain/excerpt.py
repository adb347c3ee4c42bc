"""How an error message quotes bad input: a short excerpt, its cut marked.

A trace line, a config value or a frame may carry megabytes (a 50 MB string, a list nested a
hundred thousand deep): an error message that echoed it whole would flood the terminal and
the service's log. `shown(value)` is the value's repr, cut to a few dozen characters and a
few levels of nesting, with `...` where something was left out.
"""

from __future__ import annotations

import reprlib
from typing import Any

_REPR = reprlib.Repr()
_REPR.maxstring = 60
_REPR.maxother = 60
_REPR.maxlevel = 3
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 4
_REPR.maxlong = 40


def shown(value: Any) -> str:
    """`repr(value)` cut short for an error message (never more than about 200 characters)."""
    try:
        text = _REPR.repr(value)
    except RecursionError:
        return f"<a {type(value).__name__} nested too deep to show>"
    except ValueError:  # an integer of more digits than Python will print
        return f"<a {type(value).__name__} too long to show>"
    return text if len(text) <= 200 else text[:197] + "..."
