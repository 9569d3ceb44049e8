"""Tenant scoping enforced once, on the session, for every ORM statement.

When a session carries a `TenantScope`, every SELECT/UPDATE/DELETE on an
`OrgScoped` or `TenantScoped` model gets the tenant criteria appended, and every
new row is stamped with (or checked against) the tenant. Raw SQL is not
filtered, which is why domain code uses the ORM.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from sqlalchemy import event
from sqlalchemy.orm import ORMExecuteState, Session, with_loader_criteria
from sqlalchemy.orm.interfaces import ORMOption
from sqlalchemy.orm.unitofwork import UOWTransaction

from api.infra.db.base import OrgScoped, TenantScoped

SCOPE_KEY = "tenant_scope"


@dataclass(frozen=True)
class TenantScope:
    organization_id: int
    client_id: int | None  # None: organization-level work (members, clients)


class TenantViolation(RuntimeError):
    """A write tried to cross the tenant boundary: always a bug, never user error."""


def set_scope(session: Session, scope: TenantScope | None) -> None:
    if scope is None:
        session.info.pop(SCOPE_KEY, None)
    else:
        session.info[SCOPE_KEY] = scope


def get_scope(session: Session) -> TenantScope | None:
    return session.info.get(SCOPE_KEY)


@lru_cache(maxsize=4096)
def _criteria(scope: TenantScope) -> tuple[ORMOption, ...]:
    """The loader-criteria options of one tenant, built once per tenant and reused.

    Building `with_loader_criteria` analyses its lambda each time (a measurable share of a
    small tenant query); the options are immutable, and the tenant ids are closure variables
    that SQLAlchemy turns into bound parameters, so sharing them between statements and
    threads is safe and the compiled SQL stays cached across tenants.
    """
    org_id = scope.organization_id
    options: list[ORMOption] = [
        with_loader_criteria(OrgScoped, lambda cls: cls.organization_id == org_id, include_aliases=True)
    ]
    if scope.client_id is not None:
        client_id = scope.client_id
        options.append(with_loader_criteria(TenantScoped, lambda cls: cls.client_id == client_id, include_aliases=True))
    return tuple(options)


@event.listens_for(Session, "do_orm_execute")
def _scope_statements(state: ORMExecuteState) -> None:
    scope: TenantScope | None = state.session.info.get(SCOPE_KEY)
    if scope is None or not (state.is_select or state.is_update or state.is_delete):
        return
    if state.execution_options.get("skip_tenant_scope"):
        return
    state.statement = state.statement.options(*_criteria(scope))


@event.listens_for(Session, "before_flush")
def _stamp_new_rows(session: Session, flush_context: UOWTransaction, instances: object) -> None:
    scope: TenantScope | None = session.info.get(SCOPE_KEY)
    if scope is None:
        return
    for obj in list(session.new) + list(session.dirty):
        if isinstance(obj, OrgScoped):
            _check_or_stamp(obj, "organization_id", scope.organization_id)
        if isinstance(obj, TenantScoped):
            if scope.client_id is None:
                if getattr(obj, "client_id", None) is None:
                    raise TenantViolation(f"{type(obj).__name__} needs a client scope")
            else:
                _check_or_stamp(obj, "client_id", scope.client_id)
    for obj in session.deleted:
        if isinstance(obj, OrgScoped) and obj.organization_id != scope.organization_id:
            raise TenantViolation(f"delete of another tenant's {type(obj).__name__}")


def _check_or_stamp(obj: object, attr: str, expected: int) -> None:
    current = getattr(obj, attr, None)
    if current is None:
        setattr(obj, attr, expected)
    elif current != expected:
        raise TenantViolation(f"{type(obj).__name__}.{attr} crosses the tenant boundary")
