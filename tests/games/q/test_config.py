"""Configuration files (8.1-8.4): defaults, exact keys, paths in errors, round trips."""

from __future__ import annotations

import json
import logging
from collections import Counter

import pytest

from gameroom.core.wire import WireError
from gameroom.games.q import config as qc
from gameroom.games.q.actors import ActorSpec
from gameroom.games.q.pieces import full_set
from tests.conftest import logged_lines
from tests.games.q.helpers import T
from tests.games.q.test_codec import SPEC_STATE

REF_SPEC = {"state0": SPEC_STATE, "quiet": True, "config-s": {"qbo": 8, "fbo": 4},
            "per-turn": 6, "observe": False}
SERVER = {"port": 45678, "server-tries": 2, "server-wait": 20, "wait-for-signup": 2,
          "quiet": True, "ref-spec": REF_SPEC}
CLIENT = {"host": "127.0.0.1", "port": 45678, "quiet": True, "wait": 2,
          "players": [["A", "dag"], ["xnW", "ldasg", "win"], ["infO", "ldasg", "win", 1]]}


def test_defaults() -> None:
    assert qc.RefereeStateConfig() == qc.RefereeStateConfig(6, 6)
    ref = qc.RefereeConfig()
    assert ref.quiet and not ref.observe and ref.per_turn == 6 and ref.config_s.qbo == 6
    assert ref.state0.players == [] and ref.state0.qmap.to_dict() == {(0, 0): T("red star")}
    assert Counter(ref.state0.pile) == Counter(full_set())
    assert list(qc.default_state0(3).pile) == list(qc.default_state0(3).pile)
    assert list(qc.default_state0(3).pile) != list(qc.default_state0(4).pile)
    server = qc.ServerConfig()
    assert (server.port, server.server_tries, server.server_wait, server.wait_for_signup,
            server.quiet) == (45678, 2, 20, 2, True)
    client = qc.ClientConfig()
    assert (client.port, client.host, client.wait, client.quiet, client.players) == (
        45678, "127.0.0.1", 2, True, ())


def test_server_config() -> None:
    s = qc.decode_server_config(SERVER)
    assert s.ref_spec is not None and s.ref_spec_error is None
    assert s.ref_spec.config_s == qc.RefereeStateConfig(8, 4)
    assert [p.name for p in s.ref_spec.state0.players] == ["A", "B"]
    assert qc.encode_server_config(s) == SERVER
    with pytest.raises(WireError, match="unexpected key"):
        qc.decode_server_config({**SERVER, "extra": 1})
    with pytest.raises(WireError) as info:
        qc.decode_server_config({**SERVER, "server-wait": "20"})
    assert info.value.where == "$.server-wait"


def test_an_invalid_ref_spec_alone_is_recorded_not_raised() -> None:
    bad = {**SERVER, "ref-spec": {**REF_SPEC, "per-turn": 0}}
    s = qc.decode_server_config(bad)
    assert s.ref_spec is None and "$.ref-spec.per-turn" in (s.ref_spec_error or "")
    with pytest.raises(WireError):
        qc.decode_server_config(bad, strict_ref_spec=True)
    no_players = {**SERVER, "ref-spec": {**REF_SPEC, "state0": {**SPEC_STATE, "players": []}}}
    assert qc.decode_server_config(no_players).ref_spec is None


def test_referee_config() -> None:
    r = qc.decode_referee_config(REF_SPEC)
    assert r.per_turn == 6 and r.quiet and not r.observe
    assert qc.encode_referee_config(r) == REF_SPEC
    assert qc.decode_referee_config({**REF_SPEC, "per-turn": 0.5}).per_turn == 0.5
    for key, value, where in [("config-s", {"qbo": 8}, "$.config-s"),
                              ("config-s", {"qbo": -1, "fbo": 4}, "$.config-s.qbo"),
                              ("quiet", "yes", "$.quiet"), ("observe", 1, "$.observe"),
                              ("per-turn", -6, "$.per-turn")]:
        with pytest.raises(WireError) as info:
            qc.decode_referee_config({**REF_SPEC, key: value})
        assert info.value.where == where


def test_client_config() -> None:
    c = qc.decode_client_config(CLIENT)
    assert c.players == (ActorSpec("A", "dag"), ActorSpec("xnW", "ldasg", exn="win"),
                         ActorSpec("infO", "ldasg", exn="win", loop_count=1))
    assert qc.encode_client_config(c) == CLIENT
    lax = {**CLIENT, "players": [["ouch ouch", "dag"], ["λ", "dag"]]}
    with pytest.raises(WireError) as info:
        qc.decode_client_config(lax)
    assert info.value.where == "$.players[0][0]"
    assert [p.name for p in qc.decode_client_config(lax, lax_names=True).players] == [
        "ouch ouch", "λ"]
    with pytest.raises(WireError, match="missing key"):
        qc.decode_client_config({k: v for k, v in CLIENT.items() if k != "wait"})
    assert json.loads(json.dumps(qc.encode_client_config(qc.ClientConfig()))) == {
        "port": 45678, "host": "127.0.0.1", "wait": 2, "quiet": True, "players": []}


def test_observe_in_the_ref_spec_only_earns_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    """q.md 8.2: the JSON flag cannot switch an observer on; true produces a warning."""
    from dataclasses import replace

    from gameroom.games.q.config import RefereeConfig, ServerConfig
    from gameroom.games.q.hosting import server_plan

    caplog.set_level(logging.INFO, logger="gameroom")
    server_plan(ServerConfig(ref_spec=replace(RefereeConfig(), observe=True)))
    warned = logged_lines(caplog, "gameroom.games.q")
    assert len(warned) == 1 and "observe" in warned[0]
    caplog.clear()
    server_plan(ServerConfig())
    silent = logged_lines(caplog, "gameroom.games.q")
    assert silent == []
