"""One decision per flagged game: a second decision on a game already decided is refused
(`AlreadyDecided`, nothing logged), and of two decisions on one game that race each other,
from two threads or two supervisors' browsers, exactly one is recorded. Real SQLite logs, a
real web server (uvicorn) and real HTTP."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from dealer_assist.accounts.login import Accounts
from dealer_assist.bootstrap import ServerThread
from dealer_assist.config import load_paytables
from dealer_assist.domain.house import HouseRules
from dealer_assist.services.live_table import LiveTable
from dealer_assist.services.refusals import AlreadyDecided, Refused
from dealer_assist.store.sqlite_log import SqliteEventLog
from dealer_assist.store.users import TableUsers, UserStore
from dealer_assist.web.app import create_app
from tests.tracebuild import BURN3, Trace
from tests.web.conftest import CHEAP, PASSWORD, csrf_of

PAYTABLES = load_paytables()
NAT = ("9H", "TS", "KD", "2C")
ROUNDS = 150


def shoes(count: int) -> list[dict[str, Any]]:
    """`count` shoes R1..Rn, each with game 1 clean and game 2 flagged (UNNEEDED_DRAW)."""
    trace = Trace()
    for n in range(1, count + 1):
        (trace.new_shoe(f"R{n}").burn(*BURN3).game(*NAT).ev("dealer", "reveal")
         .game("2H", "3D", "4C", "KS", "7S").ev("dealer", "reveal").cards("5D"))
    return trace.events


@pytest.fixture
def log(tmp_path: Path) -> Iterator[SqliteEventLog]:
    opened = SqliteEventLog(tmp_path / "table.db")
    yield opened
    opened.close()


def table_on(log: SqliteEventLog, count: int = 1) -> LiveTable:
    table = LiveTable(log, table_id="T1", house=HouseRules(), paytables=PAYTABLES)
    for event in shoes(count):
        table.observe(event)
    return table


def logged_decisions(log: SqliteEventLog) -> list[dict[str, Any]]:
    events = [json.loads(r.body) for r in log.raw_records()]
    return [e for e in events if e.get("type") == "decision"]


# ---- the rule -----------------------------------------------------------------------------

def test_a_flagged_game_takes_one_decision(log: SqliteEventLog) -> None:
    table = table_on(log)
    first = table.decide("S-104", 2, "void", "dealer drew by mistake", shoe_id="R1")
    before = table.seq
    for action in ("accept", "void", "correct"):
        with pytest.raises(AlreadyDecided) as refused:
            table.decide("S-200", 2, action, "again", shoe_id="R1",
                         player=["2H", "4C"], banker=["3D", "KS", "5D"])
        said = str(refused.value)
        assert said == (f"game 2 of shoe R1 is already decided: void by S-104 (seq {first}): "
                        "dealer drew by mistake")
        assert refused.value.decided == (first, "S-104", "dealer drew by mistake")
        assert isinstance(refused.value, Refused)  # the console's and the routes' catch
    assert table.seq == before and len(logged_decisions(log)) == 1
    assert [row["by"] for row in table.history()] == ["S-104"]
    assert table.review("R1", 2)["ruling"] == "void"  # type: ignore[index]


def test_a_game_no_flag_needs_a_decision_on_is_still_the_supervisors_call(
        log: SqliteEventLog) -> None:
    """Game 1 has no flag: rulings on it are not refused (the late rulings of test_history)."""
    table = table_on(log)
    table.decide("S-104", 1, "accept", "seen on video", shoe_id="R1")
    table.decide("S-104", 1, "accept", "seen again", shoe_id="R1")
    assert len(logged_decisions(log)) == 2


def test_a_void_shoe_settles_the_games_after_it_and_is_taken_once(log: SqliteEventLog) -> None:
    table = table_on(log)
    seq = table.decide("S-104", 1, "void_shoe", "foreign deck", shoe_id="R1")
    with pytest.raises(AlreadyDecided, match=rf"void_shoe by S-104 \(seq {seq}\)"):
        table.decide("S-200", 2, "accept", "fine", shoe_id="R1")  # flagged, voided with it
    with pytest.raises(AlreadyDecided):
        table.decide("S-200", 2, "void_shoe", "twice", shoe_id="R1")
    assert len(logged_decisions(log)) == 1


def test_a_shoe_a_flag_voided_may_still_be_voided_by_a_supervisor_once(
        log: SqliteEventLog) -> None:
    table = LiveTable(log, table_id="T1", house=HouseRules(), paytables=PAYTABLES)
    for event in Trace().new_shoe("R1").burn("3S").game(*NAT).events:  # BURN_SHORT
        table.observe(event)
    assert table.machine.shoes[0].void_from == 1  # void by the flag, no decision yet
    seq = table.decide("S-104", 1, "void_shoe", "burn short: shoe replaced", shoe_id="R1")
    with pytest.raises(AlreadyDecided, match=rf"void_shoe by S-104 \(seq {seq}\)"):
        table.decide("S-200", 1, "void_shoe", "again", shoe_id="R1")
    assert len(logged_decisions(log)) == 1


def test_a_void_shoe_may_follow_a_decision_on_its_game(log: SqliteEventLog) -> None:
    """Voiding the shoe is a decision about the shoe: a game's own ruling does not settle it."""
    table = table_on(log)
    table.decide("S-104", 2, "accept", "seen on video", shoe_id="R1")
    table.decide("S-104", 2, "void_shoe", "the deck was marked", shoe_id="R1")
    assert [d["action"] for d in logged_decisions(log)] == ["accept", "void_shoe"]


