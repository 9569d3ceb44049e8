"""Test worker (run as a subprocess): publish one snapshot, pausing at one of publish's two renames.

It runs the product's own `publish_snapshot`; the only instrumentation is a wrapper around the standard
library's `os.replace` that, at the chosen rename (the finished copy onto its final name, or the new
pointer onto published.json), writes a marker file and sleeps so the parent can SIGKILL the process there.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from pipelines.warehouse.layout import WarehouseLayout
from pipelines.warehouse.publish import publish_snapshot


def main(data_dir: str, build_db: str, pause_at: str, marker: str) -> None:
    real_replace = os.replace

    def pausing_replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        moving = Path(src).name if pause_at == "snapshot" else Path(dst).name
        if moving.endswith(".building" if pause_at == "snapshot" else "published.json"):
            Path(marker).write_text(pause_at)
            time.sleep(120)
        real_replace(src, dst)

    os.replace = pausing_replace  # type: ignore[assignment]
    publish_snapshot(WarehouseLayout.at(data_dir), Path(build_db), [("marts", "fct_a")], run_id="killed")
    print("published")  # never reached when the parent kills us


if __name__ == "__main__":
    main(*sys.argv[1:5])
