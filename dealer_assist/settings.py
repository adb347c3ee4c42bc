"""Typed configuration from TOML. Unknown keys fail at start-up, naming the file and key.

Secrets never live here: they come from the environment (see each setting's doc).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from dealer_assist.domain.house import HouseRules, SettingsError
from dealer_assist.domain.paytable import PayTable, PayTableError, paytables_from_mapping

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CONFIG_DIR = PROJECT_ROOT / "config"
DEFAULT_PAYTABLES = CONFIG_DIR / "paytables.toml"


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message names the file and the problem."""


def read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such configuration file") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None


def load_paytables(path: Path | None = None) -> dict[str, PayTable]:
    """The pay tables of every variant, validated; `path` defaults to the shipped tables."""
    path = path or DEFAULT_PAYTABLES
    try:
        return paytables_from_mapping(read_toml(path))
    except PayTableError as e:
        raise ConfigError(f"{path}: {e}") from None


def house_rules(raw: dict[str, Any], path: Path) -> HouseRules:
    try:
        return HouseRules.from_mapping(raw, where="[house]")
    except (SettingsError, TypeError) as e:
        raise ConfigError(f"{path}: {e}") from None


def check_keys(raw: dict[str, Any], known: set[str], path: Path, section: str) -> None:
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ConfigError(
            f"{path}: unknown key(s) in {section}: {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )
