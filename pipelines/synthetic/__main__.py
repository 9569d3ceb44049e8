"""``python -m pipelines.synthetic`` runs the CLI."""

from .cli import app

app(prog_name="python -m pipelines.synthetic")
