"""A table service started with the central store's DSN ships its log there by itself."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from dealer_assist.bootstrap import open_table
from dealer_assist.config import load_table_config
from dealer_assist.shipping.shipper import DSN_ENV


def write_config(folder: Path, table: str) -> Path:
    path = folder / "table.toml"
    path.write_text(f'[table]\nid = "{table}"\ndatabase = "var/t.db"\nusers = "var/users.db"\n'
                    '[shoe]\nurl = "emulator"\n[web]\nport = 0\n', encoding="utf-8")
    return path


def test_the_service_ships_what_it_records_and_stops_the_shipper_with_it(
        floor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table_id, dsn = floor.add_table()
    monkeypatch.setenv(DSN_ENV, dsn)
    table = open_table(load_table_config(write_config(tmp_path, table_id)), start_shoe=False)
    try:
        assert table.shipper is not None
        table.live.observe({"src": "dealer", "type": "new_shoe"})
        table.live.reveal()
        deadline = time.monotonic() + 30
        while table.shipper.lag().events or table.shipper.lag().shipped_seq < table.live.seq:
            assert time.monotonic() < deadline, table.shipper.lag()
            time.sleep(0.05)
        floor.owner.commit()
        rows = floor.owner.execute("SELECT seq FROM events WHERE table_id = %s ORDER BY seq",
                                   (table_id,)).fetchall()
        assert [seq for (seq,) in rows] == list(range(1, table.live.seq + 1))
    finally:
        table.close()
    assert not table.shipper._thread.is_alive()


def test_without_the_dsn_the_table_ships_nothing(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DSN_ENV, raising=False)
    table = open_table(load_table_config(write_config(tmp_path, "T9")), start_shoe=False)
    try:
        assert table.shipper is None
    finally:
        table.close()