def test_already_decided_holds_after_a_restart_from_the_log_and_from_a_snapshot(
        tmp_path: Path) -> None:
    from dealer_assist.store.snapshot import TableSnapshots
    from tests.store.sealing import seal

    path = tmp_path / "table.db"
    log = SqliteEventLog(path)
    table = LiveTable(log, table_id="T1", house=HouseRules(), paytables=PAYTABLES,
                      snapshots=TableSnapshots(log, path, seal()))
    for event in shoes(1):
        table.observe(event)
    table.decide("S-104", 2, "accept", "seen on video", shoe_id="R1")
    table.close()
    log.close()
    for snapshots in (False, True):
        log = SqliteEventLog(path)
        again = LiveTable(log, table_id="T1", house=HouseRules(), paytables=PAYTABLES,
                          snapshots=TableSnapshots(log, path, seal())
                          if snapshots else None)
        assert again.started.startswith("snapshot" if snapshots else "")
        with pytest.raises(AlreadyDecided, match="accept by S-104"):
            again.decide("S-200", 2, "void", "late", shoe_id="R1")
        again.close()
        log.close()


# ---- races --------------------------------------------------------------------------------

@pytest.fixture
def switchy() -> Iterator[None]:
    """Threads switch every microsecond instead of every 5 ms, so that a check made apart from
    the append would be overtaken by the other thread (a mutant check outside the table's
    lock fails these tests this way)."""
    was = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(was)


def race(*calls: Callable[[], Any]) -> list[Any]:
    """Run the calls at once, each on its own thread; each one's result or exception."""
    results: list[Any] = [None] * len(calls)
    start = threading.Barrier(len(calls))

    def run(i: int) -> None:
        start.wait()
        try:
            results[i] = calls[i]()
        except Exception as e:  # the outcome under test
            results[i] = e

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


def test_two_decisions_racing_on_one_game_record_exactly_one(log: SqliteEventLog,
                                                              switchy: None) -> None:
    table = table_on(log, ROUNDS)
    winners = []
    for n in range(1, ROUNDS + 1):
        calls = {"PIT": lambda n=n: table.decide("PIT", 2, "accept", "from the pit",
                                                 shoe_id=f"R{n}"),
                 "TABLE": lambda n=n: table.decide("TABLE", 2, "void", "at the table",
                                                   shoe_id=f"R{n}")}
        names = ["PIT", "TABLE"][::(-1) ** n]  # who starts first alternates
        outcomes = dict(zip(names, race(*(calls[name] for name in names)), strict=True))
        seqs = [o for o in outcomes.values() if isinstance(o, int)]
        refused = [o for o in outcomes.values() if isinstance(o, AlreadyDecided)]
        assert len(seqs) == 1 and len(refused) == 1, outcomes
        assert refused[0].decided[0] == seqs[0]
        winners.append(next(name for name, o in outcomes.items() if isinstance(o, int)))
    decided = logged_decisions(log)
    assert [(d["shoe_id"], d["by"]) for d in decided] == [
        (f"R{n}", winner) for n, winner in enumerate(winners, 1)]
    assert set(winners) == {"PIT", "TABLE"}  # both sides won some: the races were real


# ---- through the web route ----------------------------------------------------------------

@pytest.fixture
def served(log: SqliteEventLog, tmp_path: Path) -> Iterator[tuple[LiveTable, str]]:
    users = UserStore(tmp_path / "users.db", hasher=CHEAP)
    for name in ("sup", "sup2"):
        users.add(name, "supervisor", PASSWORD)
    table = table_on(log, 40)
    server = ServerThread(create_app(table, Accounts(TableUsers(users)))).start()
    try:
        yield table, server.url
    finally:
        server.stop()
        users.close()


def supervisor(url: str, name: str) -> tuple[httpx2.Client, str]:
    client = httpx2.Client(base_url=url, timeout=30)
    form = client.get("/login")
    client.post("/login", data={"name": name, "password": PASSWORD, "csrf": csrf_of(form.text)})
    return client, csrf_of(client.get("/supervisor").text)


def test_two_supervisors_deciding_one_game_at_once_record_one_decision(
        served: tuple[LiveTable, str], log: SqliteEventLog, switchy: None) -> None:
    table, url = served
    (one, csrf1), (two, csrf2) = supervisor(url, "sup"), supervisor(url, "sup2")
    try:
        for n in range(1, 41):
            def post(client: httpx2.Client, csrf: str, action: str, n: int = n) -> Any:
                return client.post("/supervisor/decide", data={
                    "csrf": csrf, "shoe": f"R{n}", "game": "2", "action": action,
                    "reason": f"{action} on R{n}"})
            a, b = race(lambda: post(one, csrf1, "accept"), lambda: post(two, csrf2, "void"))
            assert sorted([a.status_code, b.status_code]) == [303, 400], (a, b)
            lost = a if a.status_code == 400 else b
            assert "Not recorded" in lost.text and "is already decided" in lost.text
        decided = logged_decisions(log)
        assert len(decided) == 40 and len({d["shoe_id"] for d in decided}) == 40
        assert table.review_queue() == []
    finally:
        one.close()
        two.close()
