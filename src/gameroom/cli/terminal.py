"""``gameroom connect GAME``: a terminal client for a person playing in the lobby.

Built on prompt_toolkit: a prompt that stays at the bottom while the server's news is
printed above it (``patch_stdout``), and typed commands for the lobby (log in, list,
create, join, watch, add a bot, leave, quit; the room options are the game's own words,
its declared options) and for the game. A game played by events (Eriantys) has its
board drawn in colour from the client's view of the game (``LobbyGame.client_view``,
kept up to date from every broadcast) and its own words (``LobbyGame.terminal``); any
other game is played by answering the referee's calls (``cli.terminal_calls``): its
narration, its text view, the legal moves of each decision. Every ``NACK`` is shown with
the request it answers.

The game is told as it goes: every broadcast, the other players' moves included, goes to
the game's narrator (the terminal words' ``narrator(players)``: the lines ``gameroom play``
prints). The board is drawn once per turn of the person (the words' ``turn(snapshot)``),
and within a turn only what the game expects next is said; ``--compact`` never draws it
unasked (``board`` does). ``help`` and ``moves`` list the moves possible now (the words'
``legal_commands``).

Coming back: the client logs in asking for a reconnect secret; when the connection of a
person in a room is lost (the lobby restarted, the network dropped) it says so in one line and logs in again with
the secret by itself, after 0.5 s, then twice as long each time up to 8 s, for
``--reconnect`` seconds (:data:`COME_BACK_SECONDS` by default): the lobby gives the person's seat back, its view and the call
waiting for it (docs/lobby.md, "Coming back").

Exit status: 0 when the person quits with no game left unfinished; 1 when the server
closed the connection (the lobby died or dropped us, and did not come back) or the person
left a game before its end (no result either way); 130 after Ctrl-C, which says so in one
line.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from prompt_toolkit import PromptSession, print_formatted_text
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.patch_stdout import patch_stdout

from gameroom.cli.terminal_calls import CALL_HELP, CallTable
from gameroom.core.options import Option, OptionError, json_option_value
from gameroom.core.record import Event
from gameroom.remote.lobby_client import LobbyConnection

__all__ = ["run", "TerminalClient", "lobby_help", "compact_moves"]


def lobby_help(game: Any) -> str:
    """The lobby's commands, the room options in the game's own words."""
    counts = "|".join(map(str, game.room_player_counts))
    options = "".join(f"\n    {_option_word(o):22s}  {o.help}" for o in game.room_options)
    return f"""commands:
  login NAME              log in (done at start with --name)
  rooms [{counts}] [OPTION...]   list the public rooms of {game.name} waiting for players
  create N [private] [OPTION...]  create a room for N players ({counts}); the room's options:{options or " none"}
  join ID                 join a room by its id;  watch ID: watch a room (its public news)
  bot STRATEGY            a built-in player takes the next seat of your room ({", ".join(game.strategies)})
  leave                   leave the room{" (the room is closed for everybody)" if game.lobby is not None else ""}
  board                   draw the board again;  state: ask the server for the whole state
  moves                   the moves possible now
  quit                    leave and log out
  help                    this text, and the moves possible now"""


def _option_word(option: Option) -> str:
    """How an option is typed: ``expert`` (``no-expert``) for a switch, ``rows=N`` else."""
    if option.flag:
        return f"{option.name} | no-{option.name}"
    value = "|".join(map(str, option.choices)) if option.choices else (option.metavar or option.type.__name__.upper())
    return f"{option.name}={value}"


def _room_options(game: Any, words: list[str]) -> dict[str, Any]:
    """``expert``, ``no-expert``, ``rows=4``: the room options' fields (ValueError)."""
    declared = {o.name: o for o in game.room_options}
    out: dict[str, Any] = {}
    for word in words:
        name, equals, text = word.partition("=")
        negative = not equals and name.startswith("no-") and name[3:] in declared
        option = declared.get(name[3:] if negative else name)
        if option is None or option.flag == bool(equals):
            known = ", ".join(_option_word(o) for o in game.room_options) or "none"
            raise ValueError(f"unknown option {word!r} (the options of {game.name}: {known})")
        try:
            if option.flag:
                out[option.name] = not negative
            else:
                value: Any = text
                if option.type in (int, float):
                    try:
                        value = option.type(text)
                    except ValueError:
                        raise OptionError(f"{option.name}: {text!r} is not a number") from None
                out[option.name] = json_option_value(option, value)
        except OptionError as exc:
            raise ValueError(str(exc)) from None
    return out


