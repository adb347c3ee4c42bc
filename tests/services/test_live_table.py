"""The live table: log first, then the machine, then the screens; decisions; restart; what the
public view may show. Runs over the in-memory log and a real SQLite log file alike."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.bootstrap import SideBetGuard
from dealer_assist.config import load_paytables
from dealer_assist.devices.deal.dealing import deal_shoe
from dealer_assist.domain.house import HouseRules
from dealer_assist.domain.report import shoe_view
from dealer_assist.domain.shoe import Shoe
from dealer_assist.services.live_table import LiveTable
from dealer_assist.services.refusals import Refused
from dealer_assist.services.table_reads import Update
from dealer_assist.store.log import MemoryEventLog
from dealer_assist.store.sqlite_log import SqliteEventLog
from tests.tracebuild import BURN3, Trace

PAYTABLES = load_paytables()
NAT = ("9H", "TS", "KD", "2C")  # Player 9, Banker 2: a natural, four cards


@pytest.fixture(params=["memory", "sqlite"])
def make_log(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Any]]:
    """A factory of the table's log: the same log again on each call (reopened for SQLite)."""
    opened: list[Any] = []
    memory = MemoryEventLog()

    def make() -> Any:
        if request.param == "memory":
            return memory
        for log in opened:
            log.close()
        log = SqliteEventLog(tmp_path / "table.db")
        opened.append(log)
        return log

    yield make
    for log in opened:
        log.close()


def shoe_of(table: LiveTable) -> Shoe:
    shoe = table.machine.shoe
    assert shoe is not None
    return shoe


def table_on(log: Any, **kw: Any) -> LiveTable:
    return LiveTable(log, table_id="T1", house=HouseRules(), paytables=PAYTABLES, **kw)


def feed(table: LiveTable, events: list[dict[str, Any]]) -> None:
    for event in events:
        table.observe(event)


def flagged_trace() -> Trace:
    """Game 1 clean and open, game 2 complete with a card drawn after it (UNNEEDED_DRAW)."""
    return (Trace().new_shoe().burn(*BURN3).game(*NAT).ev("dealer", "reveal")
            .game("2H", "3D", "4C", "KS", "7S").ev("dealer", "reveal").cards("5D"))


# ---- the path in --------------------------------------------------------------------------

def test_the_log_takes_an_event_before_the_machine_acts_on_it(make_log: Callable[[], Any]) -> None:
    log = make_log()
    seen_at_append: list[int] = []

    class Watching:
        def append(self, event: Any) -> int:
            seen_at_append.append(table.machine.events_applied)
            return log.append(event)

        def read(self, after_seq: int = 0) -> Any:
            return log.read(after_seq)

        def replay(self) -> Any:
            return log.replay()

    table = table_on(Watching())
    feed(table, Trace().new_shoe().burn(*BURN3).events)
    assert seen_at_append == [0, 1, 2, 3]
    assert [e["type"] for _, e in log.read()] == ["new_shoe", "card", "card", "card"]


def test_an_event_the_log_cannot_take_changes_nothing(make_log: Callable[[], Any]) -> None:
    log = make_log()
    table = table_on(log)
    feed(table, Trace().new_shoe().burn(*BURN3).close().events)
    updates: list[Update] = []
    table.subscribe(updates.append)
    before = (table.machine.events_applied, table.seq, json.dumps(table.public()))

    class Broken:
        def append(self, event: Any) -> int:
            raise OSError("disk full")

    table._log = Broken()  # type: ignore[assignment]
    with pytest.raises(OSError, match="disk full"):
        table.observe(Trace().cards("9H").events[0])
    assert (table.machine.events_applied, table.seq, json.dumps(table.public())) == before
    assert updates == []


@pytest.mark.parametrize("bad, problem", [
    ({"src": "shoe", "type": "card", "card": "ZZ"}, "card"),
    ({"src": "shoe", "type": "teleport"}, "unknown event type"),
    ({"type": "card", "card": "QS"}, "src"),
    ({"src": "shoe", "type": "card", "card": "QS", "ts": "yesterday"}, "ts"),
])
def test_a_bad_observation_is_refused_and_not_logged(make_log: Callable[[], Any],
                                                     bad: dict[str, Any], problem: str) -> None:
    log = make_log()
    table = table_on(log)
    with pytest.raises(Refused, match=problem):
        table.observe(bad)
    assert list(log.read()) == [] and table.seq == 0


