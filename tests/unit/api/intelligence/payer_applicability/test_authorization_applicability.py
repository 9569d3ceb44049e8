"""Why an authorization requirement applies to a claim line (pure): scope, dates, source, the facts that
selected it, and whether the claim's authorizations cover it; every line is summarised, with or without one."""

from __future__ import annotations

from datetime import date

from api.denials.prior_authorization.requirements import CodeRange
from api.denials.prior_authorization.service import Requirement
from api.intelligence.payer_applicability import applicability
from api.intelligence.payer_applicability.applicability import LineRequirement

# Medicare's OPD list: 64612 (botulinum toxin) from 2020-07-01 (42 CFR 419.83(a)(2)), a platform row.
OPD = Requirement(
    payer_type="medicare",
    codes=CodeRange("64612", "64612"),
    effective_from=date(2020, 7, 1),
    source="42 CFR 419.83(a)(2)",
)


def _line(req: Requirement | None, **kw: object) -> LineRequirement:
    values: dict[str, object] = {
        "line_number": 1,
        "procedure_code": "64612",
        "payer_type": "medicare",
        "payer_type_basis": "filing indicator MB",
        "requirement": req,
        "assumed": False,
        "covered_by": None,
        "missing": "none_requested",
        "explanation": "no authorization was requested (priorAuthorization.request)",
    }
    values.update(kw)
    return LineRequirement(**values)  # type: ignore[arg-type]


def test_a_platform_requirement_not_covered_says_why():
    applied = applicability.from_line(_line(OPD))
    assert applied is not None and applied.kind == "authorization_requirement"
    assert (applied.scope.origin, applied.scope.breadth, applied.scope.payer_id) == ("platform", "type_wide", "*")
    assert (applied.effective_from, applied.source) == (date(2020, 7, 1), "42 CFR 419.83(a)(2)")
    assert applied.reference == "platform/medicare/64612"
    assert [(s.fact, s.value) for s in applied.selected_by] == [
        ("line_number", "1"),
        ("procedure_code", "64612"),
        ("payer_type", "medicare"),
    ]
    detail = applied.authorization
    assert detail is not None and (detail.covered, detail.missing) == (False, "none_requested")
    assert "needs a prior authorization" in applied.why and "not covered" in applied.why


def test_a_clients_payer_specific_exemption_has_nothing_to_cover():
    exempt = Requirement(
        payer_type="medicare",
        codes=OPD.codes,
        effective_from=date(2025, 1, 1),
        source="MAC exemption letter",
        payer_id="MCR01",
        requires_authorization=False,
        requirement_id=7,
        version=2,
    )
    applied = applicability.from_line(_line(exempt, missing=None, explanation=None))
    assert applied is not None and applied.scope == applicability.Scope("client", "payer_specific", "medicare", "MCR01")
    assert applied.reference == "prior_auth_requirements/7"
    assert ("payer_id", "MCR01") in [(s.fact, s.value) for s in applied.selected_by]
    assert applied.authorization is not None and applied.authorization.covered is None
    assert applied.authorization.version == 2 and "exempt" in applied.why


def test_a_covered_line_names_its_authorization_and_no_requirement_is_no_rule():
    covered = applicability.from_line(_line(OPD, covered_by=41, missing=None, explanation=None))
    assert covered is not None and covered.authorization is not None
    assert (covered.authorization.covered, covered.authorization.covered_by) == (True, 41)
    assert applicability.from_line(_line(None, procedure_code="99213")) is None


def test_every_line_is_summarised_with_its_requirement_or_none():
    applied = [r for r in (applicability.from_line(_line(OPD)),) if r is not None]
    summary = applicability.line_summaries([(1, "64612"), (2, "99213"), (3, None)], applied)
    assert [(s.line_number, s.authorization_reference, s.needs_authorization, s.covered) for s in summary] == [
        (1, "platform/medicare/64612", True, False),
        (2, None, False, None),
        (3, None, False, None),
    ]
