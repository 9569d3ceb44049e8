"""How a mail leaves the platform: SMTP (standard library `smtplib`) or, in the embedded default, a mail
file under DATA_DIR that only the platform operator can read.

A transport gets a finished `EmailMessage` and either delivers it or raises; it never logs the message
(an invitation carries a token meant for its recipient only).
"""

from __future__ import annotations

import contextlib
import os
import smtplib
import ssl
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid, parseaddr
from pathlib import Path
from typing import Protocol

from pydantic import SecretStr

from api.infra.private_files import PRIVATE_FILE, private_dir


@dataclass(frozen=True)
class Mail:
    """One outbox row's content, ready to compose."""

    message_id: int
    recipient: str
    subject: str
    body: str
    created_at: datetime


def compose(mail: Mail, sender: str) -> EmailMessage:
    """A plain-text RFC 5322 message; the Message-ID names the outbox row, so a resend is recognisable."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = mail.recipient
    message["Subject"] = mail.subject
    message["Date"] = format_datetime(mail.created_at)
    domain = parseaddr(sender)[1].rpartition("@")[2] or "localhost"
    message["Message-ID"] = make_msgid(idstring=f"outbox-{mail.message_id}", domain=domain)
    message.set_content(mail.body)
    return message


class Transport(Protocol):
    name: str

    def send(self, message_id: int, message: EmailMessage) -> None: ...


class FileTransport:
    """`<directory>/<outbox id>.eml`: the directory 0700, the file 0600, written whole then renamed into
    place (a reader never sees half a mail; delivering the same row twice rewrites the same file)."""

    name = "file"

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    def path_of(self, message_id: int) -> Path:
        return self.directory / f"{message_id}.eml"

    def send(self, message_id: int, message: EmailMessage) -> None:
        private_dir(self.directory)
        final = self.path_of(message_id)
        partial = self.directory / f".{message_id}.eml.partial"
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
        try:
            os.fchmod(fd, PRIVATE_FILE)
            with os.fdopen(fd, "wb") as fh:
                fh.write(message.as_bytes())
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(partial, final)
        except BaseException:
            with contextlib.suppress(OSError):
                partial.unlink()
            raise


class SmtpTransport:
    """A relay reached with `smtplib`: STARTTLS (verified against the system's CAs) unless turned off,
    a login when a user is configured."""

    name = "smtp"

    def __init__(
        self,
        host: str,
        port: int,
        *,
        starttls: bool,
        username: str | None,
        password: SecretStr | None,
        timeout: float,
    ) -> None:
        self.host, self.port, self.starttls, self.timeout = host, port, starttls, timeout
        self.username, self.password = username, password

    def send(self, message_id: int, message: EmailMessage) -> None:
        with smtplib.SMTP(self.host, self.port, timeout=self.timeout) as smtp:
            if self.starttls:
                smtp.starttls(context=ssl.create_default_context())
            if self.username:
                smtp.login(self.username, self.password.get_secret_value() if self.password else "")
            smtp.send_message(message)
