"""The invitation mail (pure): what the invitee reads, and a subject that is always one header line."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from api.platform.organizations.invitation_mail import invitation_mail

EXPIRES = datetime(2026, 3, 1, 12, 30, tzinfo=UTC)


def _mail(organization: str = "North Health", clients: list[str] | None = None) -> tuple[str, str]:
    return invitation_mail(
        organization=organization,
        role="analyst",
        token="dpi_" + "A" * 43,
        expires_at=EXPIRES,
        base_url="https://denials.example",
        client_names=clients,
    )


def test_the_mail_holds_the_token_the_reach_and_both_ways_to_accept():
    subject, body = _mail(clients=["Riverside Community Hospital"])
    assert subject == "Your invitation to North Health on the denial-management platform"
    assert "as analyst for Riverside Community Hospital." in body
    assert "dpi_" + "A" * 43 in body and "2026-03-01 12:30 UTC" in body
    assert "auth.acceptInvite" in body and "organizations.acceptInvite" in body
    assert "https://denials.example" in body


def test_an_organization_wide_invitation_says_so():
    _, body = _mail(clients=None)
    assert "as analyst for every client of the organization." in body


@given(st.text(max_size=300))
def test_the_subject_is_one_line_of_at_most_200_characters_whatever_the_name(name):
    subject, _ = _mail(organization=name)
    assert "\n" not in subject and "\r" not in subject and len(subject) <= 200
