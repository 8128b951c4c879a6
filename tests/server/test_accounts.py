"""Accounts over real websockets on a real server: a guest claims a name with a password and
keeps its identity, signs in from a second connection as the same person, a taken name is
refused (folded: case does not make a new name), sessions are listed and revoked (a revoked
token is refused and its connection closed), and sign-in attempts are rate limited."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path

import argon2
import pytest
import websockets

from clients.sdk import LuminClient, ServerError, human
from protocol.codec import SERVER_FRAME_LIMITS, decode, encode
from protocol.messages import (
    Account,
    Bye,
    ClaimName,
    Error,
    Hello,
    ListSessions,
    Message,
    RevokeSession,
    Sessions,
    SetName,
    SignIn,
)
from server.accounts import (
    ADDRESS_BURST,
    ADDRESS_EVERY,
    CLAIM_BURST,
    DEVICE_BURST,
    NAME_BURST,
    digest,
)
from server.app import LuminServer
from server.config import Settings
from server.handlers import MAX_SET_NAME
from server.store import _MIGRATIONS, Ban
from tests.server.conftest import TEST_LIMITS
from tests.server.test_cluster import until


async def test_a_guest_claims_a_name_and_signs_in_on_a_second_connection(connect) -> None:
    ada = await connect("Ada")
    guest_user = ada.user
    claimed = await ada.request(ClaimName(name="Ada", password="correct horse"))
    assert isinstance(claimed, Account)
    assert claimed.user == guest_user, "the guest keeps its identity (and its history)"
    assert claimed.token == ada.token
    other = await connect("Someone")
    assert other.user != guest_user
    signed = await other.request(SignIn(name="ada", password="correct horse"))
    assert isinstance(signed, Account) and signed.user == guest_user and signed.name == "Ada"
    assert signed.token != ada.token, "each sign-in is a session of its own"
    # The new session's token is the account's on a third connection too.
    third = await connect("Whoever", token=signed.token)
    assert third.user == guest_user and third.welcome.name == "Ada"


async def test_a_claimed_name_is_refused_to_another_player_whatever_its_case(connect) -> None:
    ada = await connect("Ada")
    await ada.request(ClaimName(name="Ada", password="correct horse"))
    eve = await connect("Eve")
    for name in ("Ada", "ADA", " ada "):
        with pytest.raises(ServerError) as refused:
            await eve.request(ClaimName(name=name, password="another password"))
        assert refused.value.code == "name_taken"


async def test_a_wrong_password_is_refused_and_a_short_one_cannot_be_claimed(connect) -> None:
    ada = await connect("Ada")
    with pytest.raises(ServerError) as short:
        await ada.request(ClaimName(name="Ada", password="short"))
    assert short.value.code == "bad_field" and "8" in short.value.message
    await ada.request(ClaimName(name="Ada", password="correct horse"))
    eve = await connect("Eve")
    with pytest.raises(ServerError) as wrong:
        await eve.request(SignIn(name="Ada", password="incorrect horse"))
    assert wrong.value.code == "bad_credentials"
    with pytest.raises(ServerError) as unknown:
        await eve.request(SignIn(name="Nobody", password="whatever it is"))
    assert unknown.value.code == "bad_credentials"


async def test_a_revoked_session_is_refused_and_its_connection_closed(connect, url) -> None:
    ada = await connect("Ada")
    await ada.request(ClaimName(name="Ada", password="correct horse"))
    laptop = await connect("x")
    signed = await laptop.request(SignIn(name="Ada", password="correct horse"))
    assert isinstance(signed, Account)
    listed = await ada.request(ListSessions())
    assert isinstance(listed, Sessions) and len(listed.sessions) == 2
    assert [s.current for s in listed.sessions] == [True, False]
    assert listed.sessions[1].session == signed.session
    await ada.request(RevokeSession(session=signed.session))
    while True:  # the revoked session's connection is told and closed
        message = await laptop.messages.get()
        if isinstance(message, Bye):
            assert message.code == "signed_out"
            break
    again = await LuminClient.connect(url, "Ada", token=signed.token, new_identity=True)
    assert again.token_refused is not None and again.token_refused.code == "bad_token"
    assert again.user != ada.user
    await again.close()
    # Ada's own session still stands; revoking every other leaves only it.
    back = await connect("Ada", token=ada.token)
    assert back.user == ada.user
    phone = await connect("y")
    await phone.request(SignIn(name="Ada", password="correct horse"))
    await ada.request(RevokeSession())
    listed = await ada.request(ListSessions())
    assert [s.current for s in listed.sessions] == [True]


async def test_a_guest_has_no_sessions_to_list(connect) -> None:
    guest = await connect("Guest")
    with pytest.raises(ServerError) as refused:
        await guest.request(ListSessions())
    assert refused.value.code == "not_signed_in"


async def test_sign_in_attempts_are_rate_limited_per_name(connect) -> None:
    ada = await connect("Ada")
    await ada.request(ClaimName(name="Ada", password="correct horse"))
    eve = await connect("Eve")
    codes = []
    for _ in range(7):
        with pytest.raises(ServerError) as refused:
            await eve.request(SignIn(name="Ada", password="guessing wrong"))
        codes.append(refused.value.code)
    assert codes[:5] == ["bad_credentials"] * 5
    assert codes[5:] == ["rate_limited"] * 2
    # Even the right password waits now on a device that never signed in to the account...
    with pytest.raises(ServerError) as limited:
        await eve.request(SignIn(name="Ada", password="correct horse"))
    assert limited.value.code == "rate_limited"
    # ...while the owner's own device (its claim made it a session of the account) gets in.
    owner = await connect("x", token=ada.token)  # at the guesser's address, too
    signed = await owner.request(SignIn(name="Ada", password="correct horse"))
    assert isinstance(signed, Account) and signed.user == ada.user


async def test_a_guest_saying_a_claimed_name_plays_as_a_guest_of_that_name(connect) -> None:
    ada = await connect("Ada")
    await ada.request(ClaimName(name="Ada", password="correct horse"))
    impostor = await connect("ADA")
    assert impostor.welcome.name == "ADA (guest)"
    owner = await connect("whatever", token=ada.token)
    assert owner.welcome.name == "Ada", "the account's own session keeps its name"


async def test_set_name_keeps_a_claimed_name_its_owners(connect) -> None:
    """A guest renaming to a claimed name plays as ``NAME (guest)``, as a hello saying it
    would; a signed-in account cannot rename away from its account's name."""
    ada = await connect("Ada")
    await ada.request(ClaimName(name="Ada", password="correct horse"))
    eve = await connect("Eve")
    await eve.request(SetName(name="ada"))
    room = await eve.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    await until(lambda: room in eve.room_info)
    assert eve.room_info[room].seats[0].name == "ada (guest)"
    with pytest.raises(ServerError) as refused:
        await ada.request(SetName(name="Somebody"))
    assert refused.value.code == "bad_field" and "account" in refused.value.message


