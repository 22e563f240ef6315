"""A listening socket made inside another process's network namespace (Linux, as root).

A bubblewrapped bot has a network namespace of its own with nothing in it but its
loopback. :func:`listen_inside` enters that namespace on the calling thread only
(``setns``: a namespace is a thread's, so the rest of the process stays where it is),
binds and listens on ``127.0.0.1:port`` as soon as bubblewrap has given the loopback its
address (it does so while setting up, which the league does not wait for: until then
the bind is retried), and comes back: the
socket stays in the bot's namespace, so the bot connects to its own 127.0.0.1 and the
league accepts on the socket, with nothing relayed. Entering a network namespace needs
CAP_SYS_ADMIN, i.e. root (``sandbox.confine`` uses the launcher's hand-over otherwise).
"""

from __future__ import annotations

import ctypes
import errno
import os
import socket
import time

__all__ = ["listen_inside"]

CLONE_NEWNET = 0x40000000

_libc = ctypes.CDLL(None, use_errno=True)


def _enter(fd: int) -> None:
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"setns: {os.strerror(number)}")


def _bind(port: int, backlog: int, seconds: float) -> socket.socket:
    deadline = time.monotonic() + seconds
    while True:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            listener.bind(("127.0.0.1", port))
            listener.listen(backlog)
            return listener
        except OSError as exc:
            listener.close()
            if exc.errno != errno.EADDRNOTAVAIL or time.monotonic() > deadline:
                raise
        time.sleep(0.001)   # the loopback has no address yet


def listen_inside(pid: int, port: int, seconds: float = 10.0, backlog: int = 8) -> socket.socket:
    """A socket listening on 127.0.0.1:``port`` in the network namespace of ``pid``
    (waiting up to ``seconds`` for its loopback)."""
    ours = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    theirs = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY)
    try:
        _enter(theirs)
        try:
            listener = _bind(port, backlog, seconds)
        finally:
            _enter(ours)
    finally:
        os.close(theirs)
        os.close(ours)
    return listener
