"""Reading trace lines: orjson reads them fast, yet every line means what `json.loads` made of it."""

import json
from pathlib import Path

import pytest

from dealer_assist.domain.events import TraceError, parse_event
from dealer_assist.services.audit import audit_lines
from dealer_assist.services.trace import TraceLineError, read_events

GOLDEN = Path(__file__).resolve().parent.parent / "fixtures" / "golden"
CARD = '{"ts":"2026-11-29T10:00:01.000Z","src":"shoe","type":"card","card":"7H"'


@pytest.mark.parametrize("line", [
    CARD + ',"reader_gain":NaN}',                    # orjson refuses NaN
    "\ufeff" + CARD + "}",                           # and a byte-order mark
])
def test_lines_orjson_refuses_are_read_as_json_loads_reads_them(line):
    plain = CARD + "}"
    assert [e.as_dict() for _, e in read_events([line.encode()])] == \
        [e.as_dict() for _, e in read_events([plain.encode()])]


def test_a_golden_trace_read_as_bytes_or_text_with_blank_lines_audits_the_same():
    text = (GOLDEN / "super6.jsonl").read_text()
    expected = json.loads((GOLDEN / "super6.audit.json").read_text())
    with_blanks = text.replace("\n", "\n\n", 3).encode().splitlines()
    assert audit_lines(with_blanks) == expected
    assert audit_lines(text.splitlines()) == expected


def test_a_line_that_is_not_json_gets_the_message_json_loads_gave():
    with pytest.raises(TraceLineError) as caught:
        list(read_events([b"", b"not json"]))
    assert caught.value.line == 2
    assert caught.value.problem == "not valid JSON (Expecting value: line 1 column 1 (char 0))"


def test_a_line_that_is_not_an_event_gets_the_event_parser_message():
    with pytest.raises(TraceError) as parser:
        parse_event({"ts": 1})
    with pytest.raises(TraceLineError) as caught:
        list(read_events([b'{"ts": 1}']))
    assert (caught.value.line, caught.value.problem) == (1, str(parser.value))


def test_a_decision_keeps_a_shoe_id_over_64_bits_exactly():
    line = ('{"ts":"2026-11-29T10:00:01.000Z","src":"supervisor","type":"decision","game":1,'
            '"action":"void","by":"ann","reason":"misdeal","shoe_id":123456789012345678901234567}')
    [(_, event)] = read_events([line.encode()])
    assert event.shoe_id == "123456789012345678901234567"
