"""Fixtures for the camera tests: real card art from Debian's SVG decks, rendered once."""

from __future__ import annotations

import pytest

from hardware.camera.synth.decks import APT_PACKAGES, load_faces, missing_card_art

TEST_DESIGN = "tango"  # a held-out design: never used to tune the recognizer


@pytest.fixture(scope="session")
def faces() -> dict:
    why = missing_card_art((TEST_DESIGN,))
    if why:
        pytest.skip(f"SKIPPED LOUDLY: no card art ({why}); CI installs {' '.join(APT_PACKAGES)}")
    return load_faces(TEST_DESIGN)
