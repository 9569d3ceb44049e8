"""AI providers: what turns a case's facts into a task's result, behind one small interface (pure).

`AiProvider` is the Protocol; `OfflineProvider` (name "offline") is the default and the only one
configured: deterministic rules and templates over the case's facts, no network.

- classify_denial: the CARC / group code / RARCs through the reference seeds
  (`pipelines.ingest.classify.classify_adjustment`, the classifier cases use); confidence by basis;
- draft_appeal_letter: the appeal letter template of the case's category (appealAssembly's
  `letter.render_letter`), first level, with the case's evidence listed; an active `appeal_template`
  (knowledgeControl) for the category (else for `default`) replaces the built-in template, and an active
  `payer_policy` for the payer fills the letter's policy reference;
- summarise_evidence: the case's evidence documents' redacted text (never the originals), the first
  sentence of each;
- predict_overturn: humanAttention's hierarchical Beta-binomial estimate of P(overturn) for the
  case's payer x category x CARC; the label is the likelier outcome and the confidence its probability;
- suggest_next_action: from the case's state and days to its appeal deadline, with the active
  `payer_policy` of the payer and `carc_guidance` of the CARC attached when there are.

Knowledge comes in as input (`CaseInputs.knowledge`, the versions the service found active, or the ones
a replay chose); `KNOWLEDGE_READ` and `knowledge_keys` say which a task reads.

A real model provider is configuration (`Settings.ai_provider`, registered in `PROVIDERS` under its
name); until one is, any other name is PRECONDITION_FAILED "not configured".
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol

from api.automation.knowledge_control.rules import APPEAL_TEMPLATE, CARC_GUIDANCE, PAYER_POLICY
from api.core.errors import PreconditionFailed
from api.denials.appeal_assembly import letter
from pipelines.ingest.classify import (
    BASIS_CARC,
    BASIS_GROUP_PREFIX,
    BASIS_RARC_PREFIX,
    UnknownGroupCodeError,
    classify_adjustment,
)

OFFLINE = "offline"
SUMMARY_CHARS = 240


@dataclass(frozen=True)
class EvidenceText:
    doc_type: str
    title: str
    redacted_text: str | None


@dataclass(frozen=True)
class OverturnEstimate:
    probability: float
    low: float
    high: float
    basis: str  # the most specific level with data
    n: int


@dataclass(frozen=True)
class Knowledge:
    """One knowledge version a task may read (knowledgeControl), with what identifies it."""

    id: int
    kind: str
    key: str
    version: int
    content: str
    sha256: str

    def ref(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "key": self.key, "version": self.version, "sha256": self.sha256}


@dataclass(frozen=True)
class CaseInputs:
    """What a task may read of a case (no patient identity: codes, money, dates, redacted text)."""

    case_id: int
    state: str
    payer: str
    letter_facts: letter.ClaimFacts
    appeal_due_on: date | None
    today: date
    overturn: OverturnEstimate | None = None  # read only for predict_overturn
    evidence: tuple[EvidenceText, ...] = field(default=())  # read only for the tasks that use it
    knowledge: tuple[Knowledge, ...] = field(default=())  # at most one per kind, of KNOWLEDGE_READ

    @property
    def facts(self) -> letter.ClaimFacts:
        return self.letter_facts

    def knowledge_of(self, kind: str) -> Knowledge | None:
        return next((k for k in self.knowledge if k.kind == kind), None)


#: task -> the knowledge kinds it reads
KNOWLEDGE_READ: Mapping[str, tuple[str, ...]] = {
    "draft_appeal_letter": (APPEAL_TEMPLATE, PAYER_POLICY),
    "suggest_next_action": (PAYER_POLICY, CARC_GUIDANCE),
}


def knowledge_keys(kind: str, facts: letter.ClaimFacts) -> tuple[str, ...]:
    """The keys, most specific first, under which a task looks for `kind` knowledge about this case."""
    if kind == APPEAL_TEMPLATE:
        category = (facts.denial_category or "").strip().lower()
        return (category, letter.DEFAULT_CATEGORY) if category else (letter.DEFAULT_CATEGORY,)
    if kind == PAYER_POLICY:
        return (facts.payer.strip(),)
    if kind == CARC_GUIDANCE and facts.carc:
        return (facts.carc.strip().upper(),)
    return ()


def _knowledge_used(inputs: CaseInputs, kinds: tuple[str, ...]) -> dict[str, Any]:
    used = [k.ref() for kind in kinds if (k := inputs.knowledge_of(kind)) is not None]
    return {"knowledge": used} if used else {}


@dataclass(frozen=True)
class TaskResult:
    label: str  # what an evaluation compares with the actual label
    output: dict[str, Any]
    confidence: float  # in [0, 1]


class AiProvider(Protocol):
    name: str

    def run(self, task: str, inputs: CaseInputs) -> TaskResult: ...


# --- classify_denial ------------------------------------------------------------------------------

_CLASSIFY_CONFIDENCE = {"group": 0.99, "carc": 0.95, "rarc": 0.85, "unknown": 0.2}


def classify_denial(inputs: CaseInputs) -> TaskResult:
    f = inputs.facts
    if not f.carc:
        return TaskResult("unclassified", {"category": "unclassified", "basis": "no_carc"}, 0.0)
    group = f.group_code or "CO"
    try:
        found = classify_adjustment(group, f.carc, f.rarcs)
    except UnknownGroupCodeError:
        return TaskResult("unclassified", {"category": "unclassified", "basis": "unknown_group"}, 0.0)
    if found.basis.startswith(BASIS_GROUP_PREFIX):
        kind = "group"
    elif found.basis == BASIS_CARC:
        kind = "carc"
    elif found.basis.startswith(BASIS_RARC_PREFIX):
        kind = "rarc"
    else:
        kind = "unknown"
    output = {
        "category": found.category,
        "isDenial": found.is_denial,
        "hardOrSoft": found.hard_or_soft,
        "preventable": found.preventable,
        "basis": found.basis,
        "groupCode": group,
        "carc": f.carc,
    }
    return TaskResult(found.category, output, _CLASSIFY_CONFIDENCE[kind])


# --- draft_appeal_letter --------------------------------------------------------------------------


def _render(inputs: CaseInputs, entries: list[letter.IndexEntry]) -> letter.Letter:
    """The built-in template of the category, or the active appeal_template knowledge; the payer's
    policy knowledge as the policy reference."""
    template, policy = inputs.knowledge_of(APPEAL_TEMPLATE), inputs.knowledge_of(PAYER_POLICY)
    if template is None and policy is None:
        return letter.render_letter(inputs.facts, "first_level", entries)
    values = letter.fill(inputs.facts, "first_level", entries)
    if policy is not None:
        values["policy_reference"] = " ".join(policy.content.split())
    if template is None:
        built_in = letter.template_for(inputs.facts.denial_category, "first_level")
        return letter.Letter(built_in.body.substitute(values), built_in.key, built_in.version)
    text = string.Template(template.content).safe_substitute(values)
    return letter.Letter(text, f"knowledge:{template.key}", str(template.version))


def draft_appeal_letter(inputs: CaseInputs) -> TaskResult:
    entries = [letter.IndexEntry(e.title, e.doc_type) for e in inputs.evidence]
    drafted = _render(inputs, entries)
    own_template = drafted.template_key.split(".")[0] != letter.DEFAULT_CATEGORY
    confidence = 0.5 + (0.2 if own_template else 0.0) + (0.2 if entries else 0.0)
    output = {
        "text": drafted.text,
        "templateKey": drafted.template_key,
        "templateVersion": drafted.template_version,
        "level": "first_level",
        "evidenceCount": len(entries),
        **_knowledge_used(inputs, KNOWLEDGE_READ["draft_appeal_letter"]),
    }
    return TaskResult("drafted", output, round(confidence, 4))


# --- summarise_evidence ---------------------------------------------------------------------------

_SENTENCE = re.compile(r"(.+?[.!?])(\s|$)", re.S)


def first_sentence(text: str, limit: int = SUMMARY_CHARS) -> str:
    flat = " ".join(text.split())
    found = _SENTENCE.match(flat)
    sentence = found.group(1) if found else flat
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def summarise_evidence(inputs: CaseInputs) -> TaskResult:
    docs = inputs.evidence
    if not docs:
        return TaskResult("no_evidence", {"documents": [], "summary": "No evidence documents on this case."}, 0.0)
    items = [
        {
            "title": d.title,
            "docType": d.doc_type,
            "chars": len(d.redacted_text or ""),
            "gist": first_sentence(d.redacted_text) if d.redacted_text else "(no text extracted)",
        }
        for d in docs
    ]
    with_text = sum(1 for d in docs if d.redacted_text and d.redacted_text.strip())
    types = sorted({d.doc_type.replace("_", " ") for d in docs})
    summary = f"{len(docs)} document(s) ({', '.join(types)}); {with_text} with text."
    return TaskResult("summarised", {"documents": items, "summary": summary}, round(0.9 * with_text / len(docs), 4))


# --- predict_overturn -----------------------------------------------------------------------------


def predict_overturn(inputs: CaseInputs) -> TaskResult:
    e = inputs.overturn
    if e is None:
        raise ValueError("predict_overturn needs the overturn estimate")
    label = "overturned" if e.probability >= 0.5 else "upheld"
    output = {
        "probability": round(e.probability, 6),
        "interval": [round(e.low, 6), round(e.high, 6)],
        "basis": e.basis,
        "decidedAppeals": e.n,
    }
    return TaskResult(label, output, round(max(e.probability, 1.0 - e.probability), 6))


# --- suggest_next_action --------------------------------------------------------------------------

URGENT_DAYS = 7


def _next_action(state: str, days_left: int | None, classified: bool) -> tuple[str, str, float]:
    """(action, why, confidence) from the case's state and days to its deadline."""
    if state == "closed":
        return "none", "the case is closed", 0.95
    if state in {"won", "partially_won", "lost", "written_off"}:
        return "close_case", f"the case is decided ({state})", 0.85
    if days_left is not None and days_left < 0:
        return "review_write_off", "the appeal deadline has passed", 0.8
    if days_left is not None and days_left <= URGENT_DAYS:
        return "escalate", f"{days_left} day(s) left before the appeal deadline", 0.85
    if state == "awaiting_payer":
        return "follow_up_with_payer", "the appeal is with the payer", 0.75
    if state == "in_appeal":
        return "submit_appeal", "the appeal is being prepared", 0.7
    if not classified:
        return "classify_denial", "the denial has no category yet", 0.9
    return "draft_appeal", "the case is open and classified", 0.7


