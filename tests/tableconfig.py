"""Table configuration files the tests write: a table of their own in a temporary folder."""

from __future__ import annotations

from pathlib import Path


def camera_table(folder: Path, source: Path | str, deck: Path | None, zones: Path,
                 table_id: str = "T7") -> Path:
    """`folder/table.toml`: a table (log and users in `folder/var`) with its camera on."""
    path = folder / "table.toml"
    path.write_text(f"""
[table]
id = "{table_id}"
database = "var/{table_id}.events.db"
users = "var/users.db"
[camera]
enabled = true
source = "{source}"
{f'deck = "{deck}"' if deck else ""}
zones = "{zones}"
""", encoding="utf-8")
    return path
