"""The rendered content and its digest: what the audit and the transport record instead of the body."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.core.errors import InvalidInput
from api.denials.comms.content import content_digest, normalise_recipient, render


def test_digest_of_nothing_is_the_published_sha256_of_the_empty_string():
    assert content_digest(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_render_is_headers_then_body_and_its_digest_is_pinned():
    rendered = render("fax", "8005550142", "Appeal for case 7", "Line one\r\nLine two")
    assert rendered == b"Channel: fax\nTo: 8005550142\nSubject: Appeal for case 7\n\nLine one\nLine two"
    # pinned: a change to the rendering changes every recorded digest, so it must be deliberate
    assert content_digest(rendered) == "24d98d13055ece8af2af251c7a7d5c46ed010f03bf356b3d0234d3c4f25cd705"


# UTF-8 text only: the wire refuses lone surrogates before any content is rendered (api/rpc/text.py)
@given(
    lines=st.lists(st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=20), max_size=8)
)
def test_line_endings_do_not_change_the_digest(lines):
    unix, windows, old_mac = "\n".join(lines), "\r\n".join(lines), "\r".join(lines)
    digests = {content_digest(render("letter", "A\nB", "s", body)) for body in (unix, windows, old_mac)}
    assert len(digests) == 1


@given(body=st.text(max_size=200), other=st.text(max_size=200))
def test_different_bodies_digest_differently(body, other):
    a, b = render("portal", "p-1", "s", body), render("portal", "p-1", "s", other)
    assert (content_digest(a) == content_digest(b)) == (a == b)


@pytest.mark.parametrize(
    ("given_number", "stored"),
    [("(800) 555-0142", "8005550142"), ("+1 800.555.0142", "+18005550142"), ("800 555 0142", "8005550142")],
)
def test_fax_numbers_are_stored_as_digits(given_number, stored):
    assert normalise_recipient("fax", given_number) == stored


@pytest.mark.parametrize(
    ("channel", "recipient"),
    [("fax", "555-0142"), ("fax", "call me"), ("portal", "has space"), ("portal", "-leading"), ("letter", "one line")],
)
def test_bad_recipients_are_refused_naming_the_field(channel, recipient):
    with pytest.raises(InvalidInput, match="'recipient'") as raised:
        normalise_recipient(channel, recipient)
    assert recipient not in raised.value.message


def test_a_letter_address_keeps_its_lines_with_unix_endings():
    assert normalise_recipient("letter", " Appeals Dept\r\nPO Box 1\r\nCity ST 00000 ") == (
        "Appeals Dept\nPO Box 1\nCity ST 00000"
    )
