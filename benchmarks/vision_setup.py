"""What the vision benchmarks set before they import numpy or OpenCV, written once.

`python benchmarks/vision.py` (and `vision_choice.py`, `vision_feed.py`) put the checkout on
sys.path (its `hardware` and `training`) and then call `one_core()`: OpenMP and numpy's BLAS
on one thread, as the table runs the recognizer. A thread per core would wait on the other
core whenever it is busy (the feed's mean frame 20% slower).
"""

from __future__ import annotations

import os


def one_core() -> None:
    """OpenMP and numpy's BLAS on one thread each, unless the environment says otherwise."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