async def test_a_banned_account_cannot_sign_in_from_a_new_connection(connect, server) -> None:
    """A ban of an account's identity holds at sign-in too, not only at hello: the sign-in is
    refused (``banned``) and leaves no session behind."""
    ada = await connect("Ada")
    await ada.request(ClaimName(name="Ada", password="correct horse"))
    hub = server.hub
    hub.bans.replace([*hub.bans.all(), Ban("identity", ada.user, "cheating", time.time())])
    identity = next(s.identity for g in hub.signed_in.values() for s in g if s.user == ada.user)
    before = await hub.accounts.sessions(identity)
    other = await connect("Someone")
    with pytest.raises(ServerError) as refused:
        await other.request(SignIn(name="Ada", password="correct horse"))
    assert refused.value.code == "banned"
    assert other.welcome.user != ada.user
    assert len(await hub.accounts.sessions(identity)) == len(before)


async def test_an_invisible_character_does_not_make_a_claimed_name_anothers(connect) -> None:
    """``Ada`` and ``Ada`` + a zero-width space fold to one name: a guest saying the second
    plays marked as a guest, like one saying the first."""
    ada = await connect("Ada")
    await ada.request(ClaimName(name="Ada", password="correct horse"))
    eve = await connect("Ada\u200b")
    assert eve.welcome.name.endswith("(guest)")


async def test_claims_of_a_name_are_rate_limited_per_address(connect) -> None:
    """Each claim costs a password hash: past a burst from one address, ``claim_name`` is
    ``rate_limited`` (here attempts at a taken name, from one connection)."""
    ada = await connect("Ada")
    await ada.request(ClaimName(name="Ada", password="correct horse"))
    eve = await connect("Eve")
    codes = []
    for _ in range(CLAIM_BURST):
        with pytest.raises(ServerError) as refused:
            await eve.request(ClaimName(name="Ada", password="correct horse"))
        codes.append(refused.value.code)
    assert codes == ["name_taken"] * (CLAIM_BURST - 1) + ["rate_limited"]
    assert "claim" in refused.value.message


