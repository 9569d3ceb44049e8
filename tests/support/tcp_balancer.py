"""A round-robin TCP load balancer for tests: each accepted connection goes to the next backend.

The compose profile fronts its API replicas with nginx (deploy/nginx.conf); no nginx or haproxy binary
runs here and no system package may be installed, and PyPI has no maintained pure-Python load balancer
(proxy.py is a forward proxy whose reverse-proxy plugin routes by path to fixed URLs, asgiproxy is a
toolkit to build an HTTP proxy from: either needs the same code as this, plus HTTP parsing). This one
balances at layer 4, per connection, like `haproxy mode tcp`: it never reads the bytes it forwards.
Clients wanting one backend per request open one connection per request (no keep-alive).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
from collections.abc import Iterator


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


class TcpBalancer:
    """Listens on 127.0.0.1:<free port> in a thread of its own; `url` is where clients connect."""

    def __init__(self, backends: list[tuple[str, int]]) -> None:
        self._next = itertools.cycle(backends)
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tcp-balancer", daemon=True)
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _handle(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        host, port = next(self._next)
        try:
            backend_reader, backend_writer = await asyncio.open_connection(host, port)
        except OSError:
            client_writer.close()  # the client sees the connection dropped, as from a dead backend
            return
        await asyncio.gather(_pipe(client_reader, backend_writer), _pipe(backend_reader, client_writer))

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            server.close()
            self._loop.run_until_complete(server.wait_closed())
            self._loop.close()

    def start(self) -> TcpBalancer:
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


@contextlib.contextmanager
def balancing(backends: list[tuple[str, int]]) -> Iterator[TcpBalancer]:
    balancer = TcpBalancer(backends).start()
    try:
        yield balancer
    finally:
        balancer.stop()
