"""The store contract (``server.store.Store``), one suite run against both stores: the embedded
SQLite store and the PostgreSQL store of a cluster (a real server on 127.0.0.1, a database of
this test process's own; ``tests/conftest.py``)."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from server import pgstore
from server import store as sqlite_store
from server.pgstore import PostgresStore
from server.playerrows import AccountRow, RatingRow, ResultRow, SessionRow
from server.store import AppendRefused, Ban, EventStore, Record, RoomRow, SchemaTooNew, Store

#: Each store's newest schema version.
NEWEST = {"sqlite": sqlite_store.SCHEMA_VERSION, "postgresql": pgstore.SCHEMA_VERSION}


def row(room: str, status: str = "playing", **fields: object) -> RoomRow:
    values: dict[str, object] = {
        "id": room,
        "game": "flip_over_frog",
        "options": {"zeta": 1, "alpha": [1, 2.5, None], "mode": "race"},
        "seats": [{"kind": "human", "user": "u1", "name": "Ada"}, {"kind": "bot", "bot": "bot"}],
        "seed": bytes(range(16)),
        "salt": b"\x00\xff" * 8,
        "commitment": "c" * 64,
        "private": False,
        "code": None,
        "host": "u1",
        "status": status,
        "created": 1.5,
        "started": None,
        "finished": None,
        "meta": {"rematch": None},
    }
    values.update(fields)
    return RoomRow(**values)  # type: ignore[arg-type]


def record(seq: int, seat: int | None = 0) -> Record:
    command = None if seat is None else {"type": "play", "tile": "R1", "space": seq}
    return Record(seq, seq * 2, seat, command, float(seq), ({"type": "turn_passed", "n": seq},))


async def reset_postgres(url: str) -> None:
    connection = await asyncpg.connect(url)
    try:
        # Every table of every schema version, whatever the test left.
        await connection.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
    finally:
        await connection.close()


@pytest.fixture(params=["sqlite", "postgresql"])
async def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def opener(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[object]:
    """Opens the store under test (again, on the same data, when called again)."""
    opened: list[Store] = []
    if kind == "postgresql":
        url = request.getfixturevalue("postgres_url")
        await reset_postgres(url)

    async def open_store() -> Store:
        store: Store
        if kind == "sqlite":
            store = EventStore(tmp_path / "lumin.sqlite3")
        else:
            store = PostgresStore(url)
        await store.open()
        opened.append(store)
        return store

    yield open_store
    for store in opened:
        await store.aclose()
    if kind == "postgresql":  # the worker's database is shared: leave it empty
        await reset_postgres(url)


@pytest.fixture
async def store(opener) -> Store:
    return await opener()


async def test_a_room_reads_back_exactly_as_written(store: Store) -> None:
    written = row("r1", private=True, code="CODE42", started=2.25)
    await store.create_room(written)
    assert await store.get_room("r1") == written
    assert list((await store.get_room("r1")).options) == ["zeta", "alpha", "mode"]
    assert await store.get_room("nope") is None


async def test_rooms_by_status_oldest_first(store: Store) -> None:
    await store.create_room(row("b", created=2.0))
    await store.create_room(row("a", "waiting", created=1.0))
    await store.create_room(row("c", "finished", created=3.0, finished=4.0))
    assert [r.id for r in await store.get_rooms()] == ["a", "b", "c"]
    assert [r.id for r in await store.get_rooms(["waiting", "playing"])] == ["a", "b"]


async def test_update_changes_only_the_named_columns(store: Store) -> None:
    await store.create_room(row("r1"))
    seats = [{"kind": "open"}, {"kind": "bot", "bot": "random"}]
    await store.update_room("r1", status="finished", finished=9.5, seats=seats, meta={"x": 1})
    changed = await store.get_room("r1")
    assert changed is not None
    assert (changed.status, changed.finished, changed.seats, changed.meta) == (
        "finished",
        9.5,
        seats,
        {"x": 1},
    )
    assert changed.options == row("r1").options and changed.created == 1.5
    with pytest.raises(ValueError, match="cannot update"):
        store.update_room("r1", seed=b"x")


async def test_runs_read_back_in_order_from_any_seq(store: Store) -> None:
    await store.create_room(row("r1"))
    await store.append("r1", record(1))
    await store.append("r1", record(2), record(3, seat=None), record(4))
    await store.append("r1", record(5, seat=1))
    everything = await store.get_records("r1")
    assert everything == [record(1), record(2), record(3, seat=None), record(4), record(5, seat=1)]
    assert [r.seq for r in await store.get_records("r1", after=2)] == [3, 4, 5]
    assert await store.get_records("r1", after=5) == []
    assert await store.get_records("other") == []


async def test_an_append_must_be_one_or_more_consecutive_records(store: Store) -> None:
    with pytest.raises(ValueError, match="at least one"):
        store.append("r1")
    with pytest.raises(ValueError, match="not consecutive"):
        store.append("r1", record(1), record(3))


@pytest.mark.parametrize(
    ("first", "why"), [(1, "is in the log already"), (3, "is in the log already"), (6, "gap")]
)
async def test_an_append_that_does_not_follow_the_log_is_refused_whole(
    store: Store, first: int, why: str
) -> None:
    await store.create_room(row("r1"))
    await store.append("r1", record(1), record(2), record(3), record(4))
    with pytest.raises(AppendRefused, match=why):
        await store.append("r1", record(first), record(first + 1))
    assert [r.seq for r in await store.get_records("r1")] == [1, 2, 3, 4]
    await store.append("r1", record(5))
    assert [r.seq for r in await store.get_records("r1")] == [1, 2, 3, 4, 5]


async def test_the_first_run_starts_at_seq_one(store: Store) -> None:
    with pytest.raises(AppendRefused, match="gap after seq 0"):
        await store.append("r1", record(2))
    await store.append("r1", record(1))


async def test_writes_of_one_loop_turn_commit_together_and_fail_alone(store: Store) -> None:
    await store.create_room(row("r1"))
    await store.append("r1", record(1))
    results = await asyncio.gather(
        store.append("r1", record(1)),  # taken: refused
        store.append("r1", record(2)),
        store.append("r1", record(3)),
        store.create_room(row("r2")),
        return_exceptions=True,
    )
    assert isinstance(results[0], AppendRefused) and results[1:] == [None, None, None]
    assert [r.seq for r in await store.get_records("r1")] == [1, 2, 3]
    assert await store.get_room("r2") is not None


async def test_appends_of_many_rooms_in_one_turn_are_decided_each_on_its_own(
    store: Store,
) -> None:
    for room in ("r1", "r2", "r3", "r4"):
        await store.create_room(row(room))
        await store.append(room, record(1))
    results = await asyncio.gather(
        store.append("r1", record(2)),
        store.append("r2", record(1)),  # taken
        store.append("r3", record(2), record(3)),
        store.append("r4", record(5)),  # a gap
        return_exceptions=True,
    )
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], AppendRefused) and "in the log already" in str(results[1])
    assert isinstance(results[3], AppendRefused) and "gap after seq 1" in str(results[3])
    logs = [[r.seq for r in await store.get_records(room)] for room in ("r1", "r2", "r3", "r4")]
    assert logs == [[1, 2], [1], [1, 2, 3], [1]]


async def test_two_appends_racing_for_one_seq_never_fork_the_log(store: Store) -> None:
    await store.create_room(row("r1"))
    mine, theirs = record(1, seat=0), record(1, seat=1)
    results = await asyncio.gather(
        store.append("r1", mine), store.append("r1", theirs), return_exceptions=True
    )
    assert results[0] is None and isinstance(results[1], AppendRefused)
    assert await store.get_records("r1") == [mine]


async def test_finished_public_games_newest_first_in_pages(store: Store) -> None:
    for n, (game, private) in enumerate(
        [("flash8", False), ("neon_hex", False), ("flash8", True), ("flash8", False)]
    ):
        await store.create_room(
            row(f"f{n}", "finished", game=game, private=private, finished=10.0 + n)
        )
    await store.create_room(row("live", game="flash8"))
    assert [r.id for r in await store.get_finished(10)] == ["f3", "f1", "f0"]
    assert [r.id for r in await store.get_finished(10, "flash8")] == ["f3", "f0"]
    assert [r.id for r in await store.get_finished(1, offset=1)] == ["f1"]
    assert await store.get_finished_count() == 3
    assert await store.get_finished_count("flash8") == 2
    assert await store.get_finished_count("neon_flip") == 0


@pytest.mark.parametrize("status", ["finished", "expired", "abandoned", "failed"])
async def test_retention_deletes_ended_rooms_with_their_logs(store: Store, status: str) -> None:
    await store.create_room(row("old", status, finished=100.0))
    await store.create_room(row("recent", status, finished=300.0))
    await store.create_room(row("live", created=50.0))
    for room in ("old", "recent", "live"):
        await store.append(room, record(1))
    await store.delete_ended_before(200.0)
    assert await store.get_room("old") is None and await store.get_records("old") == []
    assert await store.get_room("recent") is not None and await store.get_room("live") is not None
    assert len(await store.get_records("live")) == 1


async def test_identities_by_token_hash(store: Store) -> None:
    assert await store.get_identity("h1") is None
    await store.save_identity("h1", "Ada", 1.0)
    assert await store.get_identity("h1") == "Ada"
    await store.save_identity("h1", "Ada L.", 2.0)
    assert await store.get_identity("h1") == "Ada L."


async def claim(store: Store, token_hash: str) -> None:
    """Mark an identity claimed (an account's) with its own token as the account's first
    session, as a claim does (``server.accounts``), without choosing a name or password."""
    if isinstance(store, EventStore):
        store._reader.execute(
            "UPDATE identities SET claimed = 1 WHERE token_hash = ?", (token_hash,)
        )
    else:
        assert isinstance(store, PostgresStore)
        await store.pool.execute(
            "UPDATE identities SET claimed = TRUE WHERE token_hash = $1", token_hash
        )
    now = time.time()  # a session in use: an account's sessions end once long unused
    await store.save_session(SessionRow(token_hash, token_hash, now, now, "claim"))


async def test_guests_unseen_since_the_cutoff_are_forgotten_and_others_kept(
    store: Store,
) -> None:
    for token_hash in ("old", "seen", "claimed", "new"):
        await store.save_identity(token_hash, token_hash.title(), 10.0)
    await store.touch_identity("seen", 150.0)
    await store.save_identity("new", "New", 120.0)  # last seen when created
    await claim(store, "claimed")
    await store.delete_guests_unseen_before(100.0)
    assert await store.get_identity("old") is None
    assert [await store.get_identity(h) for h in ("seen", "claimed", "new")] == [
        "Seen",
        "Claimed",
        "New",
    ]
    await store.delete_guests_unseen_before(1000.0)
    assert await store.get_identity("seen") is None and await store.get_identity("new") is None
    assert await store.get_identity("claimed") == "Claimed", "a claimed identity never expires"


async def test_touching_an_unknown_identity_creates_nothing(store: Store) -> None:
    await store.touch_identity("nobody", 5.0)
    assert await store.get_identity("nobody") is None


async def test_high_scores_fewest_cards_first(store: Store) -> None:
    await store.add_high_score("Ada", 5, "silver", "r1", 1.0)
    await store.add_high_score("Bea", 2, "gold", "r2", 2.0)
    await store.add_high_score("Ada", 2, "gold", "r3", 3.0)
    best = await store.get_high_scores()
    assert [(s["player"], s["score"], s["room"]) for s in best] == [
        ("Bea", 2, "r2"),
        ("Ada", 2, "r3"),
        ("Ada", 5, "r1"),
    ]
    assert best[0] == {
        "player": "Bea",
        "score": 2,
        "rank": "gold",
        "room": "r2",
        "at": 2.0,
        "player_id": None,
    }
    assert [s["room"] for s in await store.get_high_scores("Ada", limit=1)] == ["r3"]


async def test_bans_oldest_first_and_banning_again_replaces_reason_and_time(
    store: Store,
) -> None:
    assert await store.get_bans() == []
    await store.ban("identity", "u0123", "spam", 20.0)
    await store.ban("address", "203.0.113.9", "flood", 10.0)
    await store.ban("address", "u0123", "same value, other kind", 30.0)
    assert await store.get_bans() == [
        Ban("address", "203.0.113.9", "flood", 10.0),
        Ban("identity", "u0123", "spam", 20.0),
        Ban("address", "u0123", "same value, other kind", 30.0),
    ]
    await store.ban("address", "203.0.113.9", "flood again", 40.0)
    assert (await store.get_bans())[-1] == Ban("address", "203.0.113.9", "flood again", 40.0)
    assert len(await store.get_bans()) == 3


async def test_unban_forgets_one_ban_and_an_unknown_one_is_no_error(store: Store) -> None:
    await store.ban("identity", "u1", "spam", 1.0)
    await store.ban("address", "u1", "spam", 2.0)
    await store.unban("identity", "u1")
    await store.unban("identity", "nobody")
    assert await store.get_bans() == [Ban("address", "u1", "spam", 2.0)]


async def test_a_ban_of_another_kind_is_refused_before_anything_is_queued(store: Store) -> None:
    with pytest.raises(ValueError, match="kind"):
        store.ban("name", "Ada", "rude", 1.0)
    with pytest.raises(ValueError, match="kind"):
        store.unban("name", "Ada")
    assert await store.get_bans() == []


async def test_bans_are_kept_across_reopening(opener) -> None:
    store = await opener()
    queued = store.ban("identity", "u1", "spam", 1.0)  # committed by closing
    await store.aclose()
    assert queued.done() and queued.exception() is None
    assert await (await opener()).get_bans() == [Ban("identity", "u1", "spam", 1.0)]


async def test_closing_commits_what_is_queued_and_reopening_keeps_everything(
    kind: str, opener
) -> None:
    store = await opener()
    assert store.schema_version == NEWEST[kind]
    await store.create_room(row("r1"))
    queued = store.append("r1", record(1))  # not awaited: closing must commit it
    await store.aclose()
    assert queued.done() and queued.exception() is None
    again = await opener()
    assert again.schema_version == NEWEST[kind]
    assert [r.seq for r in await again.get_records("r1")] == [1]


async def test_a_store_from_a_newer_lumin_is_refused(kind: str, opener, tmp_path: Path) -> None:
    store = await opener()
    await store.aclose()
    if kind == "sqlite":
        connection = sqlite3.connect(tmp_path / "lumin.sqlite3")
        connection.execute("PRAGMA user_version = 99")
        connection.close()
    else:
        assert isinstance(store, PostgresStore)
        connection = await asyncpg.connect(store.url)
        await connection.execute("UPDATE lumin_schema SET version = 99")
        await connection.close()
    with pytest.raises(SchemaTooNew, match="schema version 99"):
        await opener()


async def test_a_probe_is_a_write_that_changes_nothing(store: Store) -> None:
    await store.create_room(row("r1"))
    before = await store.get_room("r1")
    await store.probe()
    assert await store.get_room("r1") == before
    assert store.schema_version >= 1


async def test_a_probe_fails_once_the_store_takes_no_writes(store: Store) -> None:
    await store.aclose()
    with pytest.raises(Exception):  # noqa: B017 - each store fails in its own words
        await store.probe()
    await store.open()  # the fixture closes it again


async def test_an_account_claims_its_identity_and_its_folded_name_once(store: Store) -> None:
    await store.save_identity("h1", "Ada", 1.0)
    await store.save_identity("h2", "Eve", 1.0)
    await store.save_account(AccountRow("ada", "Ada", "h1", "argon2-hash", 2.0))
    assert await store.get_account("ada") == AccountRow("ada", "Ada", "h1", "argon2-hash", 2.0)
    assert await store.get_account_of("h1") == await store.get_account("ada")
    assert await store.get_identity_claimed("h1") is True
    with pytest.raises(Exception, match=r"(?i)unique"):  # the folded name is the key
        await store.save_account(AccountRow("ada", "ADA", "h2", "other-hash", 3.0))
    assert await store.get_identity_claimed("h2") is False, "a failed claim claims nothing"
    assert await store.get_account_of("h2") is None
    await store.delete_guests_unseen_before(100.0)
    assert await store.get_identity("h1") == "Ada" and await store.get_identity("h2") is None


async def test_sessions_are_kept_listed_and_revoked(store: Store) -> None:
    for n, token_hash in enumerate(("s1", "s2", "s3")):
        await store.save_session(SessionRow(token_hash, "h1", float(n), float(n), "sign_in"))
    await store.save_session(SessionRow("t1", "h9", 1.0, 1.0))
    await store.touch_session("s2", 9.0)
    assert [s.token_hash for s in await store.get_sessions("h1")] == ["s1", "s2", "s3"]
    assert (await store.get_session("s2")).last_seen == 9.0
    await store.delete_sessions("h1", ["s2", "t1"])  # another identity's session stays
    assert [s.token_hash for s in await store.get_sessions("h1")] == ["s1", "s3"]
    await store.delete_sessions("h1")
    assert await store.get_sessions("h1") == [] and await store.get_session("t1") is not None


async def test_ended_sessions_are_forgotten(store: Store) -> None:
    """A session's fixed end (an identity token's ``exp``) reads back; the sweep forgets the
    sessions that ended before a time: one with a fixed end by it, an account's (no fixed
    end) by its last use and the lifetime."""
    await store.save_session(SessionRow("jwt-old", "h1", 1.0, 1.0, "jwt until 50", 50.0))
    await store.save_session(SessionRow("jwt-new", "h1", 1.0, 1.0, "jwt until 500", 500.0))
    await store.save_session(SessionRow("idle", "h2", 1.0, 10.0, "sign_in"))
    await store.save_session(SessionRow("used", "h2", 1.0, 150.0, "sign_in"))
    assert (await store.get_session("jwt-old")).expires == 50.0
    assert (await store.get_session("idle")).expires is None
    await store.delete_sessions_ended_before(200.0, lifetime=100.0)
    kept = [s.token_hash for s in await store.get_sessions("h1") + await store.get_sessions("h2")]
    assert kept == ["jwt-new", "used"]


async def test_the_session_secret_is_made_once_and_kept(opener) -> None:
    """The first ask makes the secret; every later ask, concurrent ones and those of another
    opening of the same store (another node, the next start), reads the same."""
    first = await opener()
    made = await asyncio.gather(*(first.session_secret() for _ in range(3)))
    assert len(made[0]) == 32 and made == [made[0]] * 3
    again = await opener()
    assert await again.session_secret() == made[0]


async def test_ratings_are_replaced_and_rated_games_outlive_retention(store: Store) -> None:
    first = RatingRow("u1", "neon_hex", "2p", "Ada", 25.0, 8.0, 1, 1.0)
    await store.save_ratings([first, RatingRow("u2", "neon_hex", "2p", "Bea", 27.0, 7.0, 1, 1.0)])
    await store.save_ratings([RatingRow("u1", "neon_hex", "2p", "Ada", 30.0, 6.0, 2, 2.0)])
    board = await store.get_ratings("neon_hex", "2p")
    assert [(r.player, r.mu, r.games) for r in board] == [("u1", 30.0, 2), ("u2", 27.0, 1)]
    assert await store.get_ratings(player="u2") == [board[1]]
    for room, rated in (("rated", True), ("casual", False)):
        await store.create_room(row(room, "finished", finished=5.0))
        await store.add_results(
            [ResultRow(room, 0, "u1", "Ada", "neon_hex", "2p", 1, False, 5.0, rated, 0.0, 1.5)]
        )
    assert [r.room for r in await store.get_results(rated=True)] == ["rated"]
    await store.delete_ended_before(10.0)
    assert await store.get_room("rated") is not None, "a rated game's log is kept"
    assert await store.get_room("casual") is None
    assert [r.room for r in await store.get_results("u1")] == ["rated"]


async def test_a_leaderboard_is_read_a_page_at_a_time_in_board_order(store: Store) -> None:
    # 120 players over two pools; a board of one pool with at least 5 games, in pages of 25
    rows = [
        RatingRow(f"u{n:03d}", "neon_hex", "2p" if n % 4 else "4p", f"P{n}",
                  20.0 + (n * 37 % 50) / 4, 2.0 + n % 3, n % 9, 1.0)
        for n in range(120)
    ]  # fmt: skip
    await store.save_ratings(rows)
    # the board as it is shown: best ordinal first, then games, then user id, all descending
    board = sorted(
        (r for r in rows if r.pool == "2p" and r.games >= 5),
        key=lambda r: (r.mu - 3 * r.sigma, r.games, r.player),
        reverse=True,
    )
    pages, after = [], None
    while True:
        page = await store.get_leaderboard("neon_hex", "2p", 5, 25, after)
        if not page:
            break
        assert len(page) <= 25
        pages.append(page)
        last = page[-1]
        after = (last.mu - 3 * last.sigma, last.games, last.player)
    assert [r.player for page in pages for r in page] == [r.player for r in board]
    assert [len(page) for page in pages[:-1]] == [25] * (len(pages) - 1)
    assert await store.get_leaderboard("neon_hex", "2p", 9, 25) == [], "nobody has 9 games"


async def test_a_players_history_leaves_private_rooms_out_before_the_limit(store: Store) -> None:
    # 12 games, every third in a private room: pages of 4 are full with public games
    for n in range(12):
        room = f"g{n:02d}"
        await store.create_room(row(room, "finished", finished=float(n), private=n % 3 == 0))
        await store.add_results(
            [ResultRow(room, 0, "u1", "Ada", "neon_hex", "2p", 1, False, float(n), True, 0.0, 1.0)]
        )
    public = [f"g{n:02d}" for n in reversed(range(12)) if n % 3]
    first = await store.get_history("u1", 4)
    assert [r.room for r in first] == public[:4]
    last = first[-1]
    second = await store.get_history("u1", 4, (last.finished, last.room, last.seat))
    assert [r.room for r in second] == public[4:]
    assert await store.get_history("u9", 4) == []


async def test_rated_rooms_are_listed_in_pages_public_ones_unless_everyone(store: Store) -> None:
    for n in range(7):
        room = f"r{n}"
        await store.create_room(row(room, "finished", finished=10.0 + n // 2, private=n == 3))
        await store.add_results(
            [
                ResultRow(room, seat, f"u{seat}", "P", "neon_hex", "2p", seat + 1, False,
                          10.0 + n // 2, n != 5, 0.0, 1.0)
                for seat in range(2)
            ]
        )  # fmt: skip
    # r5 is unrated; r3 is private; two games may finish at the same time (then by room id)
    assert await store.get_rated_rooms(10) == [
        ("r0", 10.0), ("r1", 10.0), ("r2", 11.0), ("r4", 12.0), ("r6", 13.0),
    ]  # fmt: skip
    everyone = await store.get_rated_rooms(10, everyone=True)
    assert [room for room, _ in everyone] == ["r0", "r1", "r2", "r3", "r4", "r6"]
    first = await store.get_rated_rooms(2)
    assert first == [("r0", 10.0), ("r1", 10.0)]
    rest = await store.get_rated_rooms(10, (first[-1][1], first[-1][0]))
    assert [room for room, _ in rest] == ["r2", "r4", "r6"]


async def test_retention_forgets_a_bounded_batch_at_a_time_and_never_a_rated_game(
    store: Store,
) -> None:
    from server.store import RETENTION_BATCH

    count = RETENTION_BATCH + 20
    for n in range(count):
        await store.create_room(row(f"old{n:04d}", "finished", finished=1.0))
    await store.create_room(row("rated", "finished", finished=1.0))
    await store.add_results(
        [ResultRow("rated", 0, "u1", "Ada", "neon_hex", "2p", 1, False, 1.0, True, 0.0, 1.0)]
    )
    await store.delete_ended_before(10.0)
    assert await store.get_finished_count() == count + 1 - RETENTION_BATCH, "one batch a sweep"
    await store.delete_ended_before(10.0)
    assert [r.id for r in await store.get_finished(10)] == ["rated"], "the next sweep goes on"
