"""One Lumin node the way ``deploy/lumin.service`` and ``deploy/nginx.conf`` run it, on this
machine (docs/operating.md, "Running as a service"):

- ``deploy/nginx.conf``: its headers and routes, ``nginx -t`` on a copy whose upstream is a
  local port, whose ``listen 443`` is a free loopback port and whose certificate is a
  self-signed one made here with the ``openssl`` command; and the ``http2 on;`` form refused
  by an nginx older than 1.25.1 (Debian 12 has 1.22);
- that nginx, over TLS (certificates verified against the self-signed one), in front of a
  ``lumin serve`` started with the unit's ``ExecStart`` and ``Environment=`` (only the port,
  data and static folders changed) under the kernel's write-xor-execute rule, as the unit's
  ``MemoryDenyWriteExecute=`` asks: HTTPS routes, HTTP/2 offered, ``/metrics`` refused, and a
  Flip Over Frog game against a bot played to its end over ``wss://`` with the browser's
  ``Origin: https://127.0.0.1:<port>``, which the same file with ``Host $host`` gets refused.

nginx and openssl are Debian's; a missing one skips, except under CI, where it fails.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import shutil
import socket
import ssl
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from websockets.exceptions import InvalidStatus

from clients.sdk import LuminClient, bot, human
from tests.deploy.nginx import check_proxy_rules, nginx_test, parse_nginx, start_nginx
from tests.deploy.processes import free_port, get, hello, missing, stop, wait_for_ready_line
from tests.deploy.units import UNIT, environment, exec_start
from tests.server.test_play import play_seat

NGINX_CONF = UNIT.parent / "nginx.conf"
#: Where the unit's Lumin listens, and so nginx.conf's upstream.
UPSTREAM = "127.0.0.1:8700"

#: Run as ``python -c MDWE_EXEC program args...``: turn on the kernel's write-xor-execute rule
#: for this process (prctl PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN: Linux 6.3; kept across
#: execve), say so, then become ``program``. No memory may then be mapped writable and
#: executable, nor made executable later: what MemoryDenyWriteExecute= refuses.
MDWE_EXEC = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(65, 1, 0, 0, 0) != 0 or libc.prctl(66, 0, 0, 0, 0) != 1:
    sys.exit(f"no PR_SET_MDWE: {os.strerror(ctypes.get_errno())}")
print("write-xor-execute on", flush=True)
os.execv(sys.argv[1], sys.argv[1:])
"""

#: What a process under MDWE_EXEC sees when it asks for writable and executable memory.
MDWE_PROBE = """
import mmap
try:
    mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
except PermissionError:
    print("refused")
"""


def render_nginx_conf(text: str, upstream_port: int, listen_port: int, cert: Path) -> str:
    """nginx.conf with Lumin's upstream on ``upstream_port``, TLS on 127.0.0.1:``listen_port``
    and the certificate and key ``cert`` (one PEM file holding both); comments dropped."""
    text = re.sub(r"(?m)^\s*#.*\n", "", text)
    replacements = [
        (rf"\bserver\s+{re.escape(UPSTREAM)}\s*;", f"server 127.0.0.1:{upstream_port};"),
        (r"\blisten\s+443\s+ssl", f"listen 127.0.0.1:{listen_port} ssl"),
        (r"\bssl_certificate\s+\S+;", f"ssl_certificate {cert};"),
        (r"\bssl_certificate_key\s+\S+;", f"ssl_certificate_key {cert};"),
    ]
    for pattern, replacement in replacements:
        text, count = re.subn(pattern, replacement, text)
        assert count == 1, pattern
    return text


