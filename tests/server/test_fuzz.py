"""Fuzzing every referee server: bad sign-ups and bad replies to every method, drawn by
hypothesis, beside games that must all end with a printed result.

Each example runs one server process per game (``gameroom.server.many``, the game's own
server plan, several games per process): one game receives bad sign-ups, and one game
per method has a player that answers that method with a bad message. The server must
not crash, must print every game's result, and must eject each offender with its reason
(``gameroom.bench.fuzz.run_round`` checks all three). The long run with 100,000 messages
is ``python -m gameroom.bench fuzz``.
"""

from __future__ import annotations

import asyncio

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameroom.bench import fuzz, payloads
from gameroom.games import registry
from gameroom.remote.jsonstream import DEFAULT_MAX_VALUE_BYTES, MAX_DEPTH
from gameroom.server.signup import SIGNUP_MAX_VALUE_BYTES

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                    | st.text(max_size=12),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                    max_leaves=10)


def bad_messages(limit: int) -> st.SearchStrategy[bytes]:
    """Every kind of bad message (``gameroom.bench.payloads``) with drawn parameters."""
    return st.one_of(
        st.builds(payloads.malformed, st.text(max_size=40), st.integers(0, 20)),
        st.builds(payloads.truncated, JSON, st.integers(1, 300)),
        st.builds(payloads.oversized, st.just(limit), st.integers(1, 5000)),
        st.builds(payloads.nested, st.integers(MAX_DEPTH + 1, 3000), st.booleans()),
        st.builds(payloads.wrong_type, JSON),
        st.builds(payloads.invalid_utf8, st.text(alphabet="ab c", max_size=10), st.sampled_from(payloads.BAD_UTF8)),
    )


def test_every_server_has_fuzz_targets() -> None:
    served = fuzz.served_games()
    assert {"q", "bazaar", "fish", "evolution"} <= set(served)
    for name in served:
        assert fuzz.reply_methods(registry.game(name).protocol)


@settings(max_examples=3, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_bad_messages_at_sign_up_and_every_method(data: st.DataObject) -> None:
    rounds = {}
    for name in fuzz.served_games():
        signups = data.draw(st.lists(bad_messages(SIGNUP_MAX_VALUE_BYTES).filter(
            lambda payload, name=name: fuzz.bad_signup(name, payload)), min_size=1, max_size=4), label=f"{name} sign-ups")
        cases = [fuzz.GameCase(signups)]
        for method in fuzz.reply_methods(registry.game(name).protocol):
            payload = data.draw(bad_messages(DEFAULT_MAX_VALUE_BYTES), label=f"{name} {method.wire}")
            cases.append(fuzz.GameCase([], method.wire, payload, must_eject=fuzz.bad_reply(method, payload)))
        rounds[name] = cases

    async def all_rounds() -> list[fuzz.RoundReport]:
        return list(await asyncio.gather(*(fuzz.run_round(name, cases, seed=7) for name, cases in rounds.items())))

    for report in asyncio.run(all_rounds()):
        assert report.crashed is None, report
        assert report.lost == 0 and report.results == report.games, report
        assert not report.unejected, report
        assert report.improper >= report.signups, report
