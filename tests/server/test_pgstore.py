"""The PostgreSQL store's own part, beyond the store contract: room ownership by lease with
fencing, as a cluster's nodes use it, and its schema migrated from every older version. A real
PostgreSQL on 127.0.0.1 (``tests/conftest.py``)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import asyncpg
import pytest

from server.names import name_key
from server.pgstore import _FENCED_APPEND, _MIGRATIONS, SCHEMA_VERSION, PostgresStore, apply_step
from server.playerrows import AccountRow, RatingRow
from server.store import AppendRefused, Ban, Fenced, pack_run
from tests.server.test_store_contract import record, reset_postgres, row

#: "Ada" with a Cyrillic A (U+0410): a look-alike of "Ada".
LOOKALIKE = "\u0410da"


@pytest.fixture
async def store(postgres_url: str) -> AsyncIterator[PostgresStore]:
    await reset_postgres(postgres_url)
    store = PostgresStore(postgres_url)
    await store.open()
    yield store
    await store.aclose()
    await reset_postgres(postgres_url)  # the worker's database is shared: leave it empty


async def test_a_free_room_is_claimed_at_epoch_one_and_a_live_lease_refuses_others(
    store: PostgresStore,
) -> None:
    await store.create_room(row("r1"))
    assert await store.claim("r1", "node-a", ttl=30) == 1
    assert await store.claim("r1", "node-b", ttl=30) is None
    lease = await store.lease("r1")
    assert lease is not None and (lease.node, lease.epoch) == ("node-a", 1)
    assert 25 < lease.expires - time.time() <= 31
    assert await store.lease("nope") is None


async def test_a_lapsed_lease_is_claimed_by_another_node_at_a_higher_epoch(
    store: PostgresStore,
) -> None:
    await store.create_room(row("r1"))
    assert await store.claim("r1", "node-a", ttl=0.2) == 1
    assert [lease.room for lease in await store.lapsed()] == []
    assert await store.owner("r1") == "node-a"
    await asyncio.sleep(0.3)
    assert [(lease.room, lease.node) for lease in await store.lapsed()] == [("r1", "node-a")]
    assert await store.owner("r1") is None, "a lapsed lease has no owner"
    assert await store.claim("r1", "node-b", ttl=30) == 2
    assert await store.renew("r1", "node-a", 1, ttl=30) is False, "the old owner is out"
    assert await store.renew("r1", "node-b", 2, ttl=60) is True
    assert (await store.lease("r1")).expires - time.time() > 55  # type: ignore[union-attr]
    assert await store.lapsed() == []


async def test_a_released_room_is_claimable_at_once(store: PostgresStore) -> None:
    await store.create_room(row("r1"))
    assert await store.claim("r1", "node-a", ttl=30) == 1
    assert await store.release("r1", "node-b", 1) is False, "only the owner lets go"
    assert await store.release("r1", "node-a", 1) is True
    assert await store.owner("r1") is None
    assert await store.claim("r1", "node-b", ttl=30) == 2
    assert await store.owner("r1") == "node-b"


async def test_only_one_of_two_nodes_claiming_at_once_wins(store: PostgresStore) -> None:
    for n in range(20):
        await store.create_room(row(f"r{n}"))
    results = await asyncio.gather(
        *(store.claim(f"r{n}", node, ttl=30) for n in range(20) for node in ("a", "b"))
    )
    for n in range(20):
        assert sorted(results[2 * n : 2 * n + 2], key=str) == [1, None]


async def test_a_room_update_or_fence_from_a_stale_epoch_fails_as_fenced(
    store: PostgresStore,
) -> None:
    await store.create_room(row("r1"))
    assert await store.claim("r1", "node-a", ttl=0.1) == 1
    await store.update_room("r1", epoch=1, status="playing")
    await asyncio.sleep(0.2)  # node-a pauses past its lease; node-b takes the room
    assert await store.claim("r1", "node-b", ttl=30) == 2
    with pytest.raises(Fenced, match="epoch 2, not 1"):
        await store.update_room("r1", epoch=1, status="finished")
    stored = await store.get_room("r1")
    assert stored is not None and stored.status == "playing", "the stale update wrote nothing"
    with pytest.raises(Fenced, match="epoch 2, not 1"):
        await store.fence("r1", 1)
    await store.fence("r1", 2)
    with pytest.raises(Fenced, match="has no lease"):
        await store.fence("r2", 1)


async def test_an_append_from_a_stale_epoch_is_fenced_and_writes_nothing(
    store: PostgresStore,
) -> None:
    await store.create_room(row("r1"))
    assert await store.claim("r1", "node-a", ttl=0.1) == 1
    await store.append("r1", record(1), epoch=1)
    await asyncio.sleep(0.2)  # node-a pauses past its lease; node-b takes the room
    assert await store.claim("r1", "node-b", ttl=30) == 2
    with pytest.raises(Fenced, match="epoch 2, not 1"):
        await store.append("r1", record(2), epoch=1)
    await store.append("r1", record(2, seat=1), epoch=2)
    assert [(r.seq, r.seat) for r in await store.get_records("r1")] == [(1, 0), (2, 1)]
    with pytest.raises(Fenced):
        await store.append("r1", record(3), epoch=7)
    with pytest.raises(AppendRefused, match="is in the log already") as refused:
        await store.append("r1", record(2), epoch=2)
    assert not isinstance(refused.value, Fenced)


async def test_retention_deletes_an_ended_rooms_lease_with_it(store: PostgresStore) -> None:
    await store.create_room(row("old", "finished", finished=100.0))
    await store.create_room(row("live"))
    for room in ("old", "live"):
        assert await store.claim(room, "node-a", ttl=30) == 1
    await store.delete_ended_before(200.0)
    assert await store.lease("old") is None and await store.lease("live") is not None


async def test_fenced_appends_of_many_rooms_in_one_turn(store: PostgresStore) -> None:
    for room in ("r1", "r2", "r3"):
        await store.create_room(row(room))
        assert await store.claim(room, "node-a", ttl=30) == 1
    results = await asyncio.gather(
        store.append("r1", record(1), epoch=1),
        store.append("r2", record(1), epoch=2),  # a stale or future epoch: fenced
        store.append("r3", record(1)),  # no epoch: the log's condition alone
        return_exceptions=True,
    )
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], Fenced) and "epoch 1, not 2" in str(results[1])
    assert [len(await store.get_records(room)) for room in ("r1", "r2", "r3")] == [1, 0, 1]


async def test_a_claim_waits_for_an_append_in_flight_under_the_old_epoch(
    store: PostgresStore, postgres_url: str
) -> None:
    """The old owner's append, checked against its epoch but not committed yet, holds the
    lease row: the new owner's claim waits for it, then reads a log that has it (without the
    lock the append could commit after the claim, unseen by the new owner)."""
    await store.create_room(row("r1"))
    assert await store.claim("r1", "node-a", ttl=0.1) == 1
    await asyncio.sleep(0.2)  # node-a's lease has lapsed, but it does not know yet
    connection = await asyncpg.connect(postgres_url)
    try:
        transaction = connection.transaction()
        await transaction.start()
        done = await connection.execute(_FENCED_APPEND, "r1", 1, 1, pack_run([record(1)]), 1)
        assert done == "INSERT 0 1"
        claim = asyncio.create_task(store.claim("r1", "node-b", ttl=30))
        await asyncio.sleep(0.3)
        assert not claim.done(), "the claim waits for the append in flight"
        await transaction.commit()
        assert await claim == 2
    finally:
        await connection.close()
    assert [r.seq for r in await store.get_records("r1")] == [1]


async def test_a_room_without_a_lease_takes_no_fenced_append(store: PostgresStore) -> None:
    await store.create_room(row("r1"))
    with pytest.raises(Fenced, match="has no lease"):
        await store.append("r1", record(1), epoch=1)
    assert await store.get_records("r1") == []


@pytest.mark.parametrize("version", range(SCHEMA_VERSION))
async def test_every_older_schema_version_migrates_to_the_newest(
    postgres_url: str, version: int
) -> None:
    await reset_postgres(postgres_url)
    connection = await asyncpg.connect(postgres_url)
    try:
        await connection.execute("CREATE TABLE lumin_schema (version INTEGER)")
        for step in _MIGRATIONS[:version]:
            await apply_step(connection, step)
        await connection.execute("INSERT INTO lumin_schema VALUES ($1)", version)
        if version >= 1:  # data written at that version
            await connection.execute(
                "INSERT INTO rooms (id, game, options, seats, seed, salt, commitment, status,"
                " created) VALUES ('r1', 'flip_over_frog', '{}', '[]', '\\x00', '\\x01', 'c',"
                " 'playing', 1.0)"
            )
            if version >= 4:  # last_seen is that version's: a guest's is when it was last seen
                await connection.execute(
                    "INSERT INTO identities VALUES ('h', 'Ada', 1.0, 1.0, FALSE)"
                )
            else:
                await connection.execute(
                    "INSERT INTO identities (token_hash, name, created) VALUES ('h', 'Ada', 1.0)"
                )
        if version >= 3:
            await connection.execute(
                "INSERT INTO bans VALUES ('address', '203.0.113.9', 'flood', 5.0)"
            )
        if version >= 4:
            await connection.execute("INSERT INTO identities VALUES ('h4', 'Bea', 1.0, 50.0, TRUE)")
        if version >= 5:  # an account's session, and an identity token's (derived from it alone)
            await connection.execute(
                "INSERT INTO sessions (token_hash, identity, created, last_seen, client) VALUES"
                " ('s-account', 'h4', 1.0, 50.0, 'sign_in'),"
                " ('s-jwt', 'h5', 1.0, 50.0, 'jwt until 9e9')"
            )
        if 5 <= version < 7:  # two accounts whose names fold alike by how they look (old fold)
            await connection.execute(
                "INSERT INTO accounts VALUES ('ada', 'Ada', 'h4', 'hash', 1.0), ($1, $2, 'h6',"
                " 'hash', 2.0)",
                LOOKALIKE.casefold(),
                LOOKALIKE,
            )
            await connection.execute(
                "INSERT INTO identities VALUES ('h6', $1, 1.0, 50.0, TRUE)", LOOKALIKE
            )
            await connection.execute(
                "INSERT INTO ratings VALUES ('uh6', 'neon_hex', '2p', $1, 25.0, 8.0, 1, 1.0)",
                LOOKALIKE,
            )
    finally:
        await connection.close()
    store = PostgresStore(postgres_url)
    await store.open()
    try:
        assert store.schema_version == SCHEMA_VERSION
        if version >= 1:
            assert (await store.get_room("r1")) is not None
            assert await store.get_identity("h") == "Ada"
        assert await store.claim("r1", "node-a", ttl=5) == 1
        await store.ban("identity", "u1", "spam", 6.0)
        expected = [Ban("identity", "u1", "spam", 6.0)]
        if version >= 3:
            expected.insert(0, Ban("address", "203.0.113.9", "flood", 5.0))
        assert await store.get_bans() == expected
        # Identities kept before last_seen count as last seen when created (1.0).
        await store.delete_guests_unseen_before(0.5)
        assert version < 1 or await store.get_identity("h") == "Ada"
        await store.delete_guests_unseen_before(100.0)
        assert await store.get_identity("h") is None
        assert (await store.get_identity("h4") == "Bea") is (version >= 4), "claimed: kept"
        # Version 5's tables take what they keep.
        rating = RatingRow("u1", "flip_over_frog", "standard", "Ada", 27.0, 7.0, 1, 9.0)
        await store.save_ratings([rating])
        assert await store.get_ratings("flip_over_frog") == [rating]
        await store.add_high_score("Ada", 3, "gold", "r1", 9.0, player_id="u1")
        assert [s["player_id"] for s in await store.get_high_scores(player_id="u1")] == ["u1"]
        # Version 6: an account's session is kept with no fixed end, an identity token's
        # kept before is gone, and the session secret is made and kept.
        if version >= 5:
            assert (await store.get_session("s-account")).expires is None  # type: ignore[union-attr]
            # (one kept from version 6 on was made with the secret)
            assert (await store.get_session("s-jwt") is None) is (version < 6)
        secret = await store.session_secret()
        assert len(secret) == 32 and await store.session_secret() == secret
        # Version 7: names fold by how they look; the later look-alike claim is renamed.
        if 5 <= version < 7:
            assert await store.get_account(name_key("Ada")) == AccountRow(
                name_key("Ada"), "Ada", "h4", "hash", 1.0
            )
            later = await store.get_account_of("h6")
            assert later == AccountRow(
                name_key("Ada 2"), f"{LOOKALIKE} 2", "h6", "hash", 2.0, renamed_from=LOOKALIKE
            )
            assert await store.get_identity("h6") == f"{LOOKALIKE} 2"
            assert [r.name for r in await store.get_ratings(player="uh6")] == [f"{LOOKALIKE} 2"]
            await store.clear_renamed("h6")
            assert (await store.get_account_of("h6")).renamed_from is None  # type: ignore[union-attr]
    finally:
        await store.aclose()
        await reset_postgres(postgres_url)
