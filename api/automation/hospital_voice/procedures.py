"""hospitalVoice.*: a hospital's voice settings and call scripts."""

from __future__ import annotations

from api.automation.hospital_voice import rules, service
from api.automation.hospital_voice.schemas import SettingsOut, UpdateSettingsIn
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Empty

router = rpc.namespace("hospitalVoice")


@router.query("settings")
def settings(ctx: Context, input: Empty) -> SettingsOut:
    """The selected client's voice settings: caller name, callback number, NPI, TIN, calling hours
    (time zone and weekly windows) and the script per goal; defaults where nothing was set
    (`isDefault`). NPI and TIN have no default: a delegated call needs both."""
    return SettingsOut.model_validate(service.view(service.settings(ctx.db)))


@router.mutation("updateSettings", permission="manage")
def update_settings(ctx: Context, input: UpdateSettingsIn) -> SettingsOut:
    """Change the fields given (admins only). The NPI must pass the NPI check digit (Luhn over
    80840 + NPI), the TIN must be 9 digits, hours need an IANA time zone and non-overlapping
    windows, scripts may use only the documented placeholders; any refusal is BAD_REQUEST and
    stores nothing."""
    hours = input.hours
    change = service.SettingsChange(
        caller_name=input.caller_name,
        callback_number=input.callback_number,
        npi=input.npi,
        tin=input.tin,
        hours=None
        if hours is None
        else service.Hours(hours.timezone, tuple(rules.Window(w.day, w.start, w.end) for w in hours.windows)),
        scripts=None if input.scripts is None else dict(input.scripts.items()),
    )
    out = service.view(service.update(ctx.db, change, user_id=ctx.user_id))
    ctx.note("hospital_voice_settings", ctx.client_id, after=out)
    return SettingsOut.model_validate(out)
