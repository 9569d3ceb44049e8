"""The console's files at `/`: the committed build, with a CSP that lets only this origin's script, style and
calls run; nothing else of the build (or of the disk) is reachable, and no route shadows the API."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from api.app import build_services, create_app
from api.core.settings import Settings
from api.infra.web_console.routes import CONSOLE_CSP, console_files


def test_the_console_is_served_at_the_root_with_its_own_policy(http):
    page = http.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert page.headers["content-security-policy"] == CONSOLE_CSP
    assert '<script type="module" src="app.js"></script>' in page.text
    script = http.get("/app.js")
    assert (script.status_code, script.headers["content-type"]) == (200, "text/javascript; charset=utf-8")
    assert script.headers["cache-control"] == "no-cache"
    assert script.headers["x-content-type-options"] == "nosniff"
    assert http.get("/app.css").headers["content-type"].startswith("text/css")


def test_the_policy_allows_no_inline_script_no_other_origin_and_no_framing():
    directives = dict(d.strip().split(" ", 1) for d in CONSOLE_CSP.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == "'self'"  # no 'unsafe-inline', no 'unsafe-eval', no CDN
    assert directives["connect-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"


def test_only_the_builds_own_files_are_reachable(http):
    for path in ("/pyproject.toml", "/src/app.tsx", "/node_modules/react/index.js", "/x.js", "/app.js.map"):
        assert http.get(path).status_code == 404, path
    # the API is not shadowed by the console's routes
    assert http.get("/api/rpc/system.version").status_code == 200
    assert http.get("/api/health").status_code in (200, 503)


def test_a_deployment_without_the_build_serves_no_console(tmp_path: Path, database_url):
    assert console_files(tmp_path) == {}
    settings = Settings(data_dir=tmp_path / "data", database_url=database_url, web_console_dir=tmp_path / "none")
    services = build_services(settings)
    try:
        assert TestClient(create_app(services=services)).get("/").status_code == 404
    finally:
        services.close()


def test_only_top_level_pages_scripts_styles_and_licences_are_served(tmp_path: Path):
    (tmp_path / "index.html").write_text("<!doctype html>")
    (tmp_path / "app.js").write_text("")
    (tmp_path / "app.js.map").write_text("{}")
    (tmp_path / "secrets.json").write_text("{}")
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / "x.js").write_text("")
    assert sorted(console_files(tmp_path)) == ["/", "/app.js", "/index.html"]
