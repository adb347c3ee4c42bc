"""The review page of a flagged game shows the camera's frames of its flags, and a
supervisor-only route serves them by hash; anything else there is 404, never a 500."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dealer_assist.accounts.login import Accounts
from dealer_assist.store.evidence import EvidenceReader
from dealer_assist.store.users import TableUsers, UserStore
from dealer_assist.web.app import create_app
from tests.devices.camera_script import FlaggedTable, copied, flagged_master
from tests.web.conftest import CHEAP, PASSWORD, login

master = pytest.fixture(scope="module", name="master")(flagged_master)


@pytest.fixture
def flagged(master: FlaggedTable, tmp_path: Path) -> Iterator[FlaggedTable]:
    table = copied(master, tmp_path)
    yield table
    table.log.close()


@pytest.fixture
def client(flagged: FlaggedTable, tmp_path: Path) -> Iterator[TestClient]:
    users = UserStore(tmp_path / "users.db", hasher=CHEAP)
    users.add("sup", "supervisor", PASSWORD)
    users.add("dea", "dealer", PASSWORD)
    app = create_app(flagged.live, Accounts(TableUsers(users)))
    app.state.evidence = EvidenceReader(flagged.database, flagged.folder)
    with TestClient(app, base_url="http://testserver", follow_redirects=False) as c:
        yield c
    users.close()


def flag_frames(flagged: FlaggedTable) -> list[str]:
    events = flagged.camera_events()[2:]  # the events that raised WRONG_POSITION, DROPPED_OPENED
    return list(dict.fromkeys(f["sha256"] for e in events for f in e["frames"]))


def test_the_review_page_shows_the_frames_of_the_flags(client: TestClient,
                                                       flagged: FlaggedTable) -> None:
    login(client, "sup")
    page = client.get("/supervisor/review", params={"game": 1, "shoe": "S1"})
    assert page.status_code == 200
    for sha in flag_frames(flagged):
        assert f'src="/supervisor/evidence/{sha}.jpg"' in page.text
    unflagged = flagged.camera_events()[0]["frames"][0]["sha256"]
    assert unflagged not in page.text
    assert "WRONG_POSITION" in page.text and "What the camera saw" in page.text


def test_the_route_serves_a_frame_by_its_hash(client: TestClient, flagged: FlaggedTable) -> None:
    sha = flag_frames(flagged)[0]
    assert client.get(f"/supervisor/evidence/{sha}.jpg").status_code in (401, 303)
    login(client, "dea")
    assert client.get(f"/supervisor/evidence/{sha}.jpg").status_code == 403
    client.cookies.clear()
    login(client, "sup")
    got = client.get(f"/supervisor/evidence/{sha}.jpg")
    assert got.status_code == 200 and got.headers["content-type"] == "image/jpeg"
    assert hashlib.sha256(got.content).hexdigest() == sha


@pytest.mark.parametrize("name", [
    "0" * 64 + ".jpg", "x.jpg", "A" * 64 + ".jpg", "0" * 63 + ".jpg", "0" * 64, "0" * 64 + ".png",
    "..%2F..%2Fusers.db", "%00.jpg", "é" * 64 + ".jpg", "0" * 5000 + ".jpg"])
def test_any_other_name_is_not_found(client: TestClient, name: str) -> None:
    """404, or 400 where the front door refuses the request itself (a NUL in the path)."""
    login(client, "sup")
    assert client.get(f"/supervisor/evidence/{name}").status_code in (400, 404)


def test_a_damaged_or_removed_frame_is_not_served_and_the_page_says_so(
        client: TestClient, flagged: FlaggedTable) -> None:
    login(client, "sup")
    damaged, removed = flag_frames(flagged)[:2]
    (flagged.folder.path / f"{damaged}.jpg").write_bytes(b"not the frame")
    assert client.get(f"/supervisor/evidence/{damaged}.jpg").status_code == 404
    flagged.folder.max_bytes = 0
    flagged.folder.prune()
    page = client.get("/supervisor/review", params={"game": 1, "shoe": "S1"})
    assert "removed by retention" in page.text and removed in page.text


def test_with_no_evidence_kept_the_route_finds_nothing(flagged: FlaggedTable,
                                                       tmp_path: Path) -> None:
    users = UserStore(tmp_path / "users2.db", hasher=CHEAP)
    users.add("sup", "supervisor", PASSWORD)
    app = create_app(flagged.live, Accounts(TableUsers(users)))
    with TestClient(app, base_url="http://testserver", follow_redirects=False) as c:
        login(c, "sup")
        assert c.get(f"/supervisor/evidence/{flag_frames(flagged)[0]}.jpg").status_code == 404
        assert c.get("/supervisor/review", params={"game": 1, "shoe": "S1"}).status_code == 200
    users.close()
