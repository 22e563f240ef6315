"""Simultaneous requests for one thing (issue 34, finding 2): ten accounts redeeming one
invite code at the same moment, ten sign-ups of one name, ten joins of one account — on a
real SQLite file and on a real PostgreSQL server, from real threads released together.
Exactly one wins each round; every loser gets the refusal that names why (409), never a
database error."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gameroom.arena.tables import InviteRefused, MemberRow, make_invites, redeem
from gameroom.league.db import open_database
from gameroom.web.account_rows import DatabaseAccounts
from gameroom.web.accounts import Account, AccountError

RACERS = 10
ROUNDS = 8


def together(work: Callable[[int], Any], count: int = RACERS) -> list[Any]:
    """``work(i)`` on ``count`` threads released at once: each one's value or exception."""
    gate = threading.Barrier(count)
    outcomes: list[Any] = [None] * count

    def run(i: int) -> None:
        gate.wait()
        try:
            outcomes[i] = work(i)
        except Exception as exc:   # noqa: BLE001 -- the outcome under test
            outcomes[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return outcomes


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "sqlite":
        return open_database(f"sqlite:///{tmp_path / 'races.db'}")
    return open_database(request.getfixturevalue("postgres_url"))


def test_ten_accounts_redeeming_one_code_at_once_one_gets_in(database: Any) -> None:
    for round_ in range(ROUNDS):
        code = make_invites(database, "c", 1)[0]
        outcomes = together(lambda i, code=code, r=round_: redeem(database, code, f"r{r}-account{i}"))
        winners = [o for o in outcomes if o == "c"]
        losers = [o for o in outcomes if isinstance(o, InviteRefused)]
        assert len(winners) == 1 and len(losers) == RACERS - 1, outcomes
        assert all(o.status == 409 and "used already" in str(o) for o in losers)
        with Session(database) as session:
            members = session.scalar(select(func.count()).select_from(MemberRow)
                                     .where(MemberRow.account_key.like(f"r{round_}-%")))
        assert members == 1
    with pytest.raises(InviteRefused) as refused:
        redeem(database, "never-made-code", "someone")
    assert refused.value.status == 404


def test_one_account_redeeming_ten_codes_of_one_competition_is_one_member(database: Any) -> None:
    codes = make_invites(database, "c", RACERS)
    outcomes = together(lambda i: redeem(database, codes[i], "same-account"))
    assert outcomes == ["c"] * RACERS, outcomes
    with Session(database) as session:
        assert session.scalar(select(func.count()).select_from(MemberRow)
                              .where(MemberRow.account_key == "same-account")) == 1


def test_ten_sign_ups_of_one_name_at_once_make_one_account(database: Any) -> None:
    accounts = DatabaseAccounts(database, "the test's database")
    for round_ in range(3):
        outcomes = together(lambda i, r=round_: accounts.add(Account(f"Name{r}", f"name{r}", f"stamp{i}"), "hash"))
        assert outcomes.count(None) == 1, outcomes
        refusals = [o for o in outcomes if o is not None]
        assert all(isinstance(o, AccountError) and o.status == 409 for o in refusals), refusals
