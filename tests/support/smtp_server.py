"""A real SMTP server on loopback for tests (RFC 5321's minimal command set, no TLS, no auth).

`aiosmtpd` is not installed and the standard library's `smtpd` is deprecated, so this is a few lines of
`socketserver`: it accepts one message per transaction and keeps every received message, so a test
reads what the platform's `smtplib` client really sent over a socket.
"""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser


@dataclass
class Received:
    sender: str
    recipients: list[str]
    message: EmailMessage


@dataclass
class Mailbox:
    host: str
    port: int
    received: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    refuse: bool = False  # answer every MAIL FROM with a temporary failure (451)

    def messages_to(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [r.message for r in self.received if address in r.recipients]


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def _reply(self, line: str) -> None:
        self.wfile.write(line.encode("ascii") + b"\r\n")
        self.wfile.flush()

    def handle(self) -> None:
        mailbox = self.server.mailbox
        self._reply("220 localhost test SMTP ready")
        sender, recipients = "", []
        while True:
            raw = self.rfile.readline(65536)
            if not raw:
                return
            command = raw.decode("ascii", "replace").strip()
            verb = command[:4].upper()
            if verb in ("EHLO", "HELO"):
                self._reply("250 localhost")
            elif verb == "MAIL":
                if mailbox.refuse:
                    self._reply("451 try again later")
                    continue
                sender, recipients = command.partition(":")[2].strip().split(" ")[0].strip("<>"), []
                self._reply("250 OK")
            elif verb == "RCPT":
                recipients.append(command.partition(":")[2].strip().split(" ")[0].strip("<>"))
                self._reply("250 OK")
            elif verb == "DATA":
                self._reply("354 end with <CRLF>.<CRLF>")
                self._store(mailbox, sender, recipients, self._data())
                self._reply("250 OK queued")
            elif verb == "RSET":
                sender, recipients = "", []
                self._reply("250 OK")
            elif verb == "NOOP":
                self._reply("250 OK")
            elif verb == "QUIT":
                self._reply("221 bye")
                return
            else:
                self._reply("502 command not implemented")

    def _data(self) -> bytes:
        lines = []
        while True:
            line = self.rfile.readline(1_048_576)
            if not line or line in (b".\r\n", b".\n"):
                return b"".join(lines)
            lines.append(line[1:] if line.startswith(b"..") else line)  # dot-unstuffing

    @staticmethod
    def _store(mailbox: Mailbox, sender: str, recipients: list[str], data: bytes) -> None:
        message = BytesParser(policy=policy.default).parsebytes(data)
        assert isinstance(message, EmailMessage)
        with mailbox.lock:
            mailbox.received.append(Received(sender, list(recipients), message))


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    mailbox: Mailbox


@contextmanager
def smtp_server() -> Iterator[Mailbox]:
    """A running SMTP server on 127.0.0.1 (a free port); its mailbox collects what it receives."""
    server = _Server(("127.0.0.1", 0), _Handler)
    host, port = server.server_address[:2]
    server.mailbox = Mailbox(str(host), int(port))
    thread = threading.Thread(target=server.serve_forever, name="test-smtp", daemon=True)
    thread.start()
    try:
        yield server.mailbox
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
