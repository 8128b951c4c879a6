"""Identities an operator's outside provider vouches for: a signed JWT in ``hello``.

The server verifies the token with PyJWT against a configured public key (PEM) or the
provider's JWKS URL (keys fetched on a worker thread by PyJWT's ``PyJWKClient``, within
:data:`FETCH_TIMEOUT` seconds; the key set is cached for :data:`KEYS_LIFESPAN` seconds and
fetched again when a token names a key it does not hold, at most once per ``refetch_after``
seconds, so a provider's new key is taken up and a removed one refused),
accepting only the configured asymmetric algorithms (never ``none``, never an HMAC, so a
public key can never be used as a shared secret). It requires ``exp`` and ``sub``, and checks
``iss`` and ``aud`` when configured. The person is ``(iss, sub)``: their identity's token hash
is the SHA-256 of ``jwt``, the issuer and the subject, so the same person is the same
identity on every connection and node, and is kept as claimed (never forgotten).
"""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path
from typing import Any

import jwt
import structlog

__all__ = [
    "DEFAULT_ALGORITHMS",
    "FETCH_TIMEOUT",
    "BadIdentityToken",
    "IdentityTokens",
    "ProviderAway",
]

log = structlog.get_logger("lumin.identity")

#: The algorithms accepted unless the operator names others (asymmetric signatures only).
DEFAULT_ALGORITHMS = ("RS256", "ES256", "EdDSA")
_REFUSED = {"none", "HS256", "HS384", "HS512"}
#: Seconds the provider's JWKS URL may take to answer.
FETCH_TIMEOUT = 5.0
#: Seconds the provider's key set is used before it is fetched again.
KEYS_LIFESPAN = 300.0


class BadIdentityToken(Exception):
    """A JWT that fails verification; the message says why, in a sentence."""


class ProviderAway(Exception):
    """The provider's JWKS URL did not answer (in time); the message says so, in a sentence."""


class IdentityTokens:
    """Verifies JWTs with ``key`` (PEM text, or a path to a PEM file) or keys from ``jwks``
    (a URL); ``issuer`` and ``audience`` are checked when given."""

    def __init__(
        self,
        key: str | None = None,
        jwks: str | None = None,
        issuer: str | None = None,
        audience: str | None = None,
        algorithms: tuple[str, ...] = DEFAULT_ALGORITHMS,
        leeway: float = 30.0,
        refetch_after: float = 30.0,
    ) -> None:
        if (key is None) == (jwks is None):
            raise ValueError("an identity provider is configured with a key or a JWKS URL")
        if not algorithms or _REFUSED & set(algorithms):
            raise ValueError(f"JWT algorithms are asymmetric ones, not {sorted(algorithms)}")
        if key is not None and not key.lstrip().startswith("-----BEGIN"):
            key = Path(key).read_text()
        self.key = key
        # No per-key cache: a key the provider removed must go with the set it left.
        self.jwks = (
            jwt.PyJWKClient(
                jwks,
                cache_keys=False,
                lifespan=KEYS_LIFESPAN,
                timeout=FETCH_TIMEOUT,
                cooldown_duration=refetch_after,
            )
            if jwks is not None
            else None
        )
        self.jwks_url = jwks
        self.issuer = issuer
        self.audience = audience
        self.algorithms = list(algorithms)
        self.leeway = leeway

    async def verify(self, token: str) -> dict[str, Any]:
        """The token's claims, once its signature, algorithm, expiry, issuer and audience are
        checked; :class:`BadIdentityToken` saying why otherwise, :class:`ProviderAway` when
        the provider's keys cannot be fetched."""
        try:
            header = jwt.get_unverified_header(token)
            if header.get("alg") not in self.algorithms:
                raise BadIdentityToken(
                    f"identity tokens are signed with {', '.join(self.algorithms)},"
                    f" not {header.get('alg')!r}"
                )
            key: Any = self.key
            if self.jwks is not None:
                try:
                    signing = await asyncio.to_thread(self.jwks.get_signing_key_from_jwt, token)
                except jwt.PyJWKClientConnectionError as error:
                    log.warning("jwks_unreachable", url=self.jwks_url, error=str(error))
                    raise ProviderAway(
                        "the identity provider's keys could not be fetched within"
                        f" {FETCH_TIMEOUT:g} s"
                    ) from None
                except jwt.PyJWKClientError:
                    raise BadIdentityToken(
                        "the identity token is signed with a key the provider does not publish"
                    ) from None
                key = signing.key
            required = ["exp", "sub"] + ["iss"] * bool(self.issuer) + ["aud"] * bool(self.audience)
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=self.algorithms,
                audience=self.audience,
                issuer=self.issuer,
                leeway=self.leeway,
                options={"require": required},
            )
        except jwt.ExpiredSignatureError:
            raise BadIdentityToken("the identity token has expired") from None
        except jwt.InvalidIssuerError:
            raise BadIdentityToken("the identity token is from another issuer") from None
        except jwt.InvalidAudienceError:
            raise BadIdentityToken("the identity token is for another audience") from None
        except jwt.InvalidSignatureError:
            raise BadIdentityToken("the identity token's signature does not verify") from None
        except jwt.MissingRequiredClaimError as error:
            raise BadIdentityToken(f"the identity token has no {error.claim!r} claim") from None
        except jwt.ImmatureSignatureError:
            raise BadIdentityToken("the identity token is not valid yet (nbf or iat)") from None
        except jwt.DecodeError:
            raise BadIdentityToken("the identity token is not a well-formed JWT") from None
        except (jwt.PyJWTError, ValueError) as error:
            # PyJWT's own words may name objects of the process (a key's memory address):
            # the client gets a sentence of ours, the operator's log the detail.
            log.info("identity_token_refused", error=type(error).__name__, detail=str(error))
            raise BadIdentityToken("the identity token is not valid") from None
        if not isinstance(claims.get("sub"), str) or not claims["sub"]:
            raise BadIdentityToken("the identity token names no subject (sub)")
        return claims

    def identity(self, claims: dict[str, Any]) -> str:
        """The token hash of the person the verified ``claims`` name."""
        person = f"jwt\0{claims.get('iss', '')}\0{claims['sub']}"
        return hashlib.sha256(person.encode()).hexdigest()
