"""An operator's outside identity provider on a real server: ``hello`` with a signed JWT is
that provider's person (the same identity on every connection, with a session token for later
hellos), and a forged token, one signed with ``alg: none``, an expired one, one from another
issuer or for another audience, or one signed with another key is refused (a fatal
``bad_credentials``). The session token is keyed with the store's secret, and the session ends
at the identity token's ``exp`` everywhere: hello, HTTP bearers, open connections."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import jwt
import pytest
import websockets
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from clients.sdk import LuminClient
from protocol.codec import SERVER_FRAME_LIMITS, decode, encode
from protocol.messages import Bye, ClaimName, Error, Hello, Message, Welcome
from server.app import LuminServer
from server.config import Settings
from server.jwtidentity import FETCH_TIMEOUT, BadIdentityToken, IdentityTokens
from server.store import Ban
from tests.server.conftest import TEST_LIMITS
from tests.server.test_store_contract import row

ISSUER, AUDIENCE = "https://id.example.test", "lumin"


def _key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


PROVIDER, STRANGER = _key(), _key()


def public_pem(key: rsa.RSAPrivateKey) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


def token(key: rsa.RSAPrivateKey = PROVIDER, **claims: Any) -> str:
    body = {"sub": "person-42", "name": "Grace", "iss": ISSUER, "aud": AUDIENCE,
            "exp": time.time() + 300} | claims  # fmt: skip
    return jwt.encode({k: v for k, v in body.items() if v is not None}, key, algorithm="RS256")


def provider_settings(folder: Path) -> Settings:
    """A test server's settings in ``folder``, with the provider's key."""
    key_file = folder / "provider.pem"
    key_file.write_text(public_pem(PROVIDER))
    return Settings(
        port=0,
        data=folder / "data",
        bot_delay=0.0,
        jwt_key=str(key_file),
        jwt_issuer=ISSUER,
        jwt_audience=AUDIENCE,
        **TEST_LIMITS,
    )


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[LuminServer]:
    lumin = LuminServer(provider_settings(tmp_path))
    await lumin.start()
    yield lumin
    await lumin.stop()


async def hello(server: LuminServer, **fields: Any) -> Message:
    """The server's answer to a hello with ``fields``, on a fresh connection."""
    url = f"ws://127.0.0.1:{server.port}/ws"
    async with websockets.connect(url) as socket:
        await socket.send(encode(Hello(versions=(5,), name="guest", **fields)))
        while True:
            answer = decode(await socket.recv(), sender="server", limits=SERVER_FRAME_LIMITS)
            if isinstance(answer, Welcome | Error):
                if isinstance(answer, Error) and answer.fatal:
                    with pytest.raises(websockets.ConnectionClosed):
                        await socket.recv()  # a refused hello closes the connection
                return answer


async def test_a_signed_token_is_the_providers_person_on_every_connection(server) -> None:
    first = await hello(server, jwt=token())
    assert isinstance(first, Welcome) and first.name == "Grace"
    second = await hello(server, jwt=token())
    assert isinstance(second, Welcome) and second.user == first.user
    assert second.token != first.token, "each identity token is a session of its own"
    # The session token says hello on its own later, as the same person.
    later = await hello(server, token=first.token)
    assert isinstance(later, Welcome) and later.user == first.user and later.name == "Grace"
    other = await hello(server, jwt=token(sub="person-43"))
    assert isinstance(other, Welcome) and other.user != first.user


async def test_every_hello_with_one_token_is_one_session(server) -> None:
    """Hellos with the same identity token reuse its session (no new row each time)."""
    said = token()
    first, second = await hello(server, jwt=said), await hello(server, jwt=said)
    assert isinstance(first, Welcome) and isinstance(second, Welcome)
    assert first.token == second.token
    identity = server.hub.identity_tokens.identity({"iss": ISSUER, "sub": "person-42"})
    sessions = await server.hub.accounts.sessions(identity)
    assert len(sessions) == 1 and sessions[0].client.startswith("jwt until ")


async def test_an_identity_tokens_session_ends_with_the_token(server) -> None:
    """The session a token made ends at the token's exp: its session token is refused after
    it (here the token expired 5 s ago, within the verifying leeway), and the next identity
    token's hello deletes the expired session."""
    ending = await hello(server, jwt=token(exp=time.time() - 5))
    assert isinstance(ending, Welcome)
    later = await hello(server, token=ending.token)
    assert isinstance(later, Error) and later.code == "bad_token"
    fresh = await hello(server, jwt=token())
    assert isinstance(fresh, Welcome) and fresh.user == ending.user
    identity = server.hub.identity_tokens.identity({"iss": ISSUER, "sub": "person-42"})
    assert len(await server.hub.accounts.sessions(identity)) == 1


