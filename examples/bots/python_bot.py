#!/usr/bin/env python3
"""An example gameroom bot in plain Python (standard library only): it connects to the
port the league (or a server) gives it, signs up, and answers every call of Q, Bazaar,
Fish, Evolution and Eriantys with a simple legal move. See docs/bots.md.

    python3 python_bot.py PORT [NAME]        (or GAMEROOM_PORT / GAMEROOM_NAME / GAMEROOM_GAME)
    python3 python_bot.py HOST:PORT TOKEN    an arena's remote bot: game after game

Given a port, the bot plays one game on this machine (as a league or an arena starts it).
Given HOST:PORT (an arena's remote port, with the token its registration showed where the
name goes), it is a remote bot that stays: after each game it connects again for the
next, and when the arena cannot be reached or closes the connection before a game (it
stopped, or turned the token away: the bot's page says why) it waits 1, 2, 4 ... up to
30 s and tries again, until Ctrl-C. ``--once`` plays one game either way.

Every message from the server is one JSON value (followed by whitespace; the bot does not
rely on newlines). Q, Bazaar, Fish and Eriantys send calls ``[method, [arguments...]]``;
Evolution sends the bare argument array and a call is told apart by its length. The bot
answers each call (except Evolution's ``start``) with one JSON value and a newline.
"""

import json
import os
import socket
import sys
import time

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


# Evolution (evolution.md 6.2): a species is [["food",n],["body",n],["population",n],["traits",[...]]]
# optionally followed by ["fat-food",n].
def species(board):
    return {key: value for key, value in board}


def evolution_choose(boards, cards):
    """Action4 [food card, GP, GB, BT, RT]: card 0 feeds the watering hole; with a second
    card, grow the population of the first board that is not yet at 7."""
    grow = [[i, 1] for i, b in enumerate(boards) if species(b)["population"] < 7][:1] if len(cards) > 1 else []
    return [0, grow, [], [], []]


def evolution_feed(boards):
    """FeedingChoice: the first hungry species without carnivore; else store fat on the
    first fat-tissue species with room; else feed none (which a dealer that asks refuses:
    this bot never plays trait cards, so it is asked only about hungry vegetarians)."""
    for i, board in enumerate(boards):
        s = species(board)
        if "carnivore" not in s["traits"] and s["food"] < s["population"]:
            return i
    for i, board in enumerate(boards):
        s = species(board)
        if "fat-tissue" in s["traits"] and s["body"] > s.get("fat-food", 0):
            return [i, s["body"] - s.get("fat-food", 0)]
    return False


# Eriantys (eriantys.md 5, 6.5): act(state) answers one event object for the current player.
def eriantys_act(state):
    me = state["players"][state["currentPlayer"]]
    phase = state["phase"]
    if phase == "PLANNING_PHASE":   # a card nobody else played this round, if there is one
        played = {p["playedAssistant"] for p in state["players"] if p is not me}
        free = [card for card in me["hand"] if card not in played] or me["hand"]
        return {"eventType": "PLAY_ASSISTANT_CARD", "assistantCard": free[0]}
    if phase == "ACTION_PHASE_ONE":  # a student to its table (at most 10 a table), else to island 0
        colors = [color for color, count in me["entrance"].items() if count > 0]
        for color in colors:
            if me["diningRoom"][color] < 10:
                return {"eventType": "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", "color": color}
        return {"eventType": "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND", "color": colors[0], "islandIndex": 0}
    if phase == "ACTION_PHASE_TWO":
        return {"eventType": "MOVE_MOTHER_NATURE", "amount": 1}
    clouds = [i for i, cloud in enumerate(state["clouds"]) if sum(cloud.values()) > 0]
    return {"eventType": "CHOOSE_CLOUD", "cloudIndex": clouds[0] if clouds else 0}


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
    if game == "eriantys" and method == "act":
        return eriantys_act(args[0])
    return "void"                           # setup, new-tiles, win, playing-as, observe, end, ...


def messages(stream):
    """The JSON values of the stream, one after the other, whatever whitespace separates them."""
    decoder, buffer = json.JSONDecoder(), ""
    while True:
        buffer = buffer.lstrip()
        try:
            value, end = decoder.raw_decode(buffer)
        except json.JSONDecodeError:
            chunk = stream.recv(65536)
            if not chunk:
                return
            buffer += chunk.decode("utf-8")
            continue
        buffer = buffer[end:]
        yield value


def play(host, port, name, game):
    """One game: connect, sign up and answer every call; how many calls were answered."""
    answered = 0
    with socket.create_connection((host, port)) as connection:
        def send(value):
            connection.sendall(json.dumps(value).encode() + b"\n")

        send(name)                          # sign up: the name as a JSON string
        incoming = messages(connection)
        if game == "evolution":
            next(incoming, None)            # Evolution answers a sign-up with "ok"
        hand = []
        for message in incoming:
            answered += 1
            if game == "evolution":         # told apart by length: start 4, choose 2, feedNext 5
                if len(message) == 4:       # start(wateringHole, bag, boards, cards): no reply
                    boards, hand = message[2], message[3]
                elif len(message) == 2:     # choose(before, after) -> Action4
                    send(evolution_choose(boards, hand))
                elif len(message) == 5:     # feedNext(bag, boards, cards, wateringHole, others)
                    send(evolution_feed(message[1]))
                continue                    # the game ends when the server closes the connection
            method, args = message
            send(answer(game, method, args))
            if method in ("win", "end"):
                break
    return answered


def stay(host, port, name, game):
    """A remote bot: game after game, waiting longer (up to 30 s) each time none is played."""
    pause = 1
    while True:
        try:
            answered = play(host, port, name, game)
        except OSError as exc:
            print(f"python_bot: cannot reach {host}:{port}: {exc.strerror or exc}; again in {pause} s",
                  file=sys.stderr, flush=True)
            answered = 0
        else:
            if not answered:
                print(f"python_bot: {host}:{port} closed the connection before a game (the arena stopped, or "
                      f"turned the token away: its page says why); again in {pause} s", file=sys.stderr, flush=True)
        if answered:
            pause = 1
            continue
        time.sleep(pause)
        pause = min(2 * pause, 30)


def main():
    once = "--once" in sys.argv[1:]
    words = [word for word in sys.argv[1:] if word != "--once"]
    where = words[0] if words else os.environ["GAMEROOM_PORT"]
    name = words[1] if len(words) > 1 else os.environ.get("GAMEROOM_NAME", "pybot")
    game = os.environ.get("GAMEROOM_GAME", "q")
    host, _, port = where.rpartition(":")
    if not host or once:
        play(host.strip("[]") or "127.0.0.1", int(port), name, game)
        return
    try:
        stay(host.strip("[]"), int(port), name, game)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
