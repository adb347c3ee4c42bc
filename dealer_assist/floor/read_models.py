"""The floor's read models, kept in PostgreSQL and folded from each table's stored events.

`table_status` (last seq and event time, when it arrived, current shoe, game and variant, the
last result, the flags that wait for a decision (`open_flags`: review, void and shoe_void, each
a person can act on) and the informational flags of the current shoe (`info_flags`: info, that
need no decision), the shoe's and camera's link), `games` (with each game's dealer), `flags`,
`shoes` and `decisions` per table: the pit and floor pages read these and never re-fold a log.
The floor service folds them from the events stored centrally (floor/fold.py), never a table.

The events are folded by the domain's own table machine, a batch at a time: the machine runs
over the batch in Python and what it made is gathered (`_Changes`), then written with one
statement per read model (rows passed as arrays, `unnest`), whatever the batch's length. The
machine is kept between batches, and between connections, for as long as it stands exactly
after the event before the batch (its seq and hash); otherwise (a first batch, a batch that
was not committed, an error) it is rebuilt from the central copy of the current shoe only,
since a new shoe starts the machine afresh.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import psycopg
from psycopg import sql

from dealer_assist.domain.events import TraceError, parse_event
from dealer_assist.domain.phases import NO_SHOE
from dealer_assist.domain.report import winner
from dealer_assist.domain.table import TableMachine
from dealer_assist.logformat import ChainHead

#: The link columns of `table_status`, by the device a `link_status` event names.
LINKS = {"shoe": "shoe_link", "camera": "camera_link"}
#: The `table_status` columns a batch may set besides its last seq and time.
STATUS_COLUMNS = ("shoe_id", "shoe_seq", "variant", "game", "last_result", "shoe_link",
                  "camera_link")


class _Changes:
    """What one batch does to the read models, gathered while the machine folds it."""

    def __init__(self, first_seq: int) -> None:
        self.first_seq = first_seq
        self.status: dict[str, Any] = {}
        #: shoes started in the batch, by their first seq: [shoe_id, variant, ts, ended_seq]
        self.shoes: dict[int, list[Any]] = {}
        #: shoes started before the batch that it finishes: started_seq -> ended_seq
        self.shoe_ends: dict[int, int] = {}
        #: games started in the batch: (shoe_id, game) -> [seq, ts, dealer, completed, winner]
        self.games: dict[tuple[str | None, int], list[Any]] = {}
        #: games started before the batch that it completes: (shoe_id, game) -> (seq, winner)
        self.game_ends: dict[tuple[str | None, int], tuple[int, str]] = {}
        #: flags raised in the batch: [seq, shoe_id, game, code, severity, detail, decided]
        self.flags: list[list[Any]] = []
        #: the first decision in the batch on the flags of a game raised before it:
        #: (shoe_id, game, the whole shoe from that game on) -> seq
        self.flag_decisions: dict[tuple[str | None, int, bool], int] = {}
        self.decisions: list[tuple[Any, ...]] = []


class FloorModels:
    """Folds one table's stored events into its rows of the read models (on the caller's
    transaction). The machine is kept while it stands after the event before each batch."""

    def __init__(self, table: str) -> None:
        self.table = table
        self._machine: TableMachine | None = None
        #: the (seq, hash) of the last event the machine folded; None: rebuild before use
        self._at: ChainHead | None = None
        #: the first seq of the current shoe (table_status.shoe_seq)
        self._shoe_seq: int | None = None
        #: The dealer of each `bets_closed` the machine took in its current shoe (index: the
        #: machine's shoe count): game n's dealer is its nth bets_closed's, as at the table.
        self._dealers: tuple[int, list[str | None]] = (0, [])
        #: why the table's next events could not be folded, as last said (floor/fold.py)
        self.stuck: str | None = None

    def reset(self) -> None:
        """Forget the machine: the next batch rebuilds it from the central store."""
        self._machine, self._at = None, None

    def fold(self, conn: psycopg.Connection, events: list[tuple[int, dict[str, Any]]],
             after: ChainHead | None = None, last_hash: str | None = None,
             received_at: datetime | None = None) -> None:
        """Fold `events` (seq, event), stored right after `after` (the chain head before them;
        None: unknown, rebuild); `last_hash`: the hash of the last; `received_at`: when the
        last was stored centrally (None: now)."""
        if not events:
            return
        machine = self._machine if after is not None and after == self._at else None
        self._at = None  # until the batch is folded whole
        if machine is None:
            machine = self._rebuild(conn, before=events[0][0])
        changes = _Changes(events[0][0])
        for seq, event in events:
            self._apply(machine, changes, seq, event)
        self._machine = machine
        self._at = ChainHead(events[-1][0], last_hash) if last_hash else None
        self._write(conn, changes, events[-1], received_at)

    def _rebuild(self, conn: psycopg.Connection, before: int) -> TableMachine:
        """A machine at the state the stored events before seq `before` leave (the batch being
        folded is already inserted, in the same transaction), replayed from the current shoe."""
        machine = TableMachine(record=False)
        self._dealers = (0, [])
        row = conn.execute("SELECT shoe_seq FROM table_status WHERE table_id = %s",
                           (self.table,)).fetchone()
        self._shoe_seq = row[0] if row else None
        if self._shoe_seq is not None:
            rows = conn.execute("SELECT body FROM events WHERE table_id = %s AND seq >= %s "
                                "AND seq < %s ORDER BY seq", (self.table, self._shoe_seq, before))
            for (body,) in rows.fetchall():
                event = json.loads(body)
                _apply_quietly(machine, event)
                self._note_dealer(machine, event)
        machine.record = True
        return machine

    # ---- one event, in Python --------------------------------------------------------------
    def _apply(self, machine: TableMachine, changes: _Changes, seq: int,
               event: dict[str, Any]) -> None:
        kind_of_event = event.get("type")
        ts = event["ts"]
        if kind_of_event == "link_status" and event.get("src") in LINKS:
            changes.status[LINKS[str(event["src"])]] = str(event.get("status", ""))[:40]
        elif kind_of_event == "decision":
            self._decision(machine, changes, seq, event)
        made = _apply_quietly(machine, event)
        self._note_dealer(machine, event)
        for kind, shoe_id, game, data in made:
            if kind == "shoe_started":
                variant = getattr(data, "variant", "standard")
                changes.status.update(shoe_id=shoe_id, shoe_seq=seq, game=None, variant=variant,
                                      last_result=None)
                changes.shoes.setdefault(seq, [shoe_id, variant, ts, None])
                self._shoe_seq = seq
            elif kind == "shoe_finished" and self._shoe_seq is not None:
                started = changes.shoes.get(self._shoe_seq)
                if started is not None:
                    if started[3] is None:
                        started[3] = seq
                else:
                    changes.shoe_ends.setdefault(self._shoe_seq, seq)
            elif kind == "game_started" and game is not None:
                changes.games.setdefault((shoe_id, game),
                                         [seq, ts, self._dealer_of(game), None, None])
                changes.status["game"] = game
            elif kind == "game_completed" and game is not None:
                found = machine.shoe.game(game) if machine.shoe and game else None
                won = (winner(found) if found else None) or "void"
                started_here = changes.games.get((shoe_id, game))
                if started_here is not None:
                    started_here[3:] = [seq, won]
                else:
                    changes.game_ends[(shoe_id, game)] = (seq, won)
                changes.status["last_result"] = f"game {game}: {won}"
            elif kind == "flag_raised":
                changes.flags.append([seq, shoe_id, game, data.code, data.severity, data.detail,
                                      None])
            elif kind == "decision_applied" and game is not None:
                self._decided(changes, seq, data.shoe_id or shoe_id, game,
                              data.action == "void_shoe")

    @staticmethod
    def _decided(changes: _Changes, seq: int, shoe_id: str | None, game: int,
                 whole_shoe: bool) -> None:
        """The flags a decision settles: its game's; for `void_shoe`, as at the table, those
        of every game from it on and the shoe's own (a shoe_void flag such as BURN_SHORT)."""
        def settles(flag_game: int | None) -> bool:
            return flag_game == game or (whole_shoe and (flag_game is None or flag_game > game))

        for flag in changes.flags:
            if flag[1] == shoe_id and settles(flag[2]) and flag[6] is None:
                flag[6] = seq
        changes.flag_decisions.setdefault((shoe_id, game, whole_shoe), seq)

    def _decision(self, machine: TableMachine, changes: _Changes, seq: int,
                  event: dict[str, Any]) -> None:
        """A decision, kept for the floor (the request it answers is settled by floor/fold.py)."""
        game = event.get("game")
        if not isinstance(game, int) or isinstance(game, bool) or not 0 < game < 2**31:
            return
        shoe_id = event.get("shoe_id") or (machine.shoe.shoe_id if machine.shoe else None)
        changes.decisions.append((seq, event["ts"], shoe_id, game, str(event.get("action", "")),
                                  str(event.get("by", "")), str(event.get("reason", ""))))

    def _note_dealer(self, machine: TableMachine, event: dict[str, Any]) -> None:
        """Keep the dealer of a `bets_closed` that a shoe took (docs/service.md)."""
        if event.get("type") != "bets_closed" or not machine.shoes or machine.phase == NO_SHOE:
            return
        shoes, dealers = self._dealers
        if shoes != len(machine.shoes):
            shoes, dealers = len(machine.shoes), []
        dealers.append(dealer_of(event))
        self._dealers = (shoes, dealers)

    def _dealer_of(self, game: int | None) -> str | None:
        dealers = self._dealers[1]
        return dealers[game - 1] if game and 0 < game <= len(dealers) else None

    # ---- the batch, in SQL -------------------------------------------------------------------
    def _write(self, conn: psycopg.Connection, c: _Changes, last: tuple[int, dict[str, Any]],
               received_at: datetime | None) -> None:
        """One statement per read model the batch changes, then the table's status."""
        table = self.table
        if c.shoe_ends:
            conn.execute("UPDATE shoes s SET ended_seq = u.ended FROM unnest(%b::bigint[], "
                         "%b::bigint[]) u(started, ended) WHERE s.table_id = %s AND "
                         "s.started_seq = u.started AND s.ended_seq IS NULL",
                         (list(c.shoe_ends), list(c.shoe_ends.values()), table))
        if c.shoes:
            conn.execute("INSERT INTO shoes (table_id, shoe_id, variant, started_seq, "
                         "started_ts, ended_seq) SELECT %s, * FROM unnest(%b::text[], "
                         "%b::text[], %b::bigint[], %b::text[], %b::bigint[]) "
                         "ON CONFLICT DO NOTHING",
                         (table, *_columns([(v[0], v[1], k, v[2], v[3])
                                            for k, v in c.shoes.items()], 5)))
        if c.games:
            conn.execute("INSERT INTO games (table_id, shoe_id, game, started_seq, started_ts, "
                         "dealer, completed_seq, winner) SELECT %s, * FROM unnest(%b::text[], "
                         "%b::int[], %b::bigint[], %b::text[], %b::text[], %b::bigint[], "
                         "%b::text[]) ON CONFLICT (table_id, shoe_id, game) DO UPDATE SET "
                         "completed_seq = COALESCE(EXCLUDED.completed_seq, games.completed_seq), "
                         "winner = COALESCE(EXCLUDED.winner, games.winner)",
                         (table, *_columns([(s, g, *v) for (s, g), v in c.games.items()], 7)))
        if c.game_ends:
            conn.execute("UPDATE games g SET completed_seq = u.seq, winner = u.winner FROM "
                         "unnest(%b::text[], %b::int[], %b::bigint[], %b::text[]) "
                         "u(shoe_id, game, seq, winner) WHERE g.table_id = %s AND "
                         "g.shoe_id = u.shoe_id AND g.game = u.game",
                         (*_columns([(s, g, *v) for (s, g), v in c.game_ends.items()], 4),
                          table))
        if c.flag_decisions:
            conn.execute(_SETTLE, (*_columns([(s, g, w, q) for (s, g, w), q
                                              in c.flag_decisions.items()], 4),
                                   table, c.first_seq, table))
        if c.flags:
            conn.execute("INSERT INTO flags (table_id, seq, shoe_id, game, code, severity, "
                         "detail, decided_seq) SELECT %s, * FROM unnest(%b::bigint[], "
                         "%b::text[], %b::int[], %b::text[], %b::text[], %b::text[], "
                         "%b::bigint[]) ON CONFLICT DO NOTHING",
                         (table, *_columns(c.flags, 7)))
        if c.decisions:
            conn.execute("INSERT INTO decisions (table_id, seq, ts, shoe_id, game, action, by, "
                         "reason) SELECT %s, * FROM unnest(%b::bigint[], %b::text[], "
                         "%b::text[], %b::int[], %b::text[], %b::text[], %b::text[]) "
                         "ON CONFLICT DO NOTHING", (table, *_columns(c.decisions, 7)))
        recount = bool(c.flags or c.flag_decisions or c.shoes)
        self._write_status(conn, c.status, last, received_at, recount)

    def _write_status(self, conn: psycopg.Connection, status: dict[str, Any],
                      last: tuple[int, dict[str, Any]], received_at: datetime | None,
                      recount: bool) -> None:
        """The table's status after the batch; its flags counted again only when the batch
        raised or decided a flag, or started a shoe."""
        columns = tuple(name for name in STATUS_COLUMNS if name in status)
        query = _status_query(columns, recount)
        count = (self.table, self.table, self._shoe_seq) if recount else ()
        conn.execute(query, (self.table, last[0], last[1]["ts"], received_at, *count,
                             *(status[n] for n in columns)))


