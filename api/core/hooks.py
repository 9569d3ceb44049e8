"""The one way a package acts on another's event without importing it.

A domain that must react to another's event (a case opened, a draft discarded, an action run) cannot
import the package raising it when that package already imports it: the import would close a cycle.
So the event is a `Hook` on the services object (typed by a listener protocol of `api.core.services`),
the raising package emits it, and the composition root (`api.app.build_services`) subscribes the
reacting functions. Nothing else registers anything: there
is no module-level registry, so two services objects (the app and a test's) never share listeners.

Listeners run synchronously, in subscription order, inside the caller's transaction: a listener that
raises stops the rest and the error propagates, so the caller's whole call rolls back (nothing happens
without its consequences).

`Hook[T]` is typed by the listener's callable type `T` (a Protocol whose docstring says what the event
means); `emit` and `collect` are checked against it, so a caller passing the wrong arguments fails the
type check. `Keyed[T]` is the variant where exactly one function answers per key (who can tell an
approved action's payload, per action kind).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Generic, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T", bound=Callable[..., object])


class Hook(Generic[T]):
    """The listeners of one event, called in the order they were subscribed."""

    def __init__(self) -> None:
        self._listeners: list[T] = []

    def subscribe(self, fn: T) -> T:
        """Add a listener (last in order); returns it, so it can decorate."""
        self._listeners.append(fn)
        return fn

    def unsubscribe(self, fn: T) -> None:
        """Remove a listener (a test plants one around a call on the shared services)."""
        self._listeners.remove(fn)

    def emit(self: Hook[Callable[P, object]], *args: P.args, **kwargs: P.kwargs) -> None:
        """Tell every listener, in order; the first error propagates (and the caller rolls back)."""
        for fn in self._listeners:
            fn(*args, **kwargs)

    def collect(self: Hook[Callable[P, R]], *args: P.args, **kwargs: P.kwargs) -> list[R]:
        """Ask every listener, in order, and answer their results in that order (e.g. the reasons each
        resume blocker gives)."""
        return [fn(*args, **kwargs) for fn in self._listeners]


class Keyed(Generic[T]):
    """One function per key, looked up by the key (a payload checker per action kind).

    `keys`, when given, are the only keys that may be subscribed: a misspelt key fails when the
    composition root subscribes it, not when a caller first asks for it."""

    def __init__(self, keys: Collection[str] | None = None) -> None:
        self._keys = tuple(keys) if keys is not None else None
        self._by_key: dict[str, T] = {}

    def subscribe(self, key: str, fn: T) -> T:
        """Make `fn` the function of `key`. The same function again is a no-op; a second, different
        function for a key is refused (two answers to one question would be a wiring error)."""
        if self._keys is not None and key not in self._keys:
            raise ValueError(f"'{key}' is not a key of this hook; keys: {', '.join(self._keys)}")
        existing = self._by_key.get(key)
        if existing is not None and existing is not fn:
            raise ValueError(f"a function for '{key}' is already subscribed")
        self._by_key[key] = fn
        return fn

    def get(self, key: str) -> T | None:
        """The function of `key`, or None when none is subscribed."""
        return self._by_key.get(key)
