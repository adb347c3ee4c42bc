"""The floor's regulator pages, through the floor service on a real PostgreSQL: tables, days,
flags, and the signed floor export downloaded from the form, which verifies offline."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dealer_assist.export.verifier import verify_export
from dealer_assist.floor.web.app import create_floor_app
from dealer_assist.signing_keys import ENV_SIGNING_KEY, load_public_key
from tests.floor.conftest import FLOOR_PASSWORD
from tests.floor.pit_client import login
from tests.floor.test_floor_export import keys, shipped, signers  # noqa: F401 - fixtures

DAY = "2026-11-29"


@pytest.fixture
def app(service, shipped):  # noqa: F811 - the fixture imported above
    return create_floor_app(service)


@pytest.fixture
def regulator(app) -> Iterator[TestClient]:
    with TestClient(app) as client:
        assert login(client, "reg", FLOOR_PASSWORD).status_code == 303
        yield client


def test_the_pages_show_every_table_its_days_and_flags(regulator, shipped):  # noqa: F811
    a, b, c = (shipped[n][0] for n in "ABC")
    page = regulator.get("/regulator")
    assert page.status_code == 200
    for table in (a, b, c):
        assert f'value="{table}"' in page.text
    assert f'href="/regulator/days/{DAY}"' in page.text
    assert 'href="/regulator/days/2026-11-30"' in page.text
    day = regulator.get(f"/regulator/days/{DAY}")
    assert day.status_code == 200
    assert a in day.text and b in day.text and c not in day.text
    assert "UNNEEDED_DRAW" in day.text
    flags = regulator.get("/regulator/flags", params={"table": b})
    assert flags.status_code == 200 and "waiting" in flags.text and a not in flags.text.split(
        "<h2>Flags</h2>")[1]
    assert "No integrity alarm" in flags.text


def test_a_bad_day_is_a_400_page_never_a_500(regulator):
    for path in ("/regulator/days/2026-13-01", "/regulator/days/x",
                 "/regulator/export.zip?tables=T&from=2026-11-30&to=2026-11-29",
                 "/regulator/export.zip?from=2026-11-29&to=2026-11-29",
                 "/regulator/export.zip?tables=T&from=0001-01-01&to=9999-12-31"):
        response = regulator.get(path)
        assert response.status_code == 400, (path, response.text[:300])
        assert "Back to the floor" in response.text


def test_only_a_regulator_sees_them(app):
    with TestClient(app) as client:
        response = client.get("/regulator", follow_redirects=False)
        assert response.status_code == 303 and "/login" in response.headers["location"]
        assert client.get("/regulator/export.zip", follow_redirects=False).status_code == 303
        assert login(client, "sup", FLOOR_PASSWORD).status_code == 303
        assert client.get("/regulator").status_code == 403
        assert client.get("/regulator/flags").status_code == 403


def test_the_form_downloads_a_floor_export_that_verifies(regulator, shipped, keys,  # noqa: F811
                                                         monkeypatch, tmp_path: Path):
    a, b = shipped["A"][0], shipped["B"][0]
    wanted = {"tables": [a, b], "from": DAY, "to": DAY}
    monkeypatch.delenv(ENV_SIGNING_KEY, raising=False)
    refused = regulator.get("/regulator/export.zip", params=wanted)
    assert refused.status_code == 503 and ENV_SIGNING_KEY in refused.text
    monkeypatch.setenv(ENV_SIGNING_KEY, str(keys.private))
    response = regulator.get("/regulator/export.zip", params=wanted)
    assert response.status_code == 200, response.text[:500]
    assert response.headers["content-type"] == "application/zip"
    out = tmp_path / "download.zip"
    out.write_bytes(response.content)
    with zipfile.ZipFile(out) as zf:
        assert sorted(zf.namelist()) == ["manifest.json", "manifest.sig",
                                         f"tables/{a}.checkpoints.json", f"tables/{a}.zip",
                                         f"tables/{b}.checkpoints.json", f"tables/{b}.zip"]
    result = verify_export(out, load_public_key(keys.public))
    assert result.ok, result.findings.lines()
    unknown = regulator.get("/regulator/export.zip", params={**wanted, "tables": ["NOPE"]})
    assert unknown.status_code == 400 and "no table NOPE" in unknown.text
    empty = regulator.get("/regulator/export.zip",
                          params={**wanted, "from": "2026-01-01", "to": "2026-01-02"})
    assert empty.status_code == 404
