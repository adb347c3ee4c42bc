"""Reading configuration files: TOML in, a `ConfigError` naming the file and the key out.

Unknown keys fail at start-up. Secrets never live here: they come from the environment.
"""

from __future__ import annotations

import tomllib
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from dealer_assist.domain.house import HouseRules, SettingsError


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message names the file and the problem."""


def read_toml(path: Traversable) -> dict[str, Any]:
    """The file's settings: a file on disk (a `Path`) or one shipped in the package."""
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such configuration file") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None


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
