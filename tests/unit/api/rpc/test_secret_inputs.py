"""Every input field that carries a secret is a SecretStr, so the audit digest leaves it out.

A field whose name says it is a password, token, secret or key must be declared `SecretStr`
(the audit digest replaces those by a constant, see api.platform.audit.digest); new procedures
are covered automatically.
"""

from __future__ import annotations

import re
import typing

from pydantic import BaseModel, SecretBytes, SecretStr

from api.app import load_procedures

SECRET_NAME = re.compile(r"(password|token|secret|api_?key|private_?key)", re.IGNORECASE)


def _models(annotation: typing.Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models(arg)]


def _is_secret(annotation: typing.Any) -> bool:
    if annotation in (SecretStr, SecretBytes):
        return True
    if typing.get_origin(annotation) is typing.Annotated:  # e.g. `Annotated[SecretStr, Field(...)] | None`
        return _is_secret(typing.get_args(annotation)[0])
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    return bool(args) and all(_is_secret(a) for a in args)


def _secret_fields_in_clear(model: type[BaseModel], seen: set[type]) -> list[str]:
    if model in seen:
        return []
    seen.add(model)
    found = []
    for name, field in model.model_fields.items():
        # an endpoint's address (`token_url`) names a secret's place, not a secret
        if SECRET_NAME.search(name) and not name.endswith("_url") and not _is_secret(field.annotation):
            found.append(f"{model.__name__}.{name}")
        for nested in _models(field.annotation):
            found.extend(_secret_fields_in_clear(nested, seen))
    return found


def test_secret_input_fields_are_secret_str():
    registry = load_procedures()
    in_clear = []
    for proc in registry.procedures.values():
        if proc.input_model is not None:
            in_clear.extend(f"{proc.name}: {f}" for f in _secret_fields_in_clear(proc.input_model, set()))
    assert in_clear == []
    login = registry.procedures["auth.login"].input_model
    assert login is not None and not _secret_fields_in_clear(login, set())  # the check sees login's password
    assert _is_secret(login.model_fields["password"].annotation)
