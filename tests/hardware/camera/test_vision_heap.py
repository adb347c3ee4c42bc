"""The recognizer keeps the memory a frame frees for the next frame (`heap`)."""

from __future__ import annotations

import platform
import subprocess
import sys
from typing import cast

import pytest

from hardware.camera import heap
from hardware.camera.deck import DeckModel
from hardware.camera.recognize import Recognizer

# a frame's worth of large temporaries, allocated and freed twenty times; the page faults
# it takes, with the thresholds raised first or not
_WORK = """
import resource, sys
import numpy as np
if sys.argv[1] == "kept":
    from hardware.camera.heap import keep_freed_memory
    assert keep_freed_memory()
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
start = faults()
for _ in range(20):
    half = np.ones((540, 960, 3), np.float32)
    frame = np.ones((1080, 1920, 3), np.uint8)
    again = half * 2
    del half, frame, again
print(faults() - start)
"""


def _faults(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", _WORK, mode], capture_output=True, text=True,
                          check=True, timeout=120)
    return int(done.stdout)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the thresholds are glibc's")
def test_freed_frames_are_kept_for_the_next_frame() -> None:
    """With the thresholds raised, freed frame-sized blocks are used again instead of
    faulting fresh pages in (here about 30,000 faults fall to about 1,500)."""
    plain, kept = _faults("plain"), _faults("kept")
    assert plain > 10_000
    assert kept < plain / 5


def test_a_recognizer_raises_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whoever makes a recognizer (the service, the commands, the benchmarks) gets them."""
    monkeypatch.setattr(heap, "_kept", None)
    Recognizer(cast(DeckModel, None))  # the deck is not looked at until a frame comes
    assert heap._kept == (platform.libc_ver()[0] == "glibc")
