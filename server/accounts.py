"""Accounts: a guest claims a name with a password, signs in from other connections, and lists
or revokes the account's sessions; and the identity behind a ``hello``'s token.

A guest's identity is the SHA-256 of its secret token (its user id is ``u`` and the hash's
first 16 hex digits). Claiming a name keeps that identity (its seats, results and ratings)
and makes it an account's: the store marks it claimed (kept for ever) and the token that
claimed it becomes the account's first *session*. Each sign-in makes another session: a new
secret token whose hash the store maps to the account's identity. A claimed identity's token
is good only while its session is kept, so revoking a session refuses its token from then on.

Names are compared folded (:func:`server.names.name_key`: Unicode NFKC, case-folded, spaces
collapsed, reduced to their confusable skeleton), so ``Ada``, ``ADA``, a full-width ``Ada``
and ``Ada`` spelled with a Cyrillic A (U+0410) are one name. Passwords are kept as Argon2id hashes
(argon2-cffi's defaults), hashed and checked on worker threads so the event loop never waits
for them, a bounded number at a time per node (:mod:`server.passwords`: past its queue a
claim or sign-in is answered ``try_again``). Failed sign-ins draw on token buckets
(:class:`server.limits.Buckets`): per client address, per name from one address, and per
name from the devices its account does not know (:meth:`Accounts.sign_in`), so one address
cannot try many names, guessing at one name stays bounded from everywhere together, and a
device that signed in to the account before is never locked out by a stranger's guesses.
Claims draw on a bucket per client address too (each costs a password hash, and a flood of
them would take names wholesale).

A session lasts ``--session-lifetime`` days after its last use (a hello with its token); then
its token is refused, but its row is kept :data:`KNOWN_DEVICE_DAYS` more as the mark of a
device that was signed in (:meth:`Accounts.sign_in`); the sweep forgets it after that.

An outside provider's person (:mod:`server.jwtidentity`) gets one session per identity token:
its secret is derived from the token with an HMAC keyed with the store's session secret (made
at the first start, shared by every node and carried by backups), so every hello with the
same token is the same session (no new row each time) and nobody holding only the identity
token can make it. The session ends at the token's ``exp`` (the row's ``expires``; its
``client`` says ``jwt until <exp>``): a hello or an HTTP bearer with the session's token after
that is refused (the row is deleted), each new identity-token hello deletes the person's
sessions whose token expired, and the sweep closes connections still open on it
(:meth:`server.hub.Hub.end_sessions`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
import unicodedata
from collections.abc import Iterable

import attrs

from protocol.errors import ErrorCode
from server.errors import Refused
from server.limits import Buckets
from server.names import MAX_NAME, name_key
from server.passwords import PasswordHashes
from server.playerrows import AccountRow, SessionRow
from server.store import Store

__all__ = [
    "ADDRESS_BURST",
    "ADDRESS_EVERY",
    "CLAIM_BURST",
    "DEVICE_BURST",
    "KNOWN_DEVICE_DAYS",
    "MAX_NAME",
    "MIN_PASSWORD",
    "NAME_BURST",
    "Accounts",
    "Identity",
    "digest",
    "name_key",
    "session_id",
    "user_id",
]

#: Characters a password has at least, and at most (so hashing one costs a bounded time).
MIN_PASSWORD = 8
MAX_PASSWORD = 256
#: Failed sign-ins per client address (over every name): a burst, then one per this many
#: seconds.
ADDRESS_BURST, ADDRESS_EVERY = 20, 3.0
#: Failed sign-ins per folded name from one client address: a burst, then one per this many
#: seconds.
NAME_ADDRESS_BURST, NAME_ADDRESS_EVERY = 5, 12.0
#: Failed sign-ins per folded name from devices not known to its account (every address
#: together): a burst, then one per this many seconds.
NAME_BURST, NAME_EVERY = 5, 12.0
#: Failed sign-ins to an account from one of its known devices: a burst, then one per this
#: many seconds (the only limit such a device draws on).
DEVICE_BURST, DEVICE_EVERY = 5, 12.0
#: Claims of a name per client address: a burst, then one per this many seconds.
CLAIM_BURST, CLAIM_EVERY = 5, 30.0
#: How a session made by an identity token names its client (and the token's expiry).
JWT_CLIENT = "jwt until "
#: Days an account's ended session (its lifetime past since its last use; a revoked one is
#: deleted at once) is kept after it ended: the device that held it is still a known device
#: of the account (see :meth:`Accounts.sign_in`).
KNOWN_DEVICE_DAYS = 365.0


def digest(token: str) -> str:
    """The hex SHA-256 of a secret token: all the store keeps of it."""
    return hashlib.sha256(token.encode()).hexdigest()


def user_id(identity: str) -> str:
    """The public user id of the identity with token hash ``identity``."""
    return "u" + identity[:16]


def session_id(token_hash: str) -> str:
    """A session's public id: its token hash's first 12 hex digits (never the token)."""
    return token_hash[:12]


def session_end(session: SessionRow, lifetime: float) -> float:
    """When ``session`` ends: an identity token's at the token's ``exp``, an account's
    ``lifetime`` seconds after its last use."""
    return session.expires if session.expires is not None else session.last_seen + lifetime


def _check_name(name: str) -> str:
    name = re.sub(r"\s+", " ", name).strip()
    if not name or len(name) > MAX_NAME:
        raise Refused(ErrorCode.BAD_FIELD, f"A name has 1 to {MAX_NAME} characters.")
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise Refused(ErrorCode.BAD_FIELD, "A name has no control or invisible characters.")
    return name


def _check_password(password: str) -> None:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise Refused(
            ErrorCode.BAD_FIELD, f"A password has {MIN_PASSWORD} to {MAX_PASSWORD} characters."
        )


@attrs.frozen
class Identity:
    """Who a connection is: the identity's token hash, its user id, the secret token it may
    say again, whether the token it said was known, the account's name (``None`` for a
    guest), the session's token hash (accounts' connections) and when the session ends if
    that is fixed (an identity token's ``exp``), and the name the account had before the
    server renamed it (its owner not told yet)."""

    identity: str
    token: str
    known: bool
    name: str | None = None
    session: str | None = None
    ends: float | None = None
    renamed_from: str | None = None

    @property
    def user(self) -> str:
        return user_id(self.identity)


class Accounts:
    """Accounts kept in ``store``: see the module docstring."""

    def __init__(self, store: Store, hashes: PasswordHashes, session_lifetime: float) -> None:
        self.store = store
        self.hashes = hashes
        #: Seconds an account's session lasts after its last use.
        self.session_lifetime = session_lifetime
        #: The key identity-token sessions are derived with (the store's, read once).
        self._secret: bytes | None = None
        self.by_address = Buckets(1 / ADDRESS_EVERY, ADDRESS_BURST)
        self.by_name_address = Buckets(1 / NAME_ADDRESS_EVERY, NAME_ADDRESS_BURST)
        self.by_name = Buckets(1 / NAME_EVERY, NAME_BURST)
        self.by_device = Buckets(1 / DEVICE_EVERY, DEVICE_BURST)
        self.claims = Buckets(1 / CLAIM_EVERY, CLAIM_BURST)
        #: A password's hash to check against when the name is unknown, so a sign-in takes as
        #: long whether or not the name exists.
        self._decoy = hashes.hasher.hash(secrets.token_hex(8))

    async def load_secret(self) -> bytes:
        """The store's session secret (made at the first start), read once."""
        if self._secret is None:
            self._secret = await self.store.session_secret()
        return self._secret

    async def live_session(self, token_hash: str) -> SessionRow | None:
        """The session of a token hash while it lasts (``None``: none, or it ended). An
        identity token's session past the token's ``exp`` is deleted; an account's past its
        lifetime is kept for a while as the mark of a known device."""
        session = await self.store.get_session(token_hash)
        if session is None:
            return None
        if session_end(session, self.session_lifetime) < time.time():
            if session.expires is not None:
                self.store.delete_sessions(session.identity, [token_hash])
            return None
        return session

    async def session_identity(self, token_hash: str) -> SessionRow | None:
        """The session a hello's token stands for while it lasts (``None``: no such session,
        or it ended), noting its use."""
        session = await self.live_session(token_hash)
        if session is None:
            return None
        now = time.time()
        self.store.touch_session(token_hash, now)
        self.store.touch_identity(session.identity, now)
        return session

    async def claim(
        self, identity: str, token: str, name: str, password: str, address: str = ""
    ) -> AccountRow:
        """Make ``identity`` (whose token is ``token``) the account of ``name``; ``name_taken``
        when the name, folded, is claimed, ``bad_field`` when the identity has an account,
        ``rate_limited`` past the claims allowed from ``address``."""
        _take(self.claims, address, f"Too many attempts to claim a name from {address}")
        name = _check_name(name)
        _check_password(password)
        if await self.store.get_account_of(identity) is not None:
            raise Refused(ErrorCode.BAD_FIELD, "This identity has claimed a name already.")
        key = name_key(name)
        if await self.store.get_account(key) is not None:
            raise Refused(ErrorCode.NAME_TAKEN, f"The name {name!r} is claimed by another player.")
        hashed = await self.hashes.hash(password)
        now = time.time()
        account = AccountRow(key, name, identity, hashed, now)
        try:
            await self.store.save_account(account)
        except Exception as error:  # the unique name (or identity) won a race with another claim
            raise Refused(
                ErrorCode.NAME_TAKEN, f"The name {name!r} is claimed by another player."
            ) from error
        # The claiming token is the account's first session (revocable like any other).
        await self.store.save_session(SessionRow(digest(token), identity, now, now, "claim"))
        return account

    async def sign_in(
        self,
        name: str,
        password: str,
        address: str,
        client: str,
        device: Iterable[str | None] = (),
    ) -> tuple[AccountRow, str]:
        """The account of ``name`` and a new session token for it, if ``password`` is its
        own; ``bad_credentials`` otherwise, ``rate_limited`` past the failures allowed.

        A device is known to the account when one of the token hashes it holds (``device``:
        the token its hello said, its session's) is, or was, a session of the account: it
        signed in there before. A known device's failures are limited on their own (per
        device), so a stranger's guesses, from anywhere, never lock the owner's devices out.
        Every other device's failures are limited per client address (``address``, a bucket
        key: every name), per name from that address, and per name from all of them
        together, so guessing at a name stays bounded. Each attempt takes a token from the
        buckets that apply before the password is checked (so concurrent guesses count too);
        a right password, or an attempt refused before its check, gives them back."""
        key = name_key(name)
        account = await self.store.get_account(key)
        known = None if account is None else await self._known(account.identity, device)
        taken: list[tuple[Buckets, str]] = []
        if known is not None:
            limits = [(self.by_device, f"{key}\0{known}", "from this device")]
        else:
            limits = [
                (self.by_address, address, f"from {address}"),
                (self.by_name_address, f"{key}\0{address}", f"to this name from {address}"),
                (
                    self.by_name,
                    key,
                    "to this name from devices never signed in to it (one that was is not held"
                    " back)",
                ),
            ]
        try:
            for buckets, bucket, which in limits:
                _take(buckets, bucket, f"Too many failed sign-ins {which}")
                taken.append((buckets, bucket))
            hashed = account.password if account is not None else self._decoy
            right = await self.hashes.verify(hashed, password)
        except BaseException:
            _give_back(taken)
            raise
        if account is None or not right:
            raise Refused(ErrorCode.BAD_CREDENTIALS, "That name and password do not match.")
        _give_back(taken)
        token = secrets.token_urlsafe(24)
        at = time.time()
        await self.store.save_session(SessionRow(digest(token), account.identity, at, at, client))
        return account, token

    async def _known(self, identity: str, device: Iterable[str | None]) -> str | None:
        """The token hash of ``device`` that is, or was (ended, not revoked), a session of
        ``identity``, if one is."""
        for token_hash in sorted({h for h in device if h}):
            session = await self.store.get_session(token_hash)
            if session is not None and session.identity == identity:
                return token_hash
        return None

    async def token_session(self, identity: str, jwt: str, expires: float) -> str:
        """The session token of an outside provider's person (``identity``) for the identity
        token ``jwt``, which expires at ``expires``: the same for every hello with that token
        (made at the first), ending with it; the person's sessions of expired tokens go."""
        secret = await self.load_secret()
        token = "j" + hmac.new(secret, b"lumin session\0" + jwt.encode(), "sha256").hexdigest()
        hashed, at = digest(token), time.time()
        rows = await self.store.get_sessions(identity)
        stale = [
            row.token_hash
            for row in rows
            if row.expires is not None and session_end(row, self.session_lifetime) < at
        ]
        if stale:
            await self.store.delete_sessions(identity, stale)
        if not any(row.token_hash == hashed for row in rows):
            client = f"{JWT_CLIENT}{expires:.0f}"
            await self.store.save_session(SessionRow(hashed, identity, at, at, client, expires))
        return token

    async def sessions(self, identity: str) -> list[SessionRow]:
        """The identity's sessions that have not ended, oldest first."""
        now = time.time()
        rows = await self.store.get_sessions(identity)
        return [row for row in rows if session_end(row, self.session_lifetime) >= now]

    async def revoke(self, identity: str, session: str | None, keep: str | None) -> list[str]:
        """Revoke the identity's session whose public id is ``session``, or every session but
        ``keep`` (a token hash) when ``session`` is ``None``. Returns the revoked token hashes;
        ``bad_field`` when no session of the identity has that id."""
        rows = await self.store.get_sessions(identity)
        if session is None:
            gone = [row.token_hash for row in rows if row.token_hash != keep]
        else:
            gone = [row.token_hash for row in rows if session_id(row.token_hash) == session]
            if not gone:
                raise Refused(ErrorCode.BAD_FIELD, f"The account has no session {session!r}.")
        if gone:
            await self.store.delete_sessions(identity, gone)
        return gone


def _give_back(taken: Iterable[tuple[Buckets, str]]) -> None:
    """Return the tokens :func:`_take` took (the attempt did not count)."""
    for buckets, key in taken:
        buckets.give_back(key)


def _take(buckets: Buckets, key: str, sentence: str) -> None:
    """Take one attempt from ``key``'s bucket, or refuse ``rate_limited`` with ``sentence``
    and how long to wait."""
    now = time.monotonic()
    if not buckets.take(key, now):
        wait = buckets.wait(key, now)
        raise Refused(ErrorCode.RATE_LIMITED, f"{sentence}; try again in {wait:.0f} s.")