def describe_room_options(game: Any, fields: dict[str, Any]) -> str:
    """A room's options in the game's words: the switches on, ``name=value`` for others."""
    parts = []
    for option in game.room_options:
        value = fields.get(option.name)
        if option.flag:
            if value:
                parts.append(option.name)
        elif value is not None:
            parts.append(f"{option.name}={value}")
    return ", ".join(parts)


_REPLIES = {"LOGIN": "ACK", "LOGOUT": "ACK", "GET_PUBLIC_ROOMS": "PUBLIC_ROOMS", "CREATE_ROOM": "ROOM_ID",
            "ACCESS_ROOM": "ACK", "LEAVE_ROOM": "ACK", "GAME_EVENT": "ACK", "GET_GAME_STATE": "GAME_STATE",
            "WATCH_ROOM": "ACK", "ADD_BOT": "ACK", "REPLY": "ACK", "GET_GAMES": "GAMES"}


def say(text: str, style: str = "") -> None:
    print_formatted_text(FormattedText([(style, text)]))


def compact_moves(commands: list[str]) -> list[str]:
    """Commands that differ only in their last word, as one: ``island red 0-11``,
    ``card 1|2|5``, ``table green|red``; the order of first appearance is kept."""
    groups: dict[str, list[str]] = {}
    for command in commands:
        head, _, last = command.rpartition(" ")
        groups.setdefault(head, []).append(last)
    out = []
    for head, lasts in groups.items():
        if not head:
            out += lasts
            continue
        numbers = [int(v) for v in lasts if v.isdigit()]
        if len(numbers) == len(lasts) > 2 and numbers == list(range(numbers[0], numbers[-1] + 1)):
            out.append(f"{head} {numbers[0]}-{numbers[-1]}")
        else:
            out.append(f"{head} {'|'.join(lasts)}")
    return out


