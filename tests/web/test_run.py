"""`dealer-assist run` and its configuration: checked at start-up, and the service end to end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest

from dealer_assist.config import DEFAULT_PAYTABLES, ConfigError, load_table_config

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "config" / "table.toml"
PAYTABLES = DEFAULT_PAYTABLES.read_text(encoding="utf-8")


def write_config(tmp_path: Path, extra: str = "", paytables: str = PAYTABLES,
                 speed: str = "20") -> Path:
    (tmp_path / "paytables.toml").write_text(paytables, encoding="utf-8")
    path = tmp_path / "table.toml"
    path.write_text(f"""
[table]
id = "T5"
database = "var/T5.events.db"
users = "var/users.db"
paytables = "paytables.toml"
[shoe]
url = "emulator"
emulator_speed = {speed}
[camera]
enabled = false
[house]
decks = 8
variant = "standard"
[web]
port = 0
{extra}
""", encoding="utf-8")
    return path


def test_the_shipped_config_loads() -> None:
    config = load_table_config(SHIPPED)
    assert config.shoe.emulated and config.camera.virtual  # make run shows the camera at work
    assert config.database == REPO / "var" / "T1.events.db"  # relative to config/, in var/
    assert config.paytables == DEFAULT_PAYTABLES  # it names none: the shipped ones


@pytest.mark.parametrize("extra, problem", [
    ("[shoe]\nspeed = 3", None),  # a second [shoe] table: not TOML
    ("[weather]\nsunny = true", "unknown key(s) in the file (sections): weather"),
    ("[surveillance]\nthreshhold = 0.1", "unknown key(s) in [surveillance]: threshhold"),
    ("[surveillance]\nthreshold = \"low\"", "surveillance.threshold must be a number"),
])
def test_a_bad_config_names_the_file_and_the_key(tmp_path: Path, extra: str,
                                                 problem: str | None) -> None:
    path = write_config(tmp_path, extra)
    with pytest.raises(ConfigError) as error:
        load_table_config(path)
    assert str(path) in str(error.value)
    if problem:
        assert problem in str(error.value)


@pytest.mark.parametrize("section, line, problem", [
    ("house", "decks = 99", "decks must be a whole number from 1 to 16"),
    ("house", "shuffle = true", "unknown setting(s) shuffle"),
    ("web", "port = 70000", "web.port must be a whole number from 0 to 65535"),
    ("camera", "enabled = true", "camera.source must be a device index"),
    ("table", "id = \"no spaces\"", "table.id"),
    ("shoe", "emulator_mistakes = [\"juggling\"]", "shoe.emulator_mistakes"),
])
def test_a_bad_setting_is_refused(tmp_path: Path, section: str, line: str, problem: str) -> None:
    path = write_config(tmp_path)
    text = path.read_text(encoding="utf-8")
    key = line.split(" = ")[0]
    lines = [ln for ln in text.splitlines() if not ln.startswith(f"{key} =")]
    at = lines.index(f"[{section}]")
    path.write_text("\n".join(lines[:at + 1] + [line] + lines[at + 1:]), encoding="utf-8")
    with pytest.raises(ConfigError, match="table.toml: .*" + problem.replace("(", r"\(")
                       .replace(")", r"\)").replace("[", r"\[").replace("]", r"\]")):
        load_table_config(path)


def start(config: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-m", "dealer_assist.cli", "run", "--config",
                             str(config), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)


@pytest.mark.slow
def test_run_prints_the_address_serves_a_live_table_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    service = start(write_config(tmp_path), "--host", "127.0.0.1")
    try:
        assert service.stdout is not None
        line = service.stdout.readline()
        died = service.poll() is not None and service.stderr is not None
        assert line.startswith("table display:"), line + (service.stderr.read() if died
                                                          and service.stderr else "")
        url = line.split()[-1]
        assert url.startswith("http://127.0.0.1:") and url.endswith("/")
        assert httpx2.get(url, timeout=5).status_code == 200
        deadline = time.monotonic() + 20
        while True:  # the built-in shoe deals (speed 20): the burn, then games
            view = httpx2.get(url + "api/table", timeout=5).json()
            if view["shoe"] and view["links"]["shoe"]["status"] == "up" and view["seq"] > 5:
                break
            assert time.monotonic() < deadline, view
            time.sleep(0.2)
        assert view["shoe"]["id"].startswith("T5-")
        assert httpx2.get(url + "supervisor", timeout=5).status_code == 303
        regulator = httpx2.get(url + "regulator", timeout=5)  # wired in, and behind a login
        assert regulator.status_code == 303 and "login" in regulator.headers["location"]
        with httpx2.stream("GET", url + "events", timeout=5) as stream:  # a display stays open
            service.send_signal(signal.SIGINT)
            assert service.wait(15) == 0
            assert sum(1 for _ in stream.iter_lines()) >= 1
    finally:
        if service.poll() is None:
            service.kill()
            service.wait()
    err = service.stderr.read() if service.stderr is not None else ""
    assert "pay tables checked" in err and "no supervisor yet" in err
    assert "stopped; the event log holds" in err and "Traceback" not in err
    assert (tmp_path / "var" / "T5.events.db").is_file()


@pytest.mark.slow
def test_run_refuses_a_pay_table_the_house_loses_on(tmp_path: Path) -> None:
    losing = PAYTABLES.replace('banker = "0.95:1"', 'banker = "1:1"')
    config = write_config(tmp_path, paytables=losing)
    refused = start(config)
    _, err = refused.communicate(timeout=60)
    assert refused.returncode == 2
    assert "standard banker pays 1:1" in err and "negative" in err
    assert "--allow-negative-edge" in err
    allowed = start(config, "--allow-negative-edge")
    try:
        assert allowed.stdout is not None
        assert allowed.stdout.readline().startswith("table display:")
    finally:
        allowed.send_signal(signal.SIGINT)
        allowed.wait(15)


@pytest.mark.parametrize("database, why", [("afile/T5.db", "a file is in the way"),
                                           ("/proc/no-such/T5.db", "No such file or directory")])
def test_a_log_folder_that_cannot_be_made_stops_the_start_with_a_message(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], database: str, why: str) -> None:
    from dealer_assist.cli import main

    (tmp_path / "afile").write_text("not a folder", encoding="utf-8")
    path = tmp_path / "table.toml"
    path.write_text(f'[table]\nid = "T5"\ndatabase = "{database}"\nusers = "var/users.db"\n'
                    '[shoe]\nurl = "emulator"\n[web]\nport = 0\n', encoding="utf-8")
    assert main(["run", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert "cannot make the folder" in err and why in err and "Traceback" not in err