def suggest_next_action(inputs: CaseInputs) -> TaskResult:
    days_left = None if inputs.appeal_due_on is None else (inputs.appeal_due_on - inputs.today).days
    action, why, confidence = _next_action(inputs.state, days_left, bool(inputs.facts.denial_category))
    output: dict[str, Any] = {"action": action, "why": why, "daysLeft": days_left}
    if (policy := inputs.knowledge_of(PAYER_POLICY)) is not None:
        output["payerPolicy"] = policy.content
    if (guidance := inputs.knowledge_of(CARC_GUIDANCE)) is not None:
        output["carcGuidance"] = guidance.content
    output.update(_knowledge_used(inputs, KNOWLEDGE_READ["suggest_next_action"]))
    return TaskResult(action, output, confidence)


# --- the provider ---------------------------------------------------------------------------------

TASK_RUNNERS: Mapping[str, Callable[[CaseInputs], TaskResult]] = {
    "classify_denial": classify_denial,
    "draft_appeal_letter": draft_appeal_letter,
    "summarise_evidence": summarise_evidence,
    "predict_overturn": predict_overturn,
    "suggest_next_action": suggest_next_action,
}


class OfflineProvider:
    """Rules and templates over the case's facts; deterministic, no network."""

    name = OFFLINE

    def run(self, task: str, inputs: CaseInputs) -> TaskResult:
        runner = TASK_RUNNERS.get(task)
        if runner is None:
            raise ValueError(f"unknown AI task {task!r}")
        return runner(inputs)


PROVIDERS: Mapping[str, AiProvider] = {OFFLINE: OfflineProvider()}


def provider_for(name: str, providers: Mapping[str, AiProvider] = PROVIDERS) -> AiProvider:
    """The configured provider called `name`; PRECONDITION_FAILED when none is."""
    found = providers.get(name)
    if found is None:
        raise PreconditionFailed(f"AI provider '{name[:40]}' is not configured; only '{OFFLINE}' is")
    return found
