"""The offline provider with knowledgeControl versions as input (pure): an active appeal_template
replaces the built-in letter, a payer_policy fills the policy reference and joins the suggestion,
carc_guidance joins the suggestion; without knowledge nothing changes."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal

from api.automation.ai_platform.providers import (
    KNOWLEDGE_READ,
    CaseInputs,
    Knowledge,
    draft_appeal_letter,
    knowledge_keys,
    suggest_next_action,
)
from api.denials.appeal_assembly import letter

FACTS = letter.ClaimFacts(
    payer="ACME",
    claim_key="PCN-1",
    payer_claim_number=None,
    service_date=None,
    remittance_date=None,
    billed_amount=None,
    amount_at_stake=Decimal("100.00"),
    carc="197",
    rarcs=(),
    group_code="CO",
    denial_category="authorization",
)
BASE = CaseInputs(1, "open", "ACME", FACTS, None, date(2026, 3, 1))


def k(kind: str, content: str, ident: int = 1, key: str = "x") -> Knowledge:
    return Knowledge(ident, kind, key, 3, content, "0" * 64)


def test_without_knowledge_the_letter_is_the_built_in_one():
    out = draft_appeal_letter(BASE).output
    assert out["templateKey"] == "authorization.first_level" and "knowledge" not in out
    assert out["text"] == letter.render_letter(FACTS, "first_level", []).text


def test_an_appeal_template_replaces_the_built_in_letter():
    given = replace(BASE, knowledge=(k("appeal_template", "OURS for $claim_key at $payer", key="authorization"),))
    out = draft_appeal_letter(given).output
    assert out["text"] == "OURS for PCN-1 at ACME"
    assert (out["templateKey"], out["templateVersion"]) == ("knowledge:authorization", "3")
    assert out["knowledge"] == [
        {"id": 1, "kind": "appeal_template", "key": "authorization", "version": 3, "sha256": "0" * 64}
    ]


def test_a_payer_policy_fills_the_policy_reference_of_the_built_in_letter():
    out = draft_appeal_letter(replace(BASE, knowledge=(k("payer_policy", "ACME   policy\n12.4"),))).output
    assert "ACME policy 12.4" in out["text"] and letter.POLICY_REFERENCE not in out["text"]
    assert out["templateKey"] == "authorization.first_level"


def test_the_suggestion_carries_the_payer_policy_and_carc_guidance_without_changing_the_action():
    plain = suggest_next_action(BASE)
    given = replace(BASE, knowledge=(k("payer_policy", "P", 1), k("carc_guidance", "G", 2)))
    out = suggest_next_action(given)
    assert (out.label, out.confidence) == (plain.label, plain.confidence)
    assert (out.output["payerPolicy"], out.output["carcGuidance"]) == ("P", "G")
    assert [r["id"] for r in out.output["knowledge"]] == [1, 2]


def test_which_keys_a_task_looks_under():
    assert KNOWLEDGE_READ["draft_appeal_letter"] == ("appeal_template", "payer_policy")
    assert knowledge_keys("appeal_template", FACTS) == ("authorization", "default")
    assert knowledge_keys("appeal_template", replace(FACTS, denial_category=None)) == ("default",)
    assert knowledge_keys("payer_policy", FACTS) == ("ACME",)
    assert knowledge_keys("carc_guidance", replace(FACTS, carc=" co4 ")) == ("CO4",)
    assert knowledge_keys("carc_guidance", replace(FACTS, carc=None)) == ()
