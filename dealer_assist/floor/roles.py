"""Database roles of the floor: one login role per table, the people who read, the service.

A table's role (`table_<id>`, lower case) is a member of `floor_table`: row-level security
lets it add and read its own table's rows only (docs/floor.md). Its password is generated
here and shown once; the central store keeps only PostgreSQL's SCRAM verifier of it, and only
the verifier is sent: libpq computes it here, so the password itself is never in a statement
the server could log (a failed CREATE ROLE is logged whole, by default).
"""

from __future__ import annotations

import re
import secrets

import psycopg
from psycopg import sql

TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
#: The groups of logins that are not tables: readers, and the floor service's own (which also
#: reads the floor's users and stores decision requests; migration 5).
READERS = ("floor_reader", "floor_regulator", "floor_service")


class BadTableId(ValueError):
    """A table id the floor refuses: 1 to 32 letters, digits, `_` or `-`."""


def check_table_id(table: str) -> str:
    if not TABLE_ID.fullmatch(table):
        raise BadTableId(f"a table id is 1 to 32 letters, digits, '_' or '-', not {table!r}")
    return table


def role_of(table: str) -> str:
    return "table_" + check_table_id(table).lower().replace("-", "_")


def add_table(conn: psycopg.Connection, table: str) -> tuple[str, str]:
    """Register `table` and create its login role; return (role, password). Fails if it exists."""
    role = role_of(table)
    password = secrets.token_urlsafe(24)
    with conn.transaction():
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone():
            raise ValueError(f"the role {role} already exists (table {table} was added before)")
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} IN ROLE floor_table").format(
            sql.Identifier(role), sql.Literal(verifier(conn, role, password))))
        conn.execute("INSERT INTO floor_tables (table_id, role) VALUES (%s, %s)", (table, role))
    conn.commit()
    return role, password


def add_reader(conn: psycopg.Connection, name: str, group: str) -> str:
    """Create a login role in `group` (floor_reader, floor_regulator or floor_service); return
    its password."""
    if group not in READERS:
        raise ValueError(f"a reader's group is one of {', '.join(READERS)}, not {group!r}")
    password = secrets.token_urlsafe(24)
    with conn.transaction():
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} IN ROLE {}").format(
            sql.Identifier(name), sql.Literal(verifier(conn, name, password)),
            sql.Identifier(group)))
    conn.commit()
    return password


def new_password(conn: psycopg.Connection, role: str) -> str:
    """Give the login `role` a fresh password; return it (the old one stops working)."""
    password = secrets.token_urlsafe(24)
    with conn.transaction():
        conn.execute(sql.SQL("ALTER ROLE {} PASSWORD {}").format(
            sql.Identifier(role), sql.Literal(verifier(conn, role, password))))
    conn.commit()
    return password


def verifier(conn: psycopg.Connection, role: str, password: str) -> str:
    """PostgreSQL's SCRAM-SHA-256 verifier of `role`'s `password`, computed by libpq here."""
    return conn.pgconn.encrypt_password(password.encode(), role.encode(),
                                        b"scram-sha-256").decode()


def service_overreach(conn: psycopg.Connection) -> str | None:
    """What the session's login may do that the floor service, which faces the web, must not:
    be a superuser, create roles, bypass row-level security, or add, change or delete events.
    None when it may do none of these (a login in floor_service)."""
    row = conn.execute(
        "SELECT current_user, rolsuper, rolcreaterole, rolbypassrls, "
        "has_table_privilege('events', 'INSERT, UPDATE, DELETE, TRUNCATE') "
        "FROM pg_roles WHERE rolname = current_user").fetchone()
    assert row is not None  # the session's own role
    who, *rights = row
    names = ("is a superuser", "may create roles", "bypasses row-level security",
             "may write the events")
    found = [name for name, held in zip(names, rights, strict=True) if held]
    return f"the login {who} {' and '.join(found)}" if found else None
