"""The invitation mail (pure, no I/O): what the invitee reads, with the single-use token.

The token travels only in this mail (through the outbox), never in an API answer, so only whoever reads
the invitee's mailbox can accept it. Nothing about the organization's data is in it: its name, the role,
the clients the membership will reach, how to accept, and until when.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

SUBJECT = "Your invitation to {organization} on the denial-management platform"

_BODY = """You are invited to join {organization} as {role}{reach}.

Your invitation code (single use, valid until {expires} UTC):

    {token}

No account yet? Choose your password with this code (auth.acceptInvite) at {base_url}.
Already have an account with this e-mail address? Sign in to it first, then accept with this code
(organizations.acceptInvite). An existing account can only accept while signed in as itself.

If you did not expect this invitation, ignore this mail: nothing is granted until it is accepted.
"""


def invitation_mail(
    *,
    organization: str,
    role: str,
    token: str,
    expires_at: datetime,
    base_url: str,
    client_names: Sequence[str] | None,
) -> tuple[str, str]:
    """(subject, body) of an invitation; `client_names` None means every client of the organization."""
    reach = " for every client of the organization" if client_names is None else f" for {', '.join(client_names)}"
    body = _BODY.format(
        organization=organization,
        role=role,
        reach=reach,
        expires=expires_at.strftime("%Y-%m-%d %H:%M"),
        token=token,
        base_url=base_url,
    )
    # A header holds one line: any line break or run of whitespace in the name becomes one space.
    subject = SUBJECT.format(organization=" ".join(organization.split()))
    return subject[:200], body
