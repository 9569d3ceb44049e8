"""securityContext.*: the client a call acts in is the one its header selects, among the organization's several."""

from __future__ import annotations


def test_client_selection_with_several_clients(make_member):
    member = make_member()
    second = member.rpc.mutation("organizations.addClient", {"name": "North Campus"}).data
    no_header = member.rpc.as_(member.token)
    assert no_header.query("organizations.get").code == "BAD_REQUEST"
    assert member.rpc.as_(member.token, second["id"]).query("securityContext.current").data["clientId"] == second["id"]
    assert no_header.as_(member.token, "abc").query("organizations.get").code == "BAD_REQUEST"
