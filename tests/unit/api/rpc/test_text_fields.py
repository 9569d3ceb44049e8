"""Text input fields refuse control characters (NUL would be a 500 on PostgreSQL)."""

from __future__ import annotations

from typing import Annotated

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import Field, ValidationError

from api.rpc.schema import Schema
from api.rpc.text import MULTI_LINE, SINGLE_LINE


class _In(Schema):
    line: Annotated[str, Field(max_length=50), SINGLE_LINE] = "x"
    text: Annotated[str, Field(max_length=500), MULTI_LINE] = "x"


@pytest.mark.parametrize("bad", ["a\x00b", "a\nb", "tab\there", "\x7f", "\ud800"])
def test_single_line_refuses_control_characters(bad):
    with pytest.raises(ValidationError, match="line"):
        _In(line=bad)


@pytest.mark.parametrize("bad", ["a\x00b", "\x1b[31m", "\ud800"])
def test_multi_line_refuses_control_characters_but_not_line_breaks(bad):
    with pytest.raises(ValidationError, match="text"):
        _In(text=bad)
    assert _In(text="one\r\ntwo\tthree").text == "one\r\ntwo\tthree"


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs")), max_size=50))
def test_printable_text_passes_both(value):
    _In(line=value, text=value)
