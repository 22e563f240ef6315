"""The first program of a bubblewrap sandbox not started by root: open the bot's game port
inside, set its limits, become the bot.

Run as a script, never imported by gameroom (``python -I -S launcher.py SPEC -- ARGV...``,
standard library only, so it starts in about 12 ms and needs nothing but the interpreter
and this file inside the sandbox). Root does without it (``sandbox.confine``: the league
makes the socket in the bot's namespace itself and ``setpriv`` changes the user), as it
cannot enter another namespace otherwise. ``SPEC`` is a JSON object:

* ``limits``: ``{"cpu": s, "as": bytes, "nproc": n, "fsize": bytes, "nofile": n}``, set
  with ``setrlimit`` here, before the bot's code runs (each key optional);
* ``listen``: a port to listen on at 127.0.0.1 and ``ctl``, an inherited Unix socket: the
  listening socket is sent back over ``ctl`` (``SCM_RIGHTS``). Inside a network namespace
  of its own (bubblewrap's ``--unshare-net``) this is how the game connection gets in:
  the bot connects to its own loopback and the league accepts on the socket it received,
  so no byte of a call is relayed;
* ``nice``: how much to lower the bot's scheduling priority;
* ``keep``: file descriptors the bot inherits (the isolated player's pipe);
* ``uid``: the bot's own user and group (inside bubblewrap started by root where
  ``setpriv`` is missing: bubblewrap left this launcher only the capabilities to change
  them, and they go with the change);

Then it replaces itself with ARGV (``execv``, the path already resolved by the league).
When that fails it says why on standard error (which the league keeps) and exits 127.
"""

import json
import os
import resource
import socket
import sys

_LIMITS = {"cpu": resource.RLIMIT_CPU, "as": resource.RLIMIT_AS, "nproc": resource.RLIMIT_NPROC,
           "fsize": resource.RLIMIT_FSIZE, "nofile": resource.RLIMIT_NOFILE, "core": resource.RLIMIT_CORE}


def main(argv: list[str]) -> int:
    spec = json.loads(argv[1])
    command = argv[3:]
    if "listen" in spec:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", int(spec["listen"])))
        listener.listen(8)
        with socket.socket(fileno=int(spec["ctl"])) as ctl:
            socket.send_fds(ctl, [b"listening"], [listener.fileno()])
        listener.close()
    for fd in spec.get("keep", ()):
        os.set_inheritable(int(fd), True)
    if "uid" in spec:
        os.setgroups([])
        os.setgid(int(spec["uid"]))
        os.setuid(int(spec["uid"]))
    limits = dict(spec.get("limits", {}))
    if spec.get("nice"):
        os.nice(int(spec["nice"]))
    for name, value in limits.items():
        value = int(value)
        # CPU: SIGXCPU at the limit, SIGKILL a second later should the bot ignore it
        resource.setrlimit(_LIMITS[name], (value, value + 1 if name == "cpu" else value))
    try:
        os.execv(command[0], command)
    except OSError as exc:
        print(f"gameroom sandbox: cannot run {command[0]!r}: {exc.strerror}", file=sys.stderr, flush=True)
    return 127


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
