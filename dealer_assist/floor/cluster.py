"""A private PostgreSQL cluster in a folder, started by the project itself (no Docker).

Debian's `postgresql` package: `initdb` into `<root>/data`, `pg_ctl start` listening on a unix
socket in `<root>` only (and on 127.0.0.1 when asked), `pg_ctl stop`. PostgreSQL refuses to
run as root, so as root the cluster belongs to `nobody` and runs through `runuser`. The
superuser `postgres` has a password (SCRAM) kept in `<root>/password`, readable by its owner
only (initdb reads it from a file, never from its arguments), and the port in `<root>/port`, so
the same folder can be started again later (`make floor` keeps `var/floor-pg/`).

A password never goes on a command line (every local user reads those with `ps`): a process
started with a DSN gets `login_dsn(...)`, which names a libpq password file (written
mode 0600: floor/passfile.py) instead of the password.
"""

from __future__ import annotations

import glob
import os
import secrets
import shutil
import socket
import subprocess
from pathlib import Path

SUPERUSER = "postgres"


class ClusterProblem(RuntimeError):
    """PostgreSQL is missing, or initdb / pg_ctl failed; the message says what to do."""


def bin_dir() -> Path | None:
    """Where initdb and pg_ctl are: on PATH, else Debian's newest /usr/lib/postgresql/*/bin."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                        key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    return Path(candidates[-1]).parent if candidates else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """The cluster in `root`: `init()` once, then `start()` / `stop()` as often as needed."""

    def __init__(self, root: Path, *, port: int | None = None, tcp: bool = False,
                 settings: dict[str, str] | None = None) -> None:
        found = bin_dir()
        if found is None:
            raise ClusterProblem("PostgreSQL is not installed (no initdb): on Debian, "
                                 "apt-get install postgresql")
        self.bin_dir, self.root = found, Path(root).resolve()
        self.data = self.root / "data"
        kept = self.root / "port"
        self.port = port or (int(kept.read_text()) if kept.exists() else free_port())
        self.tcp = tcp
        self.settings = {"fsync": "off", **(settings or {})}
        self._password_file = self.root / "password"

    @property
    def password(self) -> str:
        return self._password_file.read_text().strip()

    @property
    def initialised(self) -> bool:
        return (self.data / "PG_VERSION").exists() and self._password_file.exists()

    def _as_owner(self, *argv: str, timeout: float = 120) -> None:
        cmd = [str(self.bin_dir / argv[0]), *argv[1:]]
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", "nobody", "--", *cmd]
        try:
            subprocess.run(cmd, check=True, capture_output=True, timeout=timeout)
        except subprocess.CalledProcessError as exc:
            said = (exc.stderr or b"").decode(errors="replace").strip()
            raise ClusterProblem(f"{argv[0]} failed: {said or exc}") from None
        except subprocess.TimeoutExpired:
            raise ClusterProblem(f"{argv[0]} did not finish in {timeout:.0f} s") from None

    def init(self) -> None:
        """Create the cluster (the folder may exist, empty or not; `data` must not)."""
        self.root.mkdir(parents=True, exist_ok=True)
        os.chmod(self.root, 0o755)
        if os.geteuid() == 0:
            for folder in self.root.parents:
                if not os.stat(folder).st_mode & 0o001:
                    raise ClusterProblem(
                        f"PostgreSQL runs as nobody here (not as root), and nobody cannot "
                        f"enter {folder}: put the cluster elsewhere, or chmod o+x {folder}")
        pwfile = self.root / "initdb-password"
        pwfile.write_text(secrets.token_urlsafe(18))
        os.chmod(pwfile, 0o600)
        if os.geteuid() == 0:
            for path in (self.root, pwfile):
                shutil.chown(path, "nobody")
        try:
            self._as_owner("initdb", "-D", str(self.data), "-U", SUPERUSER,
                           "--auth=scram-sha-256", f"--pwfile={pwfile}", "--no-sync",
                           "--encoding=UTF8", "--locale=C")
            os.replace(pwfile, self._password_file)
            (self.root / "port").write_text(f"{self.port}\n")
        finally:
            pwfile.unlink(missing_ok=True)

    def start(self) -> None:
        listen = "127.0.0.1" if self.tcp else "''"
        options = [f"-c listen_addresses={listen}", f"-c unix_socket_directories={self.root}",
                   f"-p {self.port}"]
        options += [f"-c {name}={value}" for name, value in self.settings.items()]
        self._as_owner("pg_ctl", "-D", str(self.data), "-l", str(self.root / "log"), "-w",
                       "-o", " ".join(options), "start")

    def stop(self, mode: str = "fast") -> None:
        self._as_owner("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def dsn(self, user: str = SUPERUSER, password: str | None = None,
            dbname: str = "postgres") -> str:
        return (f"host={self.root} port={self.port} dbname={dbname} user={user} "
                f"password={password or self.password}")

    def login_dsn(self, user: str, passfile: Path, dbname: str = "postgres") -> str:
        """A DSN with no password in it: libpq reads `user`'s from `passfile`."""
        from psycopg.conninfo import make_conninfo

        return make_conninfo(host=str(self.root), port=self.port, dbname=dbname, user=user,
                             passfile=str(passfile))

    def passfile_line(self, user: str, password: str, dbname: str = "*") -> str:
        """`user`'s line of a libpq password file for this cluster's socket and port."""
        from dealer_assist.floor import passfile

        return passfile.line(str(self.root), self.port, dbname, user, password)

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

