#!/usr/bin/env python3
"""An example gameroom bot in plain Python (standard library only): it connects to the
port the league (or a server) gives it, signs up, and answers every call of Q, Bazaar and
Fish with a simple legal move. See docs/bots.md.

    python3 python_bot.py PORT [NAME]        (or GAMEROOM_PORT / GAMEROOM_NAME / GAMEROOM_GAME)

Every message from the server is one JSON value on its own line: a call
``[method, [arguments...]]``; the bot answers each call with one JSON value and a newline.
"""

import json
import os
import socket
import sys

# Fish (fish.md 2.2): rows are half-offset; a step's row/column change depends on the row's
# parity. Directions N, NE, SE, S, SW, NW.
EVEN = ((-2, 0), (-1, 0), (1, 0), (2, 0), (1, -1), (-1, -1))
ODD = ((-2, 0), (-1, 1), (1, 1), (2, 0), (1, 0), (-1, 0))


def fish_place(state):
    """Place a penguin on the first free tile, row by row (the spec's zig-zag order)."""
    taken = {tuple(p) for player in state["players"] for p in player["places"]}
    for r, row in enumerate(state["board"]):
        for c, fish in enumerate(row):
            if fish > 0 and (r, c) not in taken:
                return [r, c]
    return [0, 0]


def fish_move(state):
    """Move the first penguin that can move one step to the first tile it can reach."""
    board = state["board"]
    taken = {tuple(p) for player in state["players"] for p in player["places"]}
    for r, c in state["players"][0]["places"]:
        for dr, dc in (ODD if r % 2 else EVEN):
            tr, tc = r + dr, c + dc
            if 0 <= tr < len(board) and 0 <= tc < len(board[tr]) and board[tr][tc] > 0 and (tr, tc) not in taken:
                return [[r, c], [tr, tc]]
    return False


def answer(game, method, args):
    if game == "fish" and method == "setup":
        return fish_place(args[0])
    if game == "fish" and method == "take-turn":
        return fish_move(args[0])
    if game == "q" and method == "take-turn":
        return "pass"                       # always legal in Q
    if game == "bazaar" and method == "request-pebble-or-trades":
        return False if args[0]["bank"] else []   # a pebble while the bank has one, else no trade
    if game == "bazaar" and method == "request-cards":
        return []                           # buy nothing
    return "void"                           # setup, new-tiles, win, playing-as, ...


def main():
    port = int(sys.argv[1] if len(sys.argv) > 1 else os.environ["GAMEROOM_PORT"])
    name = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("GAMEROOM_NAME", "pybot")
    game = os.environ.get("GAMEROOM_GAME", "q")
    with socket.create_connection(("127.0.0.1", port)) as connection:
        stream = connection.makefile("rwb")
        stream.write(json.dumps(name).encode() + b"\n")     # sign up: the name as a JSON string
        stream.flush()
        for line in stream:
            if not line.strip():
                continue
            method, args = json.loads(line)
            stream.write(json.dumps(answer(game, method, args)).encode() + b"\n")
            stream.flush()
            if method in ("win", "end"):
                return


if __name__ == "__main__":
    main()
