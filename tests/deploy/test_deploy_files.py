"""Lumin's deployment files (``deploy/``), checked on a machine with no Docker engine and no
Kubernetes cluster (docs/operating.md, "Deploying a cluster (deploy/)"):

- ``deploy/Dockerfile``: read as text (it is not built here): the two stages, what is copied,
  the unprivileged user, the port, the stop signal, and a health check whose Python command is
  run against a live node;
- ``deploy/compose.yaml``: ``docker-compose config`` (or ``docker compose config``) accepts it,
  and what it resolves to has three Lumin nodes with their own node ids and public URLs, each
  URL routed to its node by ``deploy/nginx/cluster.conf``;
- ``deploy/k8s/``: every manifest validated offline against Kubernetes' schemas
  (``kubernetes-validate``, strict), and the probes, grace period, disruption budget and
  non-root settings Lumin's nodes need;
- ``deploy/nginx/cluster.conf``: ``nginx -t`` on a copy whose upstream hosts are local ports
  (nginx resolves the compose services' names, which this machine does not have), then that
  nginx in front of a cluster of three ``lumin serve`` nodes on the tests' PostgreSQL and
  Redis, each announcing its ``/node/N/ws`` route as its public URL: ``/healthz`` through
  ``/``, ``/metrics`` refused, each ``/node/N/ws`` reaching node N alone, and a game played to
  its end through nginx by two players, one of them sent on by ``moved``.

What a check needs and does not find (``docker-compose``, ``nginx``, PyYAML,
``kubernetes-validate``) skips it, saying what to install, except under CI (``CI`` set), where
``make test`` installs them all and a missing one fails. Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from clients.sdk import LuminClient, human
from tests.deploy.nginx import check_proxy_rules, nginx_test, parse_nginx, start_nginx
from tests.deploy.processes import WAIT, free_port, get, hello, missing, stop, wait_for_ready_line
from tests.server.test_play import play_seat
from tests.server.test_store_contract import reset_postgres
from tests.services import delete_prefix, prefix_for, redis_client, run_sync

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
DOCKERFILE = DEPLOY / "Dockerfile"
COMPOSE = DEPLOY / "compose.yaml"
CLUSTER_CONF = DEPLOY / "nginx" / "cluster.conf"
K8S = DEPLOY / "k8s"

#: The compose services of the Lumin nodes, by node number.
NODES = {1: "node-1", 2: "node-2", 3: "node-3"}
#: The port a Lumin node listens on in its container.
NODE_PORT = 8700
#: Kubernetes versions whose schemas the manifests must satisfy: an older one still served
#: and the newest one the installed kubernetes-validate knows.
K8S_OLDEST = "1.29.0"


# --- helpers ----------------------------------------------------------------------------------


def _module(name: str, reason: str) -> ModuleType:
    try:
        return __import__(name)
    except ImportError:
        missing(reason)
        raise


def _yaml() -> ModuleType:
    return _module("yaml", "PyYAML is not installed (pip install PyYAML): it reads the YAML files")


def _seconds(duration: Any) -> float:
    """A compose duration ("90s", "1m30s", "1h", 90) in seconds."""
    if isinstance(duration, int | float):
        return float(duration)
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001, "us": 1e-6}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|us|h|m|s)", str(duration))
    assert parts and "".join(n + u for n, u in parts) == str(duration), duration
    return sum(float(number) * units[unit] for number, unit in parts)


def _lumin_variables() -> set[str]:
    """The variable of every ``lumin serve`` flag, and those of the flags being added."""
    from lumin.serve import serve

    names = {param.envvar for param in serve.params if isinstance(param.envvar, str)}
    assert "LUMIN_PORT" in names and "LUMIN_TRUSTED_PROXIES" in names
    return names


def render_cluster_conf(text: str, node_ports: dict[int, int], listen_port: int) -> str:
    """cluster.conf with each node's service name:port replaced by a local port and nginx
    listening on 127.0.0.1, so it runs on this machine."""
    for number, service in NODES.items():
        text, count = re.subn(
            rf"\b{re.escape(service)}:{NODE_PORT}\b", f"127.0.0.1:{node_ports[number]}", text
        )
        assert count >= 2, f"{service}:{NODE_PORT} is in lumin_any and its own upstream"
    text, count = re.subn(r"\blisten\s+80\s*;", f"listen 127.0.0.1:{listen_port};", text)
    assert count == 1
    return text


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for line in DOCKERFILE.read_text().splitlines():
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("#"):
            continue
        pending += " " + stripped.removesuffix("\\").strip()
        if not stripped.endswith("\\"):
            word, _, rest = pending.strip().partition(" ")
            instructions.append((word.upper(), rest.strip()))
            pending = ""
    assert not pending
    return instructions


def healthcheck_command() -> list[str]:
    """The exec form of the Dockerfile's HEALTHCHECK CMD."""
    (args,) = [args for word, args in dockerfile_instructions() if word == "HEALTHCHECK"]
    _, _, command = args.partition("CMD ")
    return list(json.loads(command))


