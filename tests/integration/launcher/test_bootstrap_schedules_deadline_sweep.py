"""The first-run bootstrap starts the daily deadline sweep and the evidence retention sweep once, however often it runs (`make up` runs it
on every start)."""

from __future__ import annotations

from sqlalchemy import func, select

from api.core.settings import Settings
from api.denials.notifications.service import DEADLINES_JOB_KIND
from api.evidence.evidence_control.service import PURGE_JOB_KIND
from api.infra.db import migrate
from api.infra.db.session import Database
from api.infra.jobs.models import Job
from launcher.bootstrap import bootstrap


def test_bootstrap_queues_one_deadline_sweep_however_often_it_runs(tmp_path):
    url = f"sqlite:///{tmp_path / 'platform.db'}"
    migrate.upgrade(url)
    settings = Settings(data_dir=tmp_path, database_url=url, bootstrap_admin_password="a long enough password")
    database = Database(url)
    try:
        bootstrap(settings, database)
        bootstrap(settings, database)
        with database.transaction() as db:
            queued = db.scalar(
                select(func.count()).select_from(Job).where(Job.kind == DEADLINES_JOB_KIND, Job.status == "queued")
            )
            purges = db.scalar(
                select(func.count()).select_from(Job).where(Job.kind == PURGE_JOB_KIND, Job.status == "queued")
            )
        assert (queued, purges) == (1, 1)
    finally:
        database.dispose()
