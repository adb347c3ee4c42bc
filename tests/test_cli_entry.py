"""The `dealer-assist` entry point's process settings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# the command's module loaded first, as the console script does; then numpy, as a command does
_SHOW = ("import dealer_assist.cli, numpy, os; "
         "print(os.environ['OPENBLAS_NUM_THREADS'], len(os.listdir('/proc/self/task')))")


def _run(env: dict[str, str]) -> list[str]:
    done = subprocess.run([sys.executable, "-c", _SHOW], env=env, capture_output=True, text=True,
                          check=True, timeout=60)
    return done.stdout.split()


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux's /proc to count threads")
def test_blas_is_held_to_one_thread_unless_the_operator_says_otherwise() -> None:
    """The recognizer is written for one core: the command keeps numpy's BLAS to one thread
    (set before numpy loads: the process runs no BLAS threads), and keeps a value the operator
    set."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    assert _run(env) == ["1", "1"]
    assert _run({**env, "OPENBLAS_NUM_THREADS": "4"})[0] == "4"
