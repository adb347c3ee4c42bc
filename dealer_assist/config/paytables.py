"""The pay tables of every variant: the shipped ones, or a table's own file.

The shipped tables (`paytables.toml`, the spec's) are package data beside this module, read with
`importlib.resources`, so an installed wheel finds them from any working directory.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable

from dealer_assist.config.files import ConfigError, read_toml
from dealer_assist.domain.paytable import PayTable, PayTableError, paytables_from_mapping

DEFAULT_PAYTABLES: Traversable = resources.files(__package__).joinpath("paytables.toml")


def load_paytables(path: Traversable | None = None) -> dict[str, PayTable]:
    """The pay tables of every variant, validated; `path` defaults to the shipped tables."""
    path = path or DEFAULT_PAYTABLES
    try:
        return paytables_from_mapping(read_toml(path))
    except PayTableError as e:
        raise ConfigError(f"{path}: {e}") from None
