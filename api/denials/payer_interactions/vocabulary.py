"""The outcomes a payer interaction records (pure): what the payer said, one word each.

Published to other contexts: the voice agent answers a call's status in this vocabulary on the wire
(`voiceAgent`), and logs the call as a payer interaction with it.
"""

from __future__ import annotations

from typing import Literal

Outcome = Literal[
    "resolved",
    "in_process",
    "reprocessing",
    "appeal_required",
    "information_requested",
    "denial_upheld",
    "no_record",
    "no_answer",
    "other",
]
