"""The platform's frequency limits, read once from ``platform_frequency_limits.csv``.

The file is Medicare's preventive-service frequency limits for a few codes, each row citing its section
of 42 CFR part 410: the initial preventive physical examination and the initial annual wellness visit
once per beneficiary (410.16, 410.15), a subsequent annual wellness visit once per 11 full months after
the month of the last one (410.15; either AWV code counts), screening mammography likewise (410.34), and
screening colonoscopy once per 23 (high risk) or 119 (not at high risk) full months after the month of the
last one (410.37: "once every 24 / 120 months"). A client's own limits (``payer_frequency_limits``)
override these where they are as specific.
"""

from __future__ import annotations

import functools
from pathlib import Path

from api.intelligence.payer_rules.frequency import FrequencyLimit, parse_platform_limits

PATH = Path(__file__).resolve().parent / "platform_frequency_limits.csv"


@functools.cache
def platform_frequency_limits() -> tuple[FrequencyLimit, ...]:
    return parse_platform_limits(PATH.read_text(encoding="utf-8"))