# --- the Dockerfile ---------------------------------------------------------------------------


def test_dockerfile_builds_the_client_then_runs_the_server_unprivileged() -> None:
    instructions = dockerfile_instructions()
    froms = [args.split() for word, args in instructions if word == "FROM"]
    assert [f[0] for f in froms] == ["node:20-slim", "python:3.11-slim"]
    assert froms[0][1:] == ["AS", "web"]
    split = next(i for i, (word, _) in enumerate(instructions) if word == "FROM" and i > 0)
    web, server = instructions[:split], instructions[split:]
    web_runs = [args for word, args in web if word == "RUN"]
    assert "npm ci" in web_runs and "npm run build" in web_runs

    runs = " ".join(args for word, args in server if word == "RUN")
    assert 'pip install "/src[server]"' in runs and "[dev]" not in runs
    # Every package pyproject.toml installs is copied in; every source copied exists.
    include = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"
    ]["find"]["include"]
    copies = [args.split() for word, args in server if word == "COPY"]
    local = [c for c in copies if not c[0].startswith("--from")]
    sources = {source for copy in local for source in copy[:-1]}
    assert {"pyproject.toml", "setup.py", "README.md"} <= sources
    assert {pattern.rstrip("*") for pattern in include} <= sources
    for source in sources:
        assert (ROOT / source).exists(), source

    # The client built in the first stage goes into the package, which serves it by default.
    (web_copy,) = [c for c in copies if c[0] == "--from=web"]
    assert web_copy[1] == "/web/dist"
    assert f'LUMIN_WEB_DIST={web_copy[2]} /opt/lumin/bin/pip install "/src[server]"' in runs
    env = " ".join(args for word, args in server if word == "ENV")
    cmd = json.loads(next(args for word, args in server if word == "CMD"))
    assert cmd[:2] == ["lumin", "serve"]
    assert "LUMIN_STATIC" not in env and "--static" not in cmd
    assert "LUMIN_HOST=0.0.0.0" in env or "0.0.0.0" in cmd

    (user,) = [args for word, args in server if word == "USER"]
    uid = user.split(":")[0]
    assert uid.isdigit() and int(uid) != 0, "numeric, so runAsNonRoot can check it"
    assert ("EXPOSE", str(NODE_PORT)) in server
    assert ("STOPSIGNAL", "SIGTERM") in server
    check = healthcheck_command()
    assert check[:2] == ["python", "-c"] and "/healthz" in check[2]
    compile(check[2], "HEALTHCHECK", "exec")


def test_dockerignore_keeps_builds_and_environments_out() -> None:
    # BuildKit reads <Dockerfile>.dockerignore beside the Dockerfile before the context's own.
    ignored = (DEPLOY / "Dockerfile.dockerignore").read_text().split()
    for pattern in (".git", "**/.venv", "clients/web/node_modules", "clients/web/dist"):
        assert pattern in ignored


