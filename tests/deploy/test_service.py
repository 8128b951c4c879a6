"""``deploy/lumin.service`` checked with systemd's own tools on a machine where systemd does
not run (docs/operating.md, "Running as a service"): ``systemd-analyze security
--offline=true`` must rate it under 4 ("OK" or better), and ``systemd-analyze verify`` must
accept it without a word on a copy whose /opt/lumin is a folder holding an executable
``lumin`` (verify refuses an ExecStart that does not exist). The unit is never started here.

``systemd-analyze`` is Debian's ``systemd`` package; missing, the checks skip, except under CI.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.deploy.processes import get, missing, stop, wait_for_ready_line
from tests.deploy.units import UNIT, directives, environment, exec_start

#: The exposure ``systemd-analyze security`` may give the unit at most (10 is fully exposed;
#: under 4 it says "OK", under 2 "SAFE"). Measured: 1.2 on systemd 252 (8.5 before hardening).
MAX_EXPOSURE = 4.0
ROOT = UNIT.parents[1]
#: Where the unit expects ``make install-service`` to have put Lumin.
PREFIX = "/opt/lumin"


@pytest.fixture(scope="module")
def systemd_analyze() -> str:
    found = shutil.which("systemd-analyze")
    if found is None:
        missing("systemd-analyze is not installed (Debian: apt-get install -y systemd)")
        raise AssertionError("unreachable")
    return found


def render_unit(folder: Path, prefix: Path) -> Path:
    """A copy of the unit in ``folder`` with /opt/lumin replaced by ``prefix``."""
    text = UNIT.read_text()
    assert PREFIX in text
    rendered = folder / UNIT.name
    rendered.write_text(text.replace(PREFIX, str(prefix)))
    return rendered


def verify(systemd_analyze: str, unit: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [systemd_analyze, "verify", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def exposure(systemd_analyze: str, unit: Path) -> float:
    """The unit's overall exposure level as ``systemd-analyze security --offline`` rates it."""
    done = subprocess.run(
        [systemd_analyze, "security", "--offline=true", "--no-pager", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    # It exits 0 whatever the score (no --threshold); a setting it could not parse is a warning.
    assert done.returncode == 0, done.stderr
    assert "ignoring" not in done.stderr, done.stderr
    found = re.search(r"Overall exposure level for \S+: (\d+(?:\.\d+)?)", done.stdout)
    assert found, done.stdout
    return float(found.group(1))


def test_the_unit_is_rated_ok_by_systemd_analyze_security(
    systemd_analyze: str, tmp_path: Path
) -> None:
    assert exposure(systemd_analyze, UNIT) < MAX_EXPOSURE
    # The rating reads the settings: the unit stripped of its sandbox is exposed.
    bare = tmp_path / UNIT.name
    kept = ("Type", "User", "Group", "ExecStart", "WorkingDirectory", "Environment")
    lines = [f"{key}={value}" for key, value in directives(UNIT.read_text()) if key in kept]
    bare.write_text("[Service]\n" + "\n".join(lines) + "\n")
    assert exposure(systemd_analyze, bare) > 8


def test_systemd_analyze_verify_accepts_the_unit(systemd_analyze: str, tmp_path: Path) -> None:
    prefix = tmp_path / "opt-lumin"
    program = Path(exec_start(UNIT.read_text())[0].replace(PREFIX, str(prefix)))
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    unit = render_unit(tmp_path, prefix)
    done = verify(systemd_analyze, unit)
    assert (done.returncode, done.stdout + done.stderr) == (0, "")
    # verify does look: without the program it fails, naming it.
    program.unlink()
    done = verify(systemd_analyze, unit)
    assert done.returncode != 0 and str(program) in done.stderr


def test_the_unit_writes_only_its_data_folder_with_no_privilege() -> None:
    settings = dict(directives(UNIT.read_text()))
    env = environment(UNIT.read_text())
    assert settings["User"] == "lumin" and settings["ProtectSystem"] == "strict"
    assert settings["StateDirectory"] == "lumin" and env["LUMIN_DATA"] == "/var/lib/lumin"
    assert settings["ReadWritePaths"] == env["LUMIN_DATA"]
    assert settings["CapabilityBoundingSet"] == "" and settings["NoNewPrivileges"] == "true"
    assert settings["UMask"] == "0077"
    # Lumin serves the network: no IP address list, and the families TCP and local need.
    assert "IPAddressDeny" not in settings and "PrivateNetwork" not in settings
    assert settings["RestrictAddressFamilies"].split() == ["AF_INET", "AF_INET6", "AF_UNIX"]
    # The store's writer lowers its thread's priority (setpriority, in @resources).
    filters = [value for key, value in directives(UNIT.read_text()) if key == "SystemCallFilter"]
    assert "@system-service" in filters and "~@resources" not in " ".join(filters)
    # What install-service lays out under the prefix.
    assert exec_start(UNIT.read_text()) == [f"{PREFIX}/.venv/bin/lumin", "serve"]
    assert settings["WorkingDirectory"] == PREFIX
    # The client is the one the installed package carries: no folder of its own to name.
    assert "LUMIN_STATIC" not in env


# --- make install-service ---------------------------------------------------------------------

#: Development tools that must never reach the service's environment.
DEV_TOOLS = ("pytest", "ruff", "mypy", "hypothesis", "xdist")
#: Prints the modules of argv the interpreter can import.
PROBE = (
    "import importlib.util, sys; print([m for m in sys.argv[1:] if importlib.util.find_spec(m)])"
)
WHERE = "import server; print(server.__file__)"
CLIENT = "from lumin import webclient; print(webclient.folder())"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``make install-service`` into a temporary prefix, packaging a stand-in for the client's
    build (WEB_BUILD=no: the real target builds it with npm first)."""
    make = shutil.which("make")
    if make is None:
        missing("make is not installed (Debian: apt-get install -y make)")
        raise AssertionError("unreachable")
    base = tmp_path_factory.mktemp("install")
    dist = base / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text("<title>Lumin, installed</title>")
    prefix = base / "opt-lumin"
    python = shutil.which("python3.11") or sys.executable
    command = [make, "-C", str(ROOT), "install-service", f"PREFIX={prefix}", f"PYTHON={python}"]
    done = subprocess.run(
        [*command, "WEB_BUILD=no", f"WEB_DIST={dist}"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "npm" not in done.stdout, "WEB_BUILD=no builds nothing"
    return prefix


def test_install_service_puts_lumin_and_its_client_where_the_unit_looks(
    installed: Path, tmp_path: Path
) -> None:
    lumin = installed / ".venv" / "bin" / "lumin"
    done = subprocess.run(
        [str(lumin), "--help"], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 0 and "serve" in done.stdout, done.stderr
    # Installed, not linked to the checkout: the service does not change when the checkout does.
    where = subprocess.run(
        [str(installed / ".venv" / "bin" / "python"), "-I", "-c", WHERE],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        check=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(installed / ".venv") and "site-packages" in where
    client = subprocess.run(
        [str(installed / ".venv" / "bin" / "python"), "-I", "-c", CLIENT],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        check=True,
    ).stdout.strip()
    assert Path(client).is_relative_to(installed / ".venv"), "inside the installed package"
    assert (Path(client) / "index.html").read_text() == "<title>Lumin, installed</title>"
    assert not (installed / "web").exists(), "one way to serve it: the package's"


def test_install_service_leaves_the_development_tools_out(installed: Path) -> None:
    venv = installed / ".venv"
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-I", "-c", PROBE, *DEV_TOOLS],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == "[]"
    for tool in ("pytest", "ruff", "mypy"):
        assert not (venv / "bin" / tool).exists(), tool
    # The probe can see: the runtime dependencies are there.
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-I", "-c", PROBE, "websockets", "uvloop", "msgpack"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == "['websockets', 'uvloop', 'msgpack']"


def test_the_unit_verifies_and_serves_from_an_installed_prefix(
    installed: Path, systemd_analyze: str, tmp_path: Path
) -> None:
    unit = render_unit(tmp_path, installed)
    done = verify(systemd_analyze, unit)
    assert (done.returncode, done.stdout + done.stderr) == (0, "")
    # The installed lumin, with the unit's environment at this prefix, serves the client its
    # package carries.
    text = unit.read_text()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LUMIN_")}
    env |= environment(text) | {"LUMIN_PORT": "0", "LUMIN_DATA": str(tmp_path / "data")}
    log = tmp_path / "lumin.log"
    settings = dict(directives(text))
    with log.open("wb") as out:
        process = subprocess.Popen(
            exec_start(text),
            cwd=settings["WorkingDirectory"],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    try:
        port = wait_for_ready_line(process, log)
        status, body, headers = get(f"http://127.0.0.1:{port}/")
        assert (status, body) == (200, b"<title>Lumin, installed</title>")
        assert headers["Cache-Control"] == "no-cache"
    finally:
        stop([process])
    assert "static_folder_missing" not in log.read_text()
