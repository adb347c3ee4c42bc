"""The fast lane: which tests are `slow`, so that `make check-fast` (`pytest -m "not slow"`) runs the
rest in under a minute. `make test` runs them all.

Whole folders and files are slow by what they drive (listed here, relative to tests/); a slow test
elsewhere carries its own `@pytest.mark.slow`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

SLOW_PATHS = (
    "hardware/camera/",                # the card recognizer on rendered table pictures
    "hardware/shoe/test_shoe_link.py",  # the shoe link over pseudo-terminals
    "web/test_browser.py",             # Debian's chromium driven by Playwright
    "e2e/",                            # whole processes: emulator, link, service, browser
    "training/",                       # the camera's networks trained (tiny runs, PyTorch)
    "floor/",                          # a PostgreSQL cluster of their own, the floor service
    "shipping/",                       # a PostgreSQL cluster: the table ships to it
    "deploy/",                         # systemd-analyze, nginx, openssl, backups run for real
    "web/test_run.py",                 # `dealer-assist run` started as a process
    "test_log_command.py::test_follow",  # `dealer-assist log --follow` as a process, Ctrl-C
    "services/test_restart_snapshot.py",  # restarts replayed at every kind of moment
    "services/test_one_decision.py",   # supervisors racing on threads
    "services/test_audit_cli.py",      # `dealer-assist audit` as a process, on whole shoes
    "web/test_dealer_shifts.py",       # whole shoes dealt, exported and compared
    "store/test_snapshot_seal.py",     # every forgery tried against a replayed log
    "store/test_snapshot_files.py",    # snapshots written while events arrive
    "store/test_user_command.py",      # `dealer-assist user` as a process
    "analysis/test_odds_bruteforce.py",  # small shoes' odds against brute force
    "export/test_streaming.py",        # the fast paths checked line by line on generated input
    "devices/test_virtual_camera.py",  # frames drawn twice over
    "hardware/shoe/test_shoe_emulator.py",  # the emulator over pseudo-terminals and TCP
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        where = f"{item.path.relative_to(TESTS).as_posix()}::{item.name}"
        if where.startswith(SLOW_PATHS) or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.slow)
