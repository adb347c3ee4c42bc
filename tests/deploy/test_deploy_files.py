"""The deploy/ files, read by the tools that run them: systemd, udev, nginx (deploy/check.sh),
and the TLS proxy for real in front of a running table service."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from dealer_assist.config import DEFAULT_PAYTABLES, load_table_config
from tests.web.test_run import REPO, write_config

DEPLOY = REPO / "deploy"
EXAMPLE = REPO / "config" / "table.example-udev.toml"


def check(name: str) -> str:
    """Run one check of deploy/check.sh; skip, saying why, when its tool is missing."""
    done = subprocess.run(["bash", str(DEPLOY / "check.sh"), name], capture_output=True,
                          text=True, timeout=120)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    skipped = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    if skipped:
        pytest.skip("; ".join(skipped))
    return out


@pytest.mark.parametrize("name", ["units", "users", "nginx", "udev"])
def test_the_tools_accept_the_deploy_files(name: str) -> None:
    assert f"OK {name}" in check(name)


def test_the_services_exposure_is_at_most_2() -> None:
    scores = dict(re.findall(r"exposure (\S+): ([0-9.]+)", check("security")))
    assert float(scores["dealer-assist@T1.service"]) <= 2.0
    assert float(scores["dealer-assist-backup@T1.service"]) <= 2.0


def unit(name: str) -> dict[str, list[str]]:
    """A unit file's settings, each key with all its values in order."""
    found: dict[str, list[str]] = {}
    for line in (DEPLOY / "systemd" / name).read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            found.setdefault(key, []).append(value)
    return found


def test_the_table_service_is_notify_with_a_watchdog_and_runs_the_tables_config() -> None:
    service = unit("dealer-assist@.service")
    assert service["Type"] == ["notify"] and service["Restart"] == ["on-failure"]
    assert service["WatchdogSec"] and service["DevicePolicy"] == ["closed"]
    assert service["ExecStart"][0].endswith("dealer-assist run --config /etc/dealer-assist/%i.toml")
    assert unit("dealer-assist-kiosk@.service")["Restart"] == ["always"]
    backup = unit("dealer-assist-backup@.service")["ExecStart"][0]
    assert "backup /var/lib/dealer-assist/%i.events.db --to " in backup


def test_the_example_config_names_the_shoe_as_the_udev_rule_does_and_sits_behind_tls() -> None:
    config = load_table_config(EXAMPLE)
    rule = (DEPLOY / "udev" / "99-card-shoe.rules").read_text(encoding="utf-8")
    (link,) = re.findall(r'SYMLINK\+="([^"$]+)\$attr\{serial\}"', rule)
    assert config.shoe.url.startswith(f"/dev/{link}") and not config.shoe.emulated
    group = re.findall(r'GROUP="([^"]+)"', rule)
    assert group == unit("dealer-assist@.service")["Group"]
    assert config.database == Path("/var/lib/dealer-assist/T1.events.db")
    assert config.web.secure_cookies and config.web.host == "127.0.0.1"
    assert config.paytables == DEFAULT_PAYTABLES


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def table_service(tmp_path: Path) -> Iterator[str]:
    """`dealer-assist run` on the built-in shoe; yields its address."""
    service = subprocess.Popen([sys.executable, "-m", "dealer_assist.cli", "run", "--config",
                                str(write_config(tmp_path))], cwd=REPO, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert service.stdout is not None
    line = service.stdout.readline()
    try:
        assert line.startswith("table display:"), service.stderr and service.stderr.read()
        yield line.split()[-1]
    finally:
        service.send_signal(signal.SIGTERM)
        service.wait(15)


def test_the_proxy_serves_https_with_hsts_and_streams_events_unbuffered(
        tmp_path: Path, table_service: str) -> None:
    if not shutil.which("nginx") or not shutil.which("openssl"):
        pytest.skip("no nginx or openssl: apt-get install nginx-light openssl")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=table.test", "-keyout", str(tmp_path / "table.key"),
                    "-out", str(tmp_path / "table.crt")], check=True, capture_output=True)
    http, https = free_port(), free_port()
    conf = (DEPLOY / "nginx" / "dealer-assist.conf").read_text(encoding="utf-8")
    conf = (conf.replace("/etc/dealer-assist/tls/", f"{tmp_path}/")
            .replace("127.0.0.1:8000", table_service.split("/")[2])
            .replace("listen 443", f"listen {https}").replace("listen [::]:443", "#")
            .replace("listen 80", f"listen {http}").replace("listen [::]:80", "#"))
    (tmp_path / "site.conf").write_text(conf, encoding="utf-8")
    (tmp_path / "nginx.conf").write_text(
        f"error_log stderr;\npid {tmp_path}/nginx.pid;\nevents {{}}\n"
        f"http {{\naccess_log off;\ninclude {tmp_path}/site.conf;\n}}\n", encoding="utf-8")
    proxy = subprocess.Popen(["nginx", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"),
                              "-g", "daemon off;"], stderr=subprocess.PIPE, text=True)
    try:
        url = f"https://127.0.0.1:{https}/"
        with httpx2.Client(verify=False, timeout=5) as client:
            deadline = time.monotonic() + 10
            while True:  # until nginx listens
                try:
                    page = client.get(url)
                    break
                except httpx2.ConnectError:
                    assert proxy.poll() is None, proxy.stderr and proxy.stderr.read()
                    assert time.monotonic() < deadline, "nginx does not listen"
                    time.sleep(0.1)
            assert page.status_code == 200
            assert page.headers["strict-transport-security"] == "max-age=63072000"
            plain = client.get(f"http://127.0.0.1:{http}/supervisor")
            assert plain.status_code == 301 and plain.headers["location"].startswith("https://")
            with client.stream("GET", url + "events") as stream:  # the first event, not a buffer
                lines = stream.iter_lines()
                assert next(lines).startswith(("event: table", "id:", "retry:"))
    finally:
        proxy.terminate()
        proxy.wait(10)
