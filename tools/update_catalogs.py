"""Add new message ids to every catalog: `python tools/update_catalogs.py` (a developer's command,
run from a checkout; the wheel does not carry it).

The ids are the templates' `_()` texts, every web app's (each `templates` folder under
`dealer_assist/`, extracted as `tools/babel.cfg` says), and the texts the server or the scripts
show that no template holds: the flags' rules, the display's texts (the next action, shoe states, links, bets), the console's and the pit's
script texts, the review's actions, the floor requests' states, the words and titles drawn in
the pictures (charts.svg.WORDS, TITLES), the flags' details, the proposed corrections, the
links' reasons and the pages' refusals (i18n/details.py). An id new to a catalog is added
untranslated (English keeps the id as it is); existing translations are kept and no id is
removed. `tests/i18n` then fails, naming each id a language lacks, until a translator fills it
in.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from dealer_assist import i18n
from dealer_assist.config.languages import LANGUAGES

PACKAGE = Path(i18n.__file__).resolve().parents[1]
_FORMAT = re.compile(r"%\(\w+\)s")


def template_folders() -> list[Path]:
    """Every web app's templates, the table's first (babel.cfg names the same folders): a new id
    is added to the catalogs in the order it is found."""
    table = PACKAGE / "web" / "templates"
    return sorted((folder for folder in PACKAGE.glob("**/templates") if folder.is_dir()),
                  key=lambda folder: (folder != table, str(folder)))


def template_ids() -> list[str]:
    found = [m for folder in template_folders()
             for _, _, m, _, _ in extract_from_dir(
                 str(folder), method_map=[("**.html", "jinja2")],
                 options_map={"**.html": {"extensions": "jinja2.ext.i18n"}})]
    return list(dict.fromkeys(m for m in found if isinstance(m, str)))


def server_ids() -> list[str]:
    """The texts shown that are not in a template (imported here: the runtime package never
    imports its web apps for its catalogs)."""
    from dealer_assist.accounts.pages import ACTIONS
    from dealer_assist.charts.svg import TITLES, WORDS
    from dealer_assist.domain.flags import FLAGS
    from dealer_assist.floor.web.pages import SCRIPT_TEXTS as FLOOR_SCRIPT_TEXTS
    from dealer_assist.floor_wire import STATUS_TEXT
    from dealer_assist.i18n import details
    from dealer_assist.services.public_view import LINK_WORDS
    from dealer_assist.web.display import DISPLAY_TEXTS
    from dealer_assist.web.pages import SCRIPT_TEXTS

    return list(dict.fromkeys([*(f.rule for f in FLAGS.values()), *DISPLAY_TEXTS,
                               *SCRIPT_TEXTS, *ACTIONS.values(), *LINK_WORDS.values(),
                               *WORDS.values(), *TITLES.values(), *details.ids(),
                               *FLOOR_SCRIPT_TEXTS, *STATUS_TEXT.values()]))


def needed_ids() -> list[str]:
    return list(dict.fromkeys(template_ids() + server_ids()))


def update(lang: str, ids: list[str]) -> list[str]:
    """Add the ids `lang`'s catalog lacks; the ids added."""
    path = i18n.po_file(lang)
    with path.open("rb") as f:
        catalog = read_po(f)
    added = [i for i in ids if i not in catalog]
    for msgid in added:
        flags = ("python-format",) if _FORMAT.search(msgid) else ()
        catalog.add(msgid, "", flags=flags)
    if added:
        with path.open("wb") as f:
            write_po(f, catalog, width=100, sort_output=False)
    return added


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tools/update_catalogs.py", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.parse_args(argv)
    ids = needed_ids()
    for lang in LANGUAGES:
        added = update(lang, ids)
        print(f"{lang}.po: {len(added)} new id(s)" + "".join(f"\n  {a!r}" for a in added))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
