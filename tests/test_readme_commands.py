"""Every `dealer-assist` command in the README's code blocks runs as written after `make run`.

The README's blocks are read as a newcomer reads them: each line (with its `\\` continuations)
that starts with `dealer-assist` or `.venv/bin/dealer-assist` is a command. A copy of the
checkout's `config/` in a fresh folder, with the project's `.venv` linked in, stands for the
checkout after `make run`: the table service is started from it as `make run` starts it (the
same command and configuration, dealing faster and on a free port), and every command runs in
that folder through bash, with a PATH that does not hold the virtual environment (a bare
`dealer-assist` fails there, as it does after `make run`) and a HOME of its own, while the
service writes its log. The long-running servers (`run`, `floor-demo`) are not run from the
README's blocks: `make run` is started here, and tests/web/test_run.py and
tests/floor/test_floor_demo.py cover both.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer_assist.store.sqlite_log import SqliteEventReader

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
VENV = REPO / ".venv"
#: Servers that run until stopped: not run from the README (see the module's docstring).
SERVERS = ("run", "floor-demo")
#: What `make run` prints, in order, as the README says it does.
PRINTED = ("table display:", "supervisor console:", "dealer's page:", "regulator's pages:",
           "overhead camera:")


def code_blocks(text: str) -> list[str]:
    """The text of the README's fenced blocks and of its indented (4 spaces) blocks."""
    fenced = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.M | re.S)
    outside = re.sub(r"^```[^\n]*\n.*?^```", "", text, flags=re.M | re.S)
    indented = re.findall(r"(?:^(?:    .*)?\n)+", outside, flags=re.M)
    return fenced + [re.sub(r"^    ", "", block, flags=re.M) for block in indented]


def commands(text: str) -> list[str]:
    """The `dealer-assist` command lines of the README's code blocks, continuations joined."""
    found = []
    for block in code_blocks(text):
        for line in re.sub(r"\\\n\s*", "", block).splitlines():
            line = line.strip()
            if re.match(r"(\.venv/bin/)?dealer-assist(\s|$)", line):
                found.append(line)
    return found


def sub_command(line: str) -> str:
    words = line.split()
    return words[1] if len(words) > 1 else ""


def test_the_readme_names_the_commands_to_run() -> None:
    found = commands(README.read_text(encoding="utf-8"))
    named = {sub_command(line) for line in found}
    assert {"log", "audit", "verify-log", "keys", "export", "verify", "odds"} <= named, found
    assert all(line.startswith(".venv/bin/dealer-assist") for line in found), found


def test_commands_are_read_from_fenced_and_indented_blocks_only() -> None:
    text = ("`dealer-assist inline NAME`\n\n    dealer-assist odds  # indented\n\n"
            "```sh\n.venv/bin/dealer-assist export --db X \\\n    --out Y\n```\n"
            "dealer-assist in prose\n")
    assert sorted(commands(text)) == [".venv/bin/dealer-assist export --db X --out Y",
                                      "dealer-assist odds  # indented"]


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A folder standing for the checkout after `make run`: config/, .venv, a HOME."""
    shutil.copytree(REPO / "config", tmp_path / "config")
    table = tmp_path / "config" / "table.toml"
    text = table.read_text(encoding="utf-8")
    faster = re.sub(r"(?m)^emulator_speed = .*$", "emulator_speed = 30.0", text)
    assert faster != text
    table.write_text(faster, encoding="utf-8")
    (tmp_path / ".venv").symlink_to(VENV)
    (tmp_path / "home").mkdir()
    return tmp_path


def environment(checkout: Path) -> dict[str, str]:
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep)
            if p and Path(p).resolve() != (VENV / "bin").resolve()]
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "DEALER_ASSIST_SIGNING_KEY", "PYTHONPATH")}
    return {**env, "PATH": os.pathsep.join(path), "HOME": str(checkout / "home"),
            "PYTHONUNBUFFERED": "1"}


@pytest.fixture
def service(checkout: Path) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    """The table service as `make run` starts it (its Makefile line), on a free port."""
    started = subprocess.Popen(
        [".venv/bin/dealer-assist", "run", "--config", "config/table.toml", "--port", "0"],
        cwd=checkout, env=environment(checkout), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        assert started.stdout is not None
        printed = [started.stdout.readline() for _ in PRINTED]
        if started.poll() is not None and started.stderr is not None:
            pytest.fail("the service did not start: " + started.stderr.read())
        yield started, printed
    finally:
        started.send_signal(signal.SIGINT)
        try:
            started.wait(30)
        except subprocess.TimeoutExpired:
            started.kill()
            started.wait()


def wait_for_games(db: Path, games: int, seconds: float = 90) -> None:
    """Until the log holds `games` bets_closed after a new_shoe (games begun)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if db.is_file():
            kinds = [r.columns[2] for r in SqliteEventReader(db).raw_records() if r.columns]
            if "new_shoe" in kinds and kinds[kinds.index("new_shoe"):].count("bets_closed") \
                    > games:
                return
        time.sleep(0.3)
    pytest.fail(f"the service logged fewer than {games} games in {seconds} s")


@pytest.mark.slow
def test_make_run_prints_what_the_readme_says_and_every_command_runs_as_written(
        checkout: Path, service: tuple[subprocess.Popen[str], list[str]]) -> None:
    running, printed = service
    assert [line.split(":")[0] + ":" for line in printed] == list(PRINTED), printed
    assert all("http://127.0.0.1:" in line for line in printed[:4]), printed
    assert printed[1].rstrip().endswith("/supervisor") and printed[3].rstrip().endswith(
        "/regulator")
    assert "virtual camera" in printed[4], printed
    wait_for_games(checkout / "var" / "T1.events.db", 2)
    lines = commands(README.read_text(encoding="utf-8"))
    ran = []
    for line in lines:
        if sub_command(line) in SERVERS:
            continue
        done = subprocess.run(["bash", "-c", line], cwd=checkout, env=environment(checkout),
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{line}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        assert "Traceback" not in done.stderr, (line, done.stderr)
        ran.append((line, done.stdout))
    assert running.poll() is None  # the service wrote on while they read its log
    running.send_signal(signal.SIGINT)
    _, err = running.communicate(timeout=30)
    # the line it prints for the first supervisor names the command as it can be run
    assert "no supervisor yet: .venv/bin/dealer-assist user add NAME --role supervisor" in err
    said = dict(ran)
    games = next(out for line, out in said.items() if line.split("#")[0].rstrip().endswith(
        "--games"))
    assert re.search(r"shoe T1-\S+ +game 1 +P ", games), games
    assert any(out.startswith("OK: ") for line, out in said.items() if "verify-log" in line)
    assert any(out.startswith("wrote ") for line, out in said.items() if " export " in line)
    assert (checkout / "var" / "T1-export.zip").is_file()