class TerminalClient:
    def __init__(self, game: Any, conn: LobbyConnection, name: str, compact: bool = False,
                 lobby_at: tuple[str, int] | None = None, come_back: float = 0.0) -> None:
        self.game = game
        self.come_back_seconds = come_back   # how long a lost connection is tried again
        self.lobby_at = lobby_at        # where to log in again when the connection is lost
        self.secret: str | None = None  # the reconnect secret the lobby handed out
        self.lobby = game.lobby
        self.words = game.lobby.terminal if game.lobby is not None else None
        # a game played by calls: the seat's table; by events: the client view (self.view)
        self.calls = CallTable(game, name, say, self.request) if game.lobby is None else None
        self.conn = conn
        self.name = name
        self.compact = compact          # never draw the board unasked
        self.narrator: Any = None       # the game's narrator of this room's broadcasts
        self.last_turn: Any = None      # the person's turn whose board was drawn
        self.logged_in = False
        self.view: Any = None
        self.seat: int | None = None
        self.room: int | None = None
        self.started = False
        self.requests: deque[tuple[str, Any]] = deque()   # (type, message) awaiting replies
        self.done = asyncio.Event()
        self.last_prompted: Any = None
        self.server_closed = False      # the server hung up without our LOGOUT
        self.left_a_game = False        # the person quit while a game of theirs was running
        self.watching = False           # a spectator of the room, not a player

    # -- sending ----------------------------------------------------------------------

    def request(self, message: dict[str, Any], what: str) -> None:
        self.requests.append((what, message))
        self.conn.send(message)

    # -- receiving --------------------------------------------------------------------

    async def receive_loop(self) -> None:
        while True:
            messages = await self.conn.receive()
            if not messages and await self.come_back():
                continue
            if not messages:
                self.server_closed = not self.done.is_set()
                if self.server_closed:
                    say("the server closed the connection" + (" during the game: no result" if self.playing()
                                                              else ""), "fg:ansired bold")
                self.done.set()
                return
            for m in messages:
                if isinstance(m, dict):
                    self.message(m)
            self.after_batch()

    async def come_back(self) -> bool:
        """The connection was lost: log in again with the reconnect secret, with back-off,
        until the lobby answers (True) or ``--reconnect`` seconds have passed (False)."""
        if self.secret is None or self.lobby_at is None or self.done.is_set() or self.room is None \
                or self.come_back_seconds <= 0:
            return False   # nothing held for it: the lobby's own dropping of a client is final
        loop = asyncio.get_running_loop()
        deadline, delay = loop.time() + self.come_back_seconds, COME_BACK_FIRST
        say(f"the connection to the lobby was lost: reconnecting (trying for {self.come_back_seconds:g} s)",
            "fg:ansiyellow bold")
        while loop.time() < deadline and not self.done.is_set():
            await asyncio.sleep(delay)
            delay = min(delay * 2, COME_BACK_LAST)
            try:
                conn = await LobbyConnection.open(*self.lobby_at, attempts=1)
            except OSError:
                continue
            answer, before = await conn.request({"type": "LOGIN", "username": self.name, "secret": self.secret},
                                                ("ACK",))
            if answer is not None and answer.get("type") == "ACK":
                self.conn.close()
                self.conn, self.requests = conn, deque()
                say("reconnected", "fg:ansigreen bold")
                for m in before:
                    self.message(m)
                return True
            conn.close()   # the lobby has not yet seen the old connection go (the name is still taken)
        return False

    def message(self, m: dict[str, Any]) -> None:
        kind = m.get("type")
        if kind == "PING":
            self.conn.send({"type": "PONG"})
            return
        if kind in ("ACK", "NACK", "ROOM_ID", "PUBLIC_ROOMS", "GAME_STATE", "GAMES") and self.requests:
            if kind == "GAME_STATE" and self.requests[0][1].get("type") != "GET_GAME_STATE":
                self.pushed_state(m)
                return
            what, sent = self.requests.popleft()
            self.reply(kind, m, what, sent)
            return
        if kind == "GAME_STATE":
            self.pushed_state(m)
            return
        if kind == "CALL" and self.calls is not None:
            self.calls.called(m)
            return
        if kind == "ADD_PLAYER":
            if m.get("username") == self.name and not self.watching:
                self.seat = m.get("position")
            say(f"{m.get('username')} sits in seat {m.get('position')}" +
                (f" ({m['towerColor']})" if m.get("towerColor") else ""))
        if self.view is not None:
            self.view.apply(m)
        if kind != "START_GAME":
            self.tell(m)
        if kind == "START_GAME":
            self.started = True
            self.start_story(m.get("players", []))
            if self.calls is not None:
                self.calls.started()
            described = describe_room_options(self.game, m)
            say(f"the game starts: {', '.join(m.get('players', []))}" + (f" ({described})" if described else ""),
                "bold")
        elif kind == "END_GAME":
            winners = m.get("winners") or []
            self.show_board()
            if self.calls is not None:
                self.calls.over(m)
            scores = m.get("scores") or {}
            say(f"game over: {', '.join(winners) or 'nobody'} {'wins' if len(winners) == 1 else 'win'}"
                + (" -- you win!" if self.name in winners else "")
                + (f" (scores: {', '.join(f'{k} {v}' for k, v in scores.items())})" if scores else ""),
                "bold fg:ansigreen")
            self.leave_room()
        elif kind == "PLAYER_DISCONNECT":
            closed = m.get("roomClosed")
            me = m.get("username") == self.name
            say(f"{'you are' if me else str(m.get('username')) + ' is'} out ({m.get('reason')}"
                + (f": {m['message']}" if m.get("message") else "") + ")"
                + ("; the room is closed" if closed else ""), "fg:ansiyellow")
            if me and self.calls is not None:
                self.calls.over({})
            if closed or me:
                self.leave_room()
        elif kind in ("PLAYER_RECONNECT", "GAME_SUSPENDED", "GAME_RESUMED"):
            say({"PLAYER_RECONNECT": f"{m.get('username')} is back",
                 "GAME_SUSPENDED": f"the game is suspended for up to {m.get('timeoutSeconds')} s",
                 "GAME_RESUMED": "the game resumes"}[kind], "fg:ansiyellow")

    # -- the story ----------------------------------------------------------------------

    def start_story(self, players: list[str], snap: dict[str, Any] | None = None) -> None:
        """A game starts (or is back after a reconnection, from ``snap``): its narrator,
        if the game has one."""
        make = getattr(self.words, "narrator", None)
        if make is None or not players:
            self.narrator = None
        else:
            self.narrator = make(list(players)) if snap is None else make(list(players), snap)
        self.last_turn = None

    def tell(self, m: dict[str, Any]) -> None:
        """A broadcast of the game in the narrator's words (the other players' moves and
        our own); the ones the client tells itself (the end, a departure) are left out."""
        if self.narrator is None or not self.started or m.get("type") in getattr(self.words, "SELF_TOLD", ()):
            return
        for line in self.narrator.narrate(Event("message", {"message": m})):
            say(line, "fg:ansibrightblack" if line.startswith(" ") else "")

    def reply(self, kind: str, m: dict[str, Any], what: str, sent: dict[str, Any]) -> None:
        if kind == "NACK":
            if sent.get("type") == "REPLY" and self.calls is not None:
                self.calls.refused(f"{what}: {m.get('errorMessage')}")
                return
            if sent.get("type") in ("CREATE_ROOM", "ACCESS_ROOM", "WATCH_ROOM"):
                self.room, self.watching = None, False
            say(f"refused: {what}: {m.get('errorMessage')}", "fg:ansired bold")
            return
        request = sent.get("type")
        if request == "LOGIN":
            self.logged_in = True
            self.name = sent["username"]
            self.secret = m.get("secret") if isinstance(m.get("secret"), str) else None
            say(f"logged in as {self.name}; type help for the commands", "bold")
        elif request == "LOGOUT":
            say("logged out")
            self.done.set()
        elif kind == "PUBLIC_ROOMS":
            rooms = m.get("rooms", [])
            if not rooms:
                say("no public room is waiting for players")
            for room in rooms:
                described = describe_room_options(self.game, room)
                say(f"room {room['id']}: {room['currentPlayers']}/{room['numberOfPlayers']} players"
                    + (f", {described}" if described else ""))
        elif kind == "ROOM_ID":
            self.room = m.get("id")
            say(f"room {self.room} created; waiting for players (others join with: join {self.room})", "bold")
        elif request == "ACCESS_ROOM":
            self.room = sent.get("id")
            if not self.started:
                say(f"in room {self.room}; waiting for players")
        elif request == "WATCH_ROOM":
            self.room = sent.get("id")
            say(f"watching room {self.room}")
        elif request == "ADD_BOT":
            pass   # its seat is told by ADD_PLAYER
        elif request == "REPLY" and self.calls is not None:
            self.calls.taken()
        elif request == "LEAVE_ROOM":
            say("you left the room")
            self.leave_room()
        elif request == "GAME_EVENT" and self.view is not None:
            self.view.acknowledge(sent)
        elif kind == "GAME_STATE":
            if self.calls is not None:
                self.calls.state(m)
                self.calls.show_view()
            else:
                self.show_board(m.get("state"))

    def pushed_state(self, m: dict[str, Any]) -> None:
        """A state the server sent unasked: a room played by calls reports every state; a
        game played by events sends one to a player back in its seat (or a spectator)."""
        if self.calls is not None:
            self.calls.state(m)
        elif self.watching:
            self.view = self.lobby.client_view()
            self.view.state = m.get("state") or {}
            self.started = True
            self.show_board()
        else:
            self.reconnected(m)

    def reconnected(self, m: dict[str, Any]) -> None:
        """Resilience mode: back in a running game; the view starts from the snapshot."""
        state = m.get("state") or {}
        self.view = self.lobby.client_view()
        self.view.state = state
        self.started = True
        self.room = state.get("roomId")
        self.seat = next((p["seat"] for p in state.get("players", []) if p.get("username") == self.name), None)
        self.start_story([p.get("username") for p in state.get("players", [])], state)
        say("back in your game", "bold")
        self.show_board()

    def enter_room(self, watching: bool = False) -> None:
        self.view = self.lobby.client_view() if self.lobby is not None else None
        self.started = False
        self.seat = None
        self.watching = watching

    def leave_room(self) -> None:
        self.room = None
        self.started = False
        self.watching = False

    def playing(self) -> bool:
        """A game of ours has started and not ended."""
        return self.started and self.room is not None and not self.watching

    def my_move(self) -> bool:
        if not self.started or self.view is None or self.seat is None or self.words is None:
            return False
        snap = self.view.snapshot()
        return (snap.get("currentPlayer") == self.seat and not snap.get("finished")
                and not snap.get("suspended"))

    def after_batch(self) -> None:
        """Once the messages at hand are handled: if the game now waits for us, show it."""
        if any(what == "GAME_EVENT" for what, _ in ((s.get("type"), s) for _w, s in self.requests)):
            return
        if self.my_move():
            assert self.words is not None   # my_move() is False without them
            snap = self.view.snapshot()
            key = (snap["round"], snap["phase"], snap["turn"].get("studentsToMove"),
                   snap["turn"].get("pendingInput") and snap["turn"]["pendingInput"].get("remaining"),
                   snap["turn"].get("activatedCard"))
            if key == self.last_prompted:
                return
            self.last_prompted = key
            turn = getattr(self.words, "turn", lambda s: key)(snap)
            if turn != self.last_turn and not self.compact:
                self.last_turn = turn
                self.show_board(snap)   # once per turn; its last line says what the game expects
            else:   # within a turn (or compact): only what the game expects next
                say(self.words.expected(snap, self.seat), "bold fg:ansicyan")

    def show_board(self, snap: dict[str, Any] | None = None) -> None:
        if self.words is None:
            return
        if snap is None:
            if self.view is None or not self.started:
                return
            snap = self.view.snapshot()
        print_formatted_text(FormattedText(self.words.board(snap, self.seat)), end="")

    # -- typed commands -----------------------------------------------------------------

    def command(self, line: str) -> None:
        words = line.split()
        if not words:
            return
        name, args = words[0].lower(), words[1:]
        game: dict[str, Any] = {"game": self.game.name}
        try:
            if name == "help":
                say(lobby_help(self.game) + "\n" + (self.words.HELP if self.words is not None else CALL_HELP))
                if self.my_move():
                    self.show_moves()
            elif name == "moves" and self.calls is None:   # a game played by calls: its table's moves
                if not self.my_move():
                    raise ValueError("it is not your move" if self.started else "no game yet")
                self.show_moves()
            elif name == "login":
                if len(args) != 1:
                    raise ValueError("login takes your username")
                self.request({"type": "LOGIN", "username": args[0], "secret": True}, line)
            elif not self.logged_in:
                raise ValueError("log in first: login NAME")
            elif name == "rooms":
                counts = [w for w in args if w.lstrip("-").isdigit()]
                message: dict[str, Any] = {"type": "GET_PUBLIC_ROOMS", **game,
                                           **_room_options(self.game, [w for w in args if w not in counts])}
                if counts:
                    message["numberOfPlayers"] = _number(counts[-1])
                self.request(message, line)
            elif name == "create":
                if not args:
                    raise ValueError("create N [private] [OPTION...] (help lists the options)")
                options = _room_options(self.game, [w for w in args[1:] if w not in ("private", "public")])
                players = _number(args[0])
                self.enter_room()
                self.request({"type": "CREATE_ROOM", **game, "numberOfPlayers": players, **options,
                              "isPrivate": "private" in args, **self.person}, line)
            elif name in ("join", "watch"):
                if len(args) != 1:
                    raise ValueError(f"{name} takes a room id")
                self.enter_room(watching=name == "watch")
                self.request({"type": "ACCESS_ROOM", "id": _number(args[0]), **self.person} if name == "join"
                             else {"type": "WATCH_ROOM", "id": _number(args[0])}, line)
            elif name == "bot":
                if len(args) != 1:
                    raise ValueError(f"bot takes a strategy: {', '.join(self.game.strategies)}")
                self.request({"type": "ADD_BOT", "strategy": args[0]}, line)
            elif name == "leave":
                self.request({"type": "LEAVE_ROOM"}, line)
            elif name in ("quit", "exit", "logout"):
                if self.room is not None:
                    self.left_a_game = self.left_a_game or self.playing()
                    self.request({"type": "LEAVE_ROOM"}, "leave")
                self.request({"type": "LOGOUT"}, "quit")
            elif name == "board":
                if not self.started:
                    raise ValueError("no game yet")
                if self.calls is not None:
                    self.calls.show_view()
                self.show_board()
            elif name == "state":
                self.request({"type": "GET_GAME_STATE"}, line)
            elif self.calls is not None and (name in self.calls.COMMANDS or name.isdigit()):
                if not self.started:
                    raise ValueError("no game yet: create or join a room")
                self.calls.command(words, line)
            elif self.words is not None and name == "hint":
                if not self.my_move():
                    raise ValueError("it is not your move")
                event = self.lobby.bot("hint", next(iter(self.game.strategies)), 0).act(self.view.snapshot())
                say("hint: " + self.words.command_of(event), "fg:ansigreen")
            elif self.words is not None and name in self.words.GAME_COMMANDS:
                if not self.started:
                    raise ValueError("no game yet: create or join a room")
                event = self.words.parse_command(words, self.view.snapshot())
                self.request({"type": self.lobby.event_type, **event}, line)
            else:
                raise ValueError(f"unknown command {name!r} (type help)")
        except ValueError as exc:
            say(str(exc), "fg:ansired")

    @property
    def person(self) -> dict[str, Any]:
        """The seat a person takes: the person's time limit, the moves offered, the views."""
        return {"person": True} if self.calls is not None else {}

    def show_moves(self) -> None:
        """The moves possible now, as typed commands (the game's own checks)."""
        legal = getattr(self.words, "legal_commands", None)
        if legal is None:
            say("this game cannot list its moves; try hint", "fg:ansiyellow")
            return
        moves = compact_moves(legal(self.view.snapshot(), self.seat))
        say("moves possible now: " + ("; ".join(moves) if moves else "none"), "fg:ansigreen")


