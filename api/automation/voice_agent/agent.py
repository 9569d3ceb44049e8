"""The voice agent's side of a call: one script per goal answering the line's prompts with the
delegation's data (pure, no I/O).

It picks menu options by their spoken labels, keys the NPI in, holds up to `MAX_HOLD_SECONDS`,
opens with the hospital's script for the goal, answers the representative's identifier questions
with the call data, never gives patient identifiers (it has none), and reads the reference number
back. It hangs up on a menu heard `LOOP_LIMIT` times (``ivr_loop``) and on a hold past its budget
(``long_hold_timeout``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from api.automation.voice_agent.call_data import CallData, spoken_date
from api.automation.voice_agent.ivr import CHARS_PER_SECOND, Action, Prompt

MAX_HOLD_SECONDS = 1800
LOOP_LIMIT = 3
DTMF_SECONDS_PER_KEY = 0.4
#: Menu labels the agent looks for, per goal, in order of preference.
WANTED_LABELS: dict[str, tuple[str, ...]] = {
    "claim_status": ("claims", "claim status"),
    "appeal_status": ("appeals", "appeal status"),
    "reopening_request": ("claims", "reopening"),
}


@dataclass(frozen=True)
class Agent:
    data: CallData
    opening: str  # the hospital's script for the goal, rendered
    menus_heard: tuple[str, ...] = ()
    held_seconds: int = 0


def _say(text: str) -> Action:
    return Action("say", text, seconds=round(len(text) / CHARS_PER_SECOND, 1))


def _keys(digits: str) -> Action:
    return Action("dtmf", digits, seconds=round(len(digits) * DTMF_SECONDS_PER_KEY, 1))


def _menu(agent: Agent, prompt: Prompt) -> tuple[Agent, Action]:
    signature = "|".join(label for _, label in prompt.options)
    heard = (*agent.menus_heard, signature)
    if heard.count(signature) >= LOOP_LIMIT:
        return replace(agent, menus_heard=heard), Action("hangup", reason="ivr_loop")
    for wanted in WANTED_LABELS[agent.data.goal]:
        for key, label in prompt.options:
            if label == wanted:
                return replace(agent, menus_heard=heard), _keys(key)
    return replace(agent, menus_heard=heard), _keys("0")


def _hold(agent: Agent, prompt: Prompt) -> tuple[Agent, Action]:
    left = MAX_HOLD_SECONDS - agent.held_seconds
    if prompt.hold_seconds > left:
        return replace(agent, held_seconds=MAX_HOLD_SECONDS), Action(
            "hangup", reason="long_hold_timeout", seconds=float(left)
        )
    held = agent.held_seconds + prompt.hold_seconds
    return replace(agent, held_seconds=held), Action("wait", seconds=float(prompt.hold_seconds))


def _npi(agent: Agent, prompt: Prompt) -> tuple[Agent, Action]:
    if prompt.speaker == "ivr":
        return agent, _keys(f"{agent.data.npi}#")
    return agent, _say(f"The NPI is {agent.data.npi}.")


def _claim_number(agent: Agent, prompt: Prompt) -> tuple[Agent, Action]:
    data = agent.data
    if data.payer_claim_number:
        return agent, _say(f"Your claim number is {data.payer_claim_number}; our claim number is {data.claim_number}.")
    return agent, _say(f"The claim number is {data.claim_number}.")


def _date_of_service(agent: Agent, prompt: Prompt) -> tuple[Agent, Action]:
    data = agent.data
    if data.date_of_service is None:
        return agent, _say("I don't have the date of service; the claim number should find it.")
    billed = f", billed ${data.billed_amount:,.2f}" if data.billed_amount is not None else ""
    return agent, _say(f"The date of service is {spoken_date(data.date_of_service)}{billed}.")


def _confirm(agent: Agent, prompt: Prompt) -> tuple[Agent, Action]:
    reference = dict(prompt.facts).get("reference_number", "")
    return agent, _say(f"Thank you. I have reference number {reference}. That's all I needed today.")


_ANSWERS: dict[str, Callable[[Agent, Prompt], tuple[Agent, Action]]] = {
    "menu": _menu,
    "hold": _hold,
    "npi": _npi,
    "purpose": lambda agent, prompt: (agent, _say(agent.opening)),
    "tin": lambda agent, prompt: (agent, _say(f"Our tax ID is {agent.data.tin}.")),
    "claim_number": _claim_number,
    "date_of_service": _date_of_service,
    "patient_identifier": lambda agent, prompt: (
        agent,
        _say("I'm not able to give patient identifiers on this call; I can give the claim number, NPI and tax ID."),
    ),
    "confirmation": _confirm,
}


def respond(agent: Agent, prompt: Prompt) -> tuple[Agent, Action]:
    """The agent's answer to the line's last prompt."""
    answer = _ANSWERS.get(prompt.expects)
    if answer is None:
        return agent, Action("wait")
    return answer(agent, prompt)