async def test_a_hello_name_is_cut_to_the_set_name_limit(connect) -> None:
    """``hello.name`` has the limit ``set_name`` has: a longer name is cut to 40 characters
    (and trimmed), as the welcome says."""
    long = await connect("  " + "N" * (MAX_SET_NAME + 20) + "  ")
    assert long.welcome.name == "N" * MAX_SET_NAME
    room = await long.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    while room not in long.room_info:
        await long.changed(room, timeout=5)
    assert long.room_info[room].seats[0].name == "N" * MAX_SET_NAME


class _GatedHasher(argon2.PasswordHasher):
    """Argon2 whose checks wait for ``gate``: the test decides when a hash finishes."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.gate.set()

    def verify(self, hash: str | bytes, password: str | bytes) -> bool:
        self.gate.wait(30)
        return super().verify(hash, password)


async def test_password_hashes_are_bounded_per_node_and_past_the_queue_try_again(
    tmp_path: Path,
) -> None:
    """One hash at a time and two waiting (``--hash-concurrency 1 --hash-queue 2``): while
    they are busy, a fourth sign-in is answered ``try_again`` at once with a sentence, the
    node answers pings meanwhile, and once the hashes are done an honest sign-in gets in."""
    settings = Settings(
        port=0, data=tmp_path / "data", hash_concurrency=1, hash_queue=2, **TEST_LIMITS
    )
    lumin = LuminServer(settings)
    await lumin.start()
    url = f"ws://127.0.0.1:{lumin.port}/ws"
    hashes = lumin.hub.accounts.hashes
    hasher = _GatedHasher()
    hashes.hasher = hasher
    clients: list[LuminClient] = []
    try:
        ada = await LuminClient.connect(url, "Ada")
        clients.append(ada)
        await ada.request(ClaimName(name="Ada", password="correct horse"))
        guessers = [await LuminClient.connect(url, f"G{n}") for n in range(4)]
        clients += guessers
        for guesser in guessers:
            guesser.TRY_AGAIN_TIMES = 0  # see the server's first answer
        hasher.gate.clear()
        waiting = [
            asyncio.create_task(g.request(SignIn(name=f"Nobody{n}", password="a guess!")))
            for n, g in enumerate(guessers[:3])
        ]
        await until(lambda: hashes.pending == 3)
        with pytest.raises(ServerError) as busy:
            await asyncio.wait_for(
                guessers[3].request(SignIn(name="Ada", password="correct horse")), 5
            )
        assert busy.value.code == "try_again"
        assert "try again" in busy.value.message
        await asyncio.wait_for(ada.ping(), 5)  # the loop is free while the hashes wait
        assert not any(task.done() for task in waiting)
        hasher.gate.set()
        for task in waiting:
            with pytest.raises(ServerError) as wrong:
                await task
            assert wrong.value.code == "bad_credentials"
        assert hashes.pending == 0
        signed = await guessers[3].request(SignIn(name="Ada", password="correct horse"))
        assert isinstance(signed, Account) and signed.user == ada.user
    finally:
        hasher.gate.set()
        for client in clients:
            await client.close()
        await lumin.stop()


async def test_an_account_session_ends_its_lifetime_after_its_last_use(
    connect, server, url
) -> None:
    """A session last used just within ``--session-lifetime`` days still says hello (and
    that use counts); one unused for longer is refused (``bad_token``: a new guest identity),
    is no longer listed, and is no HTTP bearer."""
    ada = await connect("Ada")
    await ada.request(ClaimName(name="Ada", password="correct horse"))
    phone = await connect("x")
    signed = await phone.request(SignIn(name="Ada", password="correct horse"))
    assert isinstance(signed, Account)
    hub, hashed = server.hub, digest(signed.token)
    lifetime = server.settings.session_lifetime * 86400
    await hub.store.touch_session(hashed, time.time() - lifetime + 60)
    back = await connect("x", token=signed.token)
    assert back.user == ada.user
    for _ in range(100):  # the hello's note of the use is a queued write
        session = await hub.store.get_session(hashed)
        assert session is not None
        if session.last_seen > time.time() - 60:
            break
        await asyncio.sleep(0.05)
    assert session.last_seen > time.time() - 60, "the use counted"
    await hub.store.touch_session(hashed, time.time() - lifetime - 60)
    again = await LuminClient.connect(url, "x", token=signed.token, new_identity=True)
    try:
        assert again.token_refused is not None and again.token_refused.code == "bad_token"
        assert again.user != ada.user
    finally:
        await again.close()
    listed = await ada.request(ListSessions())
    assert isinstance(listed, Sessions)
    assert signed.session not in [s.session for s in listed.sessions]
    assert await hub.known_user(signed.token) is None
    assert await hub.known_user(ada.token) == ada.user


async def _sign_in_from(
    url: str, address: str, name: str, password: str, token: str | None = None
) -> tuple[str, Message]:
    """Say hello (with ``token``) from the loopback ``address``, then sign in: the answer's
    code (``account`` when signed in) and the answer."""
    async with websockets.connect(url, local_addr=(address, 0)) as socket:
        await socket.send(encode(Hello(versions=(5, 6), name="x", token=token, id=1)))
        await socket.send(encode(SignIn(name=name, password=password, id=2)))
        while True:
            answer = decode(await socket.recv(), sender="server", limits=SERVER_FRAME_LIMITS)
            if getattr(answer, "ref", None) == 2:
                code = answer.code if isinstance(answer, Error) else answer.TYPE
                return code, answer


async def test_guesses_from_anywhere_never_lock_the_owners_devices_out(
    connect, server, url
) -> None:
    """Strangers' failed guesses at a name, from several addresses, use up the name's limit
    for devices that never signed in to it, and only for those: the owner's device that holds
    a session of the account (or held one that ended) signs in with the right password; one
    whose session was revoked is a stranger's again."""
    ada = await connect("Ada")
    await ada.request(ClaimName(name="Ada", password="correct horse"))
    code, laptop = await _sign_in_from(url, "127.0.0.2", "Ada", "correct horse")
    assert code == "account" and isinstance(laptop, Account)
    guesses = [
        (await _sign_in_from(url, f"127.0.0.{3 + n % 3}", "ada", f"guess {n}"))[0]
        for n in range(NAME_BURST + 1)
    ]
    assert guesses == ["bad_credentials"] * NAME_BURST + ["rate_limited"]
    code, refused = await _sign_in_from(url, "127.0.0.9", "Ada", "correct horse")
    assert code == "rate_limited", "a new device waits, even with the right password"
    assert isinstance(refused, Error) and "never signed in" in refused.message
    code, again = await _sign_in_from(url, "127.0.0.2", "Ada", "correct horse", laptop.token)
    assert code == "account" and again.user == ada.user  # type: ignore[union-attr]
    # A session that ended (unused past the lifetime) still marks its device as known.
    lifetime = server.settings.session_lifetime * 86400
    await server.hub.store.touch_session(digest(laptop.token), time.time() - lifetime - 60)
    code, _ = await _sign_in_from(url, "127.0.0.2", "Ada", "correct horse", laptop.token)
    assert code == "account"
    # A revoked one does not.
    await ada.request(RevokeSession(session=laptop.session))
    code, _ = await _sign_in_from(url, "127.0.0.2", "Ada", "correct horse", laptop.token)
    assert code == "rate_limited"


