"""How an export's zip is put on disk: whole or not at all, its members stamped alike.

A table's export (`writer`) and the floor's (`floor/export.py`, which holds table exports)
write their zip under a partial name beside the file asked for, with a scratch folder beside it
for the files that are copied in at the end; only a zip written to its end is renamed into
place, and a failure leaves nothing behind. An export never overwrites a file.

Every member carries the export's creation time and mode 0644, so the same export written twice
at the same moment gives the same bytes.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def refuse_existing(out: Path) -> Path:
    """`out` as a Path; FileExistsError if there is a file there already."""
    out = Path(out)
    if out.exists():
        raise FileExistsError(f"{out} exists: refusing to overwrite an export")
    return out


@contextmanager
def written_whole(out: Path, prefix: str) -> Iterator[tuple[Path, Path]]:
    """(partial, scratch): write the zip to `partial`, passing files in the `scratch` folder
    (named with `prefix`, removed on leaving); `partial` becomes `out` once the block ends
    without an error, and is removed if it raises."""
    partial = out.with_name(f".{out.name}.partial")
    try:
        with tempfile.TemporaryDirectory(prefix=prefix, dir=out.parent) as scratch:
            yield partial, Path(scratch)
        os.replace(partial, out)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def member(name: str, date_time: tuple[int, ...], compress_type: int) -> zipfile.ZipInfo:
    """A zip member named `name`, stamped `date_time` (the export's creation, to the second),
    compressed with `compress_type`, readable by all (0644)."""
    info = zipfile.ZipInfo(name, date_time=date_time)  # type: ignore[arg-type]
    info.compress_type = compress_type
    info.external_attr = 0o644 << 16
    return info
