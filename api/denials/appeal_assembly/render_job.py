"""The packet render as work for a memory- and CPU-capped child process (pure: bytes and JSON).

`service.render_pdf` hands the packet to `api.infra.capped.run_capped(TARGET, ...)`: the evidence
bytes, concatenated, are the payload; everything else (cover, letter, each document's facts and
length, the caps) travels as JSON parameters. The child renders (`render.render`, which refuses an
over-cap packet with InvalidInput before drawing) and answers JSON: the PDF base64-encoded with its
SHA-256 and page count, or the reason an evidence document cannot be laid out. A third-party parser
(pypdf, Pillow) that runs away on a crafted document ends the child, never the API.
"""

from __future__ import annotations

import base64
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from api.denials.appeal_assembly import render
from api.denials.appeal_assembly.contents import EvidenceItem
from api.denials.appeal_assembly.limits import PacketLimits

TARGET = "api.denials.appeal_assembly.render_job:render_encoded"


@dataclass(frozen=True)
class RenderedPdf:
    """The packet's PDF as the procedure answers it."""

    pdf_base64: str
    byte_count: int
    sha256: str
    page_count: int


def encode(packet: render.PacketInput, limits: PacketLimits) -> tuple[bytes, dict[str, Any]]:
    """(payload, params) for `render_encoded`."""
    items = [
        {
            "documentId": item.document_id,
            "title": item.title,
            "docType": item.doc_type,
            "mediaType": item.media_type,
            "sha256": item.sha256,
            "pageCount": item.page_count,
            "length": len(item.content),
        }
        for item in packet.evidence
    ]
    params = {
        "packet": {
            "cover": {
                "title": packet.cover.title,
                "facts": [list(pair) for pair in packet.cover.facts],
                "formTitle": packet.cover.form_title,
                "formFields": [list(pair) for pair in packet.cover.form_fields],
            },
            "letterText": packet.letter_text,
            "contentHash": packet.content_hash,
            "createdAt": packet.created_at.isoformat(),
            "evidence": items,
        },
        "limits": asdict(limits),
    }
    return b"".join(item.content for item in packet.evidence), params


def decode(payload: bytes, packet: dict[str, Any]) -> render.PacketInput:
    """The packet `encode` described, its documents' bytes cut back out of the payload."""
    evidence: list[EvidenceItem] = []
    at = 0
    for item in packet["evidence"]:
        content = payload[at : at + item["length"]]
        at += item["length"]
        evidence.append(
            EvidenceItem(
                item["documentId"],
                item["title"],
                item["docType"],
                item["mediaType"],
                item["sha256"],
                content,
                item["pageCount"],
            )
        )
    if at != len(payload):
        raise ValueError("the payload is not the documents the parameters describe")
    cover = packet["cover"]
    return render.PacketInput(
        cover=render.Cover(
            title=cover["title"],
            facts=tuple((str(a), str(b)) for a, b in cover["facts"]),
            form_title=cover["formTitle"],
            form_fields=tuple((str(a), str(b)) for a, b in cover["formFields"]),
        ),
        letter_text=packet["letterText"],
        evidence=tuple(evidence),
        content_hash=packet["contentHash"],
        created_at=datetime.fromisoformat(packet["createdAt"]),
    )


def render_encoded(payload: bytes, *, packet: dict[str, Any], limits: dict[str, int]) -> dict[str, Any]:
    """The child's entry point: the rendered PDF, or {"unreadable": why} for an evidence document that
    cannot be laid out. Over a cap raises InvalidInput (the parent re-raises its message)."""
    try:
        rendered = render.render(decode(payload, packet), PacketLimits(**limits))
    except render.RenderError as exc:
        return {"unreadable": str(exc)}
    return {
        "pdfBase64": base64.b64encode(rendered.pdf).decode("ascii"),
        "byteCount": len(rendered.pdf),
        "sha256": rendered.sha256,
        "pageCount": rendered.page_count,
    }


def result_of(answer: dict[str, Any]) -> RenderedPdf:
    """The child's answer; render.RenderError for an unreadable document."""
    if "unreadable" in answer:
        raise render.RenderError(str(answer["unreadable"]))
    return RenderedPdf(answer["pdfBase64"], answer["byteCount"], answer["sha256"], answer["pageCount"])
