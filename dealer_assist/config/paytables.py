"""The pay tables of every variant: the shipped ones, or a table's own file."""

from __future__ import annotations

from pathlib import Path

from dealer_assist.config.files import ConfigError, read_toml
from dealer_assist.domain.paytable import PayTable, PayTableError, paytables_from_mapping

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PAYTABLES = PROJECT_ROOT / "config" / "paytables.toml"


def load_paytables(path: Path | None = None) -> dict[str, PayTable]:
    """The pay tables of every variant, validated; `path` defaults to the shipped tables."""
    path = path or DEFAULT_PAYTABLES
    try:
        return paytables_from_mapping(read_toml(path))
    except PayTableError as e:
        raise ConfigError(f"{path}: {e}") from None
