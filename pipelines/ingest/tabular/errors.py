"""Errors raised while reading tabular files (never carrying cell values)."""

from __future__ import annotations


class TabularFileError(ValueError):
    """The file as a whole cannot be read; ``line`` is the 1-based source line when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.message = message
        self.line = line
        super().__init__(f"line {line}: {message}" if line is not None else message)


class ProfileError(ValueError):
    """A connector profile is invalid; ``problems`` lists every issue found."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("invalid connector profile: " + "; ".join(problems))


class SpreadsheetRefused(TabularFileError):
    """A workbook refused before or while reading it: beyond the size limits, or its reader crashed.

    Unlike other ``TabularFileError``s this is about the file's size and shape, not its content, so an
    upload answers it as a refusal the person can act on (split, trim, export as CSV).
    """
