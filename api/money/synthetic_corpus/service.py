"""The corpora generated for a client: listing and lookup (generation is `pipelines.synthetic`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from api.infra.db.lookup import get_by_id
from api.money.synthetic_corpus.models import SyntheticCorpus


def list_statement() -> Select[Any]:
    """Every synthetic corpus of the selected client; unordered, for paging."""
    return select(SyntheticCorpus)


def get(db: Session, corpus_id: int) -> SyntheticCorpus:
    """One corpus of the selected client, or NOT_FOUND."""
    return get_by_id(db, SyntheticCorpus, corpus_id, "Synthetic corpus")
