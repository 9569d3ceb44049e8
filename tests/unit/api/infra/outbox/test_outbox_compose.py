"""Composing an outbox row into a mail (pure): headers, the Message-ID naming the row, the body intact."""

from __future__ import annotations

from datetime import UTC, datetime

from api.infra.outbox.transport import Mail, compose


def test_a_mail_names_its_outbox_row_and_keeps_the_body():
    mail = Mail(
        42, "invitee@example.test", "Your invitation", "Line one\nToken: dpi_abc\n", datetime(2026, 1, 2, tzinfo=UTC)
    )
    message = compose(mail, "Denial platform <no-reply@denials.example>")
    assert message["To"] == "invitee@example.test"
    assert message["From"] == "Denial platform <no-reply@denials.example>"
    assert message["Subject"] == "Your invitation"
    assert message["Message-ID"].startswith("<") and "outbox-42" in message["Message-ID"]
    assert message["Message-ID"].endswith("@denials.example>")
    assert message["Date"] == "Fri, 02 Jan 2026 00:00:00 +0000"
    assert message.get_content() == "Line one\nToken: dpi_abc\n"
