"""Keep the memory a frame frees for the next frame (glibc's allocator only).

A frame's work allocates and frees megabytes of temporaries: the half-size masks, the felt
fields, float copies of the frame's strips. glibc serves each block over 128 KiB by mapping
fresh pages and unmaps them when it is freed, and hands a heap whose free top grows past a
threshold back to the system too; its thresholds adapt, but the sizes here vary too much
for that to settle. The next frame then faults the same pages in again: on the tuning frames
about 1,400 page faults a frame, and 3 to 4 ms of a 50 ms frame. Raising the mapping
threshold to 32 MiB and the trimming threshold to 256 MiB keeps those blocks in the heap,
where the next frame finds them (about 50 faults a frame), at the cost of the process keeping
up to that much freed memory.
"""

from __future__ import annotations

import ctypes
import ctypes.util

_M_TRIM_THRESHOLD = -1  # glibc's mallopt parameters (malloc.h)
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20  # glibc's largest
TRIM_THRESHOLD = 256 << 20

_kept: bool | None = None


def keep_freed_memory() -> bool:
    """Raise glibc's thresholds once per process (see the module's docstring); whether they
    are raised (False where the C library is not glibc: nothing changes there)."""
    global _kept
    if _kept is None:
        try:
            mallopt = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").mallopt
        except (OSError, AttributeError):  # not glibc: no mallopt, or no such library
            _kept = False
        else:
            mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
            _kept = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                         and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return _kept