async def test_a_session_token_is_keyed_with_the_stores_secret(server, tmp_path: Path) -> None:
    """Holding the identity token is not enough to make its session token: the server derives
    it with an HMAC keyed with its store's secret, so another server (another store) makes
    another token from the same identity token."""
    said = token()
    welcome = await hello(server, jwt=said)
    assert isinstance(welcome, Welcome)
    message = b"lumin session\0" + said.encode()
    assert welcome.token != "j" + hashlib.sha256(message).hexdigest()
    secret = await server.hub.store.session_secret()
    assert welcome.token == "j" + hmac.new(secret, message, hashlib.sha256).hexdigest()
    (tmp_path / "other").mkdir()
    other = LuminServer(provider_settings(tmp_path / "other"))
    await other.start()
    try:
        elsewhere = await hello(other, jwt=said)
    finally:
        await other.stop()
    assert isinstance(elsewhere, Welcome) and elsewhere.user == welcome.user
    assert elsewhere.token != welcome.token


def _status(url: str, headers: dict[str, str]) -> int:
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        return int(refused.code)


async def test_an_identity_tokens_session_is_no_http_bearer_after_its_exp(server) -> None:
    """A private game's log is a seated player's to read with their session token as a
    bearer, while the session lasts: the session of an identity token past its ``exp`` (5 s
    ago, within the verifying leeway) reads nothing."""
    ended = await hello(server, jwt=token(exp=time.time() - 5))
    lasting = await hello(server, jwt=token(sub="person-45"))
    assert isinstance(ended, Welcome) and isinstance(lasting, Welcome)
    seats = [{"kind": "human", "user": w.user, "name": w.name} for w in (ended, lasting)]
    game = row("pj", "finished", private=True, code="SECRET", seats=seats, finished=3.0)
    await server.hub.store.create_room(game)
    log = f"http://127.0.0.1:{server.port}/rooms/pj/log"
    for welcome, status in ((lasting, 200), (ended, 403)):
        bearer = {"Authorization": f"Bearer {welcome.token}"}
        assert await asyncio.to_thread(_status, log, bearer) == status


async def test_a_connection_of_an_identity_token_is_closed_at_its_exp(server) -> None:
    """A connection said hello with an identity token that expires: at the sweep after its
    ``exp`` it is told (``bye``, ``signed_out``) and closed; one whose token lasts stays."""
    url = f"ws://127.0.0.1:{server.port}/ws"
    ends = time.time() + 1.0
    async with (
        websockets.connect(url) as ending,
        websockets.connect(url) as lasting,
    ):
        for socket, said in ((ending, token(exp=ends)), (lasting, token(sub="person-46"))):
            await socket.send(encode(Hello(versions=(5,), name="guest", jwt=said)))
            welcome = decode(await socket.recv(), sender="server", limits=SERVER_FRAME_LIMITS)
            assert isinstance(welcome, Welcome)
        server.hub.end_sessions(time.time())  # a sweep before the exp ends nothing
        await asyncio.sleep(max(0.0, ends - time.time()) + 0.1)
        server.hub.end_sessions(time.time())
        bye = decode(await ending.recv(), sender="server", limits=SERVER_FRAME_LIMITS)
        assert isinstance(bye, Bye) and bye.code == "signed_out"
        assert "expired" in (bye.message or "")
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(ending.recv(), 5)
        await lasting.send(encode(Hello(versions=(5,), name="again", id=7)))
        answer = decode(await lasting.recv(), sender="server", limits=SERVER_FRAME_LIMITS)
        assert isinstance(answer, Error) and answer.code == "already_greeted", "still open"


async def test_a_providers_name_claimed_here_is_marked_as_a_guests(server) -> None:
    """The provider's name passes the guest-name rule: a local account's claimed name is
    shown marked, never as the account's."""
    grace = await LuminClient.connect(f"ws://127.0.0.1:{server.port}/ws", "Grace")
    await grace.request(ClaimName(name="Grace", password="correct horse"))
    answer = await hello(server, jwt=token())
    assert isinstance(answer, Welcome) and answer.name == "Grace (guest)"
    later = await hello(server, token=answer.token)
    assert isinstance(later, Welcome) and later.name == "Grace (guest)"
    await grace.close()


