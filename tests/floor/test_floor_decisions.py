"""Decisions taken on the floor land in the owning table's log, with who and why: the floor
stores a request, the table's shipper records it through the live table and ships it back.
Also while the table was unreachable when the request was taken; never twice for a game the
table decided itself, even when both decide at the same moment; and a table's role sees only
its own requests and never the users."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient

from dealer_assist.config import load_paytables
from dealer_assist.domain.house import HouseRules
from dealer_assist.floor.requests import ask, requests
from dealer_assist.floor.web.app import create_floor_app
from dealer_assist.services.live_table import LiveTable
from dealer_assist.services.refusals import AlreadyDecided
from dealer_assist.shipping.shipper import Shipper
from dealer_assist.store.sqlite_log import SqliteEventLog
from tests.floor.conftest import FLOOR_PASSWORD
from tests.floor.pit_client import csrf_of, login


class Table:
    """A live table on its own SQLite log, with the sample shoe dealt, and its shipper."""

    def __init__(self, folder: Path, table: str, dsn: str, sample: list[dict[str, Any]],
                 floor: Any) -> None:
        self.path, self.floor = folder / f"{table}.db", floor
        self.log = SqliteEventLog(self.path)
        self.live = LiveTable(self.log, table_id=table, house=HouseRules(),
                              paytables=load_paytables())
        for event in sample:
            self.live.observe(event)
        self.shipper = Shipper(str(self.path), table, dsn, idle=0.05, backoff=(0.05, 0.5),
                               decide=self.live.decide)

    def ship(self) -> None:
        """Ship what the log holds, then fold it as the floor service does (floor/fold.py)."""
        self.shipper.ship_once()
        self.floor.fold()

    def decisions(self) -> list[dict[str, Any]]:
        events = [json.loads(r.body) for r in self.log.raw_records()]
        return [e for e in events if e.get("type") == "decision"]

    def close(self) -> None:
        self.shipper.stop()
        self.live.close()
        self.log.close()


@pytest.fixture
def table(floor, sample, tmp_path: Path) -> Iterator[Table]:
    table_id, dsn = floor.add_table()
    made = Table(tmp_path, table_id, dsn, sample, floor)
    made.ship()
    yield made
    made.close()


@pytest.fixture
def client(service) -> Iterator[TestClient]:
    with TestClient(create_floor_app(service)) as client:
        assert login(client, "sup", FLOOR_PASSWORD).status_code == 303
        yield client


def decide_on_the_floor(client: TestClient, table: str, game: int, reason: str,
                        action: str = "accept") -> int:
    csrf = csrf_of(client.get("/pit/requests").text)
    response = client.post("/pit/decide", data={
        "csrf": csrf, "table": table, "shoe": "SAMPLE-1", "game": str(game), "action": action,
        "reason": reason}, follow_redirects=False)
    assert response.status_code == 303, response.text[:500]
    return int(response.headers["location"].split("asked=")[1])


def request_of(client: TestClient, number: int) -> dict[str, Any]:
    return next(r for r in client.get("/api/pit/requests").json() if r["id"] == number)


def wait_for(check: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_floor_decision_lands_in_the_tables_log_with_who_and_why(floor, table, client):
    number = decide_on_the_floor(client, table.live.table_id, 16, "seen on the camera replay")
    assert request_of(client, number)["status"] == "waiting"
    assert table.shipper.take_requests() == 1
    assert request_of(client, number)["status"] == "recorded"
    table.ship()
    done = request_of(client, number)
    assert done["status"] == "done" and done["status_text"] == "recorded in the table's log"
    [decision] = table.decisions()
    assert (decision["by"], decision["reason"], decision["game"], decision["action"]) == (
        "sup@floor", "seen on the camera replay", 16, "accept")
    assert decision["shoe_id"] == "SAMPLE-1"
    queue = client.get("/pit/queue").text
    assert 'data-game="16"' not in queue and 'data-game="17"' in queue  # decided, off the queue
    review = client.get(f"/pit/review?table={table.live.table_id}&shoe=SAMPLE-1&game=16").text
    assert "Decided at the table" in review and "seen on the camera replay" in review
    assert table.live.review_queue()[0]["game"] == 17  # the table's own console agrees


def test_a_request_taken_while_the_table_is_offline_is_recorded_when_it_is_back(
        table, client):
    """The shipper is stopped (the table unreachable) when the floor decides."""
    table_id = table.live.table_id
    number = decide_on_the_floor(client, table_id, 17, "the shoe misread P3, checked on video")
    time.sleep(0.3)
    assert request_of(client, number)["status"] == "waiting"
    assert "waiting for the table" in client.get("/pit/requests").text
    assert "1 waiting for the table" in client.get("/pit/board").text
    # the table's own console keeps working meanwhile
    table.live.decide("tablesup", 16, "accept", "checked at the table", shoe_id="SAMPLE-1")
    table.shipper.start()
    wait_for(lambda: request_of(client, number)["status"] == "done")
    by_game = {d["game"]: d for d in table.decisions()}
    assert by_game[17]["by"] == "sup@floor" and "misread" in by_game[17]["reason"]
    assert by_game[16]["by"] == "tablesup"
    wait_for(lambda: 'data-game=' not in client.get("/pit/queue/list").text)


def test_a_game_decided_at_the_table_meanwhile_is_not_recorded_twice(table, client):
    table_id = table.live.table_id
    number = decide_on_the_floor(client, table_id, 16, "floor: accept")
    # meanwhile, at the table (not shipped yet): the supervisor there decides the same game
    table.live.decide("tablesup", 16, "void", "voided at the table", shoe_id="SAMPLE-1")
    table.shipper.start()
    wait_for(lambda: request_of(client, number)["status"] != "waiting")
    answered = request_of(client, number)
    assert answered["status"] == "already_decided"
    assert "tablesup" in answered["answer"] and "voided at the table" in answered["answer"]
    assert [d["by"] for d in table.decisions()] == ["tablesup"]
    # and a new request for a game the floor knows is decided is refused at once
    csrf = csrf_of(client.get("/pit/requests").text)
    wait_for(lambda: table.shipper.lag().events == 0)
    table.floor.fold()
    again = client.post("/pit/decide", data={"csrf": csrf, "table": table_id, "shoe": "SAMPLE-1",
                                             "game": "16", "action": "accept", "reason": "r"})
    assert again.status_code == 400 and "already decided at the table by tablesup" in again.text


def race_with_the_table(table_call: Any, floor_call: Any, table_late: float) -> list[Any]:
    """The table's console call and the shipper's call at once (the table's `table_late`
    seconds later); each one's result or exception."""
    results: list[Any] = [None, None]
    start = threading.Barrier(2)

    def run(i: int, call: Any, late: float) -> None:
        start.wait()
        time.sleep(late)
        try:
            results[i] = call()
        except Exception as e:  # the outcome under test
            results[i] = e

    threads = [threading.Thread(target=run, args=(0, table_call, table_late)),
               threading.Thread(target=run, args=(1, floor_call, 0.0))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


def test_a_floor_request_and_a_table_decision_at_the_same_moment_record_one(
        table, service, sample):
    """Round after round the table's supervisor decides a game just as the shipper records
    the floor's request for it (the table's decision not shipped yet): exactly one decision
    is logged, and the request's status says which one."""
    live, table_id = table.live, table.live.table_id
    closed = [i for i, e in enumerate(sample) if e["type"] == "bets_closed"]
    first_games = sample[:closed[17] + 1]  # up to game 18's start: 17's MISSING_DRAW is raised
    shoes = [f"RACE-{n}" for n in range(12)]
    for shoe_id in shoes:
        for event in first_games:  # games 1-18 again, timed now; 16 and 17 are flagged
            live.observe({k: v for k, v in event.items() if k != "ts"} | (
                {"shoe_id": shoe_id} if event["type"] == "new_shoe" else {}))
    table.ship()
    outcomes = []
    with psycopg.connect(service, autocommit=True) as conn:
        for i, (shoe_id, game) in enumerate((s, g) for s in shoes for g in (16, 17)):
            number = ask(conn, table=table_id, shoe_id=shoe_id, game=game, action="accept",
                         reason=f"floor {i}", by="sup@floor")
            at_table, _ = race_with_the_table(
                lambda s=shoe_id, g=game, i=i: live.decide("tablesup", g, "void", f"table {i}",
                                                           shoe_id=s),
                table.shipper.take_requests, 0.0 if i % 2 else 0.05)
            [request] = [r for r in requests(conn, table_id) if r.id == number]
            [decision] = [d for d in table.decisions()
                          if (d["shoe_id"], d["game"]) == (shoe_id, game)]
            if decision["by"] == "tablesup":
                assert isinstance(at_table, int) and decision["reason"] == f"table {i}"
                assert request.status == "already_decided"
                assert f"by tablesup (seq {at_table}): table {i}" in (request.answer or "")
                outcomes.append("table")
            else:
                assert (decision["by"], decision["reason"]) == ("sup@floor", f"floor {i}")
                assert isinstance(at_table, AlreadyDecided), at_table
                assert request.status == "recorded" and request.local_seq == at_table.decided[0]
                outcomes.append("floor")
    assert set(outcomes) == {"table", "floor"}, outcomes  # both orders were raced
    assert len(table.decisions()) == len(outcomes)


def test_a_request_recorded_before_its_answer_was_lost_is_recorded_not_refused(table, client):
    """The table logged the floor's decision but the answer never reached the store (the
    connection dropped): the next round finds it in the table's log and says recorded."""
    number = decide_on_the_floor(client, table.live.table_id, 16, "seen on the camera replay")
    seq = table.live.decide("sup@floor", 16, "accept", "seen on the camera replay",
                            shoe_id="SAMPLE-1")
    assert table.shipper.take_requests() == 0
    answered = request_of(client, number)
    assert (answered["status"], answered["local_seq"]) == ("recorded", seq)
    table.ship()
    assert request_of(client, number)["status"] == "done"
    assert len(table.decisions()) == 1


def test_a_correction_the_table_refuses_is_answered_with_its_reason(table, client):
    table_id = table.live.table_id
    csrf = csrf_of(client.get("/pit/requests").text)
    response = client.post("/pit/decide", data={
        "csrf": csrf, "table": table_id, "shoe": "SAMPLE-1", "game": "16", "action": "correct",
        "reason": "wrong cards", "P1": "2H", "P2": "3D", "B1": "2C", "B2": "3S"},
        follow_redirects=False)
    number = int(response.headers["location"].split("asked=")[1])
    table.shipper.take_requests()
    answered = request_of(client, number)
    assert answered["status"] == "refused" and answered["answer"]
    assert table.decisions() == []


def test_one_request_per_game_at_a_time(table, client):
    decide_on_the_floor(client, table.live.table_id, 16, "first")
    csrf = csrf_of(client.get("/pit/requests").text)
    second = client.post("/pit/decide", data={
        "csrf": csrf, "table": table.live.table_id, "shoe": "SAMPLE-1", "game": "16",
        "action": "void", "reason": "second"})
    assert second.status_code == 400 and "already on its way" in second.text


def test_a_table_role_sees_only_its_own_requests_and_never_the_users(floor, service, sample,
                                                                     table_log):
    (a, dsn_a), (b, dsn_b) = floor.add_table(), floor.add_table()
    from tests.pg import ship

    for table, dsn in ((a, dsn_a), (b, dsn_b)):
        ship(dsn, table, table_log(sample, name=table))
    with psycopg.connect(service) as conn:
        ask(conn, table=a, shoe_id="SAMPLE-1", game=16, action="accept", reason="a", by="sup")
        ask(conn, table=b, shoe_id="SAMPLE-1", game=16, action="accept", reason="b", by="sup")
    with psycopg.connect(dsn_a) as conn:
        rows = conn.execute("SELECT table_id, reason FROM decision_requests").fetchall()
        assert rows == [(a, "a")]
        changed = conn.execute("UPDATE decision_requests SET status = 'done' WHERE table_id = %s",
                               (b,))
        assert changed.rowcount == 0  # B's rows are not there for A
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE decision_requests SET reason = 'forged', by = 'x'")
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO decision_requests (table_id, shoe_id, game, action, "
                         "reason, by) VALUES (%s, 'SAMPLE-1', 17, 'void', 'self', 'me')", (a,))
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT * FROM floor_users")
    for group in ("floor_reader", "floor_regulator"):
        with psycopg.connect(floor.add_reader(group)) as conn, \
                pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT password_hash FROM floor_users")


def test_the_board_shows_the_tables_links_as_the_table_reports_them(table, client):
    table.live.link_changed("shoe", "down", "cable pulled")
    table.live.link_changed("camera", "up", "frames arriving")
    table.ship()
    row = next(t for t in client.get("/api/pit").json()["tables"]
               if t["table"] == table.live.table_id)
    assert (row["shoe_link"], row["camera_link"]) == ("down", "up")
    assert 'class="link-down"' in client.get("/pit/board").text
