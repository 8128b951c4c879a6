"""``lumin verify``'s check (``server/verify.py``) on logs of real finished games: an honest
log verifies, and each way of tampering with one is named."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from engine.registry import game_ids
from server.replay import log_document
from server.verify import verify_document
from tests.server.finished import finished_game


def document(game_id: str = "flip_over_frog") -> dict[str, Any]:
    return log_document(*finished_game(game_id))


@pytest.mark.parametrize("game_id", game_ids())
def test_an_honest_log_of_every_game_verifies(game_id: str) -> None:
    log = document(game_id)
    report = verify_document(log)
    assert report.problems == ()
    assert report.ok and report.game == game_id
    assert report.records == len(log["records"]) > 0
    assert report.events == sum(len(r["events"]) for r in log["records"])


def test_a_seed_that_is_not_the_committed_one_is_named() -> None:
    log = document()
    log["salt"] = "00" * 16
    report = verify_document(log)
    assert not report.ok
    assert "the seed and salt do not match the room's published commitment" in report.problems


def test_a_changed_event_is_named_at_its_record() -> None:
    log = document()
    forged = copy.deepcopy(log)
    record = forged["records"][3]
    record["events"] = [*record["events"], record["events"][0]]
    report = verify_document(forged)
    assert report.problems == (
        f"record {record['seq']}: the rules give other events than the log records",
    )


def test_a_missing_record_is_named_by_its_position() -> None:
    log = document()
    del log["records"][2]
    (problem,) = verify_document(log).problems
    assert problem.startswith(f"record {log['records'][2]['seq']}: at log position")


def test_a_log_cut_short_is_named() -> None:
    log = document()
    log["records"] = log["records"][:-1]
    assert verify_document(log).problems == ("the log ends before the game does",)


def test_a_command_the_rules_refuse_is_named() -> None:
    log = document()
    record = log["records"][0]
    record["seat"] = 1 - record["seat"]  # the other player, out of turn
    (problem,) = verify_document(log).problems
    assert problem.startswith(f"record {record['seq']}: the rules refuse it (")


def test_a_live_games_log_checks_so_far_and_is_not_over() -> None:
    """The operator's log of a game under way (the admin API's, ``status`` ``playing``): what
    it holds so far replays exactly from the revealed seed, which is no mismatch; the report
    says the game is not over."""
    log = document()
    log["records"] = log["records"][: len(log["records"]) // 2]
    log["status"] = "playing"
    report = verify_document(log)
    assert report.problems == () and report.ok
    assert not report.over and report.status == "playing" and not report.sealed
    assert report.events == sum(len(r["events"]) for r in log["records"]) > 0


def test_a_live_log_that_does_not_replay_is_a_mismatch_all_the_same() -> None:
    log = document()
    log["records"] = log["records"][:6]
    log["status"] = "playing"
    record = log["records"][3]
    record["events"] = [*record["events"], record["events"][0]]
    report = verify_document(log)
    assert report.problems == (
        f"record {record['seq']}: the rules give other events than the log records",
    )


def test_a_finished_log_cut_short_is_named_whatever_its_status_says() -> None:
    log = document()
    log["records"] = log["records"][:-1]
    log["status"] = "finished"
    assert verify_document(log).problems == ("the log ends before the game does",)


def test_a_live_log_whose_seed_is_still_secret_checks_only_its_commitment() -> None:
    """A log of a game under way that keeps its seed and salt secret until the end: nothing
    can be recomputed yet, which is no mismatch."""
    log = document()
    log["records"] = log["records"][:4]
    log.update(status="playing", seed=None, salt=None)
    report = verify_document(log)
    assert report.problems == () and report.sealed and not report.over and report.events == 0


def test_a_claims_lag_credit_set_by_the_server_is_read_from_the_log() -> None:
    # Decisions 17: a flash's credit is a field only the server sets; the room's log records
    # it, and the verifier reads the log as the room's own record, as replays do.
    log = document("flash8")
    claims = [r for r in log["records"] if r["command"] and r["command"]["type"] == "flash"]
    assert claims, "the bots' race has claims"
    claims[0]["command"] = {**claims[0]["command"], "credit": 0.0, "rival_credit": 0.0}
    report = verify_document(log)
    assert report.problems == () and report.ok
