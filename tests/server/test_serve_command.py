"""``lumin serve`` refuses bad flags and says in one line why it cannot start: a port in use,
a data folder it cannot write, a data folder another server holds. Never a traceback."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from clients.load import free_port, wait_healthy
from lumin.cli import main
from server.app import LuminServer, StartupError
from server.config import Settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--port", "99999"], "--port"),
        (["--port", "-1"], "--port"),
        (["--burst", "0"], "--burst"),
        (["--rate", "-5"], "--rate"),
        (["--rate", "0"], "--rate"),
        (["--rate", "nan"], "--rate"),
        (["--rate", "inf"], "--rate"),
        (["--max-frame", "0"], "--max-frame"),
        (["--log-level", "verbose"], "--log-level"),
        (["--durability", "sometimes"], "--durability"),
        (["--address-rate", "-1"], "--address-rate"),
        (["--connect-burst", "0"], "--connect-burst"),
        (["--rooms-per-identity", "0"], "--rooms-per-identity"),
        (["--grace", "nan"], "--grace"),
        (["--guest-retention-days", "0"], "--guest-retention-days"),
        (["--trusted-proxy", "not-an-address"], "not-an-address"),
    ],
)
def test_a_bad_flag_is_one_clear_error(flags: list[str], named: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["serve", "--data", str(tmp_path), *flags])
    assert result.exit_code == 2, result.output
    assert named in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "lumin.sqlite3").exists(), "nothing started"


def test_a_bad_environment_variable_is_refused_like_its_flag(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["serve", "--data", str(tmp_path)], env={"LUMIN_BURST": "0"})
    assert result.exit_code == 2
    assert "--burst" in result.output


def test_settings_refuse_what_the_flags_refuse(tmp_path: Path) -> None:
    for bad in (
        {"port": 99999},
        {"burst": 0},
        {"rate": float("nan")},
        {"max_frame": 0},
        {"guest_retention_days": 0},
    ):
        with pytest.raises(ValueError):
            Settings(data=tmp_path, **bad)


def _serve(*flags: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "lumin.cli", "serve", *flags],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _fails_with_one_line(process: subprocess.Popen[bytes], *words: str) -> None:
    """Standard error is one JSON line, ``startup_failed``, whose ``error`` names ``words``."""
    _, stderr = process.communicate(timeout=30)
    lines = stderr.decode().strip().splitlines()
    assert process.returncode == 1, lines
    assert "Traceback" not in stderr.decode()
    assert len(lines) == 1, lines
    line = json.loads(lines[0])
    assert line["event"] == "startup_failed" and line["level"] == "error", line
    for word in words:
        assert word in line["error"]


def test_with_console_logs_a_failed_start_is_one_plain_line(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    process = _serve("--port", "0", "--data", str(blocker / "data"), "--log-format", "console")
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 1
    assert stderr.decode().splitlines() == [
        f"lumin serve: cannot use data folder {blocker / 'data'}: Not a directory"
    ]


def test_a_port_in_use_is_one_line_and_exit_1(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = _serve("--port", str(port), "--data", str(tmp_path / "data"))
        _fails_with_one_line(process, f"127.0.0.1:{port}", "in use")


def test_an_unwritable_data_folder_is_one_line_and_exit_1(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    process = _serve("--port", "0", "--data", str(blocker / "data"))
    _fails_with_one_line(process, "cannot use data folder", str(blocker / "data"))


def test_a_second_server_on_one_data_folder_refuses_to_start(tmp_path: Path) -> None:
    data, port = tmp_path / "data", free_port()
    first = _serve("--port", str(port), "--data", str(data))
    try:
        wait_healthy(port)
        second = _serve("--port", "0", "--data", str(data))
        _fails_with_one_line(second, "in use by another Lumin server", str(first.pid))
    finally:
        first.terminate()
        first.communicate(timeout=20)
    assert first.returncode == 0
    # Once the first has stopped, the folder is free again.
    again = _serve("--port", str(port), "--data", str(data))
    try:
        wait_healthy(port)
    finally:
        again.terminate()
        again.communicate(timeout=20)


async def test_in_one_process_a_second_server_on_the_folder_is_refused(tmp_path: Path) -> None:
    settings = Settings(port=0, data=tmp_path / "data")
    first = LuminServer(settings)
    await first.start()
    try:
        with pytest.raises(StartupError, match="in use by another Lumin server"):
            LuminServer(settings)
    finally:
        await first.stop()
    second = LuminServer(settings)  # free once the first stopped
    await second.start()
    await second.stop()


def _settings_from(monkeypatch, args: list[str], env: dict[str, str]) -> Settings:
    """The Settings ``lumin serve`` would run with (the server itself is not started)."""
    import server.app
    import server.logs

    seen: list[Settings] = []

    async def record(settings: Settings, ready: object = None) -> None:
        seen.append(settings)

    monkeypatch.setattr(server.app, "run", record)
    monkeypatch.setattr(server.logs, "configure_logging", lambda level, json=True: None)
    result = CliRunner().invoke(main, ["serve", *args], env=env)
    assert result.exit_code == 0, result.output
    return seen[0]


def test_every_setting_has_a_flag_and_a_variable(monkeypatch, tmp_path: Path) -> None:
    import attrs

    from lumin.serve import serve

    flags = {param.name: param for param in serve.params}
    for field in attrs.fields(Settings):
        assert field.name in flags, f"no flag for the setting {field.name}"
        assert flags[field.name].envvar == "LUMIN_" + field.name.upper()
    settings = _settings_from(
        monkeypatch,
        ["--data", str(tmp_path)],
        {
            "LUMIN_ORIGINS": "https://a.example https://b.example",
            "LUMIN_TRUSTED_PROXIES": "10.0.0.0/8 ::1",
            "LUMIN_CONNECT_RATE": "7.5",
            "LUMIN_ROOMS_PER_IDENTITY": "3",
            "LUMIN_GUEST_RETENTION_DAYS": "7.5",
        },
    )
    assert settings.guest_retention_days == 7.5
    assert settings.origins == ("https://a.example", "https://b.example")
    assert settings.trusted_proxies == ("10.0.0.0/8", "::1")
    assert (settings.connect_rate, settings.rooms_per_identity) == (7.5, 3)


def test_the_service_unit_runs_with_settings_lumin_accepts(monkeypatch, tmp_path: Path) -> None:
    """deploy/lumin.service's environment is a valid configuration, and it names the proxy
    in front (deploy/nginx.conf, which sends X-Forwarded-For) as trusted."""
    import shlex

    unit = (ROOT / "deploy" / "lumin.service").read_text()
    env = {}
    for line in unit.splitlines():
        if line.startswith("Environment="):
            (assignment,) = shlex.split(line.removeprefix("Environment="))
            name, _, value = assignment.partition("=")
            env[name] = value
    env["LUMIN_DATA"] = str(tmp_path)  # the unit's /var/lib/lumin is not ours to write
    settings = _settings_from(monkeypatch, [], env)
    assert "127.0.0.1" in settings.trusted_proxies
    nginx = (ROOT / "deploy" / "nginx.conf").read_text()
    assert nginx.count("X-Forwarded-For $proxy_add_x_forwarded_for") == 1  # for every location


def test_a_store_that_is_not_postgresql_is_refused_without_its_password(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["serve", "--data", str(tmp_path), "--store", "mysql://lumin:hunter2@db/lumin"]
    )
    assert result.exit_code == 2, result.output
    assert "postgresql://" in result.output and "Traceback" not in result.output
    assert "hunter2" not in result.output
    assert "hunter2" not in repr(Settings(store="postgresql://lumin:hunter2@db/lumin"))


def test_an_unreachable_postgresql_is_one_line_and_exit_1(tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    result = subprocess.run(
        [sys.executable, "-m", "lumin.cli", "serve", "--port", "0", "--data", str(tmp_path),
         "--store", f"postgresql://lumin:hunter2@127.0.0.1:{port}/lumin"],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    lines = [line for line in result.stderr.splitlines() if "cannot open the store" in line]
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert "hunter2" not in result.stderr and f"127.0.0.1:{port}" in lines[0]


def test_workers_need_a_shared_store_a_port_and_a_url_each(tmp_path: Path) -> None:
    for flags, named in (
        (["--workers", "2"], "--store postgresql://"),
        (["--workers", "2", "--store", "postgresql://h/db", "--port", "0"], "--port P"),
        (
            ["--workers", "2", "--store", "postgresql://h/db", "--public-url", "ws://h/ws"],
            "{port}",
        ),
    ):
        result = CliRunner().invoke(main, ["serve", "--data", str(tmp_path), *flags])
        assert result.exit_code == 2, result.output
        assert named in result.output and "Traceback" not in result.output


def test_workers_are_cluster_nodes_on_ports_in_a_row_that_drain_on_sigterm(
    postgres_url: str, redis_url: str, redis_prefix: str, tmp_path: Path
) -> None:
    import json
    import signal
    import urllib.request

    from tests.server.test_store_contract import reset_postgres
    from tests.services import run_sync

    run_sync(reset_postgres(postgres_url))
    port = free_port()
    while _in_use(port + 1):
        port = free_port()
    flags = ["--workers", "2", "--port", str(port), "--store", postgres_url, "--redis", redis_url]
    flags += ["--redis-prefix", redis_prefix, "--node-id", "box", "--data", str(tmp_path)]
    flags += ["--public-url", "ws://games.example.org:{port}/ws", "--lease-ttl", "1"]
    parent = _serve(*flags)
    try:
        for n in (0, 1):
            wait_healthy(port + n)
        deadline = time.monotonic() + 10
        while True:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
                health = json.loads(answer.read())
            if health["nodes"] == ["box-0", "box-1"] or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert health["node"] == "box-0" and health["nodes"] == ["box-0", "box-1"]
        parent.send_signal(signal.SIGTERM)
        assert parent.wait(timeout=30) == 0, parent.stderr.read().decode()  # type: ignore[union-attr]
        assert not _in_use(port) and not _in_use(port + 1), "both nodes stopped"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        run_sync(reset_postgres(postgres_url))


def _in_use(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0