# --- compose ----------------------------------------------------------------------------------


def _compose_command() -> list[str] | None:
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    if shutil.which("docker"):
        probe = subprocess.run(
            ["docker", "compose", "version"], capture_output=True, timeout=30, check=False
        )
        if probe.returncode == 0:
            return ["docker", "compose"]
    return None


@pytest.fixture(scope="module")
def compose_config() -> dict[str, Any]:
    """``docker-compose config``'s resolved file (it needs no Docker engine)."""
    yaml = _yaml()
    command = _compose_command()
    if command is None:
        missing(
            "neither docker-compose nor the docker compose plugin is installed"
            " (Debian: apt-get install -y docker-compose)"
        )
        raise AssertionError("unreachable")
    env = {k: v for k, v in os.environ.items() if k != "LUMIN_DB_PASSWORD"}
    done = subprocess.run(
        [*command, "-f", str(COMPOSE), "config"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return dict(yaml.safe_load(done.stdout))


def test_compose_has_three_nodes_each_routed_to_its_own_url(
    compose_config: dict[str, Any],
) -> None:
    services = compose_config["services"]
    lumin = {name: s for name, s in services.items() if s.get("image") == "lumin:local"}
    assert sorted(lumin) == sorted(NODES.values())
    conf = parse_nginx(CLUSTER_CONF.read_text())
    server = conf.one("server")
    ids, urls = set(), set()
    for number, name in NODES.items():
        node = lumin[name]
        assert node["build"]["dockerfile"] == "deploy/Dockerfile"
        assert Path(node["build"]["context"]).resolve() == ROOT
        env = node["environment"]
        ids.add(env["LUMIN_NODE_ID"])
        urls.add(env["LUMIN_PUBLIC_URL"])
        # The URL this node announces is nginx's route to this node's /ws and no other.
        match = re.fullmatch(r"ws://localhost:(\d+)(/node/\d+/ws)", env["LUMIN_PUBLIC_URL"])
        assert match, env["LUMIN_PUBLIC_URL"]
        assert match.group(2) == f"/node/{number}/ws"
        published = {str(p["published"]): int(p["target"]) for p in services["nginx"]["ports"]}
        assert published[match.group(1)] == 80
        location = server.one("location", "=", match.group(2))
        upstream = location.one("proxy_pass").args[0]
        assert upstream.endswith("/ws")
        upstream_name = upstream.removeprefix("http://").removesuffix("/ws")
        servers = conf.one("upstream", upstream_name).all("server")
        assert [s.args[0] for s in servers] == [f"{name}:{NODE_PORT}"]
        assert env["LUMIN_STORE"].startswith("postgresql://")
        assert env["LUMIN_STORE"].split("@")[1].startswith("postgres:5432/")
        assert env["LUMIN_REDIS"].startswith("redis://redis:6379")
    assert len(ids) == len(urls) == len(NODES)
    # Every node is in the any-node upstream.
    any_servers = {s.args[0] for s in conf.one("upstream", "lumin_any").all("server")}
    assert any_servers == {f"{name}:{NODE_PORT}" for name in NODES.values()}


def test_compose_nodes_drain_wait_for_their_stores_and_trust_nginx(
    compose_config: dict[str, Any],
) -> None:
    services = compose_config["services"]
    known = _lumin_variables()
    nginx_address = services["nginx"]["networks"]["lumin"]["ipv4_address"]
    for name in NODES.values():
        node = services[name]
        assert _seconds(node["stop_grace_period"]) >= 60
        assert node.get("stop_signal", "SIGTERM") == "SIGTERM"
        assert node["depends_on"] == {
            "postgres": {"condition": "service_healthy"},
            "redis": {"condition": "service_healthy"},
        }
        check = node["healthcheck"]["test"]
        assert check[0] == "CMD" and "/readyz" in check[-1]
        compile(check[-1], "healthcheck", "exec")
        env = node["environment"]
        assert env["LUMIN_TRUSTED_PROXIES"] == nginx_address
        unknown = {k for k in env if k.startswith("LUMIN_")} - known
        assert not unknown, f"not variables of lumin serve: {unknown}"
        assert "ports" not in node, "only nginx is published"

    postgres = services["postgres"]
    assert postgres["image"].startswith("postgres:15")
    assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])
    volume = postgres["volumes"][0]
    source = volume["source"] if isinstance(volume, dict) else volume.split(":")[0]
    assert source in compose_config["volumes"], "a named volume"
    redis = services["redis"]
    assert redis["image"].startswith("redis:7")
    assert redis["healthcheck"]["test"][-2:] == ["redis-cli", "ping"]
    nginx = services["nginx"]
    mounted = " ".join(v if isinstance(v, str) else v["source"] for v in nginx["volumes"])
    assert str(CLUSTER_CONF) in mounted