async def test_a_known_devices_failures_and_an_addresss_are_limited_too(
    connect, url, server
) -> None:
    """A known device's own failures are bounded (per device, wherever it connects from),
    without holding back the owner's other devices; one address trying many names is bounded
    over all of them; a right password uses up no attempt."""
    ada = await connect("Ada")
    await ada.request(ClaimName(name="Ada", password="correct horse"))
    code, laptop = await _sign_in_from(url, "127.0.0.5", "Ada", "correct horse")
    assert code == "account" and isinstance(laptop, Account)
    codes = [
        (await _sign_in_from(url, f"127.0.0.{2 + n % 2}", "Ada", "wrong!!!", ada.token))[0]
        for n in range(DEVICE_BURST + 1)
    ]
    assert codes == ["bad_credentials"] * DEVICE_BURST + ["rate_limited"]
    code, _ = await _sign_in_from(url, "127.0.0.2", "Ada", "correct horse", laptop.token)
    assert code == "account", "the owner's other device is not held back"
    for _ in range(3):  # right passwords use up no attempt
        code, _ = await _sign_in_from(url, "127.0.0.4", "Ada", "correct horse")
        assert code == "account"
    started, codes = time.monotonic(), []
    for n in range(ADDRESS_BURST + 50):  # other names each time, till the address is refused
        codes.append((await _sign_in_from(url, "127.0.0.4", f"Nobody{n}", "whatever!"))[0])
        if codes[-1] != "bad_credentials":
            break
    refilled = (time.monotonic() - started) / ADDRESS_EVERY  # tokens back meanwhile
    assert codes[-1] == "rate_limited"
    assert ADDRESS_BURST <= len(codes) - 1 <= ADDRESS_BURST + refilled + 1
    # From here the address gets next to no token back (one came every few seconds, and a
    # slow run could see it return between the refusal and the next sign-in).
    server.hub.accounts.by_address.rate = 1e-6
    refused = (await _sign_in_from(url, "127.0.0.4", "Ada", "correct horse"))[1]
    assert isinstance(refused, Error) and "127.0.0.4" in refused.message
    code, _ = await _sign_in_from(url, "127.0.0.4", "Ada", "correct horse", laptop.token)
    assert code == "account", "a known device at that address is not held back either"


