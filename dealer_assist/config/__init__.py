"""The configuration, in one package: TOML files in, typed settings out.

- `files`: reading a TOML file, `ConfigError` (naming the file and the key), unknown keys;
- `paytables`: the pay tables of every variant (the shipped ones or a table's own);
- `table`: one table's configuration (`config/table.toml`), checked at start-up.
"""

from dealer_assist.config.files import ConfigError, check_keys, house_rules, read_toml
from dealer_assist.config.paytables import DEFAULT_PAYTABLES, load_paytables
from dealer_assist.config.table import (
    CameraConfig,
    ShoeConfig,
    SurveillanceConfig,
    TableConfig,
    WebConfig,
    load_table_config,
)

__all__ = [
    "DEFAULT_PAYTABLES", "CameraConfig", "ConfigError", "ShoeConfig", "SurveillanceConfig",
    "TableConfig", "WebConfig", "check_keys", "house_rules", "load_paytables",
    "load_table_config", "read_toml",
]
