"""hospitalVoice.* over the wire, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest


def test_defaults_until_set_then_partial_updates(make_member):
    admin = make_member(role="admin")
    out = admin.rpc.query("hospitalVoice.settings", {}).data
    assert out["isDefault"] is True and out["npi"] is None and out["tin"] is None
    assert out["hours"]["timezone"] == "America/New_York" and len(out["hours"]["windows"]) == 5
    assert set(out["scripts"]) == {"claim_status", "appeal_status", "reopening_request"}
    saved = admin.rpc.mutation(
        "hospitalVoice.updateSettings",
        {"npi": "1234567893", "tin": "12-3456789", "callbackNumber": "(312) 555-0100"},
    ).data
    assert (saved["npi"], saved["tin"], saved["callbackNumber"]) == ("1234567893", "123456789", "3125550100")
    assert saved["isDefault"] is False and saved["updatedByUserId"] == admin.user_id
    again = admin.rpc.mutation(
        "hospitalVoice.updateSettings",
        {
            "callerName": "Mercy Billing Office",
            "hours": {"timezone": "America/Chicago", "windows": [{"day": "sat", "start": "09:00", "end": "12:00"}]},
            "scripts": {"appeal_status": "This is ${caller_name} about the appeal on ${claim_number}."},
        },
    ).data
    assert again["npi"] == "1234567893" and again["callerName"] == "Mercy Billing Office"
    assert again["hours"] == {
        "timezone": "America/Chicago",
        "windows": [{"day": "sat", "start": "09:00", "end": "12:00"}],
    }
    assert again["customScripts"] == ["appeal_status"] and "${caller_name}" in again["scripts"]["claim_status"]
    assert admin.rpc.query("hospitalVoice.settings", {}).data == again


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"npi": "1234567890"}, "npi"),
        ({"npi": "12345"}, "npi"),
        ({"tin": "12345678"}, "tin"),
        ({"callbackNumber": "555-0100"}, "callbackNumber"),
        ({"hours": {"timezone": "Mars/Base", "windows": []}}, "timezone"),
        ({"hours": {"timezone": "UTC", "windows": [{"day": "mon", "start": "10:00", "end": "09:00"}]}}, "hours"),
        ({"hours": {"timezone": "UTC", "windows": [{"day": "xyz", "start": "10:00", "end": "11:00"}]}}, "day"),
        ({"scripts": {"claim_status": "About ${patient_name}"}}, "scripts"),
        ({"scripts": {"chat": "x"}}, "scripts"),
        ({"unknown": 1}, "unknown"),
    ],
)
def test_bad_settings_are_bad_request_and_store_nothing(make_member, change, field):
    admin = make_member(role="admin")
    result = admin.rpc.mutation("hospitalVoice.updateSettings", {"callerName": "Changed", **change})
    assert result.code == "BAD_REQUEST", result.body
    assert field in result.error["message"] or any(field in str(i["path"]) for i in result.error["data"]["issues"])
    assert admin.rpc.query("hospitalVoice.settings", {}).data["isDefault"] is True


def test_only_admins_change_settings_and_tenants_are_separate(make_member):
    a, b = make_member(role="admin"), make_member(role="admin")
    specialist = make_member(role="specialist")
    assert specialist.rpc.mutation("hospitalVoice.updateSettings", {"callerName": "X"}).code == "FORBIDDEN"
    a.rpc.mutation("hospitalVoice.updateSettings", {"npi": "1234567893"}).data
    assert b.rpc.query("hospitalVoice.settings", {}).data["npi"] is None
    crossing = b.rpc.as_(b.token, a.client_id)
    assert crossing.query("hospitalVoice.settings", {}).code in ("FORBIDDEN", "NOT_FOUND")
