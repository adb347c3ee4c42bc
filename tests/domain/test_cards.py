import pytest

from dealer_assist.domain.cards import CARD_CODES, CardError, burn_value, parse_card, total, value


@pytest.mark.parametrize("text, code", [("QS", "QS"), ("TD", "TD"), ("10D", "TD"), ("10c", None),
                                        ("AH", "AH"), ("9C", "9C")])
def test_parse_card(text, code):
    if code is None:
        with pytest.raises(CardError):
            parse_card(text)
    else:
        assert parse_card(text) == code


@pytest.mark.parametrize("bad", ["", "Q", "QX", "1S", "11S", "ZZ", "qs", " QS", "QSS", None, 12, ["QS"]])
def test_parse_card_rejects_with_a_clear_message(bad):
    with pytest.raises(CardError) as e:
        parse_card(bad)
    assert repr(bad) in str(e.value) or "string" in str(e.value)


def test_lower_case_gets_a_hint():
    with pytest.raises(CardError, match="'QS'"):
        parse_card("qs")


def test_52_distinct_codes():
    assert len(set(CARD_CODES)) == 52
    assert all(parse_card(c) == c for c in CARD_CODES)


def test_values_and_burn_values():
    assert [value(r + "S") for r in "A23456789TJQK"] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0]
    assert [burn_value(r + "S") for r in "A23456789TJQK"] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    assert burn_value("AS", ace_burns=11) == 11
    assert total([7, 8]) == 5