async def test_a_banned_person_is_refused_before_any_session_is_made(server) -> None:
    hub = server.hub
    identity = hub.identity_tokens.identity({"iss": ISSUER, "sub": "person-44"})
    user = "u" + identity[:16]
    hub.bans.replace([*hub.bans.all(), Ban("identity", user, "cheating", time.time())])
    answer = await hello(server, jwt=token(sub="person-44"))
    assert isinstance(answer, Error) and answer.code == "banned" and answer.fatal
    assert await hub.accounts.sessions(identity) == []


def _forged() -> str:
    header, payload, signature = token().split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=="))
    claims["sub"] = "the-admin"
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    return f"{header}.{forged}.{signature}"


def _unsigned() -> str:
    claims = {"sub": "person-42", "iss": ISSUER, "aud": AUDIENCE, "exp": time.time() + 300}
    return jwt.encode(claims, None, algorithm="none")


def _hmac_with_public_key() -> str:
    header = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').rstrip(b"=")
    claims = {"sub": "person-42", "iss": ISSUER, "aud": AUDIENCE, "exp": time.time() + 300}
    body = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=")
    signature = hmac.new(public_pem(PROVIDER).encode(), header + b"." + body, hashlib.sha256)
    return b".".join(
        [header, body, base64.urlsafe_b64encode(signature.digest()).rstrip(b"=")]
    ).decode()


@pytest.mark.parametrize(
    ("case", "made", "said"),
    [
        ("forged", _forged, "signature"),
        ("alg none", _unsigned, "'none'"),
        ("an HMAC keyed with the public key", _hmac_with_public_key, "'HS256'"),
        ("expired", lambda: token(exp=time.time() - 3600), "expired"),
        ("wrong issuer", lambda: token(iss="https://evil.example.test"), "issuer"),
        ("no issuer", lambda: token(iss=None), "iss"),
        ("wrong audience", lambda: token(aud="another-app"), "audience"),
        ("wrong key", lambda: token(key=STRANGER), "signature"),
        ("not a token", lambda: "not.a.jwt", "not a well-formed JWT"),
    ],
)
async def test_a_bad_identity_token_is_refused(server, case: str, made, said: str) -> None:
    answer = await hello(server, jwt=made())
    assert isinstance(answer, Error), case
    assert answer.code == "bad_credentials" and answer.fatal
    assert said in answer.message, answer.message


async def test_a_server_without_a_provider_refuses_identity_tokens(tmp_path: Path) -> None:
    plain = LuminServer(Settings(port=0, data=tmp_path / "plain", **TEST_LIMITS))
    await plain.start()
    try:
        answer = await hello(plain, jwt=token())
    finally:
        await plain.stop()
    assert isinstance(answer, Error) and answer.code == "bad_credentials"
    assert "no identity tokens" in answer.message


async def test_an_older_protocol_version_cannot_say_an_identity_token(server) -> None:
    url = f"ws://127.0.0.1:{server.port}/ws"
    async with websockets.connect(url) as socket:
        await socket.send(encode(Hello(versions=(1, 2, 3), name="guest", jwt=token())))
        answer = decode(await socket.recv(), sender="server", limits=SERVER_FRAME_LIMITS)
    assert isinstance(answer, Error) and answer.code == "bad_credentials"
    assert "version 5" in answer.message


async def test_a_providers_jwks_url_verifies_its_tokens(tmp_path: Path) -> None:
    """The provider's keys from its JWKS URL (served here on loopback): a token signed with
    the published key is accepted, one signed with another key refused."""
    import http.server
    import threading

    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(PROVIDER.public_key()))
    body = json.dumps({"keys": [jwk | {"kid": "k1", "use": "sig", "alg": "RS256"}]}).encode()

    class Keys(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    keys = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Keys)
    threading.Thread(target=keys.serve_forever, daemon=True).start()
    settings = Settings(
        port=0, data=tmp_path / "jwks", jwt_jwks=f"http://127.0.0.1:{keys.server_port}/jwks",
        jwt_issuer=ISSUER, jwt_audience=AUDIENCE, **TEST_LIMITS,
    )  # fmt: skip
    lumin = LuminServer(settings)
    await lumin.start()
    try:
        signed = jwt.encode(
            {"sub": "p1", "iss": ISSUER, "aud": AUDIENCE, "exp": time.time() + 60},
            PROVIDER, algorithm="RS256", headers={"kid": "k1"},
        )  # fmt: skip
        assert isinstance(await hello(lumin, jwt=signed), Welcome)
        stranger = jwt.encode(
            {"sub": "p1", "iss": ISSUER, "aud": AUDIENCE, "exp": time.time() + 60},
            STRANGER, algorithm="RS256", headers={"kid": "k1"},
        )  # fmt: skip
        refused = await hello(lumin, jwt=stranger)
        assert isinstance(refused, Error) and refused.code == "bad_credentials"
    finally:
        await lumin.stop()
        keys.shutdown()
        keys.server_close()


