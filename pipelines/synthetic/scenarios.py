"""Parses scenario options of the CLI (``carc-spike`` or ``carc-spike:payer=northwind,rate=0.4``).

Pure: text in, ``Scenario`` objects out, ``SpecError`` naming the problem otherwise.
"""

from __future__ import annotations

from dataclasses import fields, replace
from datetime import date
from typing import Any

from .spec import CarcSpike, CorpusSpec, Intervention, Scenario, SlowPayer, SpecError, SystematicUnderpayment

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
#: Claims of ``evidence_spec`` by default; see the arithmetic in its docstring.
EVIDENCE_CLAIMS = 40_000


def evidence_spec(*, claims: int = EVIDENCE_CLAIMS, seed: int = 26) -> CorpusSpec:
    """The planted world of the evidence tests: 12 months from 2026-01, 3 facilities, all 8 payers,
    an initial denial rate of 15 % (within the 10-15 % industry range HFMA and Change Healthcare's
    Denials Index report), and the ``evidence`` scenarios.  Generates in about 4 s at 40,000 claims.

    Why 40,000 claims (expected values; facility weights are 6:5:4, so facility 1 has 6/15 = 40 %):
    - claims per month 40,000 / 12 = 3,333: treated (facility 1) 1,333, untreated (facilities 2, 3) 2,000;
    - eligibility denials per claim 0.15 x 0.25 (its share, CATEGORY_SHARES) = 0.0375, so per month
      treated 1,333 x 0.0375 = 50 before month 4 and 50 x (1 - 0.7) = 15 from month 4; untreated 75 throughout;
    - difference in differences of the rates: (0.01125 - 0.0375) - 0 = -0.02625;
    - its standard error (binomial, months 1-3 = 3/12 of the claims, months 4-12 = 9/12):
      treated before sqrt(.0375 x .9625 / 4,000) = .0030, after sqrt(.01125 x .98875 / 12,000) = .00096,
      untreated before sqrt(.0375 x .9625 / 6,000) = .00245, after sqrt(.0375 x .9625 / 18,000) = .00142;
      sqrt(.0030^2 + .00096^2 + .00245^2 + .00142^2) = .0042, so z = .02625 / .0042 = 6.2 expected
      (seed 26 realises -0.0212, z = 5.0; the effect-0 intervention realises z = 0.8);
    - at 6,000 claims the same arithmetic gives z = 6.2 x sqrt(6,000 / 40,000) = 2.4: not far above noise,
      and at the default denial rate of 11 % z falls by sqrt(.11 / .15) again.
    The spike: Medicare has 30 % of the claims and about 3.5 % of claims carry a 70553 line, so about
    40,000 x 0.3 x 0.035 / 12 = 35 claims a month, 60 % of them (21) denied CO-197 from month 4 against
    the base authorization denials before: 0.15 x 0.14 (authorization share) x 0.6 (CARC 197's weight)
    = 1.3 % of 35, about 0.5 a month (seed 26: 3 in months 1-3, 200 in months 4-12 out of 314 claims
    with the service)."""
    return CorpusSpec(
        seed=seed,
        claims=claims,
        start=date(2026, 1, 1),
        months=12,
        facilities=3,
        denial_rate=0.15,
        scenarios=PRESETS["evidence"],
    )


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
