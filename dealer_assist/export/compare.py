"""What a verification found, and the CSV files compared row by row with the re-audit.

`Findings` keeps the first problems of each file (and counts the rest), so a badly damaged
export is reported in a screenful and memory stays flat. `CsvComparison` is the re-audit's
sink during verification: each row the events imply is compared, as it comes, with the next
row of the file.
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from dealer_assist.export import manifest as mf
from dealer_assist.export.rows import (
    ADDED_GAME_COLUMNS,
    DECISION_COLUMNS,
    FLAG_COLUMNS,
    GAME_COLUMNS,
    Row,
)

PER_FILE = 20


@dataclass(frozen=True)
class Finding:
    """A problem in `file`; `where` is `line N` (events.jsonl), `row N` (a CSV file, data rows
    from 1) or empty for the file as a whole."""

    file: str
    where: str
    message: str

    def __str__(self) -> str:
        place = f"{self.file} {self.where}" if self.where else self.file
        return f"{place}: {self.message}"


class Findings:
    def __init__(self, per_file: int = PER_FILE) -> None:
        self.per_file = per_file
        self.shown: list[Finding] = []
        self.more: dict[str, int] = {}
        self._by_file: dict[str, int] = {}

    def add(self, file: str, where: str, message: str) -> None:
        n = self._by_file[file] = self._by_file.get(file, 0) + 1
        if n <= self.per_file:
            self.shown.append(Finding(file, where, message))
        else:
            self.more[file] = self.more.get(file, 0) + 1

    def of(self, file: str) -> int:
        return self._by_file.get(file, 0)

    def __bool__(self) -> bool:
        return bool(self._by_file)

    def lines(self) -> list[str]:
        out = [str(f) for f in self.shown]
        out += [f"{file}: and {n} more problem(s)" for file, n in self.more.items()]
        return out


def csv_rows(zf: zipfile.ZipFile, name: str) -> Iterator[Row]:
    """The rows of a CSV member, header first (UTF-8; RFC 4180 quoting)."""
    with zf.open(name) as raw, io.TextIOWrapper(raw, encoding="utf-8", newline="") as text:
        yield from csv.reader(text)


Key = tuple[int, ...]


class _File:
    """One CSV file being compared: its rows, read one at a time, matched by a key that grows
    from row to row, so a row left out or added is reported once and the rest still line up."""

    def __init__(self, zf: zipfile.ZipFile, name: str, columns: tuple[str, ...],
                 key: tuple[int, ...], findings: Findings, added: tuple[str, ...] = ()) -> None:
        self.name, self.columns, self.key_columns, self.findings = name, columns, key, findings
        self.rows = csv_rows(zf, name)
        self.row = 0
        self.broken = False
        self._peeked: Row | None = None
        #: How many columns each row has: fewer than `columns` in an export written before a
        #: column was added at the end (`added`); the rows are compared on those.
        self.width = len(columns)
        header = self._read()
        if header is not None and tuple(header) != columns:
            older = [columns[:len(columns) - n] for n in range(1, len(added) + 1)]
            if tuple(header) in older:
                self.width = len(header)
            else:
                findings.add(name, "header", f"columns are {header}, expected {list(columns)}")

    def _read(self) -> Row | None:
        if self.broken:
            return None
        try:
            return next(self.rows, None)
        except (UnicodeDecodeError, csv.Error, zipfile.BadZipFile, OSError, EOFError) as exc:
            self.broken = True
            self.findings.add(self.name, f"row {self.row + 1}", f"cannot be read: {exc}")
            return None

    def _peek(self) -> Row | None:
        if self._peeked is None:
            self._peeked = self._read()
        return self._peeked

    def _take(self) -> Row | None:
        row = self._peek()
        self._peeked = None
        if row is not None:
            self.row += 1
        return row

    def key(self, row: Row) -> Key | None:
        try:
            return tuple(int(row[i] or 0) for i in self.key_columns)
        except (ValueError, IndexError):
            return None

    def compare(self, expected: Row, what: str) -> None:
        expected = expected[:self.width]
        want = self.key(expected)
        while True:
            actual = self._peek()
            if actual is None:
                if not self.broken:
                    self.findings.add(self.name, f"row {self.row + 1}",
                                      f"missing: the events imply a row for {what}")
                return
            got = self.key(actual)
            if got is not None and want is not None and got < want:
                self._take()
                self.findings.add(self.name, f"row {self.row}",
                                  "no event implies this row (a row was added or moved)")
                continue
            if got is not None and want is not None and got > want:
                self.findings.add(self.name, f"row {self.row + 1}",
                                  f"a row is missing before this one: the events imply a row "
                                  f"for {what}")
                return
            self._take()
            break
        if actual == expected:
            return
        where = f"row {self.row}"
        if len(actual) != len(expected):
            self.findings.add(self.name, where, f"has {len(actual)} columns, expected "
                              f"{len(expected)} ({what}: {_join(expected)})")
            return
        diffs = [f"{col} says {a!r}, the events imply {e!r}"
                 for col, a, e in zip(self.columns[:self.width], actual, expected, strict=True)
                 if a != e]
        self.findings.add(self.name, where, f"{what}: " + "; ".join(diffs))

    def finish(self) -> None:
        extra = 0
        while self._take() is not None:
            extra += 1
            if extra == 1:
                self.findings.add(self.name, f"row {self.row}",
                                  "no event implies this row (rows were added)")
        if extra > 1:
            self.findings.add(self.name, f"rows {self.row - extra + 1}..{self.row}",
                              f"{extra} rows in all that no event implies")


def _join(row: Row) -> str:
    return ",".join(row)


def _key(columns: tuple[str, ...], *names: str) -> tuple[int, ...]:
    """The places of the columns whose numbers order a file's rows."""
    return tuple(columns.index(name) for name in names)


class CsvComparison:
    """The re-audit's sink during verification: compares each row with the file's next."""

    def __init__(self, zf: zipfile.ZipFile, findings: Findings) -> None:
        self.games = _File(zf, mf.GAMES, GAME_COLUMNS, _key(GAME_COLUMNS, "shoe_seq", "game"),
                           findings, ADDED_GAME_COLUMNS)
        self.flags = _File(zf, mf.FLAGS, FLAG_COLUMNS, _key(FLAG_COLUMNS, "shoe_seq", "game"),
                           findings)
        self.decisions = _File(zf, mf.DECISIONS, DECISION_COLUMNS, _key(DECISION_COLUMNS, "seq"),
                               findings)
        self.shoes: list[dict[str, Any]] = []

    def game(self, row: Row) -> None:
        self.games.compare(row, f"shoe {row[1]} (seq {row[2]}) game {row[3]}")

    def flag(self, row: Row) -> None:
        game = f" game {row[3]}" if row[3] else ""
        self.flags.compare(row, f"flag {row[4]} of shoe {row[1]}{game}")

    def decision(self, row: Row) -> None:
        self.decisions.compare(row, f"the decision at seq {row[1]}")

    def shoe(self, settings: dict[str, Any]) -> None:
        self.shoes.append(settings)

    def finish(self) -> None:
        for f in (self.games, self.flags, self.decisions):
            f.finish()
