"""Reading the platform's mail as its operator would: the embedded default's outbox files under DATA_DIR.

Invitation tokens are never in an API answer; tests (like a person) read them from the invitee's mail.
"""

from __future__ import annotations

import re
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

TOKEN = re.compile(r"\bdpi_[A-Za-z0-9_-]{20,}")


def outbox_dir(data_dir: Path) -> Path:
    return Path(data_dir).resolve() / "outbox"


def mails_to(data_dir: Path, email: str) -> list[EmailMessage]:
    """Every delivered mail to `email`, oldest first (by outbox id)."""
    folder = outbox_dir(data_dir)
    if not folder.exists():
        return []
    found = []
    for path in sorted(folder.glob("*.eml"), key=lambda p: int(p.stem)):
        message = BytesParser(policy=policy.default).parsebytes(path.read_bytes())
        assert isinstance(message, EmailMessage)
        if str(message["To"]).strip().lower() == email.strip().lower():
            found.append(message)
    return found


def newest_mail(data_dir: Path, email: str) -> EmailMessage:
    found = mails_to(data_dir, email)
    assert found, f"no mail for {email} in {outbox_dir(data_dir)}"
    return found[-1]


def body_of(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    return str(part.get_content())


def invite_token(data_dir: Path, email: str) -> str:
    """The invitation token of the newest mail to `email`."""
    match = TOKEN.search(body_of(newest_mail(data_dir, email)))
    assert match, f"the newest mail to {email} holds no invitation token"
    return match.group(0)
