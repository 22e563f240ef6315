"""Checks judged off the loop (``server.lobby_checks``): a question crosses to the judging
process and comes back with the answers the game's own rules give in process; one that
does not pickle is judged on a thread; a check that fails is a refusal, not a crash; a
process that ends is replaced by the next question. A real judging process."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from gameroom.core.composed import composed_problem
from gameroom.games import registry
from gameroom.games.q import codec
from gameroom.server.lobby_checks import NOT_OFFERED, CheckFailed, Judges, Question
from tests.web.test_composed_moves import two_tile_turn


def _broken(method: str, args: tuple[Any, ...], answer: Any) -> str | None:
    raise RuntimeError("a rule's bug")


@pytest.fixture(scope="module")
def judges() -> Any:
    made = Judges()
    yield made
    made.close()


def question(check: Any) -> tuple[Question, list[Any]]:
    pub, two = two_tile_turn()
    game = registry.game("q")
    offered = [action for _, action in game.moves("take_turn", (pub,)) or []]
    crooked = (two[0], type(two[1])((two[0].coord[0] + 1, two[0].coord[1] + 1), two[1].tile))
    answers = [offered[0], codec.encode_choice(two), codec.encode_choice(crooked), {"not": "a turn"}]
    return Question("q", "take_turn", (pub,), offered, check), answers


def test_a_question_is_judged_in_the_process_as_the_rules_judge_it_here(judges: Judges) -> None:
    asked, answers = question(registry.game("q").check)
    spec = registry.game("q").protocol.by_name["take_turn"]
    here = [None if a in asked.offered else composed_problem(spec, asked.args, a, asked.check) for a in answers]
    there = asyncio.run(judges.problems(asked, answers))
    assert there == here and there[0] is None and there[1] is None and there[2] and there[3], there
    assert asked.packed() is not None   # pickled once, kept for the call's next questions


def test_a_question_that_does_not_pickle_is_judged_on_a_thread(judges: Judges) -> None:
    asked, answers = question(lambda method, args, answer: "no")   # a lambda does not pickle
    assert asked.packed() is None
    judged = asyncio.run(judges.problems(asked, answers))
    assert judged[:3] == [None, "no", "no"] and judged[3].startswith("$: expected"), judged   # the codec's words
    unchecked, _ = question(None)
    assert asyncio.run(judges.problems(unchecked, answers[1:2])) == [NOT_OFFERED]


def test_a_failing_check_is_refused_and_a_dead_process_replaced(judges: Judges) -> None:
    asked, answers = question(_broken)
    with pytest.raises(CheckFailed, match="the check failed: RuntimeError: a rule's bug"):
        asyncio.run(judges.problems(asked, answers[1:2]))
    worker = judges._process()
    worker.process.kill()
    worker.process.wait(30)
    good, answers = question(registry.game("q").check)
    assert asyncio.run(judges.problems(good, answers[1:2])) == [None]   # a new process judges the next
    assert judges._process() is not worker
