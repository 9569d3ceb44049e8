"""Knowledge rules (pure, no I/O): kinds and what their content must be, which version is active,
the state a person sees, and separation of duties on approval.

- A (kind, key) holds numbered, immutable versions. A version is usable by agents only once approved
  by someone other than its author; of the approved (not retired) versions the highest is *active*,
  so there is at most one active version per (client, kind, key) by construction, and retiring the
  active one makes the previous approved version active again (or none).
- An `appeal_template` is a letter body with `string.Template` placeholders from appealAssembly's
  letter (`letter.PLACEHOLDERS`); its key is a denial category (or `default`). A `payer_policy` is keyed
  by the payer's name as it appears on cases; a `carc_guidance` by the CARC.
"""

from __future__ import annotations

import hashlib
import string
from collections.abc import Iterable
from typing import Literal

from api.core.errors import Forbidden, InvalidInput
from api.denials.appeal_assembly import letter

Kind = Literal["payer_policy", "appeal_template", "carc_guidance"]
KINDS: tuple[Kind, ...] = ("payer_policy", "appeal_template", "carc_guidance")
PAYER_POLICY: Kind = "payer_policy"
APPEAL_TEMPLATE: Kind = "appeal_template"
CARC_GUIDANCE: Kind = "carc_guidance"

#: what a person sees: the stored state, with `approved` split into active and superseded
ShownState = Literal["pending_approval", "active", "superseded", "retired"]
SHOWN_STATES: tuple[ShownState, ...] = ("pending_approval", "active", "superseded", "retired")


def content_sha256(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def normalise_key(kind: str, key: str) -> str:
    """Keys compare exactly as cases carry them, except surrounding spaces; CARCs and categories are
    codes, compared in their usual case (CARCs upper, categories lower)."""
    cleaned = key.strip()
    if not cleaned:
        raise InvalidInput("Invalid input: 'key' must not be blank")
    if kind == CARC_GUIDANCE:
        return cleaned.upper()
    if kind == APPEAL_TEMPLATE:
        return cleaned.lower()
    return cleaned


def check_content(kind: str, content: str) -> None:
    """An appeal template must use only the letter's placeholders, well formed (else BAD_REQUEST
    naming `content`); other kinds are free text."""
    if not content.strip():
        raise InvalidInput("Invalid input: 'content' must not be blank")
    if kind != APPEAL_TEMPLATE:
        return
    template = string.Template(content)
    if not template.is_valid():
        raise InvalidInput("Invalid input: 'content' has a malformed placeholder (write $$ for a dollar sign)")
    unknown = sorted(set(template.get_identifiers()) - letter.PLACEHOLDERS)
    if unknown:
        known = ", ".join(sorted(letter.PLACEHOLDERS))
        raise InvalidInput(f"Invalid input: 'content' uses unknown placeholders {unknown}; known: {known}")


def active(versions: Iterable[tuple[int, str]]) -> int | None:
    """The active version number among (version, stored state) pairs of one (kind, key): the highest
    approved one; None when none is approved."""
    approved = [v for v, state in versions if state == "approved"]
    return max(approved) if approved else None


def shown_state(stored: str, version: int, active_version: int | None) -> ShownState:
    """The state a person sees: approved becomes active (the highest approved) or superseded."""
    if stored == "approved":
        return "active" if version == active_version else "superseded"
    if stored == "pending_approval":
        return "pending_approval"
    return "retired"


def check_can_approve(author_user_id: int | None, user_id: int) -> None:
    """Separation of duties: the author of a version never approves it (FORBIDDEN)."""
    if author_user_id is not None and author_user_id == user_id:
        raise Forbidden("Separation of duties: you published this knowledge version, so someone else must approve it")
