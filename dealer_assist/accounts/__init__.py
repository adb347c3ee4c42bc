"""One front door for both web apps (the table's console and the floor's pit), and what their
pages share.

    users.py     an account, the rules every account follows, the `UserStore` port (the table's
                 users file, store/users.py; the floor's `floor_users`, floor/users.py)
    throttle.py  growing delays after failed logins, by client and by account (never a lockout)
    login.py     `Accounts`: a login over a user store, behind the throttle, every try logged
    session.py   signed sessions that outlive a restart; a session key kept in a 0600 file
    auth.py      sessions in memory, `require(*roles)`, CSRF tokens, the Origin check, cookies
    routes.py    `front_door(...)`: the login, logout and language routes both apps mount
    guard.py     `guard(app, ...)`: error pages, the input check, the security headers
    inputs.py    every input a browser sends, checked once before any route
    pages.py     `Pages`: the Jinja2 environment over an app's templates and the shared ones
                 (templates/: page chrome, login, message, a game's flags, hand and decision
                 form), rendered in the page's language; static/: the pages' styles, the icon
    review_form.py  the cards a decision form's correction gives, read once for both apps
    stream.py    server-sent events: one hub fans updates out to every open screen

It imports no web app, no floor, no devices and no composition root (pyproject.toml's
import contracts): each app hands it its own pages, roles and user store.
"""
