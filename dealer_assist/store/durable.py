"""The log's files on disk: a rename made durable, and whether the log can still be written."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

#: Below this much free space the log counts as full (a checkpoint or a snapshot needs room).
MIN_FREE_BYTES = 1 << 20


def sync_folder(folder: Path) -> None:
    """fsync `folder`, so a file renamed into it keeps its new name after a power cut."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def log_problem(database: Path) -> str | None:
    """Why the event log at `database` cannot take more events, or None when it can."""
    if not os.access(database, os.W_OK):
        return f"the event log {database} cannot be written"
    try:
        free = shutil.disk_usage(database.parent).free
    except OSError as e:
        return f"the event log's folder {database.parent}: {e.strerror}"
    if free < MIN_FREE_BYTES:
        return f"no room left for the event log on the disk of {database.parent}"
    return None