def _nginx_version(nginx_bin: str) -> tuple[int, ...]:
    done = subprocess.run([nginx_bin, "-v"], capture_output=True, text=True, timeout=10)
    found = re.search(r"nginx/(\d+)\.(\d+)\.(\d+)", done.stderr)
    assert found, done.stderr
    return tuple(int(part) for part in found.groups())


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A self-signed certificate for 127.0.0.1 and its key, in one PEM file."""
    openssl = shutil.which("openssl")
    if openssl is None:
        missing("the openssl command is not installed (Debian: apt-get install -y openssl)")
        raise AssertionError("unreachable")
    folder = tmp_path_factory.mktemp("tls")
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(
        [
            *(openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"),
            *("-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2"),
            *("-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"),
        ],
        capture_output=True,
        timeout=30,
        check=True,
    )
    both = folder / "both.pem"
    both.write_bytes(cert.read_bytes() + key.read_bytes())
    return both


def _trusting(cert: Path) -> ssl.SSLContext:
    """A client context that verifies the server (name included) against ``cert`` alone."""
    return ssl.create_default_context(cafile=str(cert))


def mdwe_available() -> bool:
    """Whether this kernel enforces write-xor-execute on a process that asks (Linux 6.3+)."""
    if not sys.platform.startswith("linux"):
        return False
    done = subprocess.run(
        [sys.executable, "-c", MDWE_EXEC, sys.executable, "-c", MDWE_PROBE],
        capture_output=True,
        text=True,
        timeout=30,
    )
    return done.returncode == 0 and done.stdout.split() == [*["write-xor-execute", "on"], "refused"]


def test_nginx_conf_headers_routes_and_the_listen_form_nginx_1_22_takes() -> None:
    conf = parse_nginx(NGINX_CONF.read_text())
    server = conf.one("server")
    check_proxy_rules(server, ["/ws"])
    assert server.one("listen").args == ["443", "ssl", "http2"]
    assert not server.all("http2"), "`http2 on;` needs nginx 1.25.1; Debian 12 has 1.22"
    assert server.one("location", "/").one("proxy_pass").args == ["http://lumin"]
    upstream = conf.one("upstream", "lumin").one("server").args
    unit = environment(UNIT.read_text())
    assert upstream == [f"{unit['LUMIN_HOST']}:{unit['LUMIN_PORT']}"] == [UPSTREAM]


def test_nginx_accepts_nginx_conf_and_refuses_http2_on_before_1_25_1(
    nginx_bin: str, certificate: Path, tmp_path: Path
) -> None:
    text = render_nginx_conf(NGINX_CONF.read_text(), 20001, free_port(), certificate)
    rendered = tmp_path / "lumin.conf"
    rendered.write_text(text)
    done = nginx_test(nginx_bin, tmp_path, rendered)
    assert done.returncode == 0, done.stderr
    assert "test is successful" in done.stderr
    if _nginx_version(nginx_bin) < (1, 25, 1):
        # The form the file used before: this nginx refuses it, so it could never start.
        rendered.write_text(text.replace(" ssl http2;", " ssl;\n    http2 on;", 1))
        done = nginx_test(nginx_bin, tmp_path, rendered)
        assert done.returncode != 0
        assert 'unknown directive "http2"' in done.stderr


# --- the unit's lumin serve behind nginx.conf ---------------------------------------------------


@dataclass
class Node:
    lumin_port: int
    nginx_port: int
    certificate: Path
    metrics_port: int
    #: Whether the node runs under the kernel's write-xor-execute rule.
    mdwe: bool

    def https(self, path: str, scheme: str = "https") -> str:
        return f"{scheme}://127.0.0.1:{self.nginx_port}{path}"


def start_unit_node(
    base: Path, command_prefix: list[str], metrics_port: int = 0
) -> tuple[subprocess.Popen[bytes], Path]:
    """``lumin serve`` as the unit starts it: its ``ExecStart`` (the venv's lumin in place of
    /opt/lumin's) and its ``Environment=``, with a free port and folders in ``base``; bots
    answer at once."""
    lumin = Path(sys.executable).with_name("lumin")
    if not lumin.exists():
        pytest.skip(f"no lumin command beside {sys.executable} (make setup)")
    text = UNIT.read_text()
    program, *args = exec_start(text)
    assert Path(program).name == "lumin" and args == ["serve"]
    static = base / "web"
    static.mkdir()
    (static / "index.html").write_text("<title>Lumin</title>")
    # No LUMIN_ variable of the caller's may reach the node (a store, a port...).
    env = {k: v for k, v in os.environ.items() if not k.startswith("LUMIN_")}
    env |= environment(text)
    env |= {"LUMIN_PORT": "0", "LUMIN_DATA": str(base / "data"), "LUMIN_STATIC": str(static)}
    # the unit's metrics listener, on a port of this run's
    env["LUMIN_METRICS_LISTEN"] = f"127.0.0.1:{metrics_port}"
    log = base / "lumin.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*command_prefix, str(lumin), *args, "--bot-delay", "0"],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    return process, log


@pytest.fixture(scope="module")
def node(
    nginx_bin: str, certificate: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Node]:
    """The unit's ``lumin serve`` (under write-xor-execute where the kernel has it) behind
    nginx.conf on a free loopback port with the self-signed certificate."""
    base = tmp_path_factory.mktemp("single")
    mdwe = mdwe_available()
    prefix = [sys.executable, "-c", MDWE_EXEC] if mdwe else []
    processes: list[subprocess.Popen[bytes]] = []
    try:
        metrics_port = free_port()
        lumin, log = start_unit_node(base, prefix, metrics_port)
        processes.append(lumin)
        port = wait_for_ready_line(lumin, log)
        assert ("write-xor-execute on" in log.read_text()) is mdwe
        listen = free_port()
        site = render_nginx_conf(NGINX_CONF.read_text(), port, listen, certificate)
        nginx, _ = start_nginx(nginx_bin, base / "nginx", site, listen)
        processes.append(nginx)
        yield Node(port, listen, certificate, metrics_port, mdwe)
    finally:
        stop(processes)


def test_https_through_nginx_conf(node: Node) -> None:
    context = _trusting(node.certificate)
    status, body, _ = get(node.https("/healthz"), context)
    assert status == 200 and b'"status": "ok"' in body
    status, body, _ = get(node.https("/rooms/r1"), context)  # the client's own route
    assert (status, body) == (200, b"<title>Lumin</title>")
    status, *_ = get(node.https("/metrics"), context)
    assert status == 403
    status, *_ = get(node.https("/api/admin/rooms"), context)
    assert status == 403, "the admin API is not on the public name"
    status, *_ = get(f"http://127.0.0.1:{node.lumin_port}/metrics")
    assert status == 404, "not on the game port without the admin token"
    status, body, _ = get(f"http://127.0.0.1:{node.metrics_port}/metrics")
    assert status == 200 and b"lumin_connections" in body, "Prometheus scrapes the unit's port"
    # HTTP/2 is offered to browsers (websockets stay on HTTP/1.1 connections of their own).
    context.set_alpn_protocols(["h2", "http/1.1"])
    with (
        socket.create_connection(("127.0.0.1", node.nginx_port), 5) as raw,
        context.wrap_socket(raw, server_hostname="127.0.0.1") as tls,
    ):
        assert tls.selected_alpn_protocol() == "h2"


async def play_frog_against_a_bot(url: str, origin: str | None) -> None:
    """A Flip Over Frog game against a bot at ``url``, to its end."""
    async with await LuminClient.connect(url, "Ada", origin=origin) as ada:
        room = await ada.create_room("flip_over_frog", seats=[human(), bot("bot")], sit=0)
        await ada.start(room)
        await asyncio.wait_for(play_seat(ada, room, random.Random(7), "flip_over_frog"), 60)
        assert sorted(ada.game_over[room].outcome.ranks)[0] == 1


async def test_a_game_over_wss_through_nginx_with_the_pages_origin(
    node: Node, monkeypatch: pytest.MonkeyPatch
) -> None:
    # LuminClient opens wss:// with Python's default TLS context, which trusts SSL_CERT_FILE:
    # the certificate is verified, against the self-signed one.
    monkeypatch.setenv("SSL_CERT_FILE", str(node.certificate))
    await play_frog_against_a_bot(node.https("/ws", "wss"), origin=node.https(""))


async def test_with_host_instead_of_http_host_the_pages_origin_is_refused(
    node: Node, nginx_bin: str, tmp_path: Path
) -> None:
    context = _trusting(node.certificate)
    origin = node.https("")  # https://127.0.0.1:<port>: not 443, so the port is in it
    welcome = await hello(node.https("/ws", "wss"), origin=origin, context=context)
    assert welcome["type"] == "welcome"
    # The file as it was: Host $host drops the port, and Lumin's same-origin check refuses.
    listen = free_port()
    site = render_nginx_conf(NGINX_CONF.read_text(), node.lumin_port, listen, node.certificate)
    site, count = re.subn(
        r"proxy_set_header Host \$http_host;", "proxy_set_header Host $host;", site
    )
    assert count == 1
    old, _ = start_nginx(nginx_bin, tmp_path / "nginx", site, listen)
    try:
        url, page = f"wss://127.0.0.1:{listen}/ws", f"https://127.0.0.1:{listen}"
        with pytest.raises(InvalidStatus) as refused:
            await hello(url, origin=page, context=context)
        assert refused.value.response.status_code == 403
        assert b"is not allowed" in refused.value.response.body
    finally:
        stop([old])


async def test_foreign_origins_are_refused_through_nginx_conf(node: Node) -> None:
    context = _trusting(node.certificate)
    with pytest.raises(InvalidStatus) as refused:
        await hello(node.https("/ws", "wss"), origin="https://elsewhere.example", context=context)
    assert refused.value.response.status_code == 403


async def test_lumin_plays_under_write_xor_execute(node: Node) -> None:
    # The unit sets MemoryDenyWriteExecute=true: CPython, uvloop, msgpack, websockets' C
    # speedups and ctypes (malloc_trim) must never need memory both writable and executable.
    if not node.mdwe:
        pytest.skip("this kernel has no PR_SET_MDWE (Linux 6.3+): the rule was not applied")
    await play_frog_against_a_bot(f"ws://127.0.0.1:{node.lumin_port}/ws", origin=None)
