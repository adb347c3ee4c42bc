"""The site's gaming day across daylight-saving changes: which day an instant belongs to at
the edges, 23- and 25-hour days, ranges typed by people, local times shown, and the table
configuration's two keys."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from dealer_assist.config import ConfigError, load_table_config
from dealer_assist.config.gaming_day import GamingDay, UnknownZone, site_zone
from dealer_assist.export.source import parse_when

LONDON = GamingDay(site_zone("Europe/London"), 6)
NEW_YORK = GamingDay(site_zone("America/New_York"), 6)
MS = timedelta(milliseconds=1)


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(("site", "day", "start", "hours"), [
    (LONDON, date(2026, 3, 27), "2026-03-27T06:00", 24),
    (LONDON, date(2026, 3, 28), "2026-03-28T06:00", 23),  # clocks forward at 01:00 GMT
    (LONDON, date(2026, 3, 29), "2026-03-29T05:00", 24),
    (LONDON, date(2026, 10, 24), "2026-10-24T05:00", 25),  # clocks back at 02:00 BST
    (LONDON, date(2026, 10, 25), "2026-10-25T06:00", 24),
    (NEW_YORK, date(2026, 3, 7), "2026-03-07T11:00", 23),
    (NEW_YORK, date(2026, 10, 31), "2026-10-31T10:00", 25),
    (GamingDay(), date(2026, 3, 29), "2026-03-29T00:00", 24),
])
def test_a_gaming_day_runs_from_its_start_hour_local_to_the_next(site, day, start, hours):
    begin, end = site.bounds(day)
    assert begin == utc(start)
    assert end - begin == timedelta(hours=hours)
    assert site.bounds(day + timedelta(days=1))[0] == end  # days tile time, no gap, no overlap


@pytest.mark.parametrize(("site", "instant", "day"), [
    (LONDON, "2026-03-29T04:59:59.999", date(2026, 3, 28)),  # 05:59:59.999 BST
    (LONDON, "2026-03-29T05:00:00", date(2026, 3, 29)),  # 06:00 BST
    (LONDON, "2026-03-29T00:59:59.999", date(2026, 3, 28)),  # the last second of GMT
    (LONDON, "2026-10-25T05:59:59.999", date(2026, 10, 24)),  # 05:59:59.999 GMT
    (LONDON, "2026-10-25T06:00:00", date(2026, 10, 25)),
    (LONDON, "2026-10-25T01:30:00", date(2026, 10, 24)),  # the second 01:30 of the night
    (NEW_YORK, "2026-03-08T09:59:59.999", date(2026, 3, 7)),
    (NEW_YORK, "2026-03-08T10:00:00", date(2026, 3, 8)),
    (NEW_YORK, "2026-11-01T10:59:59.999", date(2026, 10, 31)),
    (NEW_YORK, "2026-11-01T11:00:00", date(2026, 11, 1)),
])
def test_an_instant_belongs_to_the_gaming_day_whose_range_holds_it(site, instant, day):
    moment = utc(instant)
    assert site.day_of(moment) == day
    begin, end = site.bounds(day)
    assert begin <= moment < end
    assert site.day_of(moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z") == day  # a log time


def test_a_start_hour_the_clocks_skip_is_taken_before_the_change():
    night = GamingDay(site_zone("Europe/London"), 1)  # 01:00 GMT becomes 02:00 BST
    begin, end = night.bounds(date(2026, 3, 29))
    assert (begin, end) == (utc("2026-03-29T01:00"), utc("2026-03-30T00:00"))
    assert night.day_of(begin - MS) == date(2026, 3, 28) and night.day_of(begin) == date(2026, 3, 29)


def test_typed_ranges_are_read_on_the_sites_clock():
    assert parse_when("2026-03-29", LONDON) == utc("2026-03-29T05:00")
    assert parse_when("2026-03-28", LONDON) == utc("2026-03-28T06:00")
    assert parse_when("2026-10-25T14:00", LONDON) == utc("2026-10-25T14:00")  # GMT again
    assert parse_when("2026-07-01T14:00", LONDON) == utc("2026-07-01T13:00")  # BST
    assert parse_when("2026-07-01T14:00Z", LONDON) == utc("2026-07-01T14:00")
    assert parse_when("2026-07-01T14:00-04:00", LONDON) == utc("2026-07-01T18:00")
    # Without a site: as before, midnight UTC and times without an offset in UTC.
    assert parse_when("2026-03-29") == utc("2026-03-29T00:00")
    assert parse_when("2026-07-01T14:00") == utc("2026-07-01T14:00")
    with pytest.raises(ValueError, match="is not a time"):
        parse_when("2026-02-30", LONDON)


def test_times_show_local_with_the_zones_abbreviation():
    assert LONDON.show("2026-03-29T00:59:59.000Z") == "2026-03-29 00:59:59 GMT"
    assert LONDON.show("2026-03-29T01:00:00.000Z") == "2026-03-29 02:00:00 BST"
    assert NEW_YORK.show("2026-11-01T05:30:00.000Z") == "2026-11-01 01:30:00 EDT"
    assert NEW_YORK.show("2026-11-01T06:30:00.000Z") == "2026-11-01 01:30:00 EST"
    assert NEW_YORK.show_time("2026-11-01T06:30:00.000Z") == "01:30:00 EST"
    assert GamingDay().show("2026-11-01T06:30:00.000Z") == "2026-11-01 06:30:00 UTC"
    assert LONDON.show("") == "" and LONDON.show("not a time") == "not a time"


def test_a_day_past_the_calendars_end_is_a_clear_error():
    with pytest.raises(ValueError, match="out of range"):
        NEW_YORK.bounds(date.max)
    with pytest.raises(UnknownZone, match="Mars/Olympus"):
        site_zone("Mars/Olympus")


def write_config(folder: Path, table: str) -> Path:
    path = folder / "table.toml"
    path.write_text(f'[table]\nid = "T1"\n{table}\n', encoding="utf-8")
    return path


def test_the_table_config_names_the_zone_and_the_start_hour(tmp_path):
    config = load_table_config(write_config(
        tmp_path, 'time_zone = "America/New_York"\ngaming_day_starts = 6'))
    assert config.gaming_day == NEW_YORK
    assert load_table_config(write_config(tmp_path, "")).gaming_day == GamingDay()


@pytest.mark.parametrize(("line", "says"), [
    ('time_zone = "Mars/Olympus"', "table.time_zone: 'Mars/Olympus' is not an IANA time zone"),
    ('time_zone = "../../etc/passwd"', "table.time_zone"),
    ("time_zone = 5", "table.time_zone must be a string"),
    ("gaming_day_starts = 24", "table.gaming_day_starts must be a whole number from 0 to 23"),
    ('gaming_day_starts = "06:00"', "table.gaming_day_starts must be a whole number"),
])
def test_a_bad_zone_or_start_hour_is_a_config_error_naming_file_and_key(tmp_path, line, says):
    path = write_config(tmp_path, line)
    with pytest.raises(ConfigError) as caught:
        load_table_config(path)
    assert str(path) in str(caught.value) and says in str(caught.value)
