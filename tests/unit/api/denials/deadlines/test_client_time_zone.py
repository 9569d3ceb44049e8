"""A client's "today" is taken in its IANA time zone (pure parts: the zone and the settings check)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from api.core.settings import Settings
from api.denials.deadlines.facts import zone_of


def test_the_default_zone_is_validated_at_start():
    assert Settings(default_time_zone="America/Chicago").default_time_zone == "America/Chicago"
    with pytest.raises(ValidationError, match="IANA"):
        Settings(default_time_zone="Mars/Olympus_Mons")


def test_a_clients_zone_or_the_default():
    # 2026-03-02 03:00 UTC is still 2026-03-01 in Chicago (UTC-6) and already 2026-03-02 in UTC
    at = datetime(2026, 3, 2, 3, 0, tzinfo=UTC)
    assert at.astimezone(zone_of("America/Chicago")).date().isoformat() == "2026-03-01"
    assert at.astimezone(zone_of(None)).date().isoformat() == "2026-03-02"  # the settings' default: UTC
    assert at.astimezone(zone_of("Not/AZone")).date().isoformat() == "2026-03-02"  # unknown stored name: default
