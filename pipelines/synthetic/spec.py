"""Parameters of a synthetic corpus: the spec, the planted scenarios and their validation.

Pure data; no I/O.  ``validate_spec`` turns every impossible combination into a
``SpecError`` that names the offending field, so the CLI and callers never get
a half-written corpus.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from datetime import date
from typing import Any


class SpecError(ValueError):
    """A corpus parameter is invalid; the message names the field and the problem."""


@dataclass(frozen=True)
class CarcSpike:
    """From ``from_month`` (1 = first month of the corpus) ``payer`` denies ``rate``
    of the service lines with procedure ``cpt`` with ``carc`` (group CO)."""

    payer: str
    carc: str
    cpt: str
    from_month: int
    rate: float
    kind: str = field(default="carc_spike", init=False)


@dataclass(frozen=True)
class SlowPayer:
    """``payer`` pays ``extra_days`` later than its usual days-to-pay."""

    payer: str
    extra_days: int
    kind: str = field(default="slow_payer", init=False)


@dataclass(frozen=True)
class SystematicUnderpayment:
    """``payer`` prices lines with procedure ``cpt`` at ``pct_of_contract`` percent of the
    contract's allowed amount (e.g. 85.0) and pays what the patient's benefits leave of that."""

    payer: str
    cpt: str
    pct_of_contract: float
    kind: str = field(default="systematic_underpayment", init=False)


@dataclass(frozen=True)
class Intervention:
    """A prevention intervention: from ``from_month`` the denial rate of ``category``
    is multiplied by ``1 - effect`` (effect 0 = an intervention that does nothing).

    ``facility`` (1-based number of a facility of the corpus) scopes it to that facility's
    claims: the other facilities keep their rate and are the untreated comparison a
    difference-in-differences needs.  ``None`` applies it to every facility."""

    name: str
    category: str
    from_month: int
    effect: float
    facility: int | None = None
    kind: str = field(default="intervention", init=False)


Scenario = CarcSpike | SlowPayer | SystematicUnderpayment | Intervention


@dataclass(frozen=True)
class CorpusSpec:
    """Everything that determines a corpus.  Same spec => byte-identical output."""

    seed: int = 42
    claims: int = 1000
    start: date = date(2026, 1, 1)
    months: int = 6
    payers: int = 8
    facilities: int = 2
    denial_rate: float = 0.11
    institutional_share: float = 0.35
    claims_per_file: int = 5000
    overturn_rate: float = 0.35
    underpayment_rate: float = 0.03
    plb_rate: float = 0.10
    scenarios: tuple[Scenario, ...] = ()
    write_csv: bool = True
    write_deposits: bool = True
    # Situations real remittance files contain (each counted in the ground truth; 0 turns one off).
    # Rates are per eligible claim (see each comment) unless said otherwise; small by default so that
    # every corpus holds a few of each.
    cob_rate: float = 0.25  # Medicare claims paid with a patient share: crossed over to a secondary payer
    tertiary_rate: float = 0.3  # COB claims whose secondary leaves a patient share: a tertiary pays it
    partial_overturn_rate: float = 0.3  # partially denied claims: reversed and corrected in full on appeal
    recoupment_rate: float = 0.01  # paid claims: reversed and re-adjudicated as denied on post-payment review
    corrected_underpayment_rate: float = 0.3  # underpaid claims: reversed and corrected to the contract price
    redelivery_rate: float = 0.1  # 835 files: delivered again in a new envelope (new ISA13) as a separate file
    reduction_rate: float = 0.05  # paid claims with two procedures: multiple-procedure reduction CO-59
    overpayment_rate: float = 0.005  # paid claims: one line paid above its charge (CO-94, negative)
    zero_cas_rate: float = 0.01  # paid claims: a zero-amount CAS (CO-97 0.00) on a paid line
    unknown_carc_rate: float = 0.005  # paid claims: an OA adjustment with a CARC no code list contains
    received_date_rate: float = 0.3  # claims: the 835 carries the payer's received date (DTM*050)
    missing_allowed_rate: float = 0.02  # claims: the payer writes no AMT*B6 on the service lines
    predetermination_rate: float = 0.05  # paid claims needing authorization: a CLP02=25 predetermination first
    drg_rate: float = 0.5  # paid inpatient claims of fee-schedule payers: priced by DRG case rate (CLP11)

    def without_situations(self) -> CorpusSpec:
        """The same spec with every situation of ``SITUATION_RATES`` turned off."""
        off: dict[str, Any] = dict.fromkeys(SITUATION_RATES, 0.0)
        return replace(self, **off)

    def to_json(self) -> dict[str, Any]:
        """The spec as plain JSON-able data (dates as ISO strings, scenarios tagged by kind)."""
        out = asdict(self)
        out["start"] = self.start.isoformat()
        out["scenarios"] = [_scenario_json(s) for s in self.scenarios]
        return out


def _scenario_json(scenario: Scenario) -> dict[str, Any]:
    """A scenario as JSON; an unscoped intervention is written as before the ``facility`` field existed,
    so that specs without facility scopes keep their manifests byte for byte."""
    out = asdict(scenario)
    if isinstance(scenario, Intervention) and scenario.facility is None:
        del out["facility"]
    return out


SITUATION_RATES: tuple[str, ...] = (
    "cob_rate",
    "tertiary_rate",
    "partial_overturn_rate",
    "recoupment_rate",
    "corrected_underpayment_rate",
    "redelivery_rate",
    "reduction_rate",
    "overpayment_rate",
    "zero_cas_rate",
    "unknown_carc_rate",
    "received_date_rate",
    "missing_allowed_rate",
    "predetermination_rate",
    "drg_rate",
)


def _require(ok: bool, field_name: str, problem: str) -> None:
    if not ok:
        raise SpecError(f"{field_name}: {problem}")


def _is_rate(value: float) -> bool:
    return isinstance(value, (int, float)) and 0.0 <= float(value) <= 1.0


def validate_spec(
    spec: CorpusSpec,
    *,
    payer_keys: tuple[str, ...],
    max_facilities: int,
    denial_categories: frozenset[str],
    known_carcs: frozenset[str],
    known_procedures: frozenset[str],
) -> None:
    """Raise ``SpecError`` naming the first invalid field of ``spec``.

    ``payer_keys`` are the keys of the payers the corpus will use (scenarios
    must name one of them); ``denial_categories`` and ``known_carcs`` come from
    the generator's own CARC table (``carcs.CARC_TABLE``).
    """
    _require(isinstance(spec.seed, int) and spec.seed >= 0, "seed", "must be a non-negative integer")
    _require(
        isinstance(spec.claims, int) and 1 <= spec.claims <= 50_000_000, "claims", "must be between 1 and 50,000,000"
    )
    _require(isinstance(spec.start, date), "start", "must be a date")
    _require(isinstance(spec.months, int) and 1 <= spec.months <= 60, "months", "must be between 1 and 60")
    _require(isinstance(spec.payers, int) and spec.payers >= 2, "payers", "must be at least 2")
    _require(
        isinstance(spec.facilities, int) and 1 <= spec.facilities <= max_facilities,
        "facilities",
        f"must be between 1 and {max_facilities}",
    )
    _require(_is_rate(spec.denial_rate) and spec.denial_rate <= 0.6, "denial_rate", "must be between 0 and 0.6")
    _require(_is_rate(spec.institutional_share), "institutional_share", "must be between 0 and 1")
    _require(
        isinstance(spec.claims_per_file, int) and 1 <= spec.claims_per_file <= 1_000_000,
        "claims_per_file",
        "must be between 1 and 1,000,000",
    )
    _require(_is_rate(spec.overturn_rate), "overturn_rate", "must be between 0 and 1")
    _require(_is_rate(spec.underpayment_rate), "underpayment_rate", "must be between 0 and 1")
    _require(_is_rate(spec.plb_rate), "plb_rate", "must be between 0 and 1")
    for name in SITUATION_RATES:
        _require(_is_rate(getattr(spec, name)), name, "must be between 0 and 1")
    for n, scenario in enumerate(spec.scenarios):
        where = f"scenarios[{n}] ({getattr(scenario, 'kind', type(scenario).__name__)})"
        _validate_scenario(scenario, where, spec, payer_keys, denial_categories, known_carcs, known_procedures)


def _validate_scenario(
    scenario: object,
    where: str,
    spec: CorpusSpec,
    payer_keys: tuple[str, ...],
    denial_categories: frozenset[str],
    known_carcs: frozenset[str],
    known_procedures: frozenset[str],
) -> None:
    if not isinstance(scenario, (CarcSpike, SlowPayer, SystematicUnderpayment, Intervention)):
        raise SpecError(f"{where}: unknown scenario type {type(scenario).__name__}")
    if hasattr(scenario, "payer"):
        _require(
            scenario.payer in payer_keys,
            f"{where}.payer",
            f"unknown payer {scenario.payer!r}; choose one of {', '.join(payer_keys)}",
        )
    if hasattr(scenario, "cpt"):
        _require(
            scenario.cpt in known_procedures,
            f"{where}.cpt",
            f"procedure {scenario.cpt!r} is not in the generator's service catalog",
        )
    if hasattr(scenario, "from_month"):
        _require(
            isinstance(scenario.from_month, int) and 1 <= scenario.from_month <= spec.months,
            f"{where}.from_month",
            f"must be between 1 and months ({spec.months})",
        )
    if isinstance(scenario, CarcSpike):
        _require(
            scenario.carc in known_carcs,
            f"{where}.carc",
            f"CARC {scenario.carc!r} is not a denial code of the generator's CARC table",
        )
        _require(_is_rate(scenario.rate), f"{where}.rate", "must be between 0 and 1")
    elif isinstance(scenario, SlowPayer):
        _require(
            isinstance(scenario.extra_days, int) and 0 <= scenario.extra_days <= 365,
            f"{where}.extra_days",
            "must be between 0 and 365",
        )
    elif isinstance(scenario, SystematicUnderpayment):
        pct = scenario.pct_of_contract
        _require(
            isinstance(pct, (int, float)) and 0 < float(pct) < 100,
            f"{where}.pct_of_contract",
            "must be above 0 and below 100",
        )
    elif isinstance(scenario, Intervention):
        _require(bool(scenario.name), f"{where}.name", "must not be empty")
        _require(
            scenario.category in denial_categories,
            f"{where}.category",
            f"unknown denial category {scenario.category!r}",
        )
        _require(_is_rate(scenario.effect), f"{where}.effect", "must be between 0 and 1")
        _require(
            scenario.facility is None
            or (
                isinstance(scenario.facility, int)
                and not isinstance(scenario.facility, bool)
                and 1 <= scenario.facility <= spec.facilities
            ),
            f"{where}.facility",
            f"must be empty (every facility) or between 1 and facilities ({spec.facilities})",
        )
