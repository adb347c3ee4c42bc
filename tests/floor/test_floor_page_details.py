"""The floor service's pages get the small things right too (issue 65): its /favicon.ico is
there, and the language chooser shows the language the page speaks (`?lang=` included).

Real parts: a real PostgreSQL and the floor's users (tests/floor/conftest.py).
"""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from dealer_assist.floor.web.app import create_floor_app
from tests.floor.conftest import FLOOR_PASSWORD
from tests.floor.pit_client import login
from tests.web.test_page_details import icon_sizes

SELECTED = re.compile(r'<option value="([^"]+)" selected>([^<]+)</option>')


def test_the_floor_serves_the_icon_and_its_chooser_shows_the_pages_language(
        service: str) -> None:
    with TestClient(create_floor_app(service, fold_wait=5), follow_redirects=False) as client:
        icon = client.get("/favicon.ico")
        assert icon.status_code == 200 and icon.headers["content-type"] == "image/x-icon"
        assert icon_sizes(icon.content) == [16, 32, 48]
        assert login(client, "sup", FLOOR_PASSWORD).status_code == 303
        assert SELECTED.findall(client.get("/pit").text) == [("en", "English")]
        assert SELECTED.findall(client.get("/pit?lang=th").text) == [("th", "ไทย")]
        assert SELECTED.findall(client.get("/pit?lang=zh-Hans").text) == [("zh_Hans", "简体中文")]
