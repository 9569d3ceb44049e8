"""A simulated payer phone line: IVR menus, holds, transfers and a representative (pure, no I/O).

Everything random about a call (ring time, hold lengths, the representative, what the payer's
system shows, the answer) is drawn once from the seed into a `Scenario`; `step` is then a plain
function of the scenario, the line's state and the caller's action, so a seed replays the same call.

The line: a greeting and main menu (1 claims, 2 appeals, 3 eligibility, 4 pharmacy), a sub-menu,
NPI entry by DTMF, a transfer and hold segments, then a representative who asks what the call is
about, the NPI, the TIN, the claim number and the date of service, reads the claim back (with the
patient's name, date of birth and member id, as representatives do) and answers with a status, a
reference number and a next step.

Failure modes (chosen by the caller of the simulation): ``dropped_call`` (the line drops on hold or
while the representative looks the claim up), ``long_hold_timeout`` (holds outlast the caller's
patience, or the line closes), ``wrong_department_transfer`` (the transfer lands in another
department that cannot help), ``rep_refuses_without_identifier`` (the representative wants the
member id and date of birth), ``ivr_loop`` (every menu choice leads back to the main menu).

Termination is by construction: each step moves forward through a finite set of nodes, or plays one
of finitely many hold segments, or counts a repeat; after `MAX_REPEATS` repeats the line hangs up.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

FAILURE_MODES: tuple[str, ...] = (
    "none",
    "dropped_call",
    "long_hold_timeout",
    "wrong_department_transfer",
    "rep_refuses_without_identifier",
    "ivr_loop",
)
FINAL_STATES: tuple[str, ...] = ("completed", *FAILURE_MODES[1:])
MAX_REPEATS = 6
CHARS_PER_SECOND = 15

MAIN_MENU = (("1", "claims"), ("2", "appeals"), ("3", "eligibility and benefits"), ("4", "pharmacy"))
SUB_MENUS = {
    "claims": (("1", "claim status"), ("2", "reopening"), ("*", "main menu")),
    "appeals": (("1", "appeal status"), ("2", "file an appeal"), ("*", "main menu")),
}
WRONG_DEPARTMENTS = ("pharmacy benefits", "eligibility and enrollment", "member services")
REP_NAMES = ("Dana", "Marcus", "Priya", "Luis", "Keisha", "Tom", "Mei", "Andre")
FIRST_NAMES = ("Jane", "Robert", "Maria", "James", "Linda", "Michael", "Patricia", "David", "Susan", "Carlos")
LAST_NAMES = ("Doe", "Smith", "Garcia", "Johnson", "Nguyen", "Williams", "Brown", "Lopez", "Miller", "Davis")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


@dataclass(frozen=True)
class Answer:
    """What the representative finds: a status (words and the payer-interaction outcome) and the next step."""

    status: str
    words: str
    outcome: str
    next_step: str


ANSWERS: dict[str, tuple[Answer, ...]] = {
    "claim_status": (
        Answer(
            "in_process",
            "That claim is in process and has not finalized yet",
            "in_process",
            "Allow 15 business days for processing, then call back if it has not finalized",
        ),
        Answer(
            "reprocessing",
            "That claim was sent back for reprocessing",
            "reprocessing",
            "Watch for a corrected remittance within 30 days",
        ),
        Answer(
            "denial_upheld",
            "That claim remains denied on review",
            "denial_upheld",
            "Submit a written appeal with the supporting records",
        ),
        Answer("paid", "That claim was reprocessed and paid", "resolved", "Post the payment from the next remittance"),
    ),
    "appeal_status": (
        Answer(
            "appeal_in_review",
            "The appeal was received and is under review",
            "in_process",
            "Expect a decision within 30 days of receipt",
        ),
        Answer(
            "appeal_overturned",
            "The appeal was decided in the provider's favour",
            "resolved",
            "Watch for the adjusted payment within 30 days",
        ),
        Answer(
            "appeal_not_on_file",
            "There is no appeal on file for that claim",
            "no_record",
            "Resubmit the appeal with proof of timely filing",
        ),
    ),
    "reopening_request": (
        Answer(
            "reopening_accepted",
            "The reopening was accepted and the claim sent for adjustment",
            "reprocessing",
            "Watch for the adjusted claim within 60 days",
        ),
        Answer(
            "reopening_written_required",
            "That reopening needs a written request",
            "appeal_required",
            "Send the written reopening request form with the corrected information",
        ),
    ),
}


@dataclass(frozen=True)
class Scenario:
    seed: int
    failure_mode: str
    goal: str
    payer: str
    ring_seconds: int
    hold_segments: tuple[int, ...]
    rep_name: str
    wrong_department: str
    patient_name: str
    patient_dob: str
    member_id: str
    answer: Answer
    reference_number: str
    drop_at: str  # where a dropped call drops: "hold" | "lookup"


def scenario(seed: int, failure_mode: str, goal: str, payer: str) -> Scenario:
    """Everything random about one call, drawn from `seed` (the same seed gives the same call)."""
    if failure_mode not in FAILURE_MODES:
        raise ValueError(f"unknown failure mode {failure_mode!r}")
    rng = random.Random(f"{seed}:{failure_mode}:{goal}")
    if failure_mode == "long_hold_timeout":
        holds = tuple(rng.randint(420, 900) for _ in range(rng.randint(6, 10)))
    else:
        holds = tuple(rng.randint(45, 420) for _ in range(rng.randint(1, 3)))
    return Scenario(
        seed=seed,
        failure_mode=failure_mode,
        goal=goal,
        payer=payer,
        ring_seconds=rng.randint(3, 25),
        hold_segments=holds,
        rep_name=rng.choice(REP_NAMES),
        wrong_department=rng.choice(WRONG_DEPARTMENTS),
        patient_name=f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}",
        patient_dob=f"{rng.choice(MONTHS)} {rng.randint(1, 28)}, {rng.randint(1930, 2005)}",
        member_id=f"W{rng.randint(100_000_000, 999_999_999)}",
        answer=rng.choice(ANSWERS[goal]),
        reference_number=f"R{rng.randint(10, 99)}-{rng.randint(1_000_000, 9_999_999)}",
        drop_at=rng.choice(("hold", "lookup")),
    )


@dataclass(frozen=True)
class Prompt:
    """One thing the line says. `expects` is what it waits for: menu, npi, hold, purpose, tin,
    claim_number, date_of_service, patient_identifier, confirmation (or nothing on the last line)."""

    speaker: str  # ivr | representative
    text: str
    expects: str
    options: tuple[tuple[str, str], ...] = ()
    hold_seconds: int = 0
    facts: tuple[tuple[str, str], ...] = ()  # what the caller understands from it (status, reference, ...)

    @property
    def seconds(self) -> float:
        return round(len(self.text) / CHARS_PER_SECOND, 1)


@dataclass(frozen=True)
class Action:
    """What the caller does: press keys (`dtmf`), speak (`say`), keep holding (`wait`) or `hangup`
    (with the failure mode it declares)."""

    kind: str
    text: str = ""
    reason: str | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class Event:
    kind: str
    detail: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Line:
    node: str = "start"
    repeats: int = 0
    holds_played: int = 0
    final: str | None = None


@dataclass(frozen=True)
class Step:
    line: Line
    prompts: tuple[Prompt, ...] = ()
    events: tuple[Event, ...] = field(default_factory=tuple)


def _ivr(text: str, expects: str, **kw: object) -> Prompt:
    return Prompt("ivr", text, expects, **kw)  # type: ignore[arg-type]


def _rep(text: str, expects: str, **kw: object) -> Prompt:
    return Prompt("representative", text, expects, **kw)  # type: ignore[arg-type]


def _menu_text(options: tuple[tuple[str, str], ...]) -> str:
    return " ".join(f"For {label}, press {'star' if key == '*' else key}." for key, label in options)


def _main_menu(scn: Scenario, line: Line, lead: str = "") -> Step:
    prompt = _ivr(f"{lead}{_menu_text(MAIN_MENU)}", "menu", options=MAIN_MENU)
    return Step(replace(line, node="main_menu"), (prompt,), (Event("menu", (("menu", "main"),)),))


def _end(line: Line, final: str, *prompts: Prompt, by: str = "payer") -> Step:
    return Step(replace(line, node="ended", final=final), prompts, (Event("hung_up", (("by", by),)),))


def _repeat(scn: Scenario, line: Line, prompt: Prompt, lead: str) -> Step:
    """An input the line did not take: say so and ask again, or give up after MAX_REPEATS."""
    if line.repeats + 1 >= MAX_REPEATS:
        return _end(line, "ivr_loop", _ivr("We are unable to process your request. Goodbye.", "nothing"))
    again = replace(prompt, text=f"{lead}{prompt.text}")
    return Step(replace(line, repeats=line.repeats + 1), (again,), (Event("repeat", (("node", line.node),)),))


def _start(scn: Scenario, line: Line, action: Action) -> Step:
    greeting = f"Thank you for calling {scn.payer} provider services. This call may be recorded. "
    step = _main_menu(scn, line, greeting)
    return Step(step.line, step.prompts, (Event("connected"), *step.events))


def _on_main_menu(scn: Scenario, line: Line, action: Action) -> Step:
    choice = dict(MAIN_MENU).get(action.text) if action.kind == "dtmf" else None
    if choice in SUB_MENUS and scn.failure_mode != "ivr_loop":
        options = SUB_MENUS[choice]
        prompt = _ivr(f"{choice.capitalize()}. {_menu_text(options)}", "menu", options=options)
        return Step(replace(line, node=f"menu_{choice}"), (prompt,), (Event("menu", (("menu", choice),)),))
    if choice is not None and scn.failure_mode == "ivr_loop":
        return _repeat(
            scn, line, _ivr(_menu_text(MAIN_MENU), "menu", options=MAIN_MENU), "Returning to the main menu. "
        )
    return _repeat(scn, line, _ivr(_menu_text(MAIN_MENU), "menu", options=MAIN_MENU), "That is not a valid selection. ")


def _on_sub_menu(scn: Scenario, line: Line, action: Action) -> Step:
    options = SUB_MENUS[line.node.removeprefix("menu_")]
    choice = dict(options).get(action.text) if action.kind == "dtmf" else None
    if choice == "main menu":
        return _main_menu(scn, line)
    if choice is None:
        prompt = _ivr(_menu_text(options), "menu", options=options)
        return _repeat(scn, line, prompt, "That is not a valid selection. ")
    prompt = _ivr("Please enter your ten-digit National Provider Identifier, followed by the pound sign.", "npi")
    return Step(replace(line, node="npi_entry"), (prompt,), (Event("menu_choice", (("choice", choice),)),))


def _hold_prompt(scn: Scenario, index: int) -> Prompt:
    text = (
        "Please hold for the next available representative."
        if index == 0
        else ("Your call is important to us. Please continue to hold.")
    )
    return _ivr(text, "hold", hold_seconds=scn.hold_segments[index])


def _on_npi_entry(scn: Scenario, line: Line, action: Action) -> Step:
    digits = action.text.removesuffix("#")
    if action.kind != "dtmf" or not (len(digits) == 10 and digits.isdigit()):
        return _repeat(scn, line, _ivr("Please enter your ten-digit NPI, followed by the pound sign.", "npi"), "")
    department = scn.wrong_department if scn.failure_mode == "wrong_department_transfer" else "provider claims"
    transfer = _ivr(f"Thank you. Transferring you to {department}.", "nothing")
    return Step(
        replace(line, node="hold"),
        (transfer, _hold_prompt(scn, 0)),
        (Event("transfer", (("department", department),)), Event("hold", (("segment", "1"),))),
    )


def _rep_joins(scn: Scenario, line: Line) -> Step:
    if scn.failure_mode == "wrong_department_transfer":
        text = f"Thank you for holding, this is {scn.rep_name} in {scn.wrong_department}. How can I help you?"
    else:
        text = f"Thank you for holding, this is {scn.rep_name} in provider services. How can I help you today?"
    return Step(replace(line, node="rep_purpose"), (_rep(text, "purpose"),), (Event("representative_joined"),))


def _on_hold(scn: Scenario, line: Line, action: Action) -> Step:
    if action.kind != "wait":
        return _repeat(scn, line, _hold_prompt(scn, line.holds_played), "")
    played = line.holds_played + 1
    line = replace(line, holds_played=played)
    if scn.failure_mode == "dropped_call" and scn.drop_at == "hold":
        return Step(replace(line, node="ended", final="dropped_call"), (), (Event("line_dropped"),))
    if played < len(scn.hold_segments):
        return Step(line, (_hold_prompt(scn, played),), (Event("hold", (("segment", str(played + 1)),)),))
    if scn.failure_mode == "long_hold_timeout":
        closing = "All representatives are busy and our offices are now closed. Please call back. Goodbye."
        return _end(line, "long_hold_timeout", _ivr(closing, "nothing"))
    return _rep_joins(scn, line)


_REP_QUESTIONS: dict[str, tuple[str, str, str]] = {
    # node: (next node, question, what it expects)
    "rep_purpose": ("rep_npi", "I can help with that. Can I have the NPI?", "npi"),
    "rep_npi": ("rep_tin", "And the tax ID?", "tin"),
    "rep_tin": ("rep_claim", "What is the claim number?", "claim_number"),
    "rep_claim": ("rep_dos", "And the date of service?", "date_of_service"),
}


def _on_rep(scn: Scenario, line: Line, action: Action) -> Step:
    if action.kind != "say":
        return _repeat(scn, line, _rep("Hello? Are you still there?", _expects_at(line.node)), "")
    if line.node == "rep_purpose" and scn.failure_mode == "wrong_department_transfer":
        words = (
            f"I'm sorry, this is {scn.wrong_department}; I can't see provider claims from here and I'm "
            "unable to transfer you. Please call the provider line again."
        )
        return _end(line, "wrong_department_transfer", _rep(words, "nothing"))
    if line.node == "rep_claim" and scn.failure_mode == "dropped_call" and scn.drop_at == "lookup":
        return Step(
            replace(line, node="ended", final="dropped_call"),
            (_rep("Let me pull that up.", "nothing"),),
            (Event("line_dropped"),),
        )
    target, question, expects = _REP_QUESTIONS[line.node]
    events = (Event("identifier_requested", (("identifier", expects),)),) if expects != "purpose" else ()
    return Step(replace(line, node=target, repeats=0), (_rep(question, expects),), events)


def _expects_at(node: str) -> str:
    return {"rep_purpose": "purpose", "rep_npi": "npi", "rep_tin": "tin", "rep_claim": "claim_number"}.get(
        node, "date_of_service"
    )


def _on_date_of_service(scn: Scenario, line: Line, action: Action) -> Step:
    if action.kind != "say":
        return _repeat(scn, line, _rep("Hello? Are you still there?", "date_of_service"), "")
    if scn.failure_mode == "rep_refuses_without_identifier":
        ask = "I'll also need the patient's member ID and date of birth before I can release anything on that claim."
        return Step(
            replace(line, node="rep_identifier"),
            (_rep(ask, "patient_identifier"),),
            (Event("identifier_requested", (("identifier", "patient_identifier"),)),),
        )
    answer = scn.answer
    words = (
        f"Okay, I have that claim for patient {scn.patient_name}, date of birth {scn.patient_dob}, member ID "
        f"{scn.member_id}. {answer.words}. Your reference number for this call is {scn.reference_number}. "
        f"Next step: {answer.next_step}."
    )
    facts = (
        ("status", answer.status),
        ("outcome", answer.outcome),
        ("reference_number", scn.reference_number),
        ("next_step", answer.next_step),
    )
    return Step(
        replace(line, node="rep_result"),
        (_rep(words, "confirmation", facts=facts),),
        (Event("status_given", (("status", answer.status),)),),
    )


def _on_identifier(scn: Scenario, line: Line, action: Action) -> Step:
    refusal = "I'm sorry, I can't release claim information without the member ID. Thank you for calling."
    return _end(line, "rep_refuses_without_identifier", _rep(refusal, "nothing"))


def _on_result(scn: Scenario, line: Line, action: Action) -> Step:
    return _end(line, "completed", _rep("You're welcome. Have a good day.", "nothing"))


_HANDLERS: dict[str, Callable[[Scenario, Line, Action], Step]] = {
    "start": _start,
    "main_menu": _on_main_menu,
    "menu_claims": _on_sub_menu,
    "menu_appeals": _on_sub_menu,
    "npi_entry": _on_npi_entry,
    "hold": _on_hold,
    "rep_purpose": _on_rep,
    "rep_npi": _on_rep,
    "rep_tin": _on_rep,
    "rep_claim": _on_rep,
    "rep_dos": _on_date_of_service,
    "rep_identifier": _on_identifier,
    "rep_result": _on_result,
}


def step(scn: Scenario, line: Line, action: Action) -> Step:
    """The line's answer to the caller's action. A hang-up ends the call with the reason the caller gave."""
    if line.final is not None:
        raise ValueError("the call has ended")
    if action.kind == "hangup":
        final = action.reason if action.reason in FINAL_STATES else "dropped_call"
        return _end(line, final, by="caller")
    return _HANDLERS[line.node](scn, line, action)
