"""What ``lumin bench failover`` counts (``clients/failover.py``), on made-up logs: a command
built from a legal entry, an acknowledged command against the log at its seq, a log's breaks,
a spectator's gaps, an acknowledgement from a node that did not hold the lease, each kill's
failover time, and the invariants that fail a run."""

from __future__ import annotations

from typing import Any

import pytest

import lumin.bench
from clients.failover import (
    Ack,
    FailoverRun,
    Lease,
    LeaseLog,
    LogRecord,
    Takedown,
    check_acks,
    command_matches,
    concrete_commands,
    failover_samples,
    failures,
    kill_signals,
    log_breaks,
    new_owners,
    spectator_gaps,
    stale_acks,
)
from clients.failover import _takedown_summary as takedown_summary


def _ack(seq: int, command: dict[str, Any], seat: int = 0, node: str = "node-1") -> Ack:
    return Ack("r1", seq, seat, command, node, 100.0 + seq)


def _log(*commands: dict[str, Any] | None, seat: int = 0) -> list[LogRecord]:
    return [
        LogRecord(n, None if c is None else seat, c, 100.0 + n) for n, c in enumerate(commands, 1)
    ]


def test_a_legal_entry_gives_one_command_per_chosen_value_and_drops_information() -> None:
    entry = {"type": "slide", "src": 4, "choose": {"dst": [1, 3]}, "preview": [0, 1]}
    assert concrete_commands(entry, ["src", "dst"]) == [
        {"type": "slide", "src": 4, "dst": 1},
        {"type": "slide", "src": 4, "dst": 3},
    ]
    assert concrete_commands({"type": "pass", "odds": 0.5}, []) == [{"type": "pass"}]


def test_a_logged_command_matches_what_was_sent_with_defaults_filled_in() -> None:
    sent = {"type": "play", "tiles": (1, 2)}
    assert command_matches(sent, {"type": "play", "tiles": [1, 2], "flip": False})
    assert not command_matches(sent, {"type": "play", "tiles": [2, 1]})
    assert not command_matches(sent, None)


def test_an_ack_is_lost_when_its_seq_is_absent_or_logs_another_command() -> None:
    play = {"type": "play", "at": 1}
    logs = {"r1": _log(play, None, {"type": "play", "at": 2})}
    assert check_acks([_ack(1, play)], logs) == (0, 0)
    assert check_acks([_ack(3, play)], logs) == (1, 1), "another command at its seq"
    assert check_acks([_ack(1, play, seat=1)], logs) == (1, 1), "another seat's"
    assert check_acks([_ack(9, play)], logs) == (1, 0), "past the end of the log"


def test_a_log_breaks_on_repeated_and_missing_seqs() -> None:
    assert log_breaks(_log({"type": "a"}, None, {"type": "b"})) == 0
    records = _log({"type": "a"}, {"type": "b"}, {"type": "c"})
    assert log_breaks([records[0], records[0], records[2]]) == 2, "2 repeated, 2 missing"
    assert log_breaks([]) == 0


def test_a_spectator_gap_is_a_skipped_range_no_later_snapshot_covers() -> None:
    assert spectator_gaps([("snapshot", 3, 3), ("delta", 3, 5), ("delta", 5, 6)], 6) == 0
    assert spectator_gaps([("snapshot", 3, 3), ("delta", 4, 5)], 5) == 1, "seq 4 skipped"
    covered = [("snapshot", 3, 3), ("delta", 4, 5), ("snapshot", 7, 7)]
    assert spectator_gaps(covered, 7) == 0, "a later snapshot is the whole view"
    assert spectator_gaps([("snapshot", 3, 3), ("delta", 3, 5)], 8) == 1, "never saw the end"
    assert spectator_gaps([("snapshot", 2, 2), ("delta", 1, 2), ("delta", 2, 3)], 3) == 0


