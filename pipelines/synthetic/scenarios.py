"""Parses scenario options of the CLI (``carc-spike`` or ``carc-spike:payer=northwind,rate=0.4``).

Pure: text in, ``Scenario`` objects out, ``SpecError`` naming the problem otherwise.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

from .spec import CarcSpike, Intervention, Scenario, SlowPayer, SpecError, SystematicUnderpayment

PRESETS: dict[str, tuple[Scenario, ...]] = {
    "carc-spike": (CarcSpike(payer="northwind", carc="50", cpt="80053", from_month=4, rate=0.5),),
    "slow-payer": (SlowPayer(payer="medicaid", extra_days=21),),
    "underpayment": (SystematicUnderpayment(payer="bluepeak", cpt="99214", pct_of_contract=85.0),),
    "intervention": (
        Intervention(name="front-desk eligibility check", category="eligibility", from_month=3, effect=0.6),
    ),
    "intervention-null": (Intervention(name="coder newsletter", category="coding", from_month=3, effect=0.0),),
    # The planted world of the evidence tests (``evidence_spec``): a pattern to mine and two interventions,
    # each scoped to one facility so that the other facilities are its untreated comparison.
    # - CARC 197 "precertification/authorization absent" (X12 CARC list) on CPT 70553 (MRI brain with and
    #   without contrast, a service that needs prior authorization in the catalog) at Medicare, the payer
    #   with the most claims (volume weight 30 of 100), 60 % of those lines from month 4;
    # - an eligibility check at facility 1 that removes 70 % of its eligibility denials from month 4
    #   (eligibility is the largest category: 25 % of denials, CATEGORY_SHARES);
    # - a documentation reminder at facility 2 that changes nothing (effect 0): its evidence must be null.
    "evidence": (
        CarcSpike(payer="medicare", carc="197", cpt="70553", from_month=4, rate=0.6),
        Intervention(
            name="facility 1 eligibility verification", category="eligibility", from_month=4, effect=0.7, facility=1
        ),
        Intervention(
            name="facility 2 documentation reminder",
            category="missing_information",
            from_month=4,
            effect=0.0,
            facility=2,
        ),
    ),
}
PRESETS["demo"] = tuple(
    s
    for name in ("carc-spike", "slow-payer", "underpayment", "intervention", "intervention-null")
    for s in PRESETS[name]
)


def _convert(value: str, kind: type, where: str, *, optional: bool = False) -> object:
    if optional and value.lower() in ("", "none", "all"):
        return None
    try:
        if kind is int:
            return int(value)
        if kind is float:
            return float(value)
    except ValueError:
        raise SpecError(f"{where}: {value!r} is not a valid {kind.__name__}") from None
    return value


def parse_scenario(text: str) -> tuple[Scenario, ...]:
    """``name`` or ``name:key=value,key=value`` -> scenarios (``demo`` expands to all presets).

    An intervention takes ``facility=N`` (1-based) to treat one facility only; ``facility=all`` (or
    ``none``) treats every facility, as without the key."""
    name, _, params = text.strip().partition(":")
    if name not in PRESETS:
        raise SpecError(f"scenario {name!r}: unknown; choose one of {', '.join(sorted(PRESETS))}")
    scenarios = PRESETS[name]
    if not params:
        return scenarios
    if len(scenarios) != 1:
        raise SpecError(f"scenario {name!r}: takes no parameters")
    base = scenarios[0]
    types = {f.name: f.type for f in fields(base) if f.init}
    # values are typed per field by _convert; replace() on the scenario union cannot check them statically
    changes: dict[str, Any] = {}
    for item in params.split(","):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in types:
            raise SpecError(
                f"scenario {name!r}: bad parameter {item!r}; expected key=value with key in {', '.join(types)}"
            )
        type_name = str(types[key])  # annotations are strings here (``from __future__ import annotations``)
        optional = type_name.endswith(" | None")
        kind = {"int": int, "float": float}.get(type_name.removesuffix(" | None"), str)
        where = f"scenario {name!r} parameter {key}"
        changes[key] = _convert(value.strip(), kind, where, optional=optional)
    return (replace(base, **changes),)
