"""Where everything lives under ``DATA_DIR`` (one place, so assets, dbt and the API agree).

    DATA_DIR/drop/client_<client_id>/...             folder drop (bulk and scheduled loads)
    DATA_DIR/landing/sha256/ab/cd/<sha256>           landing zone (api.infra.landing.zone)
    DATA_DIR/warehouse/raw/<table>/<sha256>_c<client_id>.parquet
    DATA_DIR/warehouse/raw/<table>/_empty.parquet    zero-row file with the table's schema
    DATA_DIR/warehouse/raw/_files/<sha256>_c<client_id>.json   what a file produced, and with which parser
    DATA_DIR/warehouse/extract/<table>.parquet       operational extract
    DATA_DIR/warehouse/build/<run_id>/warehouse.duckdb  one dbt build database per run (never read by the API)
    DATA_DIR/warehouse/snapshots/marts_<UTC>.duckdb  immutable published snapshots
    DATA_DIR/warehouse/published.json                pointer to the current snapshot

Raw files are keyed by content hash *and* client: the same bytes uploaded by
two clients are two tenants' data. The ``_empty.parquet`` file keeps
``read_parquet('<table>/*.parquet')`` valid when no file of a kind exists yet.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

EMPTY_FILE = "_empty.parquet"
BUILD_COMPLETE = "COMPLETE"  # marker file written when a run's dbt build succeeded
_DROP_DIR = re.compile(r"^client_(\d+)$")


@dataclass(frozen=True)
class WarehouseLayout:
    """Paths of the analytical store under one data directory."""

    data_dir: Path

    @classmethod
    def at(cls, data_dir: str | os.PathLike[str]) -> WarehouseLayout:
        return cls(Path(data_dir).resolve())

    @property
    def drop_dir(self) -> Path:
        return self.data_dir / "drop"

    @property
    def landing_dir(self) -> Path:
        return self.data_dir / "landing"

    @property
    def warehouse_dir(self) -> Path:
        return self.data_dir / "warehouse"

    @property
    def raw_dir(self) -> Path:
        return self.warehouse_dir / "raw"

    @property
    def raw_state_dir(self) -> Path:
        return self.raw_dir / "_files"

    @property
    def extract_dir(self) -> Path:
        return self.warehouse_dir / "extract"

    @property
    def builds_dir(self) -> Path:
        return self.warehouse_dir / "build"

    def build_db_for(self, run_id: str) -> Path:
        """Each run builds into its own database, so concurrent runs (a sensor's and an API
        request's) never write into, or publish from, each other's half-built file."""
        return self.builds_dir / run_id / "warehouse.duckdb"

    def latest_complete_build(self) -> Path | None:
        """The newest build whose dbt step finished (for publishing without a fresh build)."""
        done = sorted(self.builds_dir.glob(f"*/{BUILD_COMPLETE}"), key=lambda p: p.stat().st_mtime)
        return done[-1].parent / "warehouse.duckdb" if done else None

    @property
    def snapshots_dir(self) -> Path:
        return self.warehouse_dir / "snapshots"

    @property
    def published_pointer(self) -> Path:
        return self.warehouse_dir / "published.json"

    @property
    def dagster_home(self) -> Path:
        return self.data_dir / "dagster"

    def raw_table_dir(self, table: str) -> Path:
        return self.raw_dir / table

    def raw_file(self, table: str, file_key: str) -> Path:
        return self.raw_table_dir(table) / f"{file_key}.parquet"

    def raw_glob(self, table: str) -> str:
        return str(self.raw_table_dir(table) / "*.parquet")

    def landing_path(self, sha256: str) -> Path:
        return self.landing_dir / "sha256" / sha256[:2] / sha256[2:4] / sha256

    def drop_client_dirs(self) -> list[tuple[int, Path]]:
        """``(client_id, folder)`` for every ``drop/client_<id>`` folder, sorted by client id."""
        if not self.drop_dir.is_dir():
            return []
        found = []
        for child in self.drop_dir.iterdir():
            match = _DROP_DIR.match(child.name)
            if match and child.is_dir():
                found.append((int(match.group(1)), child))
        return sorted(found)


def file_key(sha256: str, client_id: int) -> str:
    """The name of one source file's outputs in the raw zone."""
    return f"{sha256}_c{client_id}"


# The warehouse holds PHI (raw Parquet, the build database, published snapshots): only the user that
# runs the pipeline may read it. Its own constants: the pipeline does not import the API.
PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
PRIVATE_UMASK = 0o077


def make_private_dir(path: Path) -> Path:
    """Create ``path`` and its missing parents as 0700, chmod-ed explicitly (mkdir's mode is masked by the umask)."""
    path = Path(path)
    missing: list[Path] = []
    probe = path
    while not probe.exists() and probe.parent != probe:
        missing.append(probe)
        probe = probe.parent
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):  # a concurrent creator; tightened below all the same
            os.mkdir(directory, PRIVATE_DIR_MODE)
        os.chmod(directory, PRIVATE_DIR_MODE)
    return path


def make_private_tree(root: Path) -> None:
    """Files 0600 and directories 0700 under ``root``: for trees a tool filled by copying files whose
    mode it preserved (dagster-dbt copies the project's 0644 parse cache into the run's target)."""
    for directory, _subdirs, files in os.walk(root):
        os.chmod(directory, PRIVATE_DIR_MODE)
        for name in files:
            path = os.path.join(directory, name)
            if not os.path.islink(path):
                os.chmod(path, PRIVATE_FILE_MODE)


def secure_data_dir(data_dir: Path) -> Path:
    """``DATA_DIR`` 0700 and the process umask 077, so files dbt, DuckDB and Dagster write are private too."""
    os.umask(PRIVATE_UMASK)
    make_private_dir(data_dir)
    os.chmod(data_dir, PRIVATE_DIR_MODE)
    return Path(data_dir)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` (0600) via a temporary file in the same folder and ``os.replace``."""
    make_private_dir(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, PRIVATE_FILE_MODE)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def temp_path_for(path: Path) -> Path:
    """A unique temporary sibling of ``path`` (same folder, so ``os.replace`` is atomic), created 0600."""
    make_private_dir(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    return Path(tmp)
