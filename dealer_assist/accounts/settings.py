"""What both web apps are told at start: `WebSettings` (from the table's config, or the floor
service's command line), kept in `app.state.settings`."""

from __future__ import annotations

from dataclasses import dataclass, field

from dealer_assist.config.gaming_day import GamingDay


@dataclass(frozen=True)
class WebSettings:
    #: Mark the session cookie Secure (behind HTTPS).
    secure_cookies: bool = False
    #: A session ends after this long without a request.
    session_minutes: int = 480
    #: The site's zone and gaming day: the times the pages show are on its clock.
    gaming_day: GamingDay = field(default_factory=GamingDay)