# --- Kubernetes -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def manifests() -> list[dict[str, Any]]:
    yaml = _yaml()
    documents = []
    for path in sorted(K8S.glob("*.yaml")):
        documents += [d for d in yaml.safe_load_all(path.read_text()) if d]
    assert documents
    return documents


def _kind(manifests: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [m for m in manifests if m["kind"] == kind]


def test_k8s_manifests_match_the_schemas(manifests: list[dict[str, Any]]) -> None:
    validate = _module(
        "kubernetes_validate",
        "kubernetes-validate is not installed (pip install kubernetes-validate)",
    )
    versions = [K8S_OLDEST, validate.latest_version()]
    for manifest in manifests:
        for version in versions:
            validate.validate(manifest, version, strict=True)
    # The validator is strict: a misspelt field is refused.
    (statefulset,) = _kind(manifests, "StatefulSet")
    broken = json.loads(json.dumps(statefulset))
    container = broken["spec"]["template"]["spec"]["containers"][0]
    container["livenesProbe"] = container.pop("livenessProbe")
    with pytest.raises(validate.ValidationError):
        validate.validate(broken, K8S_OLDEST, strict=True)


def test_k8s_nodes_probe_drain_and_run_unprivileged(manifests: list[dict[str, Any]]) -> None:
    (statefulset,) = _kind(manifests, "StatefulSet")
    spec = statefulset["spec"]
    pod = spec["template"]["spec"]
    labels = spec["template"]["metadata"]["labels"]
    assert spec["selector"]["matchLabels"].items() <= labels.items()
    assert pod["terminationGracePeriodSeconds"] >= 60
    # A Service named lumin would otherwise put LUMIN_PORT=tcp://... in the environment.
    assert pod["enableServiceLinks"] is False
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    (container,) = pod["containers"]
    security = container["securityContext"]
    assert security["allowPrivilegeEscalation"] is False
    assert security["readOnlyRootFilesystem"] is True
    assert security["capabilities"]["drop"] == ["ALL"]
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    for side in ("requests", "limits"):
        assert {"cpu", "memory"} <= container["resources"][side].keys()
    mounts = {m["mountPath"] for m in container["volumeMounts"]}
    assert "/tmp" in mounts

    env = {e["name"]: e for e in container["env"]}
    assert env["POD_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
    assert env["LUMIN_NODE_ID"]["value"] == "$(POD_NAME)"
    # $(VAR) expands only variables defined earlier in the list.
    order = [e["name"] for e in container["env"]]
    public_url = env["LUMIN_PUBLIC_URL"]["value"]
    for used in re.findall(r"\$\((\w+)\)", public_url):
        assert order.index(used) < order.index("LUMIN_PUBLIC_URL")
    assert public_url.endswith("/node/$(POD_NAME)/ws")

    # Every LUMIN_ variable set is one of lumin serve's.
    known = _lumin_variables()
    (config,) = _kind(manifests, "ConfigMap")
    (secret,) = _kind(manifests, "Secret")
    sources = {f["configMapRef"]["name"] for f in container["envFrom"] if "configMapRef" in f}
    sources |= {f["secretRef"]["name"] for f in container["envFrom"] if "secretRef" in f}
    assert sources == {config["metadata"]["name"], secret["metadata"]["name"]}
    assert {"LUMIN_STORE", "LUMIN_REDIS"} <= secret["stringData"].keys()
    names = set(env) | set(config["data"]) | set(secret["stringData"])
    unknown = {n for n in names if n.startswith("LUMIN_")} - known
    assert not unknown, f"not variables of lumin serve: {unknown}"

    (budget,) = _kind(manifests, "PodDisruptionBudget")
    assert budget["spec"]["maxUnavailable"] == 1
    assert budget["spec"]["selector"]["matchLabels"].items() <= labels.items()


def test_k8s_routes_each_pods_public_url_to_that_pod(manifests: list[dict[str, Any]]) -> None:
    (statefulset,) = _kind(manifests, "StatefulSet")
    name, replicas = statefulset["metadata"]["name"], statefulset["spec"]["replicas"]
    services = {s["metadata"]["name"]: s for s in _kind(manifests, "Service")}
    headless = services[statefulset["spec"]["serviceName"]]
    assert headless["spec"]["clusterIP"] == "None"
    routes: dict[str, str] = {}
    for ingress in _kind(manifests, "Ingress"):
        for rule in ingress["spec"]["rules"]:
            for path in rule["http"]["paths"]:
                routes[path["path"]] = path["backend"]["service"]["name"]
    assert services[routes["/ws"]]["spec"]["selector"] == {"app.kubernetes.io/name": name}
    assert services[routes["/"]]["spec"]["selector"] == {"app.kubernetes.io/name": name}
    assert "selector" not in services[routes["/metrics"]]["spec"], "nothing behind /metrics"
    assert routes["/api/admin/"] == routes["/metrics"], "nor behind the admin API"
    for index in range(replicas):
        pod = f"{name}-{index}"
        (path,) = [p for p in routes if p.startswith(f"/node/{pod}/ws")]
        selector = services[routes[path]]["spec"]["selector"]
        assert selector["statefulset.kubernetes.io/pod-name"] == pod


# --- nginx ------------------------------------------------------------------------------------


def test_cluster_conf_headers_timeouts_and_routes() -> None:
    conf = parse_nginx(CLUSTER_CONF.read_text())
    server = conf.one("server")
    check_proxy_rules(server, ["/ws"] + [f"/node/{n}/ws" for n in NODES])
    assert server.one("location", "/").one("proxy_pass").args == ["http://lumin_any"]
    assert conf.one("upstream", "lumin_any").all("least_conn")


def test_nginx_accepts_cluster_conf(nginx_bin: str, tmp_path: Path) -> None:
    rendered = tmp_path / "cluster.conf"
    ports = {number: 20000 + number for number in NODES}
    rendered.write_text(render_cluster_conf(CLUSTER_CONF.read_text(), ports, free_port()))
    done = nginx_test(nginx_bin, tmp_path, rendered)
    assert done.returncode == 0, done.stderr
    assert "test is successful" in done.stderr


# --- nginx in front of three live Lumin nodes -------------------------------------------------


@dataclass
class Cluster:
    nginx_port: int
    node_ports: dict[int, int]
    logs: list[Path] = field(default_factory=list)

    def via_nginx(self, path: str, scheme: str = "http") -> str:
        return f"{scheme}://127.0.0.1:{self.nginx_port}{path}"


def _wait_for_registry(ports: dict[int, int]) -> None:
    """Wait until every node's ``/healthz`` lists all the nodes (heartbeats take a second)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        known = [json.loads(get(f"http://127.0.0.1:{p}/healthz")[1]) for p in ports.values()]
        if all(health.get("nodes") == sorted(NODES.values()) for health in known):
            return
        time.sleep(0.1)
    pytest.fail(f"the nodes did not find each other within {WAIT} s: {known}")


@pytest.fixture(scope="module")
def cluster(
    nginx_bin: str, postgres_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Cluster]:
    """Three ``lumin serve`` nodes of one cluster (the tests' PostgreSQL database and a Redis
    key prefix of this module's) behind nginx with cluster.conf rendered for their ports; node
    N's public URL is nginx's ``/node/N/ws``."""
    lumin = Path(sys.executable).with_name("lumin")
    if not lumin.exists():
        pytest.skip(f"no lumin command beside {sys.executable} (make setup)")
    base = tmp_path_factory.mktemp("cluster")
    prefix_key = prefix_for(__name__)
    run_sync(reset_postgres(postgres_url))
    # No LUMIN_ variable of the caller's may reach the nodes (a store, a port...).
    env = {k: v for k, v in os.environ.items() if not k.startswith("LUMIN_")}
    listen = free_port()
    processes: list[subprocess.Popen[bytes]] = []
    try:
        nodes: dict[int, tuple[subprocess.Popen[bytes], Path]] = {}
        for number, name in NODES.items():
            log = base / f"node-{number}.log"
            with log.open("wb") as out:
                command = [str(lumin), "serve", "--host", "127.0.0.1", "--port", "0"]
                command += ["--data", str(base / f"data-{number}"), "--log-level", "info"]
                command += ["--store", postgres_url, "--redis", redis_url]
                command += ["--redis-prefix", prefix_key, "--node-id", name, "--bot-delay", "0"]
                command += ["--public-url", f"ws://127.0.0.1:{listen}/node/{number}/ws"]
                process = subprocess.Popen(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=env,
                )
            processes.append(process)
            nodes[number] = (process, log)
        ports = {n: wait_for_ready_line(p, log) for n, (p, log) in nodes.items()}
        _wait_for_registry(ports)

        site = render_cluster_conf(CLUSTER_CONF.read_text(), ports, listen)
        nginx, errors = start_nginx(nginx_bin, base / "nginx", site, listen)
        processes.append(nginx)
        yield Cluster(listen, ports, [log for _, log in nodes.values()] + [errors])
    finally:
        stop(processes)
        run_sync(reset_postgres(postgres_url))  # the worker's database is shared
        client = redis_client(redis_url)
        try:
            delete_prefix(client, prefix_key)
        finally:
            client.close()


async def _ask(url: str, token: str, request: dict[str, Any], origin: str) -> dict[str, Any]:
    """The answer to one request sent after a version-2 ``hello`` with ``token``."""
    async with connect(url, origin=origin, proxy=None, open_timeout=5) as websocket:
        hello = {"type": "hello", "versions": [2], "name": "Ada", "token": token, "id": 1}
        await websocket.send(msgpack.packb(hello))
        await websocket.send(msgpack.packb({**request, "id": 2}))
        while True:
            answer = msgpack.unpackb(await asyncio.wait_for(websocket.recv(), 5))
            if answer.get("ref") == 2:
                return dict(answer)


def test_http_through_nginx_reaches_every_node(cluster: Cluster) -> None:
    direct = set()
    for port in cluster.node_ports.values():
        status, body, _ = get(f"http://127.0.0.1:{port}/healthz")
        assert status == 200
        direct.add(json.loads(body)["epoch"])
        status, body, _ = get(f"http://127.0.0.1:{port}/readyz")
        assert (status, json.loads(body)["status"]) == (200, "ready")
    assert len(direct) == len(NODES)
    # Each node has its own epoch: nginx spreads /healthz over all three.
    seen = set()
    for _ in range(3 * len(NODES)):
        status, body, _ = get(cluster.via_nginx("/healthz"))
        assert status == 200
        health = json.loads(body)
        assert health["status"] == "ok"
        seen.add(health["epoch"])
    assert seen == direct
    status, *_ = get(cluster.via_nginx("/metrics"))
    assert status == 403
    status, *_ = get(cluster.via_nginx("/api/admin/rooms"))
    assert status == 403
    status, *_ = get(f"http://127.0.0.1:{cluster.node_ports[1]}/metrics")
    assert status == 404, "a node's game port serves metrics only with the admin token"


async def test_each_node_route_reaches_that_node_alone(cluster: Cluster) -> None:
    # A browser page served through nginx sends its origin, port included; Lumin's
    # same-origin default accepts it only if nginx passes the Host it was sent.
    origin = cluster.via_nginx("")
    welcome = await hello(cluster.via_nginx("/ws", "ws"), origin=origin)
    assert welcome["type"] == "welcome" and welcome["ref"] == 1
    for number, port in cluster.node_ports.items():
        # A room made on node N itself: through /node/N/ws its host resumes it there, and
        # through every other route is sent on to /node/N/ws, the URL node N announces.
        async with await LuminClient.connect(f"ws://127.0.0.1:{port}/ws", "Ada") as ada:
            room = await ada.create_room("neon_hex", seats=[human(), human()], sit=0)
            assert ada.url == f"ws://127.0.0.1:{port}/ws", "created on node N (no moved)"
            resume = {"type": "resume", "room": room, "seq": 0, "epoch": ""}
            for route in NODES:
                answer = await _ask(
                    cluster.via_nginx(f"/node/{route}/ws", "ws"), ada.token, resume, origin
                )
                if route == number:
                    assert answer["type"] == "snapshot", answer
                else:
                    expected = cluster.via_nginx(f"/node/{number}/ws", "ws")
                    assert (answer["type"], answer.get("url")) == ("moved", expected), answer
            await ada.leave(room)


async def test_a_game_through_nginx_with_a_player_sent_on_by_moved(cluster: Cluster) -> None:
    origin = cluster.via_nginx("")
    ada = await LuminClient.connect(cluster.via_nginx("/node/1/ws", "ws"), "Ada", origin=origin)
    bea = await LuminClient.connect(cluster.via_nginx("/node/2/ws", "ws"), "Bea", origin=origin)
    try:
        room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
        await bea.join(room, 1)
        assert bea.url == ada.url != bea.first_url, "Bea followed moved to the room's node"
        await ada.ready(room)
        await bea.ready(room)
        await ada.start(room)
        await asyncio.wait_for(
            asyncio.gather(
                play_seat(ada, room, random.Random(1), "flip_over_frog"),
                play_seat(bea, room, random.Random(2), "flip_over_frog"),
            ),
            60,
        )
        assert ada.game_over[room].seed == bea.game_over[room].seed
    finally:
        await ada.close()
        await bea.close()


async def test_a_foreign_origin_is_refused_through_nginx(cluster: Cluster) -> None:
    with pytest.raises(InvalidStatus) as refused:
        await hello(cluster.via_nginx("/ws", "ws"), origin="https://elsewhere.example")
    assert refused.value.response.status_code == 403


def test_the_image_healthcheck_command(cluster: Cluster) -> None:
    command = healthcheck_command()
    assert command[0] == "python"
    run = [sys.executable, *command[1:]]

    def check(port: int) -> int:
        env = {**os.environ, "LUMIN_PORT": str(port)}
        return subprocess.run(run, env=env, capture_output=True, timeout=30).returncode

    assert check(cluster.node_ports[1]) == 0
    assert check(free_port()) != 0, "nothing listens there: the check fails"


def test_nginx_limits_each_addresss_requests_before_lumin_sees_them(cluster: Cluster) -> None:
    # From a loopback address of its own, so no other test has spent its burst (60, then
    # 10 a second); Linux answers all of 127/8.
    def status_from_own_address() -> int:
        connection = http.client.HTTPConnection(
            "127.0.0.1", cluster.nginx_port, timeout=5, source_address=("127.0.0.77", 0)
        )
        try:
            connection.request("GET", "/healthz")
            return connection.getresponse().status
        finally:
            connection.close()

    statuses = [status_from_own_address() for _ in range(100)]
    assert set(statuses) == {200, 429}, statuses
    assert statuses[:60] == [200] * 60, "a burst of 60 passes"
    assert statuses.count(429) >= 10, statuses
