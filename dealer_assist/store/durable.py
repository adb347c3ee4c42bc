"""Making a file's new name durable: after a rename, the folder itself is synced to disk."""

from __future__ import annotations

import os
from pathlib import Path


def sync_folder(folder: Path) -> None:
    """fsync `folder`, so a file renamed into it keeps its new name after a power cut."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
