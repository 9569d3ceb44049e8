"""Declaring procedures: one decorator, the signature is the contract.

    router = rpc.namespace("claims")

    @router.query("get")
    def get(ctx: Context, input: ClaimRef) -> ClaimOut:
        "Docstring becomes the contract description."

Each namespace package (`api/<context>/<package>/procedures.py`) declares its procedures through one
router whose namespace is the package's name in camelCase (`human_attention` -> `humanAttention`);
a router named otherwise, or a namespace procedure declared without one, is refused at import.

The input model is the annotated type of the `input` parameter (omit the
parameter for procedures without input); the output model is the return
annotation (`Prevalidated[Model]`: `Model`, for an answer serialized once and
served as bytes, see `api.rpc.schema.Prevalidated`). `auth` is one of:

- "public": anyone, no token needed;
- "user": a signed-in caller, no tenant (their own sessions, organizations);
- "tenant": a member of the organization owning the selected client, holding
  `permission` (default "read" for queries, "write" for mutations);
- "platform_admin": platform operators only.

Heavy work on the input (parsing, extraction, redaction, diffing, rendering) is declared apart so it
never holds the write lock: `prepare=fn` runs `fn(ctx, input)` in a read session before the call's
transaction, and the handler receives its result as `prepared`:

    @router.mutation("attach", prepare=extract_text)  # router = rpc.namespace("evidenceControl")
    def attach(ctx: Context, input: AttachIn, prepared: Extracted) -> EvidenceOut: ...
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, TypeAdapter

from api.core.permissions import PERMISSIONS
from api.core.settings import Settings
from api.rpc.context import CONTEXT_FOR_AUTH
from api.rpc.schema import Prevalidated

Kind = Literal["query", "mutation"]
AuthLevel = Literal["public", "user", "tenant", "platform_admin"]
AUTH_LEVELS: tuple[str, ...] = typing.get_args(AuthLevel)
#: A procedure's handler; declaring it returns it unchanged.
HandlerT = TypeVar("HandlerT", bound=Callable[..., Any])


@dataclass
class Procedure:
    name: str
    kind: Kind
    auth: AuthLevel
    permission: str | None
    handler: Callable[..., Any]
    input_model: type[BaseModel] | None
    output_type: Any
    description: str
    is_async: bool
    max_body_bytes: int | None = None  # None: RPC_MAX_BODY_BYTES, or UPLOAD_MAX_BYTES for file procedures
    # The Settings field holding this procedure's body limit (e.g. "evidence_max_bytes"); wins over both.
    max_body_setting: str | None = None
    accepts_files: bool = False
    # False: refused inside a batched request (password checks: one guess per HTTP request).
    batch: bool = True
    # Whether an API key may call it. Tenant procedures act in the key's organization already; a
    # user-level one must be written to answer for that organization only before it says True.
    api_keys: bool = True
    # The FHIR resource types a SMART backend access token may reach through it (empty: SMART tokens
    # are refused). Only tenant procedures; the token acts in its own client, the handler checks which
    # of these its scopes grant.
    smart_scopes: tuple[str, ...] = ()
    # Heavy work run before the call's own transaction: `prepare(ctx, input)` in a read session
    # (no write lock), its result handed to the handler as `prepared`. See api/rpc/executor.py.
    prepare: Callable[..., Any] | None = None

    def __post_init__(self) -> None:
        self.output_adapter = TypeAdapter(self.output_type)

    @property
    def namespace(self) -> str:
        return self.name.split(".", 1)[0]


_NAMESPACE = re.compile(r"[a-z][a-zA-Z0-9]*")
#: A namespace package's procedures module: api.<context>.<package>.procedures.
_NAMESPACE_MODULE = re.compile(r"api\.[a-z_]+\.([a-z_][a-z0-9_]*)\.procedures")


def namespace_of(package: str) -> str:
    """The namespace a snake_case package serves: its name in camelCase (`human_attention` -> `humanAttention`)."""
    head, *rest = package.split("_")
    return head + "".join(part.capitalize() for part in rest)


@dataclass(frozen=True)
class Router:
    """One namespace's procedures: `router.query("get")` declares `<namespace>.get`."""

    registry: Registry
    namespace: str

    def query(self, name: str, **options: Any) -> Callable[[HandlerT], HandlerT]:
        return self.registry._declare(f"{self.namespace}.{name}", "query", router=self, **options)

    def mutation(self, name: str, **options: Any) -> Callable[[HandlerT], HandlerT]:
        return self.registry._declare(f"{self.namespace}.{name}", "mutation", router=self, **options)