def test_the_shoe_button_new_shoe_takes_the_table_settings(make_log: Callable[[], Any]) -> None:
    log = make_log()
    table = LiveTable(log, table_id="T7", house=HouseRules(variant="super6", decks=6),
                      paytables=PAYTABLES)
    table.observe({"ts": "2026-11-29T10:00:00.000Z", "src": "dealer", "type": "new_shoe"})
    (_, logged), = log.read()
    assert logged["shoe_id"] == "T7-20261129T100000"
    assert (logged["variant"], logged["decks"]) == ("super6", 6)
    assert shoe_of(table).house.variant == "super6"


# ---- restart ------------------------------------------------------------------------------

def test_a_restart_mid_shoe_rebuilds_the_same_state_and_carries_on(
        make_log: Callable[[], Any]) -> None:
    events = deal_shoe(random.Random(11), mistakes=["unneeded_draw", "missed_draw"], reveal=True)
    half = len(events) // 2
    first = table_on(make_log())
    feed(first, events[:half])
    queue = first.review_queue()
    if queue:
        first.decide("S-104", queue[0]["game"], "accept", "seen on video",
                     shoe_id=queue[0]["shoe_id"])
    state = (shoe_view(shoe_of(first), PAYTABLES), first.public(), first.review_queue(),
             first.history(), first.machine.phase)

    again = table_on(make_log())  # a new service over the same log (reopened for SQLite)
    assert (shoe_view(shoe_of(again), PAYTABLES), again.public(), again.review_queue(),
            again.history(), again.machine.phase) == state
    feed(again, events[half:])
    whole = table_on(MemoryEventLog())
    feed(whole, events[:half])
    if queue:
        whole.decide("S-104", queue[0]["game"], "accept", "seen on video",
                     shoe_id=queue[0]["shoe_id"])
    feed(whole, events[half:])
    assert shoe_view(shoe_of(again), PAYTABLES) == shoe_view(shoe_of(whole), PAYTABLES)
    assert shoe_of(again).status == "finished"


# ---- decisions ----------------------------------------------------------------------------

def test_a_decision_is_an_event_by_the_logged_in_user(make_log: Callable[[], Any]) -> None:
    log = make_log()
    table = table_on(log)
    feed(table, flagged_trace().events)
    (item,) = table.review_queue()
    assert item["game"] == 2 and [f["code"] for f in item["flags"]] == ["UNNEEDED_DRAW"]
    assert item["flags"][0]["rule"].startswith("A card drawn after the game was complete")
    assert item["proposals"][0]["action"] == "accept" and "5D" in item["proposals"][0]["text"]
    assert [c["pos"] for c in item["cards"]] == ["P1", "B1", "P2", "B2", "B3"]
    assert public_alert(table) == ["Game 2: card drawn when none was needed"]

    seq = table.decide("S-104", 2, "void", "  dealer drew   by mistake ", shoe_id="S1")
    (_, logged), = log.read(seq - 1)
    assert {k: logged[k] for k in ("src", "type", "game", "action", "by", "reason", "shoe_id")} \
        == {"src": "supervisor", "type": "decision", "game": 2, "action": "void", "by": "S-104",
            "reason": "dealer drew by mistake", "shoe_id": "S1"}
    assert table.review_queue() == [] and table.public()["alert"] is None
    assert table.public()["roads"]["bead_plate"] == [["P"]]  # game 2 void: off the roads
    (row,) = table.history()
    assert (row["by"], row["action"], row["flags"]) == ("S-104", "void", ["UNNEEDED_DRAW"])
    assert table.history(flag="UNNEEDED_DRAW") == [row] and table.history(flag="DATA_GAP") == []
    assert table.history(shoe_id="S1") == [row] and table.history(shoe_id="S2") == []


@pytest.mark.parametrize("kwargs, problem", [
    ({"game": 2, "action": "accept", "reason": "   "}, "needs a reason"),
    ({"game": 9, "action": "accept", "reason": "x"}, "has no game 9"),
    ({"game": 2, "action": "shrug", "reason": "x"}, "one of accept"),
    ({"game": 2, "action": "correct", "reason": "x", "player": ["2H", "3D"],
      "banker": ["4C", "KS"]}, "Player a third card"),
    ({"game": 2, "action": "correct", "reason": "x", "player": ["9H", "TS", "2D"],
      "banker": ["KD", "2C"]}, "Player no third card"),
    ({"game": 2, "action": "correct", "reason": "x", "player": ["9X", "TS"],
      "banker": ["KD", "2C"]}, "correction"),
    ({"game": 2, "action": "accept", "reason": "x", "shoe_id": "S9"}, "shoe S9 has no game"),
])
def test_a_bad_decision_is_refused_and_not_logged(make_log: Callable[[], Any],
                                                  kwargs: dict[str, Any], problem: str) -> None:
    log = make_log()
    table = table_on(log)
    feed(table, flagged_trace().events)
    before = table.seq
    with pytest.raises(Refused, match=problem):
        table.decide("S-104", **kwargs)
    assert table.seq == before and len(list(log.read())) == before
    assert len(table.review_queue()) == 1


