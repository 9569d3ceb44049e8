"""policyImpact list statement: each filter narrows the statement only when given."""

from __future__ import annotations

from datetime import date

from api.intelligence.policy_impact import service


def sql(**filters) -> str:
    return str(service.list_statement(**filters).compile(compile_kwargs={"literal_binds": True}))


def test_no_filter_lists_everything():
    assert "WHERE" not in sql()


def test_given_filters_narrow_it():
    text = sql(state="closed", created_from=date(2026, 1, 1), created_to=date(2026, 1, 31))
    assert "state = 'closed'" in text
    assert "created_at >= '2026-01-01 00:00:00+00:00'" in text
    assert "created_at < '2026-02-01 00:00:00+00:00'" in text  # the last day is included whole
