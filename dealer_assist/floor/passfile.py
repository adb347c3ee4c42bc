"""libpq password files: where a floor login's password lives, never on a command line.

A process's arguments are public on its machine (`ps`, /proc/PID/cmdline), so the floor's
processes are given a DSN without a password and libpq reads the password from a password file
(`PGPASSFILE`, or `passfile=` in the DSN): one line `host:port:dbname:user:password` per login,
`*` for any, `:` and `\\` escaped with a backslash. libpq ignores a file that its group or others
may read; these are written 0600 from the start, never widened afterwards.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


class PassfileProblem(ValueError):
    """A password file others may read, or one that cannot be written; the message says what."""


def line(host: str, port: str | int, dbname: str, user: str, password: str) -> str:
    """One login's line (`*` in a field matches any)."""
    fields = (str(host), str(port), dbname, user, password)
    return ":".join(f if f == "*" else f.replace("\\", "\\\\").replace(":", "\\:")
                    for f in fields)


def write(path: Path, lines: list[str]) -> Path:
    """Replace `path` with a password file of `lines`, 0600 before a password goes in."""
    path = Path(path)
    draft = path.with_name(path.name + ".new")
    draft.unlink(missing_ok=True)
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write("".join(one + "\n" for one in lines))
    os.replace(draft, path)
    return path


@contextmanager
def appending(path: Path) -> Iterator[Callable[[str], None]]:
    """Open the password file `path` to add logins' lines to it (made 0600 if new), before the
    logins are made: refused (nothing written) when it cannot be written, or exists and its
    group or others may read it. Yields a function that adds one line."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except OSError as exc:
        raise PassfileProblem(f"cannot write the password file {path}: {exc}") from None
    with os.fdopen(fd, "a", encoding="utf-8") as out:
        mode = os.fstat(out.fileno()).st_mode
        if mode & 0o077:
            raise PassfileProblem(f"the password file {path} may be read by others (mode "
                                  f"{stat.filemode(mode)}; libpq ignores it): chmod 600 {path}")

        def add(one: str) -> None:
            out.write(one + "\n")

        yield add
