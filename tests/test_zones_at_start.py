"""A camera zones file that names a zone the table does not know stops everything at start.

The same clear message (the file, the zone, the known zones) from the calibration reader, from
the table service's start-up and from the `vision` commands; never a traceback.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from dealer_assist.bootstrap import StartError, open_table
from dealer_assist.cli import main
from dealer_assist.config import load_table_config
from hardware.camera.zones import ZoneError, load_zones
from tests.tableconfig import camera_table

REPO = Path(__file__).resolve().parents[1]
KNOWN = "player1, player2, player3, banker1, banker2, banker3, discard"


@pytest.fixture
def misspelt(tmp_path: Path) -> Path:
    """The shipped calibration with `banker2` written `bankr2`."""
    text = (REPO / "config" / "camera_zones.toml").read_text(encoding="utf-8")
    assert "\nbanker2 = " in text
    path = tmp_path / "zones.toml"
    path.write_text(text.replace("\nbanker2 = ", "\nbankr2 = "), encoding="utf-8")
    return path


def says_it(message: str, path: Path) -> None:
    assert f"{path}: unknown zone 'bankr2'; the table's zones are {KNOWN}" in message


def test_the_calibration_reader_names_file_zone_and_known_zones(misspelt: Path) -> None:
    with pytest.raises(ZoneError) as err:
        load_zones(misspelt)
    says_it(str(err.value), misspelt)


def table_file(tmp_path: Path, zones: Path) -> Path:
    """A camera-enabled table whose zones file is `zones` (and an old `deck` key, which is
    still accepted and never read)."""
    return camera_table(tmp_path, tmp_path / "frames", tmp_path / "old.deck", zones)


@pytest.mark.parametrize("start_shoe", [True, False], ids=["shoe dealing", "shoe not started"])
def test_the_table_refuses_to_start(tmp_path: Path, misspelt: Path, start_shoe: bool) -> None:
    config = load_table_config(table_file(tmp_path, misspelt))
    with pytest.raises(StartError) as err:
        open_table(config, start_shoe=start_shoe)
    assert str(err.value).startswith("camera: ")
    says_it(str(err.value), misspelt)


def test_the_service_stops_at_start_with_the_message(tmp_path: Path, misspelt: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = table_file(tmp_path, misspelt)
    assert main(["run", "--config", str(path), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "dealer-assist run: camera: " in err and "Traceback" not in err
    says_it(err, misspelt)


@pytest.mark.parametrize("action", ["watch", "calibrate"])
def test_the_vision_commands_say_it_and_exit_2(tmp_path: Path, misspelt: Path, action: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    still = tmp_path / "still.png"
    cv2.imwrite(str(still), np.full((108, 192, 3), 40, np.uint8))
    assert main(["vision", action, str(still), "--zones", str(misspelt)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dealer-assist vision: ") and "Traceback" not in err
    says_it(err, misspelt)
