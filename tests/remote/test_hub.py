"""Many referees as greenlets on one hub thread (``gameroom.remote.hub``), over real TCP on
127.0.0.1: every guarantee of a referee thread holds when one loop serves every game — a
call that overruns its limit is cut off at the limit while the other games go on, a
reader that does not read cannot stretch a call, a client that vanishes mid-call is a
disconnect, and a reply that arrived in time counts however late the hub looks."""

from __future__ import annotations

import json
import queue
import select
import socket
import threading
import time
from time import monotonic
from typing import Any, Callable

import pytest

from gameroom.remote.errors import ConnectionClosed, ReadTimeout
from gameroom.remote.hub import Hub, HubConnection
from gameroom.remote.jsonstream import JSONStreamDecoder, encode

LIMIT = 0.5
WAIT = 120   # how long a test waits for an outcome that must come (never reached when it works)


def _pair(hub: Hub) -> tuple[HubConnection, socket.socket]:
    """A hub connection (the server's end) and the client's socket."""
    listener = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(listener.getsockname())
    ours, _ = listener.accept()
    listener.close()
    return HubConnection(ours, JSONStreamDecoder(), hub), client


def _echo(client: socket.socket, answer: Callable[[Any], bytes | None] | None = None) -> threading.Thread:
    """A client on a thread that answers each call line (by default with ``{"echo": call}``;
    ``answer`` returning None: no answer)."""
    def serve() -> None:
        buffer = b""
        try:
            while True:
                data = client.recv(65536)
                if not data:
                    return
                buffer += data
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    call = json.loads(line)
                    reply = encode({"echo": call}) if answer is None else answer(call)
                    if reply is not None:
                        client.sendall(reply)
        except OSError:
            return

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


def _run(hub: Hub, fn: Callable[..., Any], *args: Any) -> queue.SimpleQueue[tuple[bool, Any]]:
    """Start ``fn(*args)`` as a referee on the hub; its outcome arrives on the queue."""
    outcome: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()
    hub.submit(fn, args, lambda ok, value: outcome.put((ok, value)))
    return outcome


def test_calls_and_replies_on_the_hub() -> None:
    hub = Hub()
    connection, client = _pair(hub)
    _echo(client)
    outcome = _run(hub, lambda: [connection.request(encode([i, "x" * i]), LIMIT * 20) for i in range(200)])
    ok, replies = outcome.get(timeout=WAIT)
    assert ok, replies
    assert replies == [{"echo": [i, "x" * i]} for i in range(200)]
    connection.close()
    client.close()


def test_an_overrunning_call_is_cut_off_at_its_limit_while_the_other_games_go_on() -> None:
    """Fifty games on one hub; one client never answers. Its call times out with the
    reason, no earlier than its limit; the other games keep calling meanwhile and after."""
    hub = Hub()
    silent, silent_client = _pair(hub)
    _echo(silent_client, answer=lambda _call: None)
    timed_out = threading.Event()

    def silent_game() -> tuple[str, float]:
        start = monotonic()
        with pytest.raises(ReadTimeout) as caught:
            silent.request(encode(["play"]), LIMIT)
        spent = monotonic() - start
        timed_out.set()
        return str(caught.value), spent

    def honest_game(connection: HubConnection) -> int:
        calls = 0
        # calls until the silent game has timed out, then ten more: the loop never waited
        # for the silent client, and goes on after its time-out
        after = None
        while after is None or calls < after + 10:
            if after is None and timed_out.is_set():
                after = calls
            assert connection.request(encode(["turn", calls]), LIMIT * 20) == {"echo": ["turn", calls]}
            calls += 1
        return calls

    pairs = [_pair(hub) for _ in range(49)]
    for _connection, client in pairs:
        _echo(client)
    silent_outcome = _run(hub, silent_game)
    outcomes = [_run(hub, honest_game, connection) for connection, _client in pairs]
    ok, (reason, spent) = silent_outcome.get(timeout=WAIT)
    assert ok
    assert reason == f"no complete reply within the time limit of {LIMIT:g} s"
    assert spent >= LIMIT
    for outcome in outcomes:
        ok, calls = outcome.get(timeout=WAIT)
        assert ok, calls
        assert calls >= 10
    for connection, client in [*pairs, (silent, silent_client)]:
        connection.close()
        client.close()


def test_a_client_that_does_not_read_cannot_stretch_a_call() -> None:
    """The call is larger than every buffer between the two ends and the client never
    reads: the send waits for room only until the call's deadline."""
    hub = Hub()
    connection, client = _pair(hub)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    big = ["x" * (16 << 20)]   # 16 MB: far more than the kernel buffers hold
    outcome = _run(hub, lambda: connection.request(encode(big), LIMIT))
    ok, error = outcome.get(timeout=WAIT)
    assert not ok
    assert isinstance(error, ReadTimeout)
    assert str(error) == f"no complete reply within the time limit of {LIMIT:g} s"
    connection.close()
    client.close()


