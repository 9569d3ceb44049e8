"""syntheticCorpus.*: realistic synthetic 837/835/CSV data for demos, UAT and benchmarks."""

from __future__ import annotations

import json
from pathlib import Path

from api.core.errors import InvalidInput, PreconditionFailed
from api.core.settings import Settings
from api.infra.db.base import utcnow
from api.money.synthetic_corpus import service
from api.money.synthetic_corpus.models import SyntheticCorpus
from api.money.synthetic_corpus.schemas import (
    MAX_SYNC_CLAIMS,
    CorpusDetailOut,
    CorpusOut,
    CorpusRef,
    GenerateIn,
    ListCorporaIn,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate
from pipelines.synthetic import CorpusSpec, SpecError, generate_corpus

router = rpc.namespace("syntheticCorpus")

SUMMARY_SECTIONS = ("counts", "x12", "money", "denials", "overturned", "underpaid")


def corpus_dir(settings: Settings, corpus_id: int) -> Path:
    """Where a corpus generated through the API lives: DATA_DIR/corpora/<id>."""
    return Path(settings.resolved_data_dir) / "corpora" / str(corpus_id)


@router.mutation("generate", permission="analyze")
def generate(ctx: Context, input: GenerateIn) -> CorpusOut:
    """Generate a deterministic synthetic corpus (seed, size, denial mix) into DATA_DIR/corpora/<id>.
    Up to 50,000 claims in the call; larger corpora belong to the command-line generator."""
    if input.claims > MAX_SYNC_CLAIMS:
        raise InvalidInput(
            f"{input.claims:,} claims is too many to generate in a request (max "
            f"{MAX_SYNC_CLAIMS:,}); run the synthetic corpus CLI for large corpora",
        )
    spec = CorpusSpec(
        seed=input.seed,
        claims=input.claims,
        start=input.start,
        months=input.months,
        payers=input.payers,
        facilities=input.facilities,
        claims_per_file=input.claims_per_file,
        denial_rate=input.denial_mix.denial_rate,
        overturn_rate=input.denial_mix.overturn_rate,
        underpayment_rate=input.denial_mix.underpayment_rate,
        write_csv=input.write_csv,
    )
    corpus = SyntheticCorpus(
        status="generating", seed=input.seed, claims=input.claims, spec=spec.to_json(), created_by=ctx.user_id
    )
    ctx.db.add(corpus)
    ctx.db.flush()
    out_dir = corpus_dir(ctx.services.settings, corpus.id)
    try:
        manifest = generate_corpus(spec, out_dir)
    except SpecError as exc:
        raise InvalidInput(f"Invalid corpus parameters: {exc}") from None
    corpus.status = "ready"
    corpus.generator_version = manifest.generator_version
    corpus.directory = str(out_dir)
    corpus.files = [{"name": f.name, "sha256": f.sha256, "bytes": f.bytes} for f in manifest.files]
    corpus.finished_at = utcnow()
    ctx.db.flush()
    ctx.note("synthetic_corpus", corpus.id, after={"seed": input.seed, "claims": input.claims})
    return CorpusOut.model_validate(corpus)


@router.query("listCorpora")
def list_corpora(ctx: Context, input: ListCorporaIn) -> Page[CorpusOut]:
    """Synthetic corpora generated for the selected client, newest first."""
    return paginate(ctx.db, service.list_statement(), SyntheticCorpus.id, input, CorpusOut.model_validate)


@router.query("getCorpus")
def get_corpus(ctx: Context, input: CorpusRef) -> CorpusDetailOut:
    """One corpus: its manifest (spec, files with hashes) and the ground-truth summary."""
    corpus = service.get(ctx.db, input.corpus_id)
    directory = Path(corpus.directory or corpus_dir(ctx.services.settings, corpus.id))
    try:
        manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
        truth = json.loads((directory / "ground_truth.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PreconditionFailed(f"The files of synthetic corpus {corpus.id} are missing; generate it again") from None
    out = CorpusOut.model_validate(corpus).model_dump()
    return CorpusDetailOut.model_validate(
        {**out, "manifest": manifest, "ground_truth_summary": {k: truth.get(k) for k in SUMMARY_SECTIONS}}
    )
