"""The game-agnostic sign-up server and clients runner over real TCP."""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import replace
from typing import Any, Callable, Sequence

import pytest

from gameroom.core.limits import Limits
from gameroom.core.hosting import ClientSpec, ServerPlan, SignupRules, name_rule
from gameroom.core.match import Match, Seat
from gameroom.server.clients import run_clients
from gameroom.server.host import host_game, host_game_on
from gameroom.server.signup import Signup

from tests.conftest import logged_lines
from tests.driver import free_port
from tests.remote.test_proxies import PROTOCOL, Doubler

# Short periods, many of them: a game of two starts at the end of the first period that has
# them, however late a loaded machine lets them sign up; one of three starts at once. A
# name has 2 s (an honest client sends it at once) and a call 5 s: only the clients that
# are meant to miss them wait them out.
RULES = SignupRules(min_players=2, max_players=3, periods=10, period_seconds=1.0,
                    name_first_byte=2.0, name_complete=2.0,
                    valid_name=name_rule(r"[a-zA-Z0-9]+", 20))
CALL_LIMIT = 5.0


def playing(limit: float = CALL_LIMIT) -> Callable[[Sequence[Seat]], Any]:
    """A one-round toy game, every call within ``limit`` seconds: everybody doubles its
    position; the largest answer wins."""
    def play(seats: Sequence[Seat]) -> Any:
        match = Match(PROTOCOL, seats, limits=Limits(call=limit))
        answers = {}
        for i, seat in enumerate(seats):
            value = match.call(seat, "double", i)
            if value:
                answers[seat.name] = value
        for seat in seats:
            match.call(seat, "bye")
        best = max(answers.values(), default=None)
        return [[n for n, v in answers.items() if v == best], match.misbehaved]
    return play


play = playing()


PLAN = ServerPlan(protocol=PROTOCOL, rules=RULES, play=play, no_game_result=[[], []], error_result=[[], []])


async def start_server(plan: ServerPlan = PLAN) -> tuple[int, asyncio.Task[Any]]:
    """``host_game_on(plan)`` on a port of this loop that already listens (the system's
    choice: nothing can take it between a probe and the bind); the port and its task."""
    signup = Signup(plan.rules, plan.protocol.greeting)
    await signup.listen("127.0.0.1", 0)
    return signup.port, asyncio.get_running_loop().create_task(host_game_on(signup, plan))


def session(specs: list[ClientSpec], plan: ServerPlan = PLAN) -> tuple[Any, list[Any]]:
    async def main() -> tuple[Any, list[Any]]:
        port, server = await start_server(plan)
        clients = await run_clients(specs, "127.0.0.1", port)
        return await asyncio.wait_for(server, 120), clients

    return asyncio.run(main())


def player(name: Any, delay: float = 0.05, **extra: Any) -> ClientSpec:
    return ClientSpec(name=name, player=Doubler(), protocol=PROTOCOL, delay=delay, **extra)


def test_max_players_start_the_game_at_once():
    result, clients = session([player("a"), player("b"), player("c")])
    assert result == [["c"], []]
    assert [c.ended for c in clients] == ["finished"] * 3


def test_bad_names_are_refused_and_the_rest_play():
    result, _ = session([player("no spaces"), player("λ"), player(17), player("x" * 21),
                         player("a"), player("b")])
    assert result == [["b"], []]


def test_silent_and_name_only_clients():
    # the silent client never becomes a player; the name-only one does and times out. The
    # period is long enough for the silent one's name time-out and the mute one's sign-up
    # to both fall inside it on a loaded machine (a 1 s period left 0.15 s to spare); the
    # mute one fills the game, which then starts at once.
    rules = replace(RULES, period_seconds=30.0)
    result, _ = session([player("a"), player("b"),
                         ClientSpec(name="quiet", behaviour="silent", delay=0.05),
                         ClientSpec(name="mute", behaviour="name-only", delay=0.1)], replace(PLAN, rules=rules))
    assert result == [["b"], ["mute"]]


def test_too_few_players_after_all_periods():
    result, _ = session([player("lonely")], replace(PLAN, rules=replace(RULES, periods=2)))
    assert result == [[], []]


def test_a_crashing_game_still_prints_a_result():
    def broken(_seats: Sequence[Seat]) -> Any:
        raise RuntimeError("internal error")

    plan = ServerPlan(protocol=PROTOCOL, rules=RULES, play=broken, no_game_result=[[], []],
                      error_result=[[], ["error"]])
    result, _ = session([player("a"), player("b")], plan)
    assert result == [[], ["error"]]


