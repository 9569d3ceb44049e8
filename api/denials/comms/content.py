"""What a message is, byte for byte, and its digest (pure, no I/O).

The rendered content is the record of what was sent: the channel, the recipient, the subject and
the body, with line endings normalised so the same message digests the same whichever client
typed it. The audit log and the transport request carry the SHA-256 of these bytes, never the
text itself (the body may hold PHI).
"""

from __future__ import annotations

import hashlib
import re

from api.core.errors import InvalidInput

CHANNELS: tuple[str, ...] = ("letter", "fax", "portal")

_FAX_PUNCTUATION = re.compile(r"[\s().-]")
_FAX = re.compile(r"^\+?\d{10,15}$")
_PORTAL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,119}$")


def normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def normalise_recipient(channel: str, recipient: str) -> str:
    """The recipient as stored and rendered: a fax number in digits (an optional leading +), a portal
    id as given, a postal address with normalised line endings. Raises InvalidInput naming the field."""
    if channel == "fax":
        number = _FAX_PUNCTUATION.sub("", recipient)
        if not _FAX.match(number):
            raise InvalidInput("Invalid input: 'recipient' must be a fax number of 10 to 15 digits")
        return number
    if channel == "portal":
        if not _PORTAL_ID.match(recipient):
            raise InvalidInput(
                "Invalid input: 'recipient' must be a portal id (letters, digits and . _ : / @ -, at most 120)"
            )
        return recipient
    if channel == "letter":
        address = normalise_newlines(recipient).strip()
        if "\n" not in address:
            raise InvalidInput("Invalid input: 'recipient' must be a postal address of at least two lines")
        return address
    raise InvalidInput(f"Invalid input: 'channel' must be one of {', '.join(CHANNELS)}")


def render(channel: str, recipient: str, subject: str, body: str) -> bytes:
    """The content as sent (UTF-8). `recipient` is the normalised one."""
    text = f"Channel: {channel}\nTo: {recipient}\nSubject: {subject}\n\n{normalise_newlines(body)}"
    return text.encode("utf-8")


def content_digest(content: bytes) -> str:
    """SHA-256 of the rendered content, lowercase hex."""
    return hashlib.sha256(content).hexdigest()
