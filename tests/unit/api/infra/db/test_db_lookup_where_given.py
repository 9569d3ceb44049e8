"""`where_given`: the optional filters of list procedures, each applied only when given (equality,
inclusive bounds, whole days of a timestamp, one-of lists), run against a real SQLite table."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
from sqlalchemy import DateTime, Numeric, String, create_engine, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from api.infra.db.lookup import Between, OnDays, OneOf, where_given


class _Base(DeclarativeBase):
    pass


class Row(_Base):
    __tablename__ = "where_given_rows"
    id: Mapped[int] = mapped_column(primary_key=True)
    state: Mapped[str] = mapped_column(String(20))
    amount: Mapped[Decimal] = mapped_column(Numeric(12, 2))
    on: Mapped[date]
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


ROWS = [
    Row(id=1, state="open", amount=Decimal("10.00"), on=date(2026, 1, 1), at=datetime(2026, 1, 1, 0, 0, tzinfo=UTC)),
    Row(id=2, state="open", amount=Decimal("20.00"), on=date(2026, 1, 2), at=datetime(2026, 1, 1, 23, 59, tzinfo=UTC)),
    Row(id=3, state="closed", amount=Decimal("30.00"), on=date(2026, 1, 3), at=datetime(2026, 1, 2, 0, 0, tzinfo=UTC)),
    Row(id=4, state="void", amount=Decimal("40.00"), on=date(2026, 1, 4), at=datetime(2026, 1, 3, 12, 0, tzinfo=UTC)),
]


@pytest.fixture(scope="module")
def db():
    engine = create_engine("sqlite://")
    _Base.metadata.create_all(engine)
    with Session(engine) as session:
        session.add_all(ROWS)
        session.commit()
        yield session


def ids(db: Session, *filters) -> list[int]:
    return list(db.scalars(where_given(select(Row.id), *filters).order_by(Row.id)))


def test_none_means_no_filter(db):
    assert ids(db, (Row.state, None), Between(Row.amount), OnDays(Row.at), OneOf(Row.state, None)) == [1, 2, 3, 4]


def test_equality_pairs_combine(db):
    assert ids(db, (Row.state, "open")) == [1, 2]
    assert ids(db, (Row.state, "open"), (Row.on, date(2026, 1, 2))) == [2]


def test_between_is_inclusive_on_each_given_bound(db):
    assert ids(db, Between(Row.on, date(2026, 1, 2), date(2026, 1, 3))) == [2, 3]
    assert ids(db, Between(Row.amount, low=Decimal("30.00"))) == [3, 4]
    assert ids(db, Between(Row.amount, high=Decimal("20.00"))) == [1, 2]
    assert ids(db, Between(Row.amount, Decimal("25"), Decimal("26"))) == []


def test_on_days_takes_both_given_days_whole(db):
    # 23:59 on the last day is in; midnight of the day after is out.
    assert ids(db, OnDays(Row.at, date(2026, 1, 1), date(2026, 1, 1))) == [1, 2]
    assert ids(db, OnDays(Row.at, first=date(2026, 1, 2))) == [3, 4]
    assert ids(db, OnDays(Row.at, last=date(2026, 1, 2))) == [1, 2, 3]


def test_one_of(db):
    assert ids(db, OneOf(Row.state, ["closed", "void"])) == [3, 4]
    assert ids(db, OneOf(Row.state, ())) == []


def test_an_unknown_filter_is_refused(db):
    with pytest.raises(TypeError, match="not a list filter"):
        where_given(select(Row.id), "state")  # type: ignore[arg-type]