@pytest.mark.parametrize("half", [False, True])
def test_a_client_that_vanishes_mid_call_is_a_disconnect(half: bool) -> None:
    """The client reads the call and hangs up (after half a reply, or none): the call
    fails at once as a closed connection, long before its limit."""
    hub = Hub()
    connection, client = _pair(hub)

    def vanish() -> None:
        client.recv(65536)
        if half:
            client.sendall(b'{"half": ')
        client.close()

    threading.Thread(target=vanish, daemon=True).start()
    outcome = _run(hub, lambda: connection.request(encode(["play"]), WAIT))
    ok, error = outcome.get(timeout=WAIT)
    assert not ok
    assert isinstance(error, ConnectionClosed)
    assert str(error) == ("the peer closed the connection in the middle of a value" if half
                          else "the peer closed the connection")
    connection.close()


def test_a_reply_that_arrived_in_time_counts_however_late_the_hub_looks() -> None:
    """One game's referee holds the hub (a busy rules engine, a descheduled thread) until
    past another game's deadline; that game's reply reached the machine in time, so the
    call succeeds when the hub gets to it."""
    hub = Hub()
    connection, client = _pair(hub)
    _echo(client)
    waiting = threading.Event()

    def waiting_game() -> Any:
        connection.send_raw(encode(["play"]), None, "")
        # the reply is on this machine before the call's time starts (however loaded the
        # machine, it is in time); then the hub looks only after the deadline
        assert select.select([connection._sock], [], [], WAIT)[0]
        deadline = monotonic() + LIMIT
        waiting.set()
        return connection.read_value(deadline, "no reply"), deadline

    def hogging_game() -> None:
        waiting.wait(WAIT)
        time.sleep(3 * LIMIT)   # holds the hub's thread: no other referee runs meanwhile

    outcome = _run(hub, waiting_game)
    hog = _run(hub, hogging_game)
    ok, (value, deadline) = outcome.get(timeout=WAIT)
    assert ok
    assert value == {"echo": ["play"]}
    assert hog.get(timeout=WAIT)[0]
    connection.close()
    client.close()


def test_a_reply_that_arrived_late_is_late_however_late_the_hub_looks() -> None:
    """The client answers after the deadline and the hub looks later still: the kernel's
    receive timestamp says the reply was late, so the call times out."""
    hub = Hub()
    connection, client = _pair(hub)
    answered = threading.Event()

    def answer_late() -> None:
        client.recv(65536)
        time.sleep(2 * LIMIT)
        client.sendall(b'"late"\n')
        answered.set()

    threading.Thread(target=answer_late, daemon=True).start()

    def game() -> Any:
        deadline = monotonic() + LIMIT
        connection.send_raw(encode(["play"]), deadline, "late")
        answered.wait(WAIT)   # the hub is held until the late reply is in the buffer
        assert select.select([connection._sock], [], [], WAIT)[0]
        return connection.read_value(deadline, "no reply")

    ok, error = _run(hub, game).get(timeout=WAIT)
    assert not ok
    assert isinstance(error, ReadTimeout)
    connection.close()
    client.close()


def test_closing_from_another_thread_wakes_a_waiting_referee() -> None:
    """The server's loop closes a connection (a shutdown) while its referee waits on it
    with no limit: the referee wakes at once with a closed connection."""
    hub = Hub()
    connection, client = _pair(hub)
    sent = threading.Event()

    def game() -> Any:
        connection.send_raw(encode(["play"]), None, "")
        sent.set()
        return connection.read_value(None, "")

    outcome = _run(hub, game)
    assert sent.wait(WAIT)
    client.recv(65536)   # the call arrived: the referee is waiting (or about to)
    connection.close()
    ok, error = outcome.get(timeout=WAIT)
    assert not ok
    assert isinstance(error, (ConnectionClosed, OSError))
    client.close()


def test_a_referee_that_raises_is_reported_and_the_hub_goes_on() -> None:
    hub = Hub()

    def broken() -> None:
        raise ValueError("the rules broke")

    ok, error = _run(hub, broken).get(timeout=WAIT)
    assert not ok
    assert isinstance(error, ValueError)
    assert _run(hub, lambda: 42).get(timeout=WAIT) == (True, 42)


def test_a_hub_connection_refuses_a_thread_that_is_not_its_hubs() -> None:
    """A plan that says it runs on one thread but calls from a thread of its own gets a
    clear error (never a silent block of the hub)."""
    hub = Hub()
    connection, client = _pair(hub)
    with pytest.raises(RuntimeError, match="off its hub's thread"):
        connection.request(encode(["play"]), LIMIT)
    connection.close()
    client.close()
