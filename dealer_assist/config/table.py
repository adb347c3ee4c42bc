"""One table's configuration (`config/table.toml`), typed and checked at start-up.

Every section and key is known: an unknown one stops the service with an error naming the file
and the key, and so does a value of the wrong kind. Relative paths are taken from the folder
the configuration file is in, so the service finds its files from any working directory.
Secrets never live here: the service needs none (passwords are argon2 hashes in the users file).

    [table]    id, database, users, paytables, time_zone, gaming_day_starts
    [shoe]     url ("emulator" or a port URL), adapter, baudrate, heartbeat_timeout,
               emulator_speed, emulator_seed, emulator_mistakes
    [camera]   enabled, source ("virtual" with the emulator), zones, confirm_frames, lose_frames,
               fps (the virtual camera's), evidence, evidence_days, evidence_max_mb (the
               frames kept for every camera event); deck (no longer used: accepted, ignored)
    [house]    the house procedure settings (HouseRules): decks, variant, burn_after_each_game...
    [web]      host, port, secure_cookies, session_minutes
    [surveillance]  side_bets, threshold, rearm
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from dealer_assist.config.display import DisplayConfig, display_config
from dealer_assist.config.files import ConfigError, check_keys, house_rules, read_toml
from dealer_assist.config.gaming_day import GamingDay, UnknownZone, site_zone
from dealer_assist.config.paytables import DEFAULT_PAYTABLES
from dealer_assist.domain.house import HouseRules

EMULATOR = "emulator"
TABLE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")
MISTAKE_KINDS = ("unneeded_draw", "missed_draw", "cards_pulled_together",
                 "wrong_box", "exposed_card")
#: `camera.source` for the built-in shoe's virtual overhead camera (devices/virtual_camera.py).
VIRTUAL = "virtual"


@dataclass(frozen=True)
class ShoeConfig:
    #: "emulator" (the built-in shoe on a pseudo-terminal) or the shoe's port URL.
    url: str = EMULATOR
    adapter: str = "reference"
    baudrate: int = 115_200
    heartbeat_timeout: float = 3.0
    #: Pace of the built-in shoe: 1.0 a realistic deal; None as fast as the link takes it.
    emulator_speed: float | None = 1.0
    emulator_seed: int | None = None
    #: Dealer mistakes the built-in shoe makes, one of each kind per shoe at a random game
    #: (`wrong_box` and `exposed_card` raise their flags through the virtual camera).
    emulator_mistakes: tuple[str, ...] = ()

    @property
    def emulated(self) -> bool:
        return self.url == EMULATOR


@dataclass(frozen=True)
class CameraConfig:
    enabled: bool = False
    #: A device index ("0"), a stream URL (rtsp://, http://), a video file or a folder of frames;
    #: "virtual": the built-in shoe's overhead camera, drawing the cards it deals.
    source: str = ""
    #: No longer used: the learned recognizer reads any standard deck with no enrolment. Old
    #: files that name a deck still load; the file is neither checked nor read.
    deck: Path | None = None
    #: The layout calibration (`dealer-assist vision calibrate`).
    zones: Path | None = None
    #: Frames a sighting must persist before it counts, and a card must be gone before it is lost.
    confirm_frames: int = 3
    lose_frames: int = 5
    #: Frames a second the virtual camera draws (and the recognizer reads).
    fps: float = 4.0
    #: Keep the frames that show each camera event beside the log (docs/vision.md, "Evidence
    #: frames"): for `evidence_days` days, in at most `evidence_max_mb` MB (frames of no flag
    #: are removed first).
    evidence: bool = True
    evidence_days: int = 90
    evidence_max_mb: int = 2048

    @property
    def virtual(self) -> bool:
        return self.enabled and self.source == VIRTUAL


@dataclass(frozen=True)
class WebConfig:
    host: str = "127.0.0.1"
    port: int = 8000
    #: Mark the session cookie Secure (set true behind HTTPS).
    secure_cookies: bool = False
    session_minutes: int = 480


@dataclass(frozen=True)
class SurveillanceConfig:
    side_bets: bool = True
    #: Alert when a side bet's house edge on the remaining shoe falls below this.
    threshold: float = 0.0
    rearm: float = 0.0


@dataclass(frozen=True)
class TableConfig:
    path: Path
    table_id: str
    database: Path
    users: Path
    #: The house's own pay tables, or the shipped ones where the file names none.
    paytables: Traversable
    shoe: ShoeConfig = field(default_factory=ShoeConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    house: HouseRules = field(default_factory=HouseRules)
    web: WebConfig = field(default_factory=WebConfig)
    surveillance: SurveillanceConfig = field(default_factory=SurveillanceConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    #: The site's time zone and the local hour its gaming day starts (the regulator's day).
    gaming_day: GamingDay = field(default_factory=GamingDay)


SECTIONS = {"table", "shoe", "camera", "house", "web", "surveillance", "display"}
_TABLE_KEYS = {"id", "database", "users", "paytables", "time_zone", "gaming_day_starts"}


class _Reader:
    """Typed values of one section, each error naming the file and `section.key`."""

    def __init__(self, raw: dict[str, Any], path: Path, section: str, known: set[str]) -> None:
        if not isinstance(raw, dict):
            raise ConfigError(f"{path}: [{section}] must be a table of settings")
        check_keys(raw, known, path, f"[{section}]")
        self.raw, self.path, self.section = raw, path, section

    def _bad(self, key: str, want: str, value: object) -> ConfigError:
        return ConfigError(f"{self.path}: {self.section}.{key} must be {want}, got {value!r}")

    def text(self, key: str, default: str) -> str:
        v = self.raw.get(key, default)
        if not isinstance(v, str):
            raise self._bad(key, "a string", v)
        return v

    def whole(self, key: str, default: int, low: int, high: int) -> int:
        v = self.raw.get(key, default)
        if not isinstance(v, int) or isinstance(v, bool) or not low <= v <= high:
            raise self._bad(key, f"a whole number from {low} to {high}", v)
        return v

    def number(self, key: str, default: float, low: float, high: float) -> float:
        v = self.raw.get(key, default)
        if not isinstance(v, int | float) or isinstance(v, bool) or not low <= v <= high:
            raise self._bad(key, f"a number from {low:g} to {high:g}", v)
        return float(v)

    def flag(self, key: str, default: bool) -> bool:
        v = self.raw.get(key, default)
        if not isinstance(v, bool):
            raise self._bad(key, "true or false", v)
        return v

    def file(self, key: str, default: str) -> Path:
        text = self.text(key, default)
        if not text.strip():
            raise self._bad(key, "a file path", text)
        p = Path(text).expanduser()
        return p if p.is_absolute() else (self.path.parent / p).resolve()


def _shoe(r: _Reader) -> ShoeConfig:
    url = r.text("url", EMULATOR).strip()
    if not url:
        raise r._bad("url", f'"{EMULATOR}" or the shoe\'s port URL', url)
    speed: float | None = r.number("emulator_speed", 1.0, 0, 1000)
    seed = r.raw.get("emulator_seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise r._bad("emulator_seed", "a whole number", seed)
    mistakes = r.raw.get("emulator_mistakes", [])
    if not isinstance(mistakes, list) or any(m not in MISTAKE_KINDS for m in mistakes):
        raise r._bad("emulator_mistakes", f"a list of {', '.join(MISTAKE_KINDS)}", mistakes)
    return ShoeConfig(
        url=url,
        adapter=r.text("adapter", "reference"),
        baudrate=r.whole("baudrate", 115_200, 300, 4_000_000),
        heartbeat_timeout=r.number("heartbeat_timeout", 3.0, 0.5, 60),
        emulator_speed=speed or None,  # 0: as fast as the link takes it
        emulator_seed=seed,
        emulator_mistakes=tuple(mistakes),
    )


def _camera(r: _Reader, shoe: ShoeConfig) -> CameraConfig:
    enabled = r.flag("enabled", False)
    confirm, lose = r.whole("confirm_frames", 3, 1, 100), r.whole("lose_frames", 5, 1, 1000)
    fps = r.number("fps", 4.0, 0.5, 30)
    zones = r.file("zones", "camera_zones.toml")
    # `deck` is from before the learned recognizer: still accepted, never needed, not read.
    deck = r.file("deck", "") if "deck" in r.raw else None
    kept = (r.flag("evidence", True), r.whole("evidence_days", 90, 1, 36_500),
            r.whole("evidence_max_mb", 2048, 1, 100_000_000))
    if not enabled:
        return CameraConfig(False, r.text("source", ""), deck, zones, confirm, lose, fps, *kept)
    source = r.text("source", "").strip()
    if not source:
        raise r._bad("source", f'a device index, a stream URL, a video file, a folder or '
                               f'"{VIRTUAL}"', source)
    if source == VIRTUAL and not shoe.emulated:
        raise ConfigError(f'{r.path}: camera.source = "{VIRTUAL}" draws what the built-in shoe '
                          f'deals: it needs shoe.url = "{EMULATOR}" (a real shoe needs a real '
                          f"camera)")
    if not zones.is_file():
        raise ConfigError(f"{r.path}: camera.zones: no such file {zones}")
    return CameraConfig(True, source, deck, zones, confirm, lose, fps, *kept)


def _gaming_day(r: _Reader) -> GamingDay:
    name = r.text("time_zone", "UTC")
    try:
        zone = site_zone(name)
    except UnknownZone as exc:
        raise ConfigError(f"{r.path}: {r.section}.time_zone: {exc}") from None
    return GamingDay(zone, r.whole("gaming_day_starts", 0, 0, 23))


def load_table_config(path: str | Path) -> TableConfig:
    """Read and check a table's configuration file; ConfigError says what and where."""
    path = Path(path)
    raw = read_toml(path)
    check_keys(raw, SECTIONS, path, "the file (sections)")
    sections = {name: raw.get(name, {}) for name in SECTIONS}
    table = _Reader(sections["table"], path, "table", _TABLE_KEYS)
    table_id = table.text("id", "T1")
    if not TABLE_ID.fullmatch(table_id):
        raise table._bad("id", "letters, digits, '.', '_' or '-' (at most 32)", table_id)
    shoe = _shoe(_Reader(sections["shoe"], path, "shoe", set(ShoeConfig.__dataclass_fields__)))
    camera = _camera(_Reader(sections["camera"], path, "camera",
                             set(CameraConfig.__dataclass_fields__)), shoe)
    if not isinstance(sections["house"], dict):
        raise ConfigError(f"{path}: [house] must be a table of settings")
    house = house_rules(sections["house"], path)
    w = _Reader(sections["web"], path, "web", set(WebConfig.__dataclass_fields__))
    web = WebConfig(w.text("host", "127.0.0.1"), w.whole("port", 8000, 0, 65535),
                    w.flag("secure_cookies", False),
                    w.whole("session_minutes", 480, 1, 7 * 24 * 60))
    s = _Reader(sections["surveillance"], path, "surveillance",
                set(SurveillanceConfig.__dataclass_fields__))
    surveillance = SurveillanceConfig(s.flag("side_bets", True), s.number("threshold", 0.0, -1, 1),
                                      s.number("rearm", 0.0, 0, 1))
    return TableConfig(
        path=path, table_id=table_id,
        database=table.file("database", f"../var/{table_id}.events.db"),
        users=table.file("users", "../var/users.db"),
        paytables=table.file("paytables", "") if "paytables" in table.raw else DEFAULT_PAYTABLES,
        shoe=shoe, camera=camera, house=house, web=web, surveillance=surveillance,
        gaming_day=_gaming_day(table), display=display_config(sections["display"], path),
    )
