"""Hostile program bots of finding 4 (issue 17), for the hostile benchmark
(``bench.hostile_bots``) and the sandbox tests: ``python3 attack_program.py KIND PORT
[ARGUMENT]``. A script run as a league's program bot, never imported.

Each but ``crash`` signs up like a real client; then, on its first call:

* ``escape`` — double-forks a child that calls ``setsid`` and sleeps forever, then plays
  the whole game legally with the example client's answers (ARGUMENT: the path of
  ``examples/bots/python_bot.py``; not Evolution);
* ``write`` — writes files without end into its temporary directory, its working
  directory and the directories of ARGUMENT (``:``-separated), at most 8 files each,
  saying on stderr how many bytes it wrote after each file and, at the end, the total
  and its temporary directory, then exits with status 1;
* ``connect`` — connects to 127.0.0.1:ARGUMENT (a port of the host), says on stderr what
  happened, then exits with status 2;
* ``bomb`` — forks without end (every process forks again), never answering;
* ``spin`` — spins the CPU, never answering.

``crash`` writes a line with HTML in it on stderr and exits with status 3 before signing up.
The script's path is in the command line of every process it makes (the tests' marker).
"""

import json
import os
import socket
import sys
import time

kind, port = sys.argv[1], int(sys.argv[2])
argument = sys.argv[3] if len(sys.argv) > 3 else ""
if kind == "crash":
    print("hostile bot: cannot start <img src=x onerror=alert(1)> & giving up", file=sys.stderr, flush=True)
    sys.exit(3)
connection = socket.create_connection(("127.0.0.1", port))
stream = connection.makefile("rwb")
stream.write(json.dumps(os.environ.get("GAMEROOM_NAME", kind)).encode() + b"\n")
stream.flush()

if kind == "escape":
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            while True:
                time.sleep(1)
        os._exit(0)
    os.wait()
    import importlib.util

    spec = importlib.util.spec_from_file_location("example", argument)
    assert spec is not None and spec.loader is not None, f"{argument} is not a Python file"
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    game = os.environ.get("GAMEROOM_GAME", "q")
    for method, args in example.messages(connection):
        connection.sendall(json.dumps(example.answer(game, method, args)).encode() + b"\n")
        if method in ("win", "end"):
            break
    sys.exit(0)
stream.readline()   # the first call
if kind == "write":
    total = 0
    chunk = b"x" * (1 << 20)
    places = (os.environ.get("TMPDIR", "/tmp"), os.getcwd(), *argument.split(":"))
    for place, directory in enumerate(places):
        for number in range(8):
            try:   # a new file each time: what is counted is what stays written
                with open(os.path.join(directory, f"hostile-fill-{os.getpid()}-{place}-{number}"), "wb") as out:
                    while True:
                        total += out.write(chunk)
                        out.flush()
            except OSError as exc:
                print(f"{directory}: {exc.strerror}; wrote {total} bytes", file=sys.stderr, flush=True)
                if exc.errno not in (27, 28):   # EFBIG: a new file; ENOSPC and others: the next place
                    break
    print(f"wrote {total} bytes in all; TMPDIR={os.environ.get('TMPDIR')}", file=sys.stderr, flush=True)
    sys.exit(1)
elif kind == "connect":
    try:
        socket.create_connection(("127.0.0.1", int(argument)), timeout=5).close()
        print(f"connected to 127.0.0.1:{argument}", file=sys.stderr, flush=True)
    except OSError as exc:
        print(f"could not connect to 127.0.0.1:{argument}: {exc}", file=sys.stderr, flush=True)
    sys.exit(2)
elif kind == "bomb":
    while True:
        try:
            os.fork()
        except OSError:
            time.sleep(0.01)
elif kind == "spin":
    while True:
        pass