def test_a_finished_shoe_gets_its_own_checkpoint(make_log: Callable[[], Any]) -> None:
    log = make_log()
    table = table_on(log)
    feed(table, flagged_trace().events)
    before = [p.seq for p in log.checkpoints()]
    seq = table.observe({"src": "dealer", "type": "end_shoe"})
    assert [p.seq for p in log.checkpoints()] == [*before, seq]


def test_a_refusal_quotes_a_huge_field_as_a_short_excerpt(make_log: Callable[[], Any]) -> None:
    table = table_on(make_log())
    feed(table, flagged_trace().events)
    huge = "X" * 1_000_000
    for call in (lambda: table.decide("S-104", 2, huge, "r"),
                 lambda: table.decide("S-104", 2, "accept", "r", shoe_id=huge),
                 lambda: table.observe({"src": "shoe", "type": huge}),
                 lambda: table.observe({"src": "shoe", "type": "card", "card": huge})):
        with pytest.raises(Refused) as refused:
            call()
        assert "XXXX" in str(refused.value) and len(str(refused.value)) < 600


def test_a_correction_changes_the_result_and_the_roads(make_log: Callable[[], Any]) -> None:
    table = table_on(make_log())
    feed(table, flagged_trace().events)
    assert table.public()["roads"]["bead_plate"] == [["P", "P"]]
    table.decide("S-104", 2, "correct", "cards on the table", player=["2H", "4C"],
                 banker=["3D", "6S"])
    assert table.public()["roads"]["bead_plate"] == [["P", "B"]]
    item = table.review(None, 2)
    assert item is not None and item["banker_total"] == 9


# ---- the public view ----------------------------------------------------------------------

def public_alert(table: LiveTable) -> list[str]:
    alert = table.public()["alert"]
    return alert["lines"] if alert else []


def test_a_card_is_never_public_before_it_is_revealed(make_log: Callable[[], Any]) -> None:
    table = table_on(make_log())
    updates: list[Update] = []
    table.subscribe(updates.append)
    feed(table, Trace().new_shoe().burn(*BURN3).game("2H", "3D", "4C", "KS").events)
    text = json.dumps([u.public for u in updates])
    for code in ("2H", "3D", "4C", "KS"):
        assert code not in text
    game = table.public()["game"]
    assert [c["card"] for c in game["player"] + game["banker"]] == [None] * 4
    assert game["player_total"] is None and game["result"] is None
    assert table.public()["action"]["headline"] == "open the cards"  # not "BANKER DRAWS"
    table.reveal("player")
    game = table.public()["game"]
    assert [c["card"] for c in game["player"]] == ["2H", "4C"] and game["player_total"] == 6
    assert [c["card"] for c in game["banker"]] == [None, None] and game["banker_total"] is None
    table.reveal()
    assert table.public()["action"]["headline"] == "BANKER DRAWS"
    table.observe(Trace().cards("7S").events[0])
    game = table.public()["game"]
    assert game["banker"][2] == {"pos": "B3", "dealt": True, "card": None}
    assert game["result"] is None and table.public()["roads"]["games"] == 0


def test_the_roads_take_a_game_once_it_is_open_or_play_moved_on(
        make_log: Callable[[], Any]) -> None:
    table = table_on(make_log())
    feed(table, Trace().new_shoe().burn(*BURN3).game(*NAT).events)
    assert table.public()["roads"]["games"] == 0
    table.reveal()
    view = table.public()
    assert view["roads"]["bead_plate"] == [["P"]]
    assert view["game"]["result"]["bets"][0] == {"bet": "player", "pays": "1:1"}
    feed(table, Trace().game("2H", "3D", "4C", "KS", "7S").events)  # not revealed
    assert table.public()["roads"]["games"] == 1
    table.observe(Trace().close().events[0])  # the next game's bets closed
    assert table.public()["roads"]["bead_plate"] == [["P", "P"]]


