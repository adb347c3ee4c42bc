"""Property tests: random shoes agree with a plain restatement of the rules; replays rebuild state."""

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealer_assist.config import load_paytables
from dealer_assist.domain.next_action import next_action
from dealer_assist.domain.report import shoe_view
from dealer_assist.domain.table import TableMachine
from dealer_assist.services.trace import read_events
from tests.tracebuild import Trace

PAYTABLES = load_paytables()


def val(card: str) -> int:
    return 0 if card[0] in "TJQK" else 1 if card[0] == "A" else int(card[0])


def plain_hand(cards: list[str], seven_up: bool) -> tuple[list[str], list[str]]:
    """The deal written out plainly, independent of dealer_assist.domain.rules."""
    if seven_up:
        player, banker, i = [cards[1]], [cards[0], cards[2]], 3
        pt = (7 + val(player[0])) % 10
    else:
        player, banker, i = [cards[0], cards[2]], [cards[1], cards[3]], 4
        pt = (val(player[0]) + val(player[1])) % 10
    bt = (val(banker[0]) + val(banker[1])) % 10
    if pt >= 8 or bt >= 8:
        return player, banker
    if pt >= 6:
        if bt <= 5:
            banker.append(cards[i])
        return player, banker
    third = cards[i]
    player.append(third)
    i += 1
    t = val(third)
    draws = (bt <= 2 or (bt == 3 and t != 8) or (bt == 4 and 2 <= t <= 7)
             or (bt == 5 and 4 <= t <= 7) or (bt == 6 and t in (6, 7)))
    if draws:
        banker.append(cards[i])
    return player, banker


def shuffled_shoe(rng: random.Random, decks: int) -> list[str]:
    cards = [r + s for r in "A23456789TJQK" for s in "SHDC"] * decks
    rng.shuffle(cards)
    return cards


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), decks=st.sampled_from([1, 2, 6, 8]),
       variant=st.sampled_from(["standard", "super6", "7up"]), burn_each=st.booleans())
def test_random_shoes_agree_with_plain_rules(seed, decks, variant, burn_each):
    rng = random.Random(seed)
    cards = shuffled_shoe(rng, decks)
    t = Trace().new_shoe(decks=decks, variant=variant, burn_after_each_game=burn_each)
    first = cards.pop(0)
    burn = 1 + (10 if first[0] in "TJQK" else 1 if first[0] == "A" else int(first[0]))
    t.burn(first, *cards[: burn - 1])
    del cards[: burn - 1]
    expected = []
    while len(cards) >= 8:
        if burn_each and expected:
            t.cards(cards.pop(0))
        player, banker = plain_hand(cards, variant == "7up")
        used = len(player) + len(banker)
        t.game(*cards[:used])
        del cards[:used]
        expected.append((player, banker))
    shoe = t.end().shoe()
    assert shoe["flags"] == [] and shoe["status"] == "finished"
    assert len(shoe["games"]) == len(expected)
    for g, (player, banker) in zip(shoe["games"], expected, strict=True):
        assert (sorted(g["player"]), sorted(g["banker"])) == (sorted(player), sorted(banker))
        assert g["player"][:1] == player[:1] and g["banker"][:1] == banker[:1]
        pt = (sum(map(val, player)) + (7 if variant == "7up" else 0)) % 10
        bt = sum(map(val, banker)) % 10
        assert (g["player_total"], g["banker_total"]) == (pt, bt)
        assert g["winner"] == ("player" if pt > bt else "banker" if bt > pt else "tie")
        assert g["flags"] == [] and g["status"] == "complete" and g["review"] == "none"


CARD = st.sampled_from(["AS", "2H", "5D", "7C", "9S", "TD", "KH", "7S", "3C", "6H"])
ZONE = st.sampled_from(["player1", "player2", "player3", "banker1", "banker2", "banker3", "discard"])
EVENT = st.one_of(
    st.builds(lambda c: ("shoe", "card", {"card": c}), CARD),
    st.builds(lambda c: ("shoe", "card", {"card": c, "multi": True}), CARD),
    st.just(("dealer", "bets_closed", {})),
    st.just(("shoe", "unreadable", {})),
    st.builds(lambda c: ("shoe", "cut_card", {"color": c}), st.sampled_from(["blue", "yellow"])),
    st.builds(lambda n: ("shoe", "gap", {"missing": n}), st.integers(1, 5)),
    st.builds(lambda c, z, f: ("camera", "card_seen", {"card": c, "zone": z, "face": f}),
              CARD, ZONE, st.sampled_from(["up", "down"])),
    st.builds(lambda z, o: ("camera", "card_lost", {"zone": z, "opened": o}), ZONE, st.booleans()),
    st.builds(lambda s: ("dealer", "reveal", {"side": s} if s else {}),
              st.sampled_from([None, "player", "banker"])),
    st.builds(lambda g, a: ("supervisor", "decision", {"game": g, "action": a, "by": "S1", "reason": "r"}),
              st.integers(1, 4), st.sampled_from(["accept", "void", "void_shoe"])),
    st.just(("dealer", "end_shoe", {})),
    st.builds(lambda d, v, b: ("dealer", "new_shoe", {"shoe_id": "X", "decks": d, "variant": v,
                                                      "burn_after_each_game": b}),
              st.sampled_from([1, 8]), st.sampled_from(["standard", "super6", "7up"]), st.booleans()),
)


def snapshot(machine: TableMachine) -> str:
    return json.dumps({
        "phase": machine.phase,
        "shoes": [shoe_view(s, PAYTABLES) for s in machine.shoes],
        "next": next_action(machine), "public": next_action(machine, hide_unrevealed=True),
        "problems": machine.problems,
    }, sort_keys=True)


@settings(max_examples=400, deadline=None)
@given(events=st.lists(EVENT, max_size=60), cut=st.integers(0, 60))
def test_any_event_sequence_is_safe_and_any_prefix_replays_to_the_same_state(events, cut):
    t = Trace().new_shoe(decks=1).burn("2S", "KS", "KH")
    for src, kind, fields in events:
        t.ev(src, kind, **fields)
    parsed = [e for _, e in read_events(t.lines())]
    cut = min(cut, len(parsed))
    live = TableMachine()
    for e in parsed[:cut]:
        live.apply(e)
    at_cut = snapshot(live)
    replayed = TableMachine()
    for e in parsed[:cut]:
        replayed.apply(e)
    assert snapshot(replayed) == at_cut
    for e in parsed[cut:]:
        live.apply(e)
    full = TableMachine()
    for e in parsed:
        full.apply(e)
    assert snapshot(full) == snapshot(live)
