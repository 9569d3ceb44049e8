"""`GET /` and the console's files: the committed build of console/ (index.html, app.js, app.css).

The console is a static page that talks to `/api/rpc` like any other client, so serving it is only
files. Each file gets its own route (no catch-all that could shadow `/api/...`, `/docs` or
`/.well-known/...`), and the page its own Content-Security-Policy: scripts, styles and calls from this
origin only, the appeal packet's PDF preview from a `blob:` URL, nothing framed by others. A platform
without the build (a wheel without console/dist) simply serves no console.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import FileResponse

from api.core.settings import Settings

CONSOLE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; frame-src 'self' blob:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css",
    ".txt": "text/plain; charset=utf-8",  # the bundled packages' licences (app.js.LEGAL.txt)
}


class Configured(Protocol):
    @property
    def settings(self) -> Settings: ...


def console_files(dist: Path) -> dict[str, Path]:
    """The servable files of a console build by URL path: `/` is index.html; nothing but the build's own
    top-level .html/.js/.css/.txt files (no directories)."""
    if not (dist / "index.html").is_file():
        return {}
    files = {f"/{p.name}": p for p in sorted(dist.iterdir()) if p.is_file() and p.suffix in MEDIA_TYPES}
    files["/"] = dist / "index.html"
    return files


def install(app: FastAPI, services: Configured) -> None:
    """Mount the console's files, if the build is there."""
    for url, path in console_files(services.settings.web_console_dir).items():
        app.add_api_route(url, _responder(path), methods=["GET", "HEAD"], include_in_schema=False)


def _responder(path: Path) -> Callable[[Request], Awaitable[FileResponse]]:
    media_type = MEDIA_TYPES[path.suffix]

    async def serve(_request: Request) -> FileResponse:
        # no-cache: the browser revalidates (ETag) so a new build is picked up at the next load.
        headers = {"Content-Security-Policy": CONSOLE_CSP, "Cache-Control": "no-cache"}
        return FileResponse(path, media_type=media_type, headers=headers)

    return serve
