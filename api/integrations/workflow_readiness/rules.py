"""Which workflows a client can run, from facts about it (pure, no I/O).

Each workflow lists what it needs; a missing need is a blocker with a sentence saying what to do. A
workflow without blockers is ready.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Facts:
    """What the operational tables say about one client (counts, not rows)."""

    writers: int  # members who may change operational records (admin, manager, specialist)
    specialists: int
    confirmed_remittances: int
    denial_cases: int
    contract_terms: int
    payer_aliases: int
    activation_blockers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Blocker:
    code: str
    sentence: str


@dataclass(frozen=True)
class Workflow:
    workflow: str
    ready: bool
    sentence: str
    blockers: list[Blocker] = field(default_factory=list)


WORKFLOWS: dict[str, str] = {
    "upload_and_reconcile_remittances": "Upload 835 and CSV remittance files, confirm them and reconcile them against claims.",
    "work_denial_cases": "Triage, assign and work the denial cases opened from confirmed remittances.",
    "assemble_appeals": "Assemble appeal packets (letter, evidence, cover form) for denial cases.",
    "automation": "Let automation act on the client's work (switched on with operationalControl.resume).",
}


def _no_writer(f: Facts) -> list[Blocker]:
    if f.writers:
        return []
    return [Blocker("no_writer", "No member may upload or change records: invite an admin, manager or specialist.")]


def _no_specialist(f: Facts) -> list[Blocker]:
    if f.specialists:
        return []
    return [Blocker("no_specialist", "No member has the specialist role: invite one or give the role to a member.")]


def _no_cases(f: Facts) -> list[Blocker]:
    if f.denial_cases:
        return []
    if not f.confirmed_remittances:
        return [
            Blocker(
                "no_confirmed_remittance",
                "No remittance is confirmed yet, so no denial case exists: upload and confirm an 835 file.",
            )
        ]
    return [Blocker("no_denial_cases", "The confirmed remittances opened no denial case: there is nothing to work.")]


def _no_payer_rules(f: Facts) -> list[Blocker]:
    if f.contract_terms or f.payer_aliases:
        return []
    return [
        Blocker(
            "no_payer_rules",
            "No payer contract terms or payer rules are loaded: upload the contract terms and map the payers.",
        )
    ]


def _gates(f: Facts) -> list[Blocker]:
    if not f.activation_blockers:
        return []
    return [
        Blocker(
            "activation_gates_not_passed",
            f"Go-live gates not passed yet: {', '.join(f.activation_blockers)} (activationGovernance.recordGate).",
        )
    ]


def _workflow(name: str, blockers: list[Blocker]) -> Workflow:
    what = WORKFLOWS[name]
    sentence = f"Ready: {what}" if not blockers else f"Blocked: {what[0].lower()}{what[1:]}"
    return Workflow(name, not blockers, sentence, blockers)


def assess(f: Facts) -> list[Workflow]:
    """Every workflow with its blockers, in the order a client goes live."""
    return [
        _workflow("upload_and_reconcile_remittances", _no_writer(f)),
        _workflow("work_denial_cases", _no_specialist(f) + _no_cases(f)),
        _workflow("assemble_appeals", _no_specialist(f) + _no_cases(f) + _no_payer_rules(f)),
        _workflow("automation", _gates(f) + _no_cases(f)),
    ]
