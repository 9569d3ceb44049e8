"""Command line: ``python -m pipelines.synthetic.cli generate --seed 7 --claims 10000 --out DIR``."""

from __future__ import annotations

import time
from datetime import date, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from .generator import check_spec, generate_corpus
from .scenarios import parse_scenario
from .spec import CorpusSpec, SpecError

app = typer.Typer(
    add_completion=False, no_args_is_help=True, help="Synthetic hospital claims/remittance corpus generator."
)


@app.callback()
def main() -> None:
    """Synthetic hospital claims/remittance corpus generator."""


def _parse_start(value: str) -> date:
    try:
        return datetime.strptime(value, "%Y-%m-%d").date()
    except ValueError:
        raise typer.BadParameter(f"{value!r} is not a date in YYYY-MM-DD form", param_hint="--start") from None


@app.command()
def generate(
    out: Annotated[Path, typer.Option("--out", help="Output directory (created if missing).")],
    seed: Annotated[int, typer.Option(min=0, help="Random seed; same seed and options give identical files.")] = 42,
    claims: Annotated[int, typer.Option(min=1, help="Number of claims.")] = 1000,
    start: Annotated[str, typer.Option(help="First service day, YYYY-MM-DD.")] = "2026-01-01",
    months: Annotated[int, typer.Option(min=1, max=60, help="Months of service dates.")] = 6,
    payers: Annotated[int, typer.Option(min=2, help="Number of payers (2..8).")] = 8,
    facilities: Annotated[int, typer.Option(min=1, help="Number of facilities (clients).")] = 2,
    denial_rate: Annotated[float, typer.Option(min=0.0, max=0.6, help="Initial denial rate by volume.")] = 0.11,
    institutional_share: Annotated[float, typer.Option(min=0.0, max=1.0, help="Share of 837I claims.")] = 0.35,
    claims_per_file: Annotated[int, typer.Option(min=1, help="Claims per 837/835 file.")] = 5000,
    scenario: Annotated[
        list[str] | None,
        typer.Option(
            help=(
                "Planted scenario: carc-spike, slow-payer, underpayment, intervention, intervention-null, demo, "
                "evidence; parameters as name:key=value,... (an intervention takes facility=N to treat "
                "facility N only, the others being its untreated comparison)"
            )
        ),
    ] = None,
    no_csv: Annotated[bool, typer.Option("--no-csv", help="Skip the CSV exports.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Generate a corpus into OUT."""
    try:
        scenarios = tuple(s for text in (scenario or []) for s in parse_scenario(text))
    except SpecError as exc:
        raise typer.BadParameter(str(exc), param_hint="--scenario") from None
    spec = CorpusSpec(
        seed=seed,
        claims=claims,
        start=_parse_start(start),
        months=months,
        payers=payers,
        facilities=facilities,
        denial_rate=denial_rate,
        institutional_share=institutional_share,
        claims_per_file=claims_per_file,
        scenarios=scenarios,
        write_csv=not no_csv,
        write_deposits=not no_csv,
    )
    console = Console(stderr=True)
    started, cpu_started = time.perf_counter(), time.process_time()
    try:
        check_spec(spec)
        if quiet:
            manifest = generate_corpus(spec, out)
        else:
            columns = (TextColumn("[bold]claims"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
            with Progress(*columns, console=console, transient=False) as bar:
                task = bar.add_task("generate", total=claims)
                manifest = generate_corpus(spec, out, progress=lambda done, total: bar.update(task, completed=done))
    except SpecError as exc:
        raise typer.BadParameter(str(exc)) from None
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    size = sum(f.bytes for f in manifest.files)
    typer.echo(
        f"wrote {len(manifest.files)} files ({size / 1e6:.1f} MB) to {out} in {wall:.1f} s "
        f"({claims / wall:,.0f} claims/s wall, {claims / max(cpu, 1e-9):,.0f} claims/s CPU)"
    )


if __name__ == "__main__":
    app()