#: The flags raised before the batch that its decisions settle, each by the first of them:
#: (shoe_id, game, whole shoe from that game on, seq) as arrays; the table; the batch's first seq.
_SETTLE = """
WITH u AS (SELECT * FROM unnest(%b::text[], %b::int[], %b::bool[], %b::bigint[])
           AS v(shoe_id, game, whole, seq)),
m AS (SELECT f.seq, f.code, f.detail, min(u.seq) AS decided FROM flags f JOIN u
      ON f.shoe_id IS NOT DISTINCT FROM u.shoe_id
         AND (f.game = u.game OR (u.whole AND (f.game IS NULL OR f.game > u.game)))
      WHERE f.table_id = %s AND f.decided_seq IS NULL AND f.seq < %s
      GROUP BY f.seq, f.code, f.detail)
UPDATE flags f SET decided_seq = m.decided FROM m
WHERE f.table_id = %s AND f.seq = m.seq AND f.code = m.code AND f.detail = m.detail
"""

_STATUS_QUERIES: dict[tuple[tuple[str, ...], bool], sql.Composed] = {}


#: The flags a person can act on, undecided: a game's review or void flag, and a shoe's
#: shoe_void flag (BURN_SHORT), as the pit's queue lists them (floor/web/pit_queue.py); a
#: shoe-level review flag (BURN_EXCESS) belongs to no game and no decision takes it. And the
#: informational ones (info: they need no decision) of the current shoe (from its first seq).
_OPEN = ("(SELECT count(*) FROM flags WHERE table_id = %s AND decided_seq IS NULL AND "
         "(severity = 'shoe_void' OR (severity IN ('review', 'void') AND game IS NOT NULL)))")
