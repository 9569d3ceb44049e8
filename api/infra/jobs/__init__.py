"""Durable background jobs stored in the operational database.

Why a table and not a broker: the queue lives in the same database as the
work that enqueues it, so a job is committed (or rolled back) atomically with
that work, survives restarts, needs no extra service for the embedded default,
and scales to several workers on PostgreSQL with `FOR UPDATE SKIP LOCKED`.
See `api.infra.jobs.queue` for the state machine and `api.infra.jobs.worker` for the
polling thread.
"""