def test_an_ack_from_a_node_the_lease_had_left_is_a_stale_epoch_append() -> None:
    leases = LeaseLog(database=None)  # type: ignore[arg-type]
    leases.reads = [100.0, 102.0, 104.0, 106.0]
    leases.changes = {"r1": [(100.0, "node-1", 1), (104.0, "node-2", 2)]}
    logs = {"r1": _log(*({"type": "go", "n": n} for n in range(1, 6)))}  # decided at 101..105
    honest = [_ack(1, {"type": "go", "n": 1}), _ack(4, {"type": "go", "n": 4}, node="node-2")]
    assert stale_acks(honest, logs, leases) == 0
    late = _ack(5, {"type": "go", "n": 5}, node="node-1")  # decided at 105, node-2's by 104
    assert stale_acks([late], logs, leases) == 1


def test_failover_time_runs_from_the_kill_to_the_rooms_next_command() -> None:
    down = Takedown(0, "SIGKILL", "node-1", 101.5, {"r1": 1}, {"r1": 1}, moved={"r1"})
    logs = {"r1": _log({"type": "a"}, None, None, {"type": "b"})}  # a tick at 102 and 103
    assert failover_samples([down], logs) == [(0, 2.5)]
    assert failover_samples([down], {"r1": _log({"type": "a"})}) == [], "none since"


def test_kills_alternate_sigkill_and_sigstop() -> None:
    assert kill_signals(3) == ["SIGKILL", "SIGSTOP", "SIGKILL"]
    assert kill_signals(0) == []


def _report(**changes: Any) -> dict[str, Any]:
    report = {
        "rooms": 4, "kills": 1, "acked": 10, "acked_during_failover": 3, "acked_lost": 0,
        "forks": 0, "spectator_gaps": 0, "rooms_finished": 4, "player_errors": [],
        "failover_seconds": {"p50": 2.0, "max": 3.0, "samples": 2}, "takedowns": [],
    }  # fmt: skip
    return report | changes


def test_a_run_fails_on_each_broken_invariant_and_passes_otherwise() -> None:
    run = FailoverRun(rooms=4, kills=1, lease_ttl=1.0)
    assert failures(_report(), run) == []
    assert failures(_report(acked_lost=2), run) == ["acked_lost is 2, not 0"]
    assert failures(_report(rooms_finished=3), run) == ["rooms_finished is 3 of 4"]
    assert failures(_report(acked_during_failover=0), run) == [
        "no command was acknowledged during a failover"
    ]
    slow = _report(failover_seconds={"p50": 6.5, "max": 9.0, "samples": 2})
    assert failures(slow, run) == ["failover_seconds.p50 is 6.5, over 6 (lease TTL + 5 s)"]
    down = {"signal": "SIGKILL", "node": "node-2", "problems": ["it did not come back"]}
    assert failures(_report(takedowns=[down]), run) == [
        "kill SIGKILL of node-2: it did not come back"
    ]


def test_each_kill_says_how_many_of_its_moved_rooms_each_survivor_took(
    capsys: pytest.CaptureFixture[str],
) -> None:
    leases = {
        "r1": Lease("node-2", 2, True), "r2": Lease("node-3", 2, True),
        "r3": Lease("node-3", 3, True), "r4": Lease("node-1", 1, True),
    }  # fmt: skip
    assert new_owners({"r1", "r2", "r3"}, leases) == {"node-2": 1, "node-3": 2}
    down = Takedown(0, "SIGKILL", "node-1", 101.5, {"r1": 1, "r2": 1, "r3": 2, "r4": 1}, {})
    down.moved, down.moved_to, down.settle_seconds = {"r1", "r2", "r3"}, {"node-2": 1}, 5.5
    summary = takedown_summary(down, [(0, 6.0)], [])
    assert summary["moved_to"] == {"node-2": 1} and summary["moved"] == 3
    report = _report(
        nodes=3, lease_ttl=1.0, seed=1, seconds=60.0, rooms_moved=3, spectators=4, snapshots=2,
        takedowns=[summary], failed=[],
    )  # fmt: skip
    lumin.bench._print_failover(report)
    printed = capsys.readouterr().out
    assert "kill 1 (SIGKILL of node-1): 3 of 4 rooms moved, to node-2 1;" in printed
    assert "owners again after 5.5 s, back in play after max 6.0 s" in printed
