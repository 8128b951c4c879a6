"""Accounts: a guest claims a name with a password, signs in from other connections, and lists
or revokes the account's sessions; and the identity behind a ``hello``'s token.

A guest's identity is the SHA-256 of its secret token (its user id is ``u`` and the hash's
first 16 hex digits). Claiming a name keeps that identity (its seats, results and ratings)
and makes it an account's: the store marks it claimed (kept for ever) and the token that
claimed it becomes the account's first *session*. Each sign-in makes another session: a new
secret token whose hash the store maps to the account's identity. A claimed identity's token
is good only while its session is kept, so revoking a session refuses its token from then on.

Names are compared folded (:func:`name_key`: Unicode NFKC, case-folded, spaces collapsed), so
``Ada``, ``ADA`` and a full-width ``Ada`` are one name. Passwords are kept as Argon2id hashes
(argon2-cffi's defaults), hashed and checked on worker threads so the event loop never waits
for them, a bounded number at a time per node (:mod:`server.passwords`: past its queue a
claim or sign-in is answered ``try_again``). Sign-in attempts draw on two token buckets, one
per folded name and one per client address (:class:`server.limits.Buckets`): a name's owner
cannot be locked out for long, and one address cannot try many names. Claims draw on a
bucket per client address too (each costs a password hash, and a flood of them would take
names wholesale).

An outside provider's person (:mod:`server.jwtidentity`) gets one session per identity token:
its secret is derived from the token, so every hello with the same token is the same session
(no new row each time), and the session ends with the token's ``exp``: the row's ``client``
says ``jwt until <exp>``, a hello with the session's token after that is refused (the row is
deleted), and each new identity-token hello deletes the person's sessions whose token expired.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
import unicodedata

import attrs

from protocol.errors import ErrorCode
from server.errors import Refused
from server.limits import Buckets
from server.passwords import PasswordHashes
from server.playerrows import AccountRow, SessionRow
from server.store import Store

__all__ = [
    "CLAIM_BURST",
    "MAX_NAME",
    "MIN_PASSWORD",
    "Accounts",
    "Identity",
    "digest",
    "name_key",
    "session_id",
    "user_id",
]

#: Characters of a claimed name at most (after trimming).
MAX_NAME = 24
#: Characters a password has at least, and at most (so hashing one costs a bounded time).
MIN_PASSWORD = 8
MAX_PASSWORD = 256
#: Sign-in attempts per folded name: a burst, then one per this many seconds.
NAME_BURST, NAME_EVERY = 5, 12.0
#: Sign-in attempts per client address: a burst, then one per this many seconds.
ADDRESS_BURST, ADDRESS_EVERY = 20, 3.0
#: Claims of a name per client address: a burst, then one per this many seconds.
CLAIM_BURST, CLAIM_EVERY = 5, 30.0
#: How a session made by an identity token names its client (and the token's expiry).
JWT_CLIENT = "jwt until "


def digest(token: str) -> str:
    """The hex SHA-256 of a secret token: all the store keeps of it."""
    return hashlib.sha256(token.encode()).hexdigest()


def user_id(identity: str) -> str:
    """The public user id of the identity with token hash ``identity``."""
    return "u" + identity[:16]


def session_id(token_hash: str) -> str:
    """A session's public id: its token hash's first 12 hex digits (never the token)."""
    return token_hash[:12]


def name_key(name: str) -> str:
    """``name`` folded for comparison: NFKC, case-folded, control and invisible characters
    dropped (so ``Ada`` and ``Ada`` + a zero-width space are one name), inner spaces
    collapsed."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    shown = "".join(c for c in folded if not unicodedata.category(c).startswith("C"))
    return re.sub(r"\s+", " ", shown).strip()


def _expires(session: SessionRow) -> float:
    """When ``session`` ends: an identity token's at the token's ``exp``, others never."""
    if session.client.startswith(JWT_CLIENT):
        try:
            return float(session.client.removeprefix(JWT_CLIENT))
        except ValueError:
            return 0.0
    return float("inf")


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
    guest) and the session's token hash (accounts' connections)."""

    identity: str
    token: str
    known: bool
    name: str | None = None
    session: str | None = None

    @property
    def user(self) -> str:
        return user_id(self.identity)


class Accounts:
    """Accounts kept in ``store``: see the module docstring."""

    def __init__(self, store: Store, hashes: PasswordHashes) -> None:
        self.store = store
        self.hashes = hashes
        self.by_name = Buckets(1 / NAME_EVERY, NAME_BURST)
        self.by_address = Buckets(1 / ADDRESS_EVERY, ADDRESS_BURST)
        self.claims = Buckets(1 / CLAIM_EVERY, CLAIM_BURST)
        #: A password's hash to check against when the name is unknown, so a sign-in takes as
        #: long whether or not the name exists.
        self._decoy = hashes.hasher.hash(secrets.token_hex(8))

    async def session_identity(self, token_hash: str) -> str | None:
        """The identity a session token stands for (``None``: no such session), noting its
        use."""
        session = await self.store.get_session(token_hash)
        if session is None:
            return None
        now = time.time()
        if _expires(session) < now:  # an identity token's session, past the token's exp
            self.store.delete_sessions(session.identity, [token_hash])
            return None
        self.store.touch_session(token_hash, now)
        self.store.touch_identity(session.identity, now)
        return session.identity

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
        self, name: str, password: str, address: str, client: str
    ) -> tuple[AccountRow, str]:
        """The account of ``name`` and a new session token for it, if ``password`` is its
        own; ``rate_limited`` past the attempts allowed, ``bad_credentials`` otherwise."""
        key = name_key(name)
        _take(self.by_address, address, f"Too many sign-in attempts from {address}")
        _take(self.by_name, key, "Too many sign-in attempts for this name")
        account = await self.store.get_account(key)
        hashed = account.password if account is not None else self._decoy
        if not await self.hashes.verify(hashed, password):
            account = None
        if account is None:
            raise Refused(ErrorCode.BAD_CREDENTIALS, "That name and password do not match.")
        token = secrets.token_urlsafe(24)
        at = time.time()
        await self.store.save_session(SessionRow(digest(token), account.identity, at, at, client))
        return account, token

    async def token_session(self, identity: str, jwt: str, expires: float) -> str:
        """The session token of an outside provider's person (``identity``) for the identity
        token ``jwt``, which expires at ``expires``: the same for every hello with that token
        (made at the first), ending with it; the person's sessions of expired tokens go."""
        token = "j" + hashlib.sha256(b"lumin session\0" + jwt.encode()).hexdigest()
        hashed, at = digest(token), time.time()
        rows = await self.store.get_sessions(identity)
        stale = [row.token_hash for row in rows if _expires(row) < at]
        if stale:
            await self.store.delete_sessions(identity, stale)
        if not any(row.token_hash == hashed for row in rows):
            client = f"{JWT_CLIENT}{expires:.0f}"
            await self.store.save_session(SessionRow(hashed, identity, at, at, client))
        return token

    async def sessions(self, identity: str) -> list[SessionRow]:
        return await self.store.get_sessions(identity)

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


def _take(buckets: Buckets, key: str, sentence: str) -> None:
    """Take one attempt from ``key``'s bucket, or refuse ``rate_limited`` with ``sentence``
    and how long to wait."""
    now = time.monotonic()
    if not buckets.take(key, now):
        wait = buckets.wait(key, now)
        raise Refused(ErrorCode.RATE_LIMITED, f"{sentence}; try again in {wait:.0f} s.")
