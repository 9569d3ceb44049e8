"""One object per database backend for the whole test session: `PerBackend`.

A session-scoped fixture parametrised over the backends is finalised whenever the next test asks for the
other backend. One pytest process orders its tests so that this happens once, but pytest-xdist's
`--dist loadfile` hands a worker whole files, and inside each file the tests switch from SQLite to
PostgreSQL: every file migrated two fresh databases, and every file of serving tests ran the serving
world's pipeline twice. A `PerBackend` keeps each backend's object alive until the session ends; the
parametrised fixture only looks it up, so finalising it costs nothing.

    @pytest.fixture(scope="session")
    def stacks(tmp_path_factory):
        with per_backend(lambda backend: open_stack(backend, tmp_path_factory)) as each:
            yield each

    @pytest.fixture(scope="session", params=BACKENDS)
    def backend(request):
        return request.param
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from typing import Generic, TypeVar

T = TypeVar("T")

BACKENDS = ("sqlite", "postgres")


class PerBackend(Generic[T]):
    """`each[backend]`: the backend's object, opened on first use and closed when the session ends."""

    def __init__(self, exits: ExitStack, open_one: Callable[[str], AbstractContextManager[T]]) -> None:
        self._exits = exits
        self._open = open_one
        self._opened: dict[str, T] = {}

    def __getitem__(self, backend: str) -> T:
        if backend not in BACKENDS:
            raise KeyError(f"unknown backend {backend!r}; one of {', '.join(BACKENDS)}")
        if backend not in self._opened:
            # A failure (or a skip: PostgreSQL unreachable) leaves nothing half-open and is raised again
            # to the next test that asks.
            self._opened[backend] = self._exits.enter_context(self._open(backend))
        return self._opened[backend]


@contextmanager
def per_backend(open_one: Callable[[str], AbstractContextManager[T]]) -> Iterator[PerBackend[T]]:
    """A `PerBackend` whose objects are closed, last opened first, when the block ends."""
    with ExitStack() as exits:
        yield PerBackend(exits, open_one)
