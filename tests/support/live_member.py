"""A signed-in member of a running server, calling tRPC over plain HTTP (the e2e tests' client)."""

from __future__ import annotations

import json
from typing import Any

import httpx


class Member:
    """One signed-in member of the test's organization: tRPC over plain HTTP."""

    def __init__(self, http: httpx.Client, token: str, client_id: int):
        self.http = http
        self.client_id = client_id
        self.headers = {"Authorization": f"Bearer {token}", "X-Client-Id": str(client_id)}

    def call(self, kind: str, name: str, payload: dict[str, Any] | None = None) -> httpx.Response:
        if kind == "query":
            params = {"input": json.dumps(payload)} if payload is not None else None
            return self.http.get(f"/api/rpc/{name}", params=params, headers=self.headers)
        return self.http.post(f"/api/rpc/{name}", json=payload or {}, headers=self.headers)

    def query(self, name: str, payload: dict[str, Any] | None = None) -> Any:
        response = self.call("query", name, payload)
        assert response.status_code == 200, f"{name}: {response.status_code} {response.text[:800]}"
        return response.json()["result"]["data"]

    def mutation(self, name: str, payload: dict[str, Any] | None = None) -> Any:
        response = self.call("mutation", name, payload)
        assert response.status_code == 200, f"{name}: {response.status_code} {response.text[:800]}"
        return response.json()["result"]["data"]

    def refused(self, name: str, payload: dict[str, Any], code: str) -> str:
        response = self.call("mutation", name, payload)
        body = response.json()
        assert "error" in body, f"{name} was not refused: {response.text[:400]}"
        assert body["error"]["data"]["code"] == code, body["error"]
        return body["error"]["message"]

    def attach(
        self, case_id: int, name: str, content: bytes, title: str, doc_type: str, **extra: str
    ) -> httpx.Response:
        form = {"caseId": str(case_id), "title": title, "docType": doc_type, **extra}
        return self.http.post(
            "/api/rpc/evidenceControl.attach",
            data=form,
            files={"file": (name, content, "application/octet-stream")},
            headers=self.headers,
        )


def founder_of_new_organization(http: httpx.Client, server: Any, name: str, first_client: str) -> Member:
    """The server's bootstrap admin (a platform administrator: only they create organizations) signs in and
    creates an organization; answers them as a Member of its first client."""
    login = http.post("/api/rpc/auth.login", json={"email": server.admin_email, "password": server.admin_password})
    assert login.status_code == 200, login.text
    token = login.json()["result"]["data"]["token"]
    created = http.post(
        "/api/rpc/organizations.create",
        json={"name": name, "firstClientName": first_client},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert created.status_code == 200, created.text
    return Member(http, token, created.json()["result"]["data"]["firstClientId"])


def invited(member: Member, server: Any, email: str, role: str, client_ids: list[int] | None = None) -> Member:
    """`member` invites `email` (the answer holds no token); the invitee reads it in the mail the server sent
    (its outbox under DATA_DIR), accepts and signs in to the member's client (or the first of `client_ids`)."""
    body: dict[str, Any] = {"email": email, "role": role}
    if client_ids is not None:
        body["clientIds"] = client_ids
    answer = member.mutation("organizations.inviteMember", body)
    assert "inviteToken" not in answer and "dpi_" not in json.dumps(answer)
    client_id = client_ids[0] if client_ids else member.client_id
    return join_by_invite(member.http, server.invite_token(email), email, client_id)


def join_by_invite(http: httpx.Client, invite_token: str, email: str, client_id: int) -> Member:
    """A new account accepts its invitation (the token read from its mail) with a password of its own and
    signs in to `client_id`."""
    password = f"{email} long passphrase"
    accepted = http.post("/api/rpc/auth.acceptInvite", json={"token": invite_token, "password": password})
    assert accepted.status_code == 200, accepted.text
    login = http.post("/api/rpc/auth.login", json={"email": email, "password": password})
    return Member(http, login.json()["result"]["data"]["token"], client_id)