def _number(word: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise ValueError(f"{word!r} is not a number") from None


_INTERRUPTED = object()   # what the prompt gives for Ctrl-C
_QUIT_WAIT_SECONDS = 5.0   # how long a quit waits for the server's ACK of the LOGOUT


async def _line(session: PromptSession[str], prompt: str) -> Any:
    """The next typed line; None at end of input (Ctrl-D); _INTERRUPTED for Ctrl-C. Caught
    here, inside the task: a KeyboardInterrupt escaping a task goes through the event loop
    and ends in a traceback."""
    try:
        return await session.prompt_async(prompt)
    except EOFError:
        return None
    except KeyboardInterrupt:
        return _INTERRUPTED


async def _main(game: Any, host: str, port: int, name: str, compact: bool = False,
                come_back: float = 0.0) -> int:
    try:
        conn = await LobbyConnection.open(host, port, attempts=1)
    except OSError as exc:
        say(f"gameroom: error: cannot reach the lobby at {host}:{port}: {exc.strerror or exc}")
        return 2
    client = TerminalClient(game, conn, name, compact, (host, port), come_back)
    session: PromptSession[str] = PromptSession()
    status: int | None = None
    with patch_stdout(raw=True):
        receiver = asyncio.get_running_loop().create_task(client.receive_loop())
        client.command(f"login {name}")
        while not client.done.is_set():
            prompt = asyncio.ensure_future(_line(session, f"{client.name}> "))
            finished = asyncio.ensure_future(client.done.wait())
            await asyncio.wait({prompt, finished}, return_when=asyncio.FIRST_COMPLETED)
            if not prompt.done():
                prompt.cancel()
                continue
            finished.cancel()
            line = prompt.result()
            if line is _INTERRUPTED:
                status = _interrupted()
                break
            if line is None:
                client.command("quit")
                break
            client.command(line)
            if any(sent.get("type") == "LOGOUT" for _what, sent in client.requests):
                break
        if status is None and not client.done.is_set():
            try:   # quit: wait for the ACK of the LOGOUT (or the server hanging up)
                await asyncio.wait_for(client.done.wait(), _QUIT_WAIT_SECONDS)
            except asyncio.TimeoutError:
                say(f"the server did not answer the log-out within {_QUIT_WAIT_SECONDS:g} s", "fg:ansired")
                status = 1
        receiver.cancel()
    client.conn.close()
    if status is not None:
        return status
    if client.server_closed:
        return 1
    if client.left_a_game:
        say("you left your game before its end: no result", "fg:ansiyellow")
        return 1
    return 0


COME_BACK_SECONDS = 600.0
"""How long a lost connection is tried again (the lobby's default reconnect grace is 120 s)."""
COME_BACK_FIRST, COME_BACK_LAST = 0.5, 8.0
"""The first wait before logging in again, and the longest (each doubles the one before)."""


def _interrupted() -> int:
    say("gameroom: interrupted", "fg:ansired")
    return 130


def run(game: Any, host: str, port: int, name: str, compact: bool = False,
        come_back: float = COME_BACK_SECONDS) -> int:
    try:
        return asyncio.run(_main(game, host, port, name, compact, come_back))
    except KeyboardInterrupt:   # Ctrl-C outside the prompt (connecting, quitting)
        print("gameroom: interrupted", flush=True)
        return 130
