"""A request whose fields are missing or do not parse gets a 400 that names them (a page in the
viewer's language, or JSON under /api/), never the framework's bare 422 JSON."""

from __future__ import annotations

from fastapi.testclient import TestClient

from dealer_assist import i18n
from tests.web.conftest import login


def test_a_review_without_its_game_is_a_400_page_naming_the_field(client: TestClient) -> None:
    login(client, "sup")
    response = client.get("/supervisor/review", params={"shoe": "S1"})
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("text/html")
    assert "query game is missing or not valid" in response.text


def test_the_page_says_it_in_the_viewers_language(client: TestClient) -> None:
    login(client, "sup")
    response = client.get("/supervisor/review", params={"shoe": "S1", "lang": "th"})
    assert response.status_code == 400
    said = i18n.say("th", "query game is missing or not valid")
    assert said == "query game ไม่มีหรือไม่ถูกต้อง" and said in response.text
