"""The table's pages: its templates (`web/templates/`: the console, the dealer's page, the
regulator's pages) over the ones both web apps share (accounts/pages.py: the environment, the
page chrome, the login form, the message page, the fragments both show of a game).

A base layout (`base.html`: the shared chrome with the supervisor's links), one template per
page and the tables each kind of page shows written once (`decisions.html`, `games.html`;
`flags.html` is shared). `render` and `message` are this app's; a page speaks the language of
its request (`?lang=`, else the account's, else English).
"""

from __future__ import annotations

from pathlib import Path

from dealer_assist.accounts.pages import Pages

TEMPLATES = Path(__file__).resolve().parent / "templates"

#: The texts the console's script writes (static/console.js), sent in the page's language.
SCRIPT_TEXTS = ("The queue has changed: reload the page when you are done.",)

PAGES = Pages(TEMPLATES, SCRIPT_TEXTS)
templates = PAGES.templates
render = PAGES.render
message = PAGES.message
