"""Zone mapping: the shipped calibration, and clear errors for a bad one."""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware.camera.zones import ZoneError, Zones, load_zones, zones_to_toml
from hardware.cards import ZONE_NAMES
from training.frames.layout import zone_rects

REPO = Path(__file__).resolve().parents[3]


def test_shipped_calibration_names_every_zone_of_the_trace_spec() -> None:
    zones = load_zones(REPO / "config" / "camera_zones.toml")
    assert set(zones.polygons) == set(ZONE_NAMES)
    assert zones.size == (1920, 1080)


def test_each_zone_holds_its_own_middle_and_nothing_holds_the_rim() -> None:
    zones = load_zones(REPO / "config" / "camera_zones.toml")
    for name, poly in zones.polygons.items():
        middle = (float(poly[:, 0].mean()), float(poly[:, 1].mean()))
        assert zones.zone_of(middle) == name
    assert zones.zone_of((10.0, 10.0)) is None


def test_calibration_matches_the_generated_layout() -> None:
    zones = load_zones(REPO / "config" / "camera_zones.toml")
    assert tuple(zone_rects(180)) == ZONE_NAMES
    for name, poly in zone_rects(180).items():
        middle = (float(poly[:, 0].mean()), float(poly[:, 1].mean()))
        assert zones.zone_of(middle) == name


def test_round_trip_and_scaling(tmp_path: Path) -> None:
    zones = Zones.from_dict({"zones": {"player1": [[0, 0], [100, 0], [100, 50], [0, 50]]}})
    path = tmp_path / "z.toml"
    path.write_text(zones_to_toml(zones))
    again = load_zones(path)
    assert again.zone_of((50, 25)) == "player1"
    half = again.scaled_to(960, 540)
    assert half.zone_of((40, 20)) == "player1" and half.zone_of((60, 20)) is None


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[zones]\nplayer1 = [[0, 0], [1, 1]]\n", "zones.player1 needs 3 or more"),
        ("[zones]\nplayer1 = [[0, 0], [1, 1], [2, 2]]\n", "zones.player1 encloses no area"),
        ("[zones]\nplayer1 = 'left'\n", "zones.player1"),
        ("[cameras]\nwidth = 3\n[zones]\n", "unknown key(s) cameras"),
        ("[camera]\nwidth = 1920\n", "no [zones] table"),
        ("[zones\n", "not valid TOML"),
        ("[zones]\nplayer4 = [[0, 0], [9, 0], [9, 9]]\n",
         "unknown zone 'player4'; the table's zones are player1, player2, player3, banker1, "),
    ],
)
def test_bad_calibration_says_what_and_where(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ZoneError) as err:
        load_zones(path)
    assert says in str(err.value) and str(path) in str(err.value)
