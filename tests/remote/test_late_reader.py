"""A worker that falls behind never charges its lateness to a bot: a reply that reached
this machine within the call's time limit is taken, however late the referee's thread
looks at the socket (real TCP on 127.0.0.1; the worker's lateness is a pause between
writing the call and reading the reply, as a descheduled thread on a loaded machine)."""

from __future__ import annotations

import json
import select
import socket
import struct
import threading
import time
from time import monotonic

import pytest

from gameroom.remote import blocking
from gameroom.remote.blocking import BlockingConnection
from gameroom.remote.errors import ReadTimeout
from gameroom.remote.jsonstream import JSONStreamDecoder, encode

LIMIT = 0.3


@pytest.fixture(autouse=True, scope="module")
def _stamps_in_force() -> None:
    """Wait until the kernel stamps packets as they arrive. Linux turns its receive
    timestamps on late (a deferred work item, which a loaded machine runs late) once a
    first socket asks for them; a reply arriving before that is stamped when read, as if
    it came late. The connections keep them on from then (``blocking._keep_stamps_on``)."""
    blocking._keep_stamps_on()
    receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    receiver.bind(("127.0.0.1", 0))
    receiver.setsockopt(socket.SOL_SOCKET, blocking._SO_TIMESTAMPNS, 1)
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        for _ in range(600):
            sender.sendto(b"x", receiver.getsockname())
            time.sleep(0.05)
            _data, ancillary, _flags, _address = receiver.recvmsg(16, blocking._STAMP_SPACE)
            stamps = [struct.unpack("ll", payload[:16]) for _level, _kind, payload in ancillary]
            if stamps and stamps[0][0] + stamps[0][1] / 1e9 < time.time() - 0.02:
                return   # stamped on arrival, not on reading
        pytest.fail("the kernel never stamped a packet on its arrival within 30 s")
    finally:
        sender.close()
        receiver.close()


def _pair(answer: bool, partial: bool = False) -> tuple[BlockingConnection, socket.socket, threading.Thread]:
    """A connection whose peer (a bot on a thread) answers each call at once (or never, or
    with half a value)."""
    listener = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(listener.getsockname())
    bot, _ = listener.accept()
    listener.close()

    def serve() -> None:
        while True:
            data = bot.recv(4096)
            if not data:
                return
            if answer:
                bot.sendall(b'{"half": ' if partial else json.dumps({"echo": json.loads(data)}).encode() + b"\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return BlockingConnection(client, JSONStreamDecoder()), bot, thread


@pytest.mark.parametrize("late", [3 * LIMIT, 10 * LIMIT])
def test_a_reply_that_arrived_in_time_is_taken_however_late_the_worker_reads(late: float) -> None:
    connection, bot, _ = _pair(answer=True)
    connection.send_raw(encode([1, 2]), None, "")
    # the reply is on this machine before the call's time starts (however loaded the
    # machine, it is in time), then the worker falls behind: its thread does not run
    assert select.select([connection._sock], [], [], 60)[0]
    deadline = monotonic() + LIMIT
    time.sleep(late)
    assert monotonic() > deadline
    assert connection.read_value(deadline, "no reply") == {"echo": [1, 2]}
    connection.close()
    bot.close()


def test_a_bot_that_does_not_answer_still_times_out() -> None:
    connection, bot, _ = _pair(answer=False)
    deadline = monotonic() + LIMIT
    connection.send_raw(encode([1]), deadline, "late")
    time.sleep(2 * LIMIT)
    with pytest.raises(ReadTimeout, match="no reply"):
        connection.read_value(deadline, "no reply")
    connection.close()
    bot.close()


def test_half_a_reply_by_the_deadline_is_a_time_out() -> None:
    connection, bot, _ = _pair(answer=True, partial=True)
    deadline = monotonic() + LIMIT
    connection.send_raw(encode([1]), deadline, "late")
    time.sleep(2 * LIMIT)
    with pytest.raises(ReadTimeout):
        connection.read_value(deadline, "no reply")
    connection.close()
    bot.close()


def test_a_reply_that_arrived_late_is_late_however_late_the_worker_reads() -> None:
    """The bot answers after the deadline; the worker reads later still: the kernel's
    receive timestamp says the reply was late, so the call times out."""
    listener = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(listener.getsockname())
    bot, _ = listener.accept()
    listener.close()

    def answer_late() -> None:
        bot.recv(4096)
        time.sleep(2 * LIMIT)
        bot.sendall(b'"late"\n')

    threading.Thread(target=answer_late, daemon=True).start()
    connection = BlockingConnection(client, JSONStreamDecoder())
    deadline = monotonic() + LIMIT
    connection.send_raw(encode([1]), deadline, "late")
    time.sleep(5 * LIMIT)   # the worker looks only now; the late reply is in the buffer
    with pytest.raises(ReadTimeout):
        connection.read_value(deadline, "no reply")
    connection.close()
    bot.close()
