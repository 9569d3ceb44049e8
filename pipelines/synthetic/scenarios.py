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
}
PRESETS["demo"] = tuple(
    s
    for name in ("carc-spike", "slow-payer", "underpayment", "intervention", "intervention-null")
    for s in PRESETS[name]
)


def _convert(value: str, kind: type, where: str) -> object:
    try:
        if kind is int:
            return int(value)
        if kind is float:
            return float(value)
    except ValueError:
        raise SpecError(f"{where}: {value!r} is not a valid {kind.__name__}") from None
    return value


def parse_scenario(text: str) -> tuple[Scenario, ...]:
    """``name`` or ``name:key=value,key=value`` -> scenarios (``demo`` expands to all presets)."""
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
        kind = {"int": int, "float": float}.get(str(types[key]), str)
        changes[key] = _convert(value.strip(), kind, f"scenario {name!r} parameter {key}")
    return (replace(base, **changes),)
