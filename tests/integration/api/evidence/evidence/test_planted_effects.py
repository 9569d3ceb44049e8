"""Issue 26's "done means", end to end: a generated corpus with planted effects, through the real pipeline,
answered by patterns.list and evidence.calculateForIntervention, and judged against the generator's own
record of what it planted (`ground_truth.json`, `scenarios`).

The generator (`pipelines.synthetic.scenarios.evidence_spec`: 40,000 claims, 12 months from 2026-01, 3
facilities) plants, from month 4 (2026-04):
- a CARC spike: Medicare denies 60 % of the service lines with CPT 70553 (MRI brain) CO-197
  (precertification/authorization absent), a radiology service in its own labels;
- an effective intervention: facility 1's eligibility denials fall by 70 %;
- a useless one: facility 2's missing-information denials do not change (effect 0).
The generator shares nothing with what is tested: it draws denials with its own random numbers and
labels service lines by hand (pipelines/synthetic/catalog.py); the product classifies the 837's
principal line by AMA CPT sections (dbt seed service_line_codes.csv), mines cells with exact binomial
tests and Benjamini-Hochberg (api/intelligence/patterns/mining.py), and estimates effects with
Newcombe intervals and a difference in differences (api/evidence/evidence/estimators.py). The test
only names what was planted: a payer, a CARC, a service line, a facility's NPI, a category, a month.

It runs on PostgreSQL, the production database, only: the 40,000-claim build is the suite's largest, the
mined and estimated numbers come from the files and the marts (the operational database holds the tenant,
the run and the records), and the procedures' operational side is covered on both databases by each
namespace's own tests (tests/integration/api/intelligence/patterns, tests/integration/api/evidence).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from api.infra.jobs.worker import Worker
from api.intelligence.patterns.mining import Cell, pattern_key
from pipelines.synthetic import generate_corpus
from pipelines.synthetic.scenarios import evidence_spec
from tests.integration.api.conftest import Tenant, new_tenant, open_serving_stack
from tests.integration.pipelines.conftest import measured_after_generated_history
from tests.support.rpc_client import collect_pages

# PostgreSQL only (module docstring): the session fixture `backend` is narrowed for this module.
pytestmark = [pytest.mark.slow, pytest.mark.parametrize("backend", ["postgres"], indirect=True)]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("planted_effects_corpus")
    generate_corpus(evidence_spec(), out)
    return out


@pytest.fixture(scope="module")
def planted(corpus) -> dict[str, dict]:
    """The generator's record of its scenarios: the spike and the two interventions, by kind and effect."""
    scenarios = json.loads((corpus / "ground_truth.json").read_text())["scenarios"]
    (spike,) = [s for s in scenarios if s["kind"] == "carc_spike"]
    interventions = [s for s in scenarios if s["kind"] == "intervention"]
    (effective,) = [s for s in interventions if s["true_effect"] > 0]
    (useless,) = [s for s in interventions if s["true_effect"] == 0]
    return {"spike": spike, "effective": effective, "useless": useless}


@pytest.fixture(scope="module")
def hospital(backend, corpus, tmp_path_factory) -> Tenant:
    """A hospital whose drop folder holds the corpus, its pipeline run by the job worker, on its own stack."""
    with open_serving_stack(backend, tmp_path_factory) as (settings, services, http):
        tenant = new_tenant(services, http)
        drop = settings.resolved_data_dir / "drop" / f"client_{tenant.client_id}"
        drop.mkdir(parents=True)
        for path in sorted(corpus.iterdir()):
            if path.suffix in (".835", ".837"):
                shutil.copy(path, drop / path.name)
        queued = tenant.rpc.mutation("operations.runPipeline", {}).data
        worker = Worker(services.database, kinds=["pipeline.run"], worker_id="planted-effects-worker")
        with measured_after_generated_history():
            while worker.run_once():
                pass
        run = tenant.rpc.query("operations.getRun", {"runId": queued["id"]}).data
        assert run["status"] == "succeeded", run
        yield tenant


def test_patterns_list_finds_the_planted_carc_spike_and_no_other_payers_197(hospital, planted):
    spike = planted["spike"]
    payer = spike["payer_name"].strip().upper()  # the product's payer key: the 835's N1*PR name, upper case
    # the last three months (the default window) lie inside the spike, which runs from 2026-04 to the end
    found = collect_pages(hospital.rpc, "patterns.list", {"limit": 200})
    on_197 = [p for p in found if p["carc"] == spike["parameters"]["carc"]]
    named = [p for p in on_197 if p["payerKey"] == payer and p["serviceLine"] == spike["service_line"]]
    assert named, [(p["payerKey"], p["serviceLine"], p["facility"]) for p in on_197]
    assert {p["category"] for p in named} == {spike["category"]}
    for pattern in named:  # significant after Benjamini-Hochberg, with its interval and sample size
        assert pattern["qValue"] <= 0.05 and pattern["rateLow"] > pattern["baselineRate"]
        assert pattern["claims"] >= 30 and pattern["testsRun"] >= len(found)
    # no other payer is said to deny CARC 197 too much: the false discoveries the FDR allows did not land there
    assert {p["payerKey"] for p in on_197} <= {payer, None}


def intervention(hospital: Tenant, planted: dict, name: str) -> dict:
    """The planted intervention as a person would enter it: its facility (the 837's NM1*85 NPI), its
    category, its start (the first day of the month it began), against the pattern of that cell."""
    facility, category = planted["facility_npi"], planted["category"]
    body = {
        "name": name,
        "patternKey": pattern_key(Cell(None, category, None, None, facility, claims=0, denied=0)),
        "actionKey": "front-desk-check",
        "scope": {"category": category, "facility": facility},
        "startDate": f"{planted['from_month_label']}-01",
    }
    return hospital.rpc.mutation("interventions.create", body).data


def evidence_of(hospital: Tenant, created: dict) -> dict:
    body = {"interventionId": created["id"], "monthsBefore": 3, "monthsAfter": 9}
    return hospital.rpc.mutation("evidence.calculateForIntervention", body).data


def test_the_effective_intervention_is_significant_with_the_right_sign(hospital, planted):
    evidence = evidence_of(hospital, intervention(hospital, planted["effective"], "eligibility re-check"))
    assert (evidence["beforeFirstMonth"], evidence["afterFirstMonth"], evidence["afterLastMonth"]) == (
        "2026-01",
        "2026-04",
        "2026-12",
    )
    did, treated, control = evidence["did"], evidence["treated"], evidence["control"]
    # the generator lowered the treated facility's rate and left the others alone: a negative effect whose
    # whole interval lies below zero
    assert evidence["significant"] is True and evidence["enoughTrials"] is True
    assert did["estimate"] < 0 and did["ciHigh"] < 0 and did["pValue"] < 0.05
    assert treated["difference"] < 0 and treated["ciHigh"] < 0
    assert control["ciLow"] <= 0 <= control["ciHigh"]  # the comparison facilities did not move
    # every number carries its sample size
    assert (
        treated["nBefore"] > 0
        and treated["nAfter"] > 0
        and did["nTotal"] == sum(change["nBefore"] + change["nAfter"] for change in (treated, control))
    )
    assert evidence["statement"]


def test_the_useless_intervention_is_not_significant(hospital, planted):
    evidence = evidence_of(hospital, intervention(hospital, planted["useless"], "documentation reminder"))
    did = evidence["did"]
    assert evidence["enoughTrials"] is True and evidence["significant"] is False
    assert did["ciLow"] <= 0 <= did["ciHigh"] and did["pValue"] >= 0.05
    assert evidence["statement"]