_INFO = ("(SELECT count(*) FROM flags WHERE table_id = %s AND severity = 'info' AND "
         "seq >= COALESCE(%s::bigint, 0))")


def _status_query(columns: tuple[str, ...], recount: bool) -> sql.Composed:
    """The upsert of `table_status` setting `columns` (composed once per set of columns)."""
    key = (columns, recount)
    if key not in _STATUS_QUERIES:
        names = sql.SQL("").join(sql.SQL(", {}").format(sql.Identifier(n)) for n in columns)
        values = sql.SQL("").join(sql.SQL(", %s") for _ in columns)
        sets = sql.SQL("").join(sql.SQL(", {0} = EXCLUDED.{0}").format(sql.Identifier(n))
                                for n in columns)
        counts, recounts = (sql.SQL(f"{_OPEN}, {_INFO}"), sql.SQL(
            ", open_flags = EXCLUDED.open_flags, info_flags = EXCLUDED.info_flags")
        ) if recount else (sql.SQL("0, 0"), sql.SQL(""))
        _STATUS_QUERIES[key] = sql.SQL(
            "INSERT INTO table_status (table_id, last_seq, last_ts, received_at, open_flags, "
            "info_flags{}) VALUES (%s, %s, %s, COALESCE(%s, now()), {}{}) "
            "ON CONFLICT (table_id) DO UPDATE SET last_seq = EXCLUDED.last_seq, "
            "last_ts = EXCLUDED.last_ts, received_at = EXCLUDED.received_at{}{}").format(
                names, counts, values, recounts, sets)
    return _STATUS_QUERIES[key]


def _columns(rows: list[Any], width: int) -> list[list[Any]]:
    """Rows as `width` columns (lists), for `unnest`."""
    return [list(column) for column in zip(*rows, strict=True)] if rows else [[]] * width


def dealer_of(event: dict[str, Any]) -> str | None:
    """The dealer a game-starting `bets_closed` names (docs/service.md), or None."""
    dealer = event.get("dealer")
    return dealer if isinstance(dealer, str) and 1 <= len(dealer) <= 64 else None


def _apply_quietly(machine: TableMachine, event: dict[str, Any]) -> list[Any]:
    """What the machine made of `event`; an event the machine does not know changes nothing."""
    try:
        return machine.apply(parse_event(event))
    except TraceError:
        return []
