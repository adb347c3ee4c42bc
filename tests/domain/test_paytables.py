"""Pay tables: the shipped defaults, a house's own tables, validation, and results' winning bets."""

import pytest

from dealer_assist.config import ConfigError, load_paytables
from dealer_assist.domain.paytable import PayTableError, paytable_from_mapping
from tests.tracebuild import BURN3, Trace


def bets(g):
    return {b["bet"]: b["pays"] for b in g["winning_bets"]}


def test_standard_banker_commission_pairs_and_big():
    # Player TH TD = 0 draws 2S; Banker 3S 3C = 6 stands on a 2: Banker 6 wins; both pairs.
    g = Trace().new_shoe().burn(*BURN3).game("TH", "3S", "TD", "3C", "2S").games()[0]
    assert g["winner"] == "banker" and g["banker_total"] == 6
    assert bets(g) == {"banker": "0.95:1", "player_pair": "11:1", "banker_pair": "11:1", "big": "0.54:1"}


def test_super6_banker_six_pays_half_and_tie_pushes():
    g = Trace().new_shoe(variant="super6").burn(*BURN3).game("TH", "3S", "TD", "3C", "2S").games()[0]
    assert bets(g)["banker"] == "1:2"
    g = Trace().new_shoe(variant="super6").burn(*BURN3).game("9H", "TS", "TD", "9C").games()[0]
    assert g["winner"] == "tie" and bets(g) == {"tie": "8:1", "small": "1.5:1"}
    g = Trace().new_shoe(variant="super6").burn(*BURN3).game("2H", "9S", "TD", "KC").games()[0]
    assert bets(g)["banker"] == "1:1"


def test_7up_pays_and_super7_window():
    # 7up: B1 9S, P2 TD (Player 7 + 0 = 7 stands), B2 8C (Banker 7 stands): tie on 7, two sevens? no.
    t = Trace().new_shoe(variant="7up", super7_window=1).burn(*BURN3)
    t.game("7S", "KD", "KC")  # Banker 7S KC = 7, Player 7 + KD = 7: tie on 7, sevens 2
    t.game("7H", "KS", "KH")  # same again in game 2: the Super 7's window (1 game) is over
    g1, g2 = t.games()
    assert g1["player_total"] == g1["banker_total"] == 7 and g1["cards"] == 4
    assert g1["player"] == ["KD"] and bets(g1) == {"tie": "9:1", "super7": "3:2"}
    assert bets(g2) == {"tie": "9:1"}


def test_7up_banker_seven_pays_three_to_two():
    g = Trace().new_shoe(variant="7up").burn(*BURN3).game("4S", "KD", "3C").games()[0]
    assert (g["player_total"], g["banker_total"], g["winner"]) == (7, 7, "tie")
    g = Trace().new_shoe(variant="7up").burn(*BURN3).game("5S", "JD", "2C").games()[0]
    assert bets(g) == {"tie": "9:1"}
    g = Trace().new_shoe(variant="7up").burn(*BURN3).game("5S", "AD", "2C").games()[0]
    # Player 7 + A = 8: natural, Banker 7: Player wins with 8.
    assert g["natural"] and bets(g) == {"player": "1:1"}


def test_house_super7_table_by_sevens():
    table = paytable_from_mapping("7up", {
        "player": "1:1", "banker": {"pays": "1:1", "on_total": {"7": "9:5"}}, "tie": "7:1",
        "super7": {"by_sevens": {2: "2:1", 3: "5:1", 4: "17:1", 5: "70:1", 6: "700:1"}}})
    assert table.bets["banker"].for_total(7).text == "9:5"
    assert table.bets["super7"].for_sevens(1) is None
    assert table.bets["super7"].for_sevens(6).text == "700:1"
    won = table.winning_bets("banker", 3, 7, False, False, 5, 3, True)
    assert list(won) == [("banker", "9:5"), ("super7", "5:1")]


@pytest.mark.parametrize("raw, message", [
    ({"player": "1:1", "banker": "1:1", "tie": "8:1", "dragon": "40:1"}, "unknown bet"),
    ({"player": "1:1", "banker": "0,95:1", "tie": "8:1"}, "'a:b'"),
    ({"player": "1:1", "banker": "0:1", "tie": "8:1"}, "above zero"),
    ({"player": "1:1", "tie": "8:1"}, "'banker' bet is required"),
    ({"player": "1:1", "banker": {"pays": "1:1", "on_totl": {}}, "tie": "8:1"}, "unknown key"),
    ({"player": "1:1", "banker": {"on_total": {"12": "1:2"}}, "tie": "8:1"}, "from 0 to 9"),
    ({"player": "1:1", "banker": 0.95, "tie": "8:1"}, "'a:b'"),
])
def test_bad_paytables_are_refused_clearly(raw, message):
    with pytest.raises(PayTableError, match=message):
        paytable_from_mapping("standard", raw)


def test_paytable_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "pays.toml"
    bad.write_text('[standard]\nplayer = "1:1"\n')
    with pytest.raises(ConfigError, match="pays.toml.*lack"):
        load_paytables(bad)
    bad.write_text("[standard\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_paytables(bad)


def test_shipped_defaults_are_the_spec_tables():
    t = load_paytables()
    assert {n: b.pays.text for n, b in t["standard"].bets.items()} == {
        "player": "1:1", "banker": "0.95:1", "tie": "8:1", "player_pair": "11:1",
        "banker_pair": "11:1", "big": "0.54:1", "small": "1.5:1"}
    assert t["super6"].bets["banker"].for_total(6).text == "1:2"
    assert t["7up"].bets["player"].for_total(7).text == "1:2"
    assert t["7up"].bets["tie"].for_total(7).text == "9:1"
