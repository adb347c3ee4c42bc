"""The camera's layout calibration: named polygons in frame pixels, and which holds a point.

Read from TOML (`config/camera_zones.toml`): a `[camera]` table with the frame `width` and
`height`, and a `[zones]` table mapping each zone name (one of `ZONE_NAMES`) to a list of
`[x, y]` points.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from hardware.cards import ZONE_NAMES


class ZoneError(ValueError):
    """The calibration file is wrong; the message names the file and the key."""


@dataclass(frozen=True)
class Zones:
    size: tuple[int, int]  # frame width, height the polygons were drawn for
    polygons: dict[str, np.ndarray]  # name -> (n, 2) float32

    def __post_init__(self) -> None:
        fixed = {str(n): np.asarray(p, dtype=np.float32).reshape(-1, 2)
                 for n, p in self.polygons.items()}
        object.__setattr__(self, "polygons", fixed)

    def zone_of(self, point: tuple[float, float]) -> str | None:
        """The zone whose polygon holds `point` (the nearest one if several do), or None."""
        best, best_depth = None, -1.0
        for name, poly in self.polygons.items():
            depth = cv2.pointPolygonTest(poly, (float(point[0]), float(point[1])), True)
            if depth >= 0 and depth > best_depth:
                best, best_depth = name, depth
        return best

    def scaled_to(self, width: int, height: int) -> Zones:
        """The same zones for frames of another size (a camera set to a lower resolution)."""
        if (width, height) == self.size:
            return self
        factor = np.array([width / self.size[0], height / self.size[1]], np.float32)
        return Zones((width, height), {n: p * factor for n, p in self.polygons.items()})

    @classmethod
    def from_dict(cls, data: dict[str, object], where: str = "zones") -> Zones:
        unknown = set(data) - {"camera", "zones"}
        if unknown:
            raise ZoneError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        camera = data.get("camera", {"width": 1920, "height": 1080})
        if not isinstance(camera, dict) or set(camera) - {"width", "height"}:
            raise ZoneError(f"{where}: [camera] takes only width and height")
        try:
            size = (int(camera.get("width", 1920)), int(camera.get("height", 1080)))
        except (TypeError, ValueError):
            raise ZoneError(f"{where}: [camera] width and height must be whole numbers") from None
        zones = data.get("zones")
        if not isinstance(zones, dict) or not zones:
            raise ZoneError(f"{where}: no [zones] table")
        polygons = {}
        for name, points in zones.items():
            if name not in ZONE_NAMES:
                raise ZoneError(f"{where}: unknown zone {name!r}; the table's zones are "
                                f"{', '.join(ZONE_NAMES)}")
            try:
                poly = np.array(points, dtype=np.float32)
            except (TypeError, ValueError):
                raise ZoneError(f"{where}: zones.{name} is not a list of [x, y] points") from None
            if poly.ndim != 2 or poly.shape[1] != 2 or len(poly) < 3:
                raise ZoneError(f"{where}: zones.{name} needs 3 or more [x, y] points")
            if cv2.contourArea(poly) < 1.0:
                raise ZoneError(f"{where}: zones.{name} encloses no area")
            polygons[str(name)] = poly
        return cls(size, polygons)


def load_zones(path: Path) -> Zones:
    """Read a calibration file; ZoneError says what is wrong and where."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as err:
        raise ZoneError(f"{path}: cannot read ({err.strerror})") from None
    except tomllib.TOMLDecodeError as err:
        raise ZoneError(f"{path}: not valid TOML ({err})") from None
    return Zones.from_dict(data, str(path))


def zones_to_toml(zones: Zones) -> str:
    """The calibration as TOML text (what `load_zones` reads back)."""
    lines = ["[camera]", f"width = {zones.size[0]}", f"height = {zones.size[1]}", "", "[zones]"]
    for name, poly in zones.polygons.items():
        points = ", ".join(f"[{round(float(x))}, {round(float(y))}]" for x, y in poly)
        lines.append(f"{name} = [{points}]")
    return "\n".join(lines) + "\n"