CYRILLIC_A, GREEK_ALPHA = "\u0410", "\u0391"
CHEROKEE_ADA = "\u13aa\u13a0\u13aa"  # CHEROKEE LETTERS GO, A, GO: it reads ADA


async def test_a_look_alike_of_a_claimed_name_is_taken_and_a_guest_saying_it_is_marked(
    connect,
) -> None:
    ada = await connect("Ada")
    await ada.request(ClaimName(name="Ada", password="correct horse"))
    eve = await connect("Eve")
    for name in (f"{CYRILLIC_A}da", f"{GREEK_ALPHA}da", CHEROKEE_ADA):
        with pytest.raises(ServerError) as refused:
            await eve.request(ClaimName(name=name, password="another password"))
        assert refused.value.code == "name_taken", name
    impostor = await connect(f"{CYRILLIC_A}da")
    assert impostor.welcome.name == f"{CYRILLIC_A}da (guest)"


def _version_5_store(path: Path, password_hash: str) -> None:
    """A store as Lumin's schema version 5 wrote it, whose accounts ``Ada``, ``Ada`` with a
    Cyrillic A and ``Ada`` with a Greek Alpha were claimed in that order (the fold of then
    told them apart), each with a session (tokens ``t-latin``, ``t-cyrillic``, ``t-greek``)."""
    connection = sqlite3.connect(path, isolation_level=None)
    for step in _MIGRATIONS[:5]:
        step(connection)
    connection.execute("PRAGMA user_version = 5")
    for n, (who, name) in enumerate(
        (("latin", "Ada"), ("cyrillic", f"{CYRILLIC_A}da"), ("greek", f"{GREEK_ALPHA}da"))
    ):
        identity = digest(f"guest-{who}")
        connection.execute(
            "INSERT INTO identities VALUES (?, ?, ?, ?, 1)", (identity, name, n, time.time())
        )
        connection.execute(
            "INSERT INTO accounts VALUES (?, ?, ?, ?, ?)",
            (name.casefold(), name, identity, password_hash, float(n)),
        )
        connection.execute(
            "INSERT INTO sessions VALUES (?, ?, ?, ?, 'sign_in', NULL)",
            (digest(f"t-{who}"), identity, time.time(), time.time()),
        )
    connection.close()


async def _renamed_news(client: LuminClient) -> list[str]:
    """The ``renamed`` news among what ``client`` was sent (a ping's answer marks the end)."""
    await client.ping()
    news = []
    while not client.messages.empty():
        message = client.messages.get_nowait()
        if isinstance(message, Error) and message.code == "renamed":
            news.append(message.message)
    return news


async def test_look_alike_accounts_of_an_older_store_are_renamed_and_told_once(
    tmp_path: Path,
) -> None:
    """Opening a store whose accounts were claimed under the fold before (case only): the
    earliest claim keeps ``Ada``, the later look-alikes become ``... 2`` and ``... 3``, and
    each owner is told once, at the next hello or sign-in."""
    data = tmp_path / "data"
    data.mkdir()
    _version_5_store(data / "lumin.sqlite3", argon2.PasswordHasher().hash("correct horse"))
    lumin = LuminServer(Settings(port=0, data=data, **TEST_LIMITS))
    await lumin.start()
    url = f"ws://127.0.0.1:{lumin.port}/ws"
    clients: list[LuminClient] = []
    try:
        latin = await LuminClient.connect(url, "x", token="t-latin")
        cyrillic = await LuminClient.connect(url, "x", token="t-cyrillic")
        clients += [latin, cyrillic]
        assert latin.welcome.name == "Ada" and await _renamed_news(latin) == []
        assert cyrillic.welcome.name == f"{CYRILLIC_A}da 2"
        (news,) = await _renamed_news(cyrillic)
        assert f"{CYRILLIC_A}da" in news and f"{CYRILLIC_A}da 2" in news
        again = await LuminClient.connect(url, "x", token="t-cyrillic")
        clients.append(again)
        assert await _renamed_news(again) == [], "told once"
        phone = await LuminClient.connect(url, "x")
        clients.append(phone)
        signed = await phone.request(SignIn(name=f"{GREEK_ALPHA}da 3", password="correct horse"))
        assert isinstance(signed, Account) and signed.name == f"{GREEK_ALPHA}da 3"
        (news,) = await _renamed_news(phone)
        assert f"{GREEK_ALPHA}da 3" in news
    finally:
        for client in clients:
            await client.close()
        await lumin.stop()
