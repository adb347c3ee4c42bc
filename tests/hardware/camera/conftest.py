"""Fixtures for the camera tests: real card art from Debian's SVG decks, rendered once."""

from __future__ import annotations

import pytest

from tests.cardart import faces_or_skip

TEST_DESIGN = "tango"  # a held-out design: never used to tune the recognizer


@pytest.fixture(scope="session")
def faces() -> dict:
    return faces_or_skip(TEST_DESIGN)
