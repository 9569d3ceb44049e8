"""Inputs and outputs of fhirSmartContracts.*.

A registered key is a public JWK (RSA >= 2048 bits for RS384, EC P-384 for ES384, with a kid); a JWK
carrying any private member is refused as BAD_REQUEST naming the member, before anything is stored or
audited. The client assertion is a `SecretStr` (never digested, logged or echoed).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, SecretStr, model_validator

from api.integrations.fhir_smart_contracts import jwks, scopes
from api.rpc.schema import DbId, Output, PageInput, Schema
from api.rpc.text import SINGLE_LINE

ResourceType = Literal["Claim", "ClaimResponse", "ExplanationOfBenefit", "Coverage"]
B64 = Annotated[str, Field(min_length=1, max_length=2048, pattern=r"^[A-Za-z0-9_-]+$")]


def _rule(rule: Callable[[Any], str | None]) -> AfterValidator:
    def check(value: Any) -> Any:
        found = rule(value)
        if found:
            raise ValueError(found)
        return value

    return AfterValidator(check)


def _https_problem(url: str) -> str | None:
    if not url.startswith("https://") or len(url) <= len("https://") or any(c.isspace() for c in url):
        return "must be an https:// URL"
    return None


SmartScope = Annotated[str, Field(min_length=1, max_length=100), _rule(scopes.problem)]
HttpsUrl = Annotated[str, Field(min_length=9, max_length=2048), _rule(_https_problem)]


class PublicJwk(Schema):
    """One public signing key, as a JWK (RFC 7517)."""

    kty: Literal["RSA", "EC"]
    kid: Annotated[str, Field(min_length=1, max_length=200), SINGLE_LINE]
    alg: Literal["RS384", "ES384"] | None = None
    use: Literal["sig"] | None = None
    key_ops: list[Literal["verify"]] | None = Field(default=None, alias="key_ops")
    n: B64 | None = None
    e: B64 | None = None
    crv: Literal["P-384"] | None = None
    x: B64 | None = None
    y: B64 | None = None

    @model_validator(mode="before")
    @classmethod
    def _public_only(cls, value: Any) -> Any:
        # Checked before the field rules, so a private key is named as such and never stored.
        if isinstance(value, dict) and (found := jwks.private_members(value)):
            raise ValueError(f"has private member(s) {', '.join(found)}: register the public key only")
        return value

    @model_validator(mode="after")
    def _usable(self) -> PublicJwk:
        found = jwks.key_problem(self.as_jwk())
        if found:
            raise ValueError(found)
        return self

    def as_jwk(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_none=True)


class JwkSet(Schema):
    keys: list[PublicJwk] = Field(min_length=1, max_length=10)

    @model_validator(mode="after")
    def _kids_unique(self) -> JwkSet:
        found = jwks.kid_problem([k.as_jwk() for k in self.keys])
        if found:
            raise ValueError(found)
        return self


class KeysIn(Schema):
    jwks: JwkSet | None = Field(default=None, description="The client's public keys (JWK Set); or jwksUrl")
    jwks_url: HttpsUrl | None = Field(default=None, description="https address of the client's JWK Set")

    @model_validator(mode="after")
    def _one_source(self) -> KeysIn:
        if (self.jwks is None) == (self.jwks_url is None):
            raise ValueError("give exactly one of jwks or jwksUrl")
        return self


class RegisterIn(KeysIn):
    name: Annotated[str, Field(min_length=1, max_length=200), SINGLE_LINE]
    scopes: list[SmartScope] = Field(
        min_length=1, max_length=20, description="Allowed SMART system scopes, e.g. system/Claim.rs, system/*.read"
    )


class RotateIn(KeysIn):
    id: DbId
    keep_old_keys_minutes: int = Field(
        default=0,
        ge=0,
        le=10_080,
        description="Keep accepting the replaced inline keys this long (0: replaced at once; at most 7 days)",
    )


class ListIn(PageInput):
    pass


class SmartClientOut(Output):
    """A registration: never any private material (the platform never holds any)."""

    id: int
    smart_client_id: str = Field(description="The OAuth client_id: the iss and sub of the client's assertions")
    name: str
    scopes: list[str]
    key_ids: list[str] = Field(description="kid of each registered inline key")
    jwks_url: str | None
    retired_key_ids: list[str]
    retired_keys_until: datetime | None
    keys_rotated_at: datetime | None
    created_at: datetime


class TokenIn(Schema):
    """An OAuth 2.0 client-credentials token request with a JWT client assertion (RFC 7523, SMART)."""

    grant_type: Literal["client_credentials"] = Field(alias="grant_type")
    client_assertion_type: Literal["urn:ietf:params:oauth:client-assertion-type:jwt-bearer"] = Field(
        alias="client_assertion_type"
    )
    client_assertion: Annotated[SecretStr, Field(min_length=1, max_length=8192)] = Field(alias="client_assertion")
    scope: Annotated[str, Field(min_length=1, max_length=2000), SINGLE_LINE] = Field(
        description="Space-separated SMART system scopes"
    )


class TokenOut(Output):
    access_token: str = Field(alias="access_token", description="Send as 'Authorization: Bearer <token>'")
    token_type: Literal["bearer"] = Field(default="bearer", alias="token_type")
    expires_in: int = Field(alias="expires_in")
    scope: str


class ReadIn(Schema):
    resource_type: ResourceType
    id: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9\-.]{1,64}$")] = Field(
        description="The resource's FHIR id"
    )


class CapabilityOut(Output):
    statement: dict[str, Any] = Field(description="The FHIR R4 CapabilityStatement (validated)")
    token_endpoint: str
    grant_types_supported: list[str]
    token_endpoint_auth_methods_supported: list[str]
    token_endpoint_auth_signing_alg_values_supported: list[str]
    scopes_supported: list[str]
