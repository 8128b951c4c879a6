"""The browser client's files (``--static``, ``server/static.py``) from a real Lumin server on
loopback, over HTTP as a browser asks for them: caching by name, gzip when accepted, ETags
and 304, the client's own routes, traversal refused, and a missing folder said at start."""

from __future__ import annotations

import asyncio
import gzip
import http.client
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import attrs
import pytest

from clients.load import free_port, wait_healthy
from server.app import LuminServer
from server.config import Settings
from server.static import IMMUTABLE, accepts_gzip, is_hashed_asset

ROOT = Path(__file__).resolve().parents[2]
INDEX = b"<!doctype html><title>Lumin</title>" + b"<script src=./assets/index-Cf16bK9c.js>" * 20
SCRIPT = b"export const neon = 'Lumin';\n" * 200


@attrs.frozen
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


def request(port: int, path: str, **headers: str) -> Answer:
    """One GET, exactly as given (http.client adds no Accept-Encoding and decodes nothing)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request(
            "GET", path, headers={k.replace("_", "-"): v for k, v in headers.items()}
        )
        answer = connection.getresponse()
        return Answer(answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read())
    finally:
        connection.close()


@pytest.fixture
def web(tmp_path: Path) -> Path:
    """A folder shaped like Vite's build of clients/web, and a secret beside it."""
    folder = tmp_path / "dist"
    (folder / "assets").mkdir(parents=True)
    (folder / "index.html").write_bytes(INDEX)
    (folder / "assets" / "index-Cf16bK9c.js").write_bytes(SCRIPT)
    (folder / "assets" / "neon_hex-CGoFRb-1.css").write_text("body { color: #ff3df2 }")
    (folder / "favicon.png").write_bytes(b"\x89PNG" + bytes(range(256)) * 4)
    (folder / "robots.txt").write_text("User-agent: *\n")
    (tmp_path / "secret.txt").write_text("not for the web")
    (folder / "assets" / "leak.txt").symlink_to(tmp_path / "secret.txt")
    return folder


@pytest.fixture
async def port(settings: Settings, web: Path) -> AsyncIterator[int]:
    lumin = LuminServer(attrs.evolve(settings, static=web))
    await lumin.start()
    yield lumin.port
    await lumin.stop()


async def get(port: int, path: str, **headers: str) -> Answer:
    return await asyncio.to_thread(request, port, path, **headers)


async def test_hashed_assets_are_cached_for_a_year_and_the_rest_revalidated(port: int) -> None:
    script = await get(port, "/assets/index-Cf16bK9c.js")
    assert (script.status, script.body) == (200, SCRIPT)
    assert script.headers["cache-control"] == IMMUTABLE == "public, max-age=31536000, immutable"
    assert script.headers["content-type"] == "text/javascript"
    assert (await get(port, "/assets/neon_hex-CGoFRb-1.css")).headers["cache-control"] == IMMUTABLE
    for path in ("/", "/index.html", "/robots.txt", "/favicon.png"):
        answer = await get(port, path)
        assert answer.status == 200, path
        assert answer.headers["cache-control"] == "no-cache", path


async def test_gzip_when_the_browser_accepts_it_with_the_same_content(port: int) -> None:
    plain = await get(port, "/assets/index-Cf16bK9c.js")
    packed = await get(port, "/assets/index-Cf16bK9c.js", Accept_Encoding="br, gzip;q=0.8")
    assert "content-encoding" not in plain.headers
    assert packed.headers["content-encoding"] == "gzip"
    assert int(packed.headers["content-length"]) == len(packed.body) < len(SCRIPT) // 10
    assert int(plain.headers["content-length"]) == len(plain.body) == len(SCRIPT)
    assert gzip.decompress(packed.body) == plain.body == SCRIPT
    assert plain.headers["vary"] == packed.headers["vary"] == "Accept-Encoding"
    assert plain.headers["etag"] != packed.headers["etag"], "two representations"
    index = await get(port, "/", Accept_Encoding="gzip, deflate")
    assert gzip.decompress(index.body) == INDEX
    assert index.headers["cache-control"] == "no-cache"
    # Refused or not offered: the file as it is.
    for refusal in ("gzip;q=0", "identity", "br", "*;q=0", ""):
        answer = await get(port, "/assets/index-Cf16bK9c.js", Accept_Encoding=refusal)
        assert answer.body == SCRIPT and "content-encoding" not in answer.headers, refusal
    # An image is compressed already: never gzipped, and its answers do not vary.
    image = await get(port, "/favicon.png", Accept_Encoding="gzip")
    assert "content-encoding" not in image.headers and "vary" not in image.headers