class Keys:
    """A provider's JWKS URL on loopback, serving the keys in :attr:`published` (by kid);
    with ``silent``, it accepts connections and never answers."""

    def __init__(self, silent: bool = False) -> None:
        import http.server
        import threading

        self.published: dict[str, rsa.RSAPrivateKey] = {}
        self.fetches = 0
        keys = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                keys.fetches += 1
                if silent:
                    keys.release.wait(30)
                    return
                published = [
                    json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
                    | {"kid": kid, "use": "sig", "alg": "RS256"}
                    for kid, key in keys.published.items()
                ]
                body = json.dumps({"keys": published}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.release = threading.Event()
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/jwks"

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def signed(key: rsa.RSAPrivateKey, kid: str) -> str:
    claims = {"sub": "p1", "iss": ISSUER, "aud": AUDIENCE, "exp": time.time() + 60}
    return jwt.encode(claims, key, algorithm="RS256", headers={"kid": kid})


async def test_a_rotated_key_is_taken_up_and_a_removed_one_refused() -> None:
    """The provider publishes a new key and drops the old: a token signed with the new kid
    makes the server fetch the keys again and is accepted; one signed with the removed key is
    refused from then on, though it verified before."""
    keys = Keys()
    keys.published = {"k1": PROVIDER}
    tokens = IdentityTokens(jwks=keys.url, issuer=ISSUER, audience=AUDIENCE, refetch_after=0)
    try:
        old = signed(PROVIDER, "k1")
        assert (await tokens.verify(old))["sub"] == "p1"
        keys.published = {"k2": STRANGER}  # rotated: k1 is gone
        assert (await tokens.verify(signed(STRANGER, "k2")))["sub"] == "p1"
        assert keys.fetches == 2, "the unknown kid fetched the keys again"
        with pytest.raises(BadIdentityToken, match="does not publish"):
            await tokens.verify(old)
    finally:
        keys.close()


async def test_a_provider_that_does_not_answer_is_said_in_a_sentence(tmp_path: Path) -> None:
    """A JWKS URL that never answers holds a hello for at most the fetch timeout; the hello
    is refused with ``try_again`` saying the provider did not answer."""
    keys = Keys(silent=True)
    settings = Settings(
        port=0, data=tmp_path / "silent", jwt_jwks=keys.url, jwt_issuer=ISSUER,
        jwt_audience=AUDIENCE, **TEST_LIMITS,
    )  # fmt: skip
    lumin = LuminServer(settings)
    await lumin.start()
    try:
        began = time.monotonic()
        answer = await hello(lumin, jwt=signed(PROVIDER, "k1"))
        # Bounded by the fetch timeout (PyJWT's own default is 30 s), with room for load.
        assert time.monotonic() - began < FETCH_TIMEOUT + 10
        assert isinstance(answer, Error) and answer.code == "try_again" and answer.fatal
        assert "could not be fetched" in answer.message
        assert keys.url not in answer.message, "the provider's address is for the log"
    finally:
        await lumin.stop()
        keys.close()


async def test_pyjwts_own_words_never_reach_the_client(
    server, monkeypatch: pytest.MonkeyPatch
) -> None:
    # PyJWT may name objects of the process in its errors (a key's memory address)
    def decode_fails(*args: Any, **kwargs: Any) -> Any:
        raise jwt.InvalidKeyError("Expected an instance of <RSAPublicKey object at 0x7f3a2b1c>")

    monkeypatch.setattr(jwt, "decode", decode_fails)
    answer = await hello(server, jwt=token())
    assert isinstance(answer, Error) and answer.code == "bad_credentials"
    assert answer.message == "Identity token refused: the identity token is not valid."
