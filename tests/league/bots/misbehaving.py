"""Misbehaving program bots for the league tests: ``python3 misbehaving.py KIND PORT``.

Each signs up like a real client and then, on its first call, spins the CPU forever
(``spin``), eats memory until its limit kills it (``memory``), forks children that live on
and never answers (``fork``), or answers with bytes that are not JSON (``garbage``).
"""

import json
import os
import socket
import sys
import time

kind, port = sys.argv[1], int(sys.argv[2])
connection = socket.create_connection(("127.0.0.1", port))
stream = connection.makefile("rwb")
stream.write(json.dumps(os.environ.get("GAMEROOM_NAME", kind)).encode() + b"\n")
stream.flush()
stream.readline()   # the first call
if kind == "spin":
    while True:
        pass
elif kind == "memory":
    hoard = []
    while True:
        hoard.append(bytearray(32 * 1024 * 1024))
elif kind == "fork":
    for _ in range(4):
        if os.fork() == 0:
            while True:
                time.sleep(1)
    while True:
        time.sleep(1)
elif kind == "garbage":
    while True:
        stream.write(b"this is not JSON at all }{\n")
        stream.flush()
        time.sleep(0.05)