async def test_if_none_match_with_the_etag_is_not_modified(port: int) -> None:
    for encoding in ("", "gzip"):
        first = await get(port, "/assets/index-Cf16bK9c.js", Accept_Encoding=encoding)
        etag = first.headers["etag"]
        again = await get(
            port, "/assets/index-Cf16bK9c.js", Accept_Encoding=encoding, If_None_Match=etag
        )
        assert (again.status, again.body) == (304, b"")
        assert again.headers["etag"] == etag
        assert again.headers["cache-control"] == IMMUTABLE
        weak = await get(
            port,
            "/assets/index-Cf16bK9c.js",
            Accept_Encoding=encoding,
            If_None_Match=f'"x", W/{etag}',
        )
        assert weak.status == 304
    stale = await get(port, "/assets/index-Cf16bK9c.js", If_None_Match='"another-build"')
    assert (stale.status, stale.body) == (200, SCRIPT)
    index = await get(port, "/")
    assert (await get(port, "/", If_None_Match=index.headers["etag"])).status == 304


async def test_the_clients_own_routes_get_index_html(port: int) -> None:
    for path in ("/rooms/r1", "/replay/abc?seq=3", "/assets/", "/lobby/"):
        answer = await get(port, path)
        assert (answer.status, answer.body) == (200, INDEX), path
        assert answer.headers["cache-control"] == "no-cache"
    # A missing asset is a stale or mistyped name: 404, never HTML in place of a script.
    missing = await get(port, "/assets/index-00000000.js")
    assert missing.status == 404 and missing.body != INDEX


async def test_nothing_outside_the_folder_is_served(port: int) -> None:
    for path in (
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/..%2fsecret.txt",
        "/assets/..%2f..%2fsecret.txt",
        "/assets/leak.txt",
        "/%5c..%5csecret.txt",
    ):
        answer = await get(port, path)
        assert b"not for the web" not in answer.body, path
        assert answer.status == 404, path


def test_hashed_names_and_accept_encoding() -> None:
    assert is_hashed_asset("assets/neon_hex-CGoFRb-1.css")
    assert is_hashed_asset("assets/flip_over_frog-70_sekM3.css")
    assert not is_hashed_asset("index.html")
    assert not is_hashed_asset("assets/logo.svg")
    assert not is_hashed_asset("icons/index-Cf16bK9c.js"), "only Vite's assets folder"
    assert accepts_gzip("gzip") and accepts_gzip("deflate, gzip;q=1.0") and accepts_gzip("*")
    assert accepts_gzip("x-gzip") and accepts_gzip("GZIP ; q=0.5")
    assert not accepts_gzip(None) and not accepts_gzip("gzip;q=0") and not accepts_gzip("br")
    assert not accepts_gzip("*, gzip;q=0") and not accepts_gzip("gzip;q=zero")


@pytest.mark.parametrize("shape", ["missing", "a file"])
async def test_a_missing_static_folder_is_a_warning_at_start_and_a_sentence_at_slash(
    tmp_path: Path, shape: str
) -> None:
    static = tmp_path / "clients" / "web" / "dist"
    if shape == "a file":
        static.parent.mkdir(parents=True)
        static.write_text("not a folder")
    port = free_port()
    command = [sys.executable, "-m", "lumin.cli", "serve", "--port", str(port)]
    command += ["--data", str(tmp_path / "data"), "--static", str(static)]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        await asyncio.to_thread(wait_healthy, port)
        answer = await get(port, "/")
        assert await get(port, "/healthz") != answer
    finally:
        process.terminate()
        _, stderr = await asyncio.to_thread(process.communicate, timeout=20)
    assert answer.status == 404
    assert b"browser client is not built" in answer.body
    assert str(static).encode() not in answer.body, "the server's own paths are for its log"
    lines = [json.loads(line) for line in stderr.decode().splitlines() if line.startswith("{")]
    warnings = [line for line in lines if line.get("event") == "static_folder_missing"]
    assert [(w["level"], w["path"]) for w in warnings] == [("warning", str(static))]


async def test_no_static_folder_named_says_so_and_warns_nothing(server: LuminServer) -> None:
    answer = await get(server.port, "/")
    assert answer.status == 404
    assert b"carries no browser client and none was named with --static" in answer.body
    assert not server.http.static.missing
