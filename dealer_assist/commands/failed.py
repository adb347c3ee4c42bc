"""`CommandFailed`: what a command raises when it cannot go on.

The CLI prints its message, prefixed with the command's name, on standard error and exits with
its status (2 unless said otherwise). It lives in a module of its own so that the helpers the
commands share (`commands/__init__.py`, `table_log`) can raise it without importing each other.
"""

from __future__ import annotations


class CommandFailed(Exception):
    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status