def test_the_public_view_has_no_composition_and_no_alert_details(
        make_log: Callable[[], Any]) -> None:
    def alert_on_card(event: Any, machine: Any) -> list[dict[str, Any]]:
        if event.TYPE != "card":
            return []
        return [{"src": "analysis", "type": "side_bet_alert", "bet": "tie", "edge": -0.01,
                 "remaining": {"A": 3}}]

    log = make_log()
    table = table_on(log, watchers=[alert_on_card])
    feed(table, flagged_trace().events)
    text = json.dumps(table.public())
    for secret in ("\"remaining\"", "side_bet", "5D", "set aside", "KH"):
        assert secret not in text
    alerts = table.side_bet_alerts()
    assert len(alerts) == 13 and alerts[0]["bet"] == "tie" and alerts[0]["shoe_id"] == "S1"
    types = [e["type"] for _, e in log.read()]
    assert types.count("side_bet_alert") == 13 and types[types.index("card") + 1] == \
        "side_bet_alert"
    again = table_on(make_log(), watchers=[alert_on_card])  # a restart records none again
    assert len(again.side_bet_alerts()) == 13 and len(list(log.read())) == len(types)


def test_the_side_bet_guard_records_the_watchers_alerts(make_log: Callable[[], Any]) -> None:
    log = make_log()
    table = table_on(log, watchers=[SideBetGuard(PAYTABLES)])
    feed(table, deal_shoe(random.Random(1)))
    alerts = table.side_bet_alerts(limit=100)
    assert alerts, "a whole shoe with seed 1 turns some side bet player-favourable"
    assert all(a["edge"] < 0 and sum(a["remaining"].values()) < 416 for a in alerts)
    assert "side_bet" not in json.dumps(table.public())


def test_subscribers_get_each_change_and_a_broken_one_harms_nothing(
        make_log: Callable[[], Any]) -> None:
    table = table_on(make_log())
    got: list[Update] = []

    def broken(update: Update) -> None:
        raise RuntimeError("screen unplugged")

    table.subscribe(broken)
    unsubscribe = table.subscribe(got.append)
    feed(table, Trace().new_shoe().burn(*BURN3).events)
    assert [u.seq for u in got] == [1, 2, 3, 4]
    unsubscribe()
    table.observe(Trace().close().events[0])
    assert len(got) == 4 and table.seq == 5


def test_link_status_is_shown_and_logged(make_log: Callable[[], Any]) -> None:
    log = make_log()
    table = table_on(log)
    assert table.public()["links"]["shoe"]["status"] == "unknown"
    reason = "could not open port /dev/ttyUSB0: [Errno 2] No such file or directory"
    table.link_changed("shoe", "down", reason, "2026-11-29T10:00:00.000Z")
    # the public display says it in plain words; the device's own words are for supervisors
    assert table.public()["links"]["shoe"] == {"status": "down", "reason": "not connected",
                                               "since": "2026-11-29T10:00:00.000Z"}
    assert table.links["shoe"]["reason"] == reason
    (_, logged), = log.read()
    assert logged["type"] == "link_status" and logged["src"] == "shoe"
    assert logged["reason"] == reason
    assert table_on(make_log()).public()["links"]["shoe"]["status"] == "unknown"


def test_7up_shows_the_fixed_seven_and_counts_it(make_log: Callable[[], Any]) -> None:
    table = LiveTable(make_log(), table_id="T1", house=HouseRules(variant="7up"),
                      paytables=PAYTABLES)
    feed(table, Trace().new_shoe(variant="7up").burn(*BURN3).game("5H", "KD", "9C").events)
    game = table.public()["game"]
    assert game["player"][0] == {"pos": "P1", "dealt": True, "fixed": True, "card": "7"}
    assert game["player"][1]["card"] is None and game["player_total"] is None
    table.reveal()
    game = table.public()["game"]
    assert game["player_total"] == 7 and game["banker_total"] == 4  # 7 + K; 5 + 9


def test_a_failing_watcher_does_not_stop_the_table(make_log: Callable[[], Any]) -> None:
    def broken(event: Any, machine: Any) -> list[dict[str, Any]]:
        raise ZeroDivisionError("odds of an empty shoe")

    table = table_on(make_log(), watchers=[broken])
    feed(table, Trace().new_shoe().burn(*BURN3).events)
    assert table.seq == 4 and shoe_of(table).burn == list(BURN3)
