"""Fixtures for the camera tests: real card art from Debian's SVG decks, rendered once."""

from __future__ import annotations

from tests.cardart import faces  # noqa: F401 - the fixture
