"""A regulator's export download: written for the request into a fresh folder, streamed back,
and the folder removed once sent.

`zip_download` runs `write(folder)` (which writes the signed zip and returns its path) in a new
folder under `scratch` (default: the system's temporary folder). A refusal the page expects (no
events in the range, a log that does not chain, no key to sign with, a bad range) is answered
by `refuse(status, text)` after the folder is removed; anything else is raised, the folder
removed all the same. The refusals are tried in order, so a narrower exception comes before the
broader one it derives from (`NothingToExport` before `ValueError`).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from fastapi.responses import FileResponse, Response
from starlette.background import BackgroundTask


@dataclass(frozen=True)
class Refusal:
    """An exception a download answers with a page: its `status` and `words`, where `{}` is
    the exception's message."""

    kinds: type[Exception] | tuple[type[Exception], ...]
    status: int
    words: str = "{}"


def zip_download(write: Callable[[Path], Path], refusals: Sequence[Refusal],
                 refuse: Callable[[int, str], Response], *, prefix: str,
                 scratch: Path | None = None) -> Response:
    """The zip `write` makes, as a download; or the page of the first refusal that matches."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=scratch))
    try:
        out = write(folder)
    except Exception as exc:
        shutil.rmtree(folder, ignore_errors=True)
        for refusal in refusals:
            if isinstance(exc, refusal.kinds):
                return refuse(refusal.status, refusal.words.format(exc))
        raise
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return FileResponse(out, media_type="application/zip", filename=out.name,
                        background=BackgroundTask(shutil.rmtree, folder, True))
