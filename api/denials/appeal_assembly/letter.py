"""The appeal letter from a versioned template per denial category and appeal level (pure: the one
read is the templates at import).

Templates are data: ``templates/<category>.<level>.txt``, a header (``Template:``, ``Version:``,
``Title:``) ended by ``---``, then the body with ``string.Template`` placeholders (`PLACEHOLDERS`).
A category without a template of its own uses ``default``. Changing a template's text means bumping
its ``Version``: the version is part of every packet's content hash.

The letter holds claim facts only (claim numbers, payer, dates, money, codes), never patient names.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path

from api.denials.appeal_assembly import codes

TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"
LEVELS: tuple[str, ...] = ("first_level", "second_level")
LEVEL_TITLES: Mapping[str, str] = {
    "first_level": "First-level appeal (redetermination)",
    "second_level": "Second-level appeal (reconsideration)",
}
#: appealAssembly level -> outcomes.record level
LEVEL_NUMBERS: Mapping[str, int] = {"first_level": 1, "second_level": 2}
DEFAULT_CATEGORY = "default"
POLICY_REFERENCE = "[payer policy reference: name the policy or contract section]"
NOT_ON_RECORD = "not on record"
PLACEHOLDERS = frozenset(
    {
        "payer",
        "payer_claim_number",
        "claim_key",
        "service_date",
        "remittance_date",
        "billed_amount",
        "amount_at_stake",
        "level_title",
        "category_label",
        "denial_explained",
        "policy_reference",
        "evidence_index",
    }
)


class TemplateDataError(ValueError):
    """A template file is malformed (header, version, unknown placeholder)."""


@dataclass(frozen=True)
class LetterTemplate:
    key: str  # "<category>.<level>"
    category: str
    level: str
    version: str
    title: str
    body: string.Template


@dataclass(frozen=True)
class ClaimFacts:
    """What the letter may say about the claim (from the denial case)."""

    payer: str
    claim_key: str
    payer_claim_number: str | None
    service_date: date | None
    remittance_date: date | None
    billed_amount: Decimal | None
    amount_at_stake: Decimal
    carc: str | None
    rarcs: tuple[str, ...]
    group_code: str | None
    denial_category: str | None


@dataclass(frozen=True)
class IndexEntry:
    title: str
    doc_type: str


@dataclass(frozen=True)
class Letter:
    text: str
    template_key: str
    template_version: str


def parse_template(name: str, text: str) -> LetterTemplate:
    head, sep, body = text.partition("\n---\n")
    if not sep:
        raise TemplateDataError(f"{name}: no '---' line after the header")
    header = dict(line.split(":", 1) for line in head.splitlines() if ":" in line)
    header = {k.strip().lower(): v.strip() for k, v in header.items()}
    key = name.removesuffix(".txt")
    category, _, level = key.partition(".")
    if header.get("template") != key or not header.get("version") or level not in LEVELS:
        raise TemplateDataError(f"{name}: header must name 'Template: {key}' and a 'Version', level one of {LEVELS}")
    template = string.Template(body)
    unknown = set(template.get_identifiers()) - PLACEHOLDERS
    if unknown or not template.is_valid():
        raise TemplateDataError(f"{name}: unknown or malformed placeholders {sorted(unknown)}")
    return LetterTemplate(key, category, level, header["version"], header.get("title", key), template)


def load_templates(directory: Path = TEMPLATE_DIR) -> dict[str, LetterTemplate]:
    found = {p.name: parse_template(p.name, p.read_text(encoding="utf-8")) for p in sorted(directory.glob("*.txt"))}
    templates = {t.key: t for t in found.values()}
    missing = [f"{DEFAULT_CATEGORY}.{level}" for level in LEVELS if f"{DEFAULT_CATEGORY}.{level}" not in templates]
    if missing:
        raise TemplateDataError(f"default templates missing: {missing}")
    return templates


TEMPLATES = load_templates()
CATEGORIES_WITH_TEMPLATES = frozenset(t.category for t in TEMPLATES.values())


def template_for(category: str | None, level: str) -> LetterTemplate:
    """The category's template at the level, else the default one."""
    return TEMPLATES.get(f"{category}.{level}") or TEMPLATES[f"{DEFAULT_CATEGORY}.{level}"]


def money(amount: Decimal | None) -> str:
    return NOT_ON_RECORD if amount is None else f"${amount:,.2f}"


def day(value: date | None) -> str:
    return NOT_ON_RECORD if value is None else value.isoformat()


def evidence_index(entries: Sequence[IndexEntry]) -> str:
    if not entries:
        return "No documents are enclosed with this appeal."
    return "\n".join(
        f"{n}. {entry.title} ({entry.doc_type.replace('_', ' ')})" for n, entry in enumerate(entries, start=1)
    )


def fill(facts: ClaimFacts, level: str, entries: Sequence[IndexEntry]) -> dict[str, str]:
    return {
        "payer": facts.payer,
        "payer_claim_number": facts.payer_claim_number or NOT_ON_RECORD,
        "claim_key": facts.claim_key,
        "service_date": day(facts.service_date),
        "remittance_date": day(facts.remittance_date),
        "billed_amount": money(facts.billed_amount),
        "amount_at_stake": money(facts.amount_at_stake),
        "level_title": LEVEL_TITLES[level],
        "category_label": codes.category_label(facts.denial_category),
        "denial_explained": codes.denial_explained(facts.carc, facts.group_code, facts.rarcs, facts.denial_category),
        "policy_reference": POLICY_REFERENCE,
        "evidence_index": evidence_index(entries),
    }


def render_letter(facts: ClaimFacts, level: str, entries: Sequence[IndexEntry]) -> Letter:
    """The letter for the case's category at the level, every placeholder filled (KeyError otherwise)."""
    template = template_for(facts.denial_category, level)
    text = template.body.substitute(fill(facts, level, entries))
    return Letter(text=text, template_key=template.key, template_version=template.version)