class Registry:
    """All procedures of the API, by dotted name."""

    def __init__(self) -> None:
        self.procedures: dict[str, Procedure] = {}

    def namespace(self, name: str) -> Router:
        """The router declaring the procedures of namespace `name` (camelCase, no dots)."""
        if not _NAMESPACE.fullmatch(name):
            raise ValueError(f"namespace {name!r}: a camelCase name, letters and digits only")
        return Router(self, name)

    def query(self, name: str, **options: Any) -> Callable[[HandlerT], HandlerT]:
        return self._declare(name, "query", **options)

    def mutation(self, name: str, **options: Any) -> Callable[[HandlerT], HandlerT]:
        return self._declare(name, "mutation", **options)

    def _declare(
        self,
        name: str,
        kind: Kind,
        *,
        auth: AuthLevel = "tenant",
        permission: str | None = None,
        max_body_bytes: int | None = None,
        max_body_setting: str | None = None,
        accepts_files: bool = False,
        batch: bool = True,
        api_keys: bool | None = None,
        smart_scopes: tuple[str, ...] = (),
        prepare: Callable[..., Any] | None = None,
        router: Router | None = None,
    ) -> Callable[[HandlerT], HandlerT]:
        if auth not in AUTH_LEVELS:
            raise ValueError(f"{name}: unknown auth level {auth!r}")
        if (
            max_body_setting is not None
            and getattr(Settings.model_fields.get(max_body_setting), "annotation", None) is not int
        ):
            raise ValueError(f"{name}: max_body_setting {max_body_setting!r} is not an integer setting")
        if smart_scopes and (auth != "tenant" or not all(isinstance(s, str) and s for s in smart_scopes)):
            raise ValueError(f"{name}: smart_scopes are resource type names, on tenant procedures only")
        if auth == "tenant":
            permission = permission or ("read" if kind == "query" else "write")
            if permission not in PERMISSIONS:
                raise ValueError(f"{name}: unknown permission {permission!r}")

        def decorate(fn: HandlerT) -> HandlerT:
            if name in self.procedures:
                raise ValueError(f"procedure {name} declared twice")
            _check_router(name, router, fn.__module__)
            hints = typing.get_type_hints(fn)
            params = list(inspect.signature(fn).parameters)
            expected_ctx = CONTEXT_FOR_AUTH[auth]
            if not params or hints.get(params[0]) is not expected_ctx:
                # The context class is what makes principal/tenant non-Optional for the type checker.
                raise TypeError(
                    f"{name}: the first parameter must be annotated '{expected_ctx.__name__}' for auth={auth!r}"
                )
            input_model = hints.get("input") if "input" in params else None
            if input_model is not None and not (isinstance(input_model, type) and issubclass(input_model, BaseModel)):
                raise TypeError(f"{name}: 'input' must be annotated with a Pydantic model")
            if "return" not in hints:
                raise TypeError(f"{name}: annotate the return type; it is the output contract")
            if inspect.iscoroutinefunction(fn) and auth != "public":
                # Database work is synchronous (SQLAlchemy sessions in a worker thread); only
                # public procedures that touch nothing may take the async fast path.
                raise TypeError(f"{name}: only auth='public' procedures may be async")
            _check_prepare(name, prepare, params, input_model)
            output_type = hints["return"]
            if typing.get_origin(output_type) is Prevalidated:
                (output_type,) = typing.get_args(output_type)  # the answer's model is the contract
            doc = inspect.getdoc(fn)
            if not doc:
                raise TypeError(f"{name}: a docstring is required; it is the contract description")
            self.procedures[name] = Procedure(
                name=name,
                kind=kind,
                auth=auth,
                permission=permission if auth == "tenant" else None,
                handler=fn,
                input_model=input_model,
                output_type=output_type,
                description=doc,
                is_async=inspect.iscoroutinefunction(fn),
                max_body_bytes=max_body_bytes,
                max_body_setting=max_body_setting,
                accepts_files=accepts_files,
                batch=batch,
                api_keys=(auth == "tenant") if api_keys is None else api_keys,
                smart_scopes=tuple(smart_scopes),
                prepare=prepare,
            )
            return fn

        return decorate


def _check_router(name: str, router: Router | None, module: str) -> None:
    """A namespace package's procedures go through its router, named after the package: the name a
    client calls is then found from the file that serves it, and a copied module cannot keep its old name."""
    package = _NAMESPACE_MODULE.fullmatch(module)
    if package is None:
        return  # procedures declared outside a namespace package (tests' probes) name themselves
    expected = namespace_of(package.group(1))
    if router is None:
        raise TypeError(f"{name}: declare it through router = rpc.namespace({expected!r}) in {module}")
    if router.namespace != expected:
        raise ValueError(f"{name}: {module} serves namespace {expected!r}, not {router.namespace!r}")


def _check_prepare(name: str, prepare: Callable[..., Any] | None, params: list[str], input_model: Any) -> None:
    if (prepare is not None) != ("prepared" in params):
        # The executor passes the prepared value by keyword: both sides must agree on it.
        raise TypeError(f"{name}: a handler takes a 'prepared' parameter exactly when it declares prepare=")
    if prepare is not None and (input_model is None or inspect.iscoroutinefunction(prepare)):
        raise TypeError(f"{name}: prepare= needs an 'input' parameter and a synchronous function")


rpc = Registry()
