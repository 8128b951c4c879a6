"""Lumin's nginx files read and run by the deploy tests: a small reader of nginx's
configuration language, the rules both ``deploy/nginx.conf`` and ``deploy/nginx/cluster.conf``
keep, a main ``nginx.conf`` that runs one of them unprivileged, and nginx started on it."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.deploy.processes import wait_for_port

__all__ = [
    "PING_SECONDS",
    "Directive",
    "check_proxy_rules",
    "nginx_main_conf",
    "nginx_test",
    "parse_nginx",
    "start_nginx",
]

#: Lumin pings every 20 s: a proxy must wait longer than that on a quiet websocket.
PING_SECONDS = 20


# A small reader of nginx's configuration language: directives, their arguments, blocks.


@dataclass
class Directive:
    name: str
    args: list[str]
    block: list[Directive] | None = None

    def all(self, name: str, *args: str) -> list[Directive]:
        return [d for d in self.block or [] if d.name == name and d.args[: len(args)] == [*args]]

    def one(self, name: str, *args: str) -> Directive:
        found = self.all(name, *args)
        assert len(found) == 1, f"{name} {' '.join(args)}: {len(found)} found"
        return found[0]


_TOKEN = re.compile(r"#[^\n]*|\"(?:\\.|[^\"])*\"|'(?:\\.|[^'])*'|[{};]|[^\s{};]+")


def parse_nginx(text: str) -> Directive:
    stack = [Directive("main", [], [])]
    words: list[str] = []
    for token in _TOKEN.findall(text):
        if token.startswith("#"):
            continue
        if token == ";":
            assert words, "an empty directive"
            stack[-1].block.append(Directive(words[0], words[1:]))  # type: ignore[union-attr]
            words = []
        elif token == "{":
            block = Directive(words[0], words[1:], [])
            stack[-1].block.append(block)  # type: ignore[union-attr]
            stack.append(block)
            words = []
        elif token == "}":
            assert not words and len(stack) > 1, "an unbalanced }"
            stack.pop()
        else:
            words.append(token.strip("\"'"))
    assert len(stack) == 1 and not words, "an unclosed block"
    return stack[0]


def nginx_main_conf(prefix: Path, site_conf: Path) -> str:
    """A main nginx.conf that runs unprivileged in ``prefix``, in the foreground, as one
    process (so ending it ends all of it), around an http-level file
    (``site_conf``: cluster.conf, nginx.conf)."""
    temp = {kind: prefix / kind for kind in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    for folder in temp.values():
        folder.mkdir(exist_ok=True)
    return f"""
daemon off;
master_process off;
worker_processes 1;
pid {prefix / "nginx.pid"};
error_log {prefix / "error.log"} notice;
events {{ worker_connections 256; }}
http {{
    access_log {prefix / "access.log"};
    client_body_temp_path {temp["body"]};
    proxy_temp_path {temp["proxy"]};
    fastcgi_temp_path {temp["fastcgi"]};
    uwsgi_temp_path {temp["uwsgi"]};
    scgi_temp_path {temp["scgi"]};
    include {site_conf};
}}
"""


def check_proxy_rules(server: Directive, sockets: list[str]) -> None:
    """What a ``server`` block in front of Lumin must do: pass the headers Lumin's checks read
    (``Host`` with its port: the same-origin check compares ``Origin`` with it) on every
    proxied request, wait well past Lumin's pings on each websocket location of ``sockets``,
    and deny ``/metrics`` and the admin API."""
    headers = {d.args[0]: d.args[1] for d in server.all("proxy_set_header")}
    assert headers["Host"] == "$http_host", "the port too: Lumin's same-origin check"
    assert headers["Origin"] == "$http_origin"
    assert headers["X-Forwarded-For"] == "$proxy_add_x_forwarded_for"
    assert headers["Upgrade"] == "$http_upgrade"
    assert headers["Connection"] == "$connection_upgrade"
    assert server.one("proxy_http_version").args == ["1.1"]
    locations = server.all("location")
    for location in locations:
        # A proxy_set_header in a location would drop every one set on the server.
        assert not location.all("proxy_set_header"), location.args
    found = [loc for loc in locations if loc.args[-1].endswith("/ws")]
    assert [loc.args[-1] for loc in found] == sockets
    for location in found:
        assert location.args[0] == "=", "exactly the websocket path"
        for timeout in ("proxy_read_timeout", "proxy_send_timeout"):
            seconds = float(location.one(timeout).args[0].removesuffix("s"))
            assert 3 * PING_SECONDS <= seconds <= 600, (location.args, timeout)
    assert server.one("location", "/metrics").one("deny").args == ["all"]
    assert server.one("location", "/api/admin/").one("deny").args == ["all"]


def nginx_test(nginx_bin: str, prefix: Path, site_conf: Path) -> subprocess.CompletedProcess[str]:
    """``nginx -t`` on ``site_conf`` inside :func:`nginx_main_conf`, unprivileged in ``prefix``."""
    main = prefix / "nginx.conf"
    main.write_text(nginx_main_conf(prefix, site_conf))
    return subprocess.run(
        [nginx_bin, "-t", "-p", str(prefix), "-c", str(main), "-e", str(prefix / "e.log")],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def start_nginx(
    nginx_bin: str, prefix: Path, site_conf: str, port: int
) -> tuple[subprocess.Popen[bytes], Path]:
    """nginx running ``site_conf`` (its text) in ``prefix`` and accepting on ``port``, with the
    path of its error log; the caller stops it."""
    prefix.mkdir(exist_ok=True)
    rendered = prefix / "site.conf"
    rendered.write_text(site_conf)
    main = prefix / "nginx.conf"
    main.write_text(nginx_main_conf(prefix, rendered))
    errors = prefix / "error.log"
    errors.touch()
    with (prefix / "stdout.log").open("wb") as out:
        nginx = subprocess.Popen(
            [nginx_bin, "-p", str(prefix), "-c", str(main), "-e", str(errors)],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_port(nginx, port, errors)
    except BaseException:
        nginx.kill()
        nginx.wait(timeout=5)
        raise
    return nginx, errors
