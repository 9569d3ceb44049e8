"""Text fields of procedure inputs: refused when they carry characters no record should hold.

PostgreSQL refuses NUL in text (a 500 if it reached the database), lone surrogates cannot be
encoded, and other control characters only ever arrive by mistake or by attack. Free text keeps
line breaks and tabs; a single-line field keeps neither. Use with a length bound:

    subject: Annotated[str, Field(min_length=1, max_length=200), SINGLE_LINE]
"""

from __future__ import annotations

import re

from pydantic import AfterValidator

_CONTROL_MULTI = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
_CONTROL_SINGLE = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")


def single_line(value: str) -> str:
    if _CONTROL_SINGLE.search(value):
        raise ValueError("must be one line of text without control characters")
    return value


def multi_line(value: str) -> str:
    if _CONTROL_MULTI.search(value):
        raise ValueError("must be text without control characters (line breaks and tabs are allowed)")
    return value


SINGLE_LINE = AfterValidator(single_line)
MULTI_LINE = AfterValidator(multi_line)
