"""The platform's reference requirements, read once from ``platform_requirements.csv``.

The file is Medicare's list of hospital outpatient department services that require prior
authorization (42 CFR 419.82-419.83; the service categories adopted by the CY 2020, 2021 and 2023 OPPS
final rules, the codes as CMS publishes them on its "Prior Authorization for Certain Hospital
Outpatient Department (OPD) Services" page). Botulinum toxin drug codes (J0585-J0588) need
authorization only when billed with 64612 or 64615, so only the two procedure codes are listed. A
client's own requirements (``prior_auth_requirements``) override these where they are as specific.
"""

from __future__ import annotations

import functools
from pathlib import Path

from api.denials.prior_authorization.requirements import Requirement, parse_platform_requirements

PATH = Path(__file__).resolve().parent / "platform_requirements.csv"


@functools.cache
def platform_requirements() -> tuple[Requirement, ...]:
    return parse_platform_requirements(PATH.read_text(encoding="utf-8"))
