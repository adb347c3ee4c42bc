"""`dealer-assist user add|list|disable|enable|passwd`: the people who log in."""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from dataclasses import asdict
from typing import Any

from dealer_assist.accounts.users import MIN_PASSWORD_LENGTH, UserError
from dealer_assist.commands import command
from dealer_assist.config import languages
from dealer_assist.store.users import (
    ROLES,
    User,
    UserStore,
)

DB_ENV = "DEALER_ASSIST_USERS_DB"
DONE = {"disable": "disabled", "enable": "enabled"}

HELP = f"""\
Manage the accounts of the supervisor console and the regulator view. Users live in their
own SQLite file (one per site), given by --db or the environment variable {DB_ENV}.

There is no default user and no default password: create the first supervisor here, e.g.
  dealer-assist user add S-104 --role supervisor --db users.db
The password is asked twice on the terminal, or read from the first line of standard input
with --password-stdin (for scripts; never put it on the command line). Passwords have at
least {MIN_PASSWORD_LENGTH} characters and are stored as argon2 hashes.

Each account has its console language (--language: en, th, zh-Hans or zh-Hant; English
if not given); `language NAME LANG` changes it.

Roles: dealer (the dealer's screen), supervisor (the review console), regulator (read-only
exports). No account is ever locked by wrong passwords (anyone could lock staff out that
way): the service slows repeated failures down instead, by client and by account, and logs
every login, failure and throttle. `list` shows each user's wrong passwords in a row.
"""


def register(subparsers: Any) -> None:
    parser = command(subparsers, "user", "add, list, disable and enable the users who log in",
                     HELP)
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    def action(name: str, help_text: str, named: bool = True) -> argparse.ArgumentParser:
        sub = actions.add_parser(name, help=help_text, description=help_text)
        if named:
            sub.add_argument("name", metavar="NAME", help="the user's name, e.g. S-104")
        sub.add_argument("--db", metavar="FILE", default=os.environ.get(DB_ENV),
                         help=f"the users file (default: ${DB_ENV})")
        sub.set_defaults(func=run)
        return sub

    add = action("add", "add a user; the password is asked twice, or read with --password-stdin")
    add.add_argument("--role", required=True, choices=ROLES, help="what the user may do")
    add.add_argument("--password-stdin", action="store_true",
                     help="read the password from the first line of standard input")
    add.add_argument("--language", default="en", metavar="LANG",
                     help="the console's language for this user: en, th, zh-Hans or zh-Hant "
                          "(default: en)")
    lang = action("language", "set the console's language of a user")
    lang.add_argument("language", metavar="LANG", help="en, th, zh-Hans or zh-Hant")
    passwd = action("passwd", "set a user's password")
    passwd.add_argument("--password-stdin", action="store_true",
                        help="read the password from the first line of standard input")
    listing = action("list", "list the users, their roles and whether they can log in",
                     named=False)
    listing.add_argument("--json", action="store_true", help="print a JSON list")
    action("disable", "stop a user from logging in (the account and its history stay)")
    action("enable", "let a disabled user log in again")


def run(args: argparse.Namespace) -> int:
    if not args.db:
        print(f"dealer-assist user: give the users file with --db FILE or ${DB_ENV}",
              file=sys.stderr)
        return 2
    try:
        with UserStore(args.db) as store:
            return _act(store, args)
    except (UserError, FileNotFoundError, PasswordNotGiven) as exc:
        print(f"dealer-assist user {args.action}: {exc}", file=sys.stderr)
        return 2


def _act(store: UserStore, args: argparse.Namespace) -> int:
    if args.action == "list":
        users = store.all()
        if args.json:
            print(json.dumps([asdict(user) for user in users]))
        else:
            for user in users:
                print(_line(user))
            if not users:
                print("no users yet: add the first supervisor with "
                      "`dealer-assist user add NAME --role supervisor`")
        return 0
    if args.action == "add":
        if store.get(args.name) is not None:
            raise UserError(f"user {args.name!r} exists already")
        _known_language(args.language)  # before asking for a password
        user = store.add(args.name, args.role, _password(args.name, args.password_stdin),
                         args.language)
        print(f"added {_line(user)}")
    elif args.action == "passwd":
        if store.get(args.name) is None:
            raise UserError(f"no user {args.name!r}")
        user = store.set_password(args.name, _password(args.name, args.password_stdin))
        print(f"new password for {_line(user)}")
    elif args.action == "language":
        if store.get(args.name) is None:
            raise UserError(f"no user {args.name!r}")
        user = store.set_language(args.name, args.language)
        print(f"console language set for {_line(user)}")
    else:
        user = getattr(store, args.action)(args.name)
        print(f"{DONE[args.action]} {_line(user)}")
    return 0


def _line(user: User) -> str:
    state = "disabled" if user.disabled else "active"
    if user.failed_logins:
        state += f", {user.failed_logins} wrong password(s) in a row"
    return f"{user.name} ({user.role}, {state}, since {user.created_at}, language {user.language})"


def _known_language(name: str) -> None:
    try:
        languages.language(name)
    except languages.UnknownLanguage as e:
        raise UserError(str(e)) from None


class PasswordNotGiven(ValueError):
    pass


def _password(name: str, from_stdin: bool) -> str:
    """The new password: the first line of stdin, or asked twice on the terminal."""
    if from_stdin:
        line = sys.stdin.readline()
        password = line[:-1] if line.endswith("\n") else line
        password = password[:-1] if password.endswith("\r") else password
        if not password:
            raise PasswordNotGiven("no password on standard input")
        return password
    if not sys.stdin.isatty():
        raise PasswordNotGiven("no terminal to ask the password on: use --password-stdin")
    first = getpass.getpass(f"Password for {name}: ")
    if first != getpass.getpass("Repeat the password: "):
        raise PasswordNotGiven("the two passwords differ; nothing was changed")
    return first
