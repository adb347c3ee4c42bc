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
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        where = item.path.relative_to(TESTS).as_posix()
        if where.startswith(SLOW_PATHS) or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.slow)
