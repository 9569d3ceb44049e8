"""billing.*: the caller's organization's subscription, invoices and billing events."""

from __future__ import annotations

from sqlalchemy import select

from api.core.errors import NotFound
from api.platform.billing import service
from api.platform.billing.models import BillingEvent, Invoice, Subscription
from api.platform.billing.schemas import BillingEventOut, InvoiceOut, SubscriptionOut
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, PageInput, paginate

router = rpc.namespace("billing")


@router.query("subscription")
def subscription(ctx: Context) -> SubscriptionOut:
    """Your organization's platform subscription: plan, status, current period end (organization-wide
    members only)."""
    ctx.require_organization_wide("Billing")
    # The session is tenant-scoped; the explicit filter documents the intent.
    sub = ctx.db.scalar(select(Subscription).where(Subscription.organization_id == ctx.org_id))
    if sub is None:
        raise NotFound("Your organization has no subscription on record yet")
    return SubscriptionOut.model_validate(sub)


@router.query("invoices")
def invoices(ctx: Context, input: PageInput) -> Page[InvoiceOut]:
    """Your organization's invoices, newest first (amounts are exact decimals; organization-wide members
    only)."""
    ctx.require_organization_wide("Billing")
    stmt = service.invoices_statement(ctx.org_id)
    return paginate(ctx.db, stmt, Invoice.id, input, InvoiceOut.model_validate)


@router.query("events", permission="audit")
def events(ctx: Context, input: PageInput) -> Page[BillingEventOut]:
    """Billing events received for your organization, newest first (auditors and managers with an
    organization-wide membership)."""
    ctx.require_organization_wide("Billing")
    stmt = service.events_statement(ctx.org_id)
    return paginate(ctx.db, stmt, BillingEvent.id, input, BillingEventOut.model_validate)