def test_many_games_in_one_process():
    """One asyncio process hosts several sign-ups and games at once."""

    async def main() -> list[Any]:
        started = [await start_server() for _ in range(3)]
        ports, games = [port for port, _ in started], [game for _, game in started]
        await asyncio.gather(*(run_clients([player(f"g{k}p{i}") for i in range(3)], "127.0.0.1", port)
                               for k, port in enumerate(ports)))
        return list(await asyncio.gather(*games))

    assert asyncio.run(main()) == [[["g0p2"], []], [["g1p2"], []], [["g2p2"], []]]


def test_sign_up_order_is_list_order_when_the_server_listens_late():
    """Clients retry their connections while the server is not listening yet; a client
    starts only once the one before it is connected, so they cannot overtake each other."""
    async def main() -> Any:
        port = free_port()   # nobody listens there yet (and nobody else is handed it)
        clients = asyncio.get_running_loop().create_task(
            run_clients([player("a", 0.3), player("b", 0.3), player("c", 0.3)], "127.0.0.1", port))
        await asyncio.sleep(2.5)   # "a" has been refused (and retries every second)
        result = await host_game(PLAN, port)
        await clients
        return result

    # the toy game's winner is the last in sign-up order (it doubles the largest position)
    assert asyncio.run(main()) == [["c"], []]


def test_sign_up_survives_an_error_it_did_not_foresee():
    """Issue 8: one connection must never end sign-up, whatever goes wrong with it (here
    the name check itself raises); the later players still sign up and play."""
    def valid(name: Any) -> bool:
        if name == "boom":
            raise RuntimeError("a check that breaks")
        return isinstance(name, str) and name.isalnum()

    rules = replace(RULES, valid_name=valid)
    plan = ServerPlan(protocol=PROTOCOL, rules=rules, play=play, no_game_result=[[], []], error_result=[[], []])
    result, clients = session([player("boom"), player("a"), player("b"), player("c")], plan)
    assert result == [["c"], []]
    assert clients[0].ended != "finished" and [c.ended for c in clients[1:]] == ["finished"] * 3


def test_deep_nesting_as_a_name_is_refused_and_sign_up_goes_on(caplog: pytest.LogCaptureFixture):
    """Issue 8, item 1, in process: the 100,000-deep name is refused with its reason."""
    caplog.set_level(logging.INFO, logger="gameroom.server")

    async def main() -> Any:
        port, server = await start_server()
        _reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"[" * 100_000)
        await run_clients([player("a"), player("b"), player("c")], "127.0.0.1", port)
        writer.close()
        return await asyncio.wait_for(server, 120)

    assert asyncio.run(main()) == [["c"], []]
    lines = [record.getMessage() for record in caplog.records if record.name == "gameroom.server.signup"]
    assert any("improper sign-up" in line and "nests deeper than 64 levels" in line for line in lines), lines


def _default_plan(game_name: str) -> ServerPlan:
    from gameroom.games import registry

    hosting = registry.game(game_name).hosting.server
    assert hosting is not None
    return hosting.plan(None, {**{o.name.replace("-", "_"): o.default for o in hosting.options}, "seed": 1})


@pytest.mark.parametrize("game, name, rule", [
    ("fish", "node-bot1", "1 to 12 ASCII letters"),
    ("q", "node-bot1", "1 to 20 ASCII letters or digits"),
    ("bazaar", "ouch ouch", "1 to 20 ASCII letters or digits"),
    ("evolution", 17, "a JSON string"),
])
def test_a_refused_name_is_logged_with_the_games_rule(game: str, name: Any, rule: str,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    """The specs send no reply to a name, so the server's line is where a refused client
    learns why: the name and what a name of this game is."""
    caplog.set_level(logging.INFO, logger="gameroom.server")
    plan = _default_plan(game)

    async def main() -> None:
        signup = Signup(plan.rules, plan.protocol.greeting)
        await signup.listen("127.0.0.1", 0)
        reader, writer = await asyncio.open_connection("127.0.0.1", signup.port)
        writer.write(json.dumps(name).encode() + b"\n")
        assert await asyncio.wait_for(reader.read(), 60) == b""   # refused: the server closed it
        writer.close()
        signup.close_all()
        signup.stop_listening()

    asyncio.run(main())
    lines = [line for line in logged_lines(caplog, "gameroom.server.signup") if "improper sign-up" in line]
    assert len(lines) == 1 and lines[0].endswith(f"invalid name {json.dumps(name)}: a name is {rule} "
                                                  f"({game}.md 7.{2 if game in ('q', 'bazaar') else 1})"), lines
