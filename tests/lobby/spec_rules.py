"""The spec client's own reading of eriantys.md 3 and 6.6: from the board kept by
``spec_client.Board`` it predicts, message for message, what the server must broadcast
for an accepted GAME_EVENT (professors 3.5.2, coins 3.5.3, influence, towers and merges
3.5.4/3.8, character cards 3.6.3, end of turn, round and game 3.7/6.6.5). Students drawn
from the bag are unknown in advance: their colour is predicted as ``"*"``.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from .spec_client import COLORS, TOWER_COLORS, Board

ANY = "*"


class _Sim(Board):
    """A scratch copy of the board that accepts draws of unknown colour."""

    def apply(self, m: dict[str, Any]) -> None:
        if m["type"] == "ADD_STUDENT_TO" and m["color"] == ANY:
            self.bag -= 1
            return
        super().apply(m)


def draw(rng: random.Random, bag: dict[str, int]) -> str:
    """One student from a bag as 3.8.1 says: randrange(total), colours walked in order."""
    r = rng.randrange(sum(bag.values()))
    for c in COLORS:
        if r < bag[c]:
            bag[c] -= 1
            return c
        r -= bag[c]
    raise AssertionError("unreachable")


def expected_setup(seed: int, names: list[str], expert: bool, cards: list[int] | None = None
                   ) -> tuple[list[dict[str, Any]], random.Random]:
    """The whole setup broadcast of 6.6.1 for a game seeded ``seed`` (3.2, 3.8.1), and the
    generator as the game will go on using it. Hooked cards replace the random selection."""
    n = len(names)
    rng = random.Random(seed)
    first = rng.randrange(n)
    out: list[dict[str, Any]] = [{"type": "START_GAME", "expert": expert, "numberOfPlayers": n, "players": names}]
    setup_bag = {c: 2 for c in COLORS}
    for i in (1, 2, 3, 4, 5, 7, 8, 9, 10, 11):
        out.append({"type": "ADD_STUDENT_TO", "to": f"ISLAND:{i}", "color": draw(rng, setup_bag)})
    bag = {c: 24 for c in COLORS}
    if expert:
        chosen: list[int] = []
        preset = list(cards) if cards else None
        while len(chosen) < 3:
            card = preset.pop(0) if preset else rng.randrange(12)
            if card in chosen:
                continue
            chosen.append(card)
            out.append({"type": "NOTIFY_CHARACTER_CARD", "card": card, "price": card // 4 + 1})
            for _ in range({0: 4, 2: 6, 7: 4}.get(card, 0)):
                out.append({"type": "ADD_STUDENT_TO", "to": f"CARD:{card}", "color": draw(rng, bag)})

    def grouped(to: str, k: int) -> None:
        drawn = sorted((draw(rng, bag) for _ in range(k)), key=COLORS.index)
        out.extend({"type": "ADD_STUDENT_TO", "to": to, "color": c} for c in drawn)

    for s in range(n):
        grouped(f"ENTRANCE:{s}", 9 if n == 3 else 7)
        if expert:
            out.append({"type": "ADD_COIN", "player": s})
    for c in range(n):
        grouped(f"CLOUD:{c}", 4 if n == 3 else 3)
    out += [{"type": "CHANGE_TURN", "playingPlayer": first}, {"type": "CHANGE_PHASE", "gamePhase": "PLANNING_PHASE"}]
    return out, rng


class Predictor:
    def __init__(self, board: Board, rng: random.Random | None = None) -> None:
        self.board = board
        self.rng = rng   # the game's generator replayed (3.8.1); None: draws are not predicted
        n = board.n
        self.first = board.current
        self.planning = [(board.current + i) % n for i in range(n)]
        self.plays: list[int] = []
        self.action: list[int] = []   # 6.5: [] in round 1's planning, later the previous round's
        self.round = 1
        self.round_emptied = board.bag == 0
        self._new_turn()
        self._pending: dict[str, Any] = {}

    def _new_turn(self) -> None:
        self.moved = 0
        self.activated: int | None = None
        self.input: tuple[int, int] | None = None   # (card, inputs still allowed)
        self.mushroom: str | None = None

    # -- helpers --------------------------------------------------------------------------------
    def team(self, seat: int) -> str:
        return self.board.tower_color(seat)

    def professors_for(self, sim: _Sim, seat: int, out: list[dict[str, Any]]) -> None:
        """3.5.2 for ``seat`` after its dining room changed, in colour order."""
        farmer = self.activated == 4 and seat == sim.current
        for c in COLORS:
            mine = sim.dining[seat][c]
            if mine < 1:
                continue
            owner = sim.professors[c]
            if owner == seat:
                continue
            if owner is None or sim.dining[owner][c] < mine or (farmer and sim.dining[owner][c] <= mine):
                self.emit(sim, out, {"type": "SET_PROFESSOR_TO", "color": c, "player": seat})

    def emit(self, sim: _Sim, out: list[dict[str, Any]], m: dict[str, Any]) -> None:
        out.append(m)
        sim.apply(m)

    def enter_dining(self, sim: _Sim, seat: int, colour: str, source: str, out: list[dict[str, Any]]) -> None:
        """Professors and coin of an entry, then the move (6.6.3's order)."""
        sim.dining[seat][colour] += 1
        self.professors_for(sim, seat, out)
        if sim.expert and sim.dining[seat][colour] in (3, 6, 9) and sim.bank > 0:
            self.emit(sim, out, {"type": "ADD_COIN", "player": seat})
        sim.dining[seat][colour] -= 1
        self.emit(sim, out, {"type": "MOVE_STUDENT", "from": source, "to": f"DININGROOM:{seat}", "color": colour})

    def drawn(self, sim: _Sim) -> str:
        return ANY if self.rng is None else draw(self.rng, dict(sim.bag_colors))

    def draw_to(self, sim: _Sim, to: str, out: list[dict[str, Any]]) -> None:
        if sim.bag > 0:
            self.emit(sim, out, {"type": "ADD_STUDENT_TO", "to": to, "color": self.drawn(sim)})
            if sim.bag == 0:
                self._pending["emptied"] = True

    def influence(self, sim: _Sim, index: int, team: str, modified: bool) -> int:
        island = sim.islands[index]
        total = 0
        if island["towerColor"] == team and not (modified and self.activated == 9):
            total += island["towers"]
        for c in COLORS:
            owner = sim.professors[c]
            if owner is not None and self.team(owner) == team and not (modified and self.mushroom == c):
                total += island["students"][c]
        if modified and self.activated == 6 and team == self.team(sim.current):
            total += 2
        return total

    def resolve(self, sim: _Sim, p: int, modified: bool, out: list[dict[str, Any]]) -> tuple[bool, int]:
        """Steps 2-4 of 3.5.4 on island p: (towers changed, p after the merges)."""
        values = {t: self.influence(sim, p, t, modified) for t in sim.towers}
        best = max(values.values())
        leaders = [t for t, v in values.items() if v == best]
        island = sim.islands[p]
        if len(leaders) != 1 or island["towerColor"] == leaders[0]:
            return False, p
        w = TOWER_COLORS.index(leaders[0])
        if island["towers"] == 0:
            self.emit(sim, out, {"type": "MOVE_TOWERS", "from": f"PLAYER:{w}", "to": f"ISLAND:{p}", "amount": 1})
        else:
            t, loser = island["towers"], TOWER_COLORS.index(island["towerColor"])
            self.emit(sim, out, {"type": "MOVE_TOWERS", "from": f"ISLAND:{p}", "to": f"PLAYER:{loser}", "amount": t})
            self.emit(sim, out, {"type": "MOVE_TOWERS", "from": f"PLAYER:{w}", "to": f"ISLAND:{p}", "amount": t})
        for side in (-1, 1):   # 3.8.2: the previous island first, then the next one
            count = len(sim.islands)
            other = (p + side) % count
            if other != p and sim.islands[other]["towerColor"] == sim.islands[p]["towerColor"]:
                self.emit(sim, out, {"type": "MERGE_ISLANDS", "firstIslandIndex": p, "secondIslandIndex": other})
                if sim.mother == other:
                    sim.mother = p
                if sim.mother > other:
                    sim.mother -= 1
                if other < p:
                    p -= 1
        return True, p

    def ended(self, sim: _Sim, out: list[dict[str, Any]]) -> bool:
        """3.7.1 after a tower change."""
        if 0 in sim.towers.values() or len(sim.islands) <= 3:
            self.emit(sim, out, {"type": "END_GAME", "winners": sim.expected_winners()})
            return True
        return False

    def end_turn(self, sim: _Sim, seat: int, out: list[dict[str, Any]]) -> None:
        """6.6.5 steps 2-3."""
        position = self.action.index(seat)
        if position + 1 < len(self.action):
            self.emit(sim, out, {"type": "CHANGE_TURN", "playingPlayer": self.action[position + 1]})
            self.emit(sim, out, {"type": "CHANGE_PHASE", "gamePhase": "ACTION_PHASE_ONE"})
            return
        if any(not h for h in sim.hand) or self.round_emptied or self._pending.get("emptied"):
            self.emit(sim, out, {"type": "END_GAME", "winners": sim.expected_winners()})
            return
        first = self.action[0]
        self.emit(sim, out, {"type": "CHANGE_TURN", "playingPlayer": first})
        capacity = 4 if sim.n == 3 else 3
        self._pending["emptied"] = False
        for c in range(sim.n):
            drawn = []
            for _ in range(capacity):
                if sim.bag == 0:
                    break
                drawn.append(self.drawn(sim))
                sim.bag -= 1
                if drawn[-1] != ANY:
                    sim.bag_colors[drawn[-1]] -= 1
            sim.bag += len(drawn)
            for colour in drawn:
                if colour != ANY:
                    sim.bag_colors[colour] += 1
            for colour in sorted(drawn, key=lambda x: COLORS.index(x) if x != ANY else 0):
                self.emit(sim, out, {"type": "ADD_STUDENT_TO", "to": f"CLOUD:{c}", "color": colour})
            if sim.bag == 0:
                self._pending["emptied"] = True
                break
        self.emit(sim, out, {"type": "CHANGE_PHASE", "gamePhase": "PLANNING_PHASE"})
        self._pending["round"] = first

    # -- the three calls of the test loop -------------------------------------------------------
    def predict(self, seat: int, body: dict[str, Any]) -> list[dict[str, Any]]:
        sim = copy.deepcopy(self.board)
        sim.__class__ = _Sim
        out: list[dict[str, Any]] = []
        self._pending = {}
        kind = body["eventType"]
        moves = 4 if sim.n == 3 else 3
        if kind == "PLAY_ASSISTANT_CARD":
            self.emit(sim, out, {"type": "PLAY_ASSISTANT_CARD", "assistantCard": body["assistantCard"], "player": seat})
            plays = self.plays + [seat]
            if len(plays) < sim.n:
                self.emit(sim, out, {"type": "CHANGE_TURN", "playingPlayer": self.planning[len(plays)]})
            else:
                order = sorted(plays, key=lambda s: (sim.played[s], plays.index(s)))
                self._pending["action"] = order
                self.emit(sim, out, {"type": "CHANGE_TURN", "playingPlayer": order[0]})
                self.emit(sim, out, {"type": "CHANGE_PHASE", "gamePhase": "ACTION_PHASE_ONE"})
        elif kind in ("MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND"):
            if kind.endswith("TABLE"):
                self.enter_dining(sim, seat, body["color"], f"ENTRANCE:{seat}", out)
            else:
                self.emit(sim, out, {"type": "MOVE_STUDENT", "from": f"ENTRANCE:{seat}",
                                     "to": f"ISLAND:{body['islandIndex']}", "color": body["color"]})
            if self.moved + 1 == moves:
                self.emit(sim, out, {"type": "CHANGE_PHASE", "gamePhase": "ACTION_PHASE_TWO"})
        elif kind == "MOVE_MOTHER_NATURE":
            p = (sim.mother + body["amount"]) % len(sim.islands)
            if sim.islands[p]["noEntry"]:
                self.emit(sim, out, {"type": "MOVE_MOTHER_NATURE", "position": p})
                self.emit(sim, out, {"type": "NO_ENTRY", "add": False, "islandIndex": p})
            else:
                sim.mother = p
                changed, p = self.resolve(sim, p, True, out)
                self.emit(sim, out, {"type": "MOVE_MOTHER_NATURE", "position": p})
                if changed and self.ended(sim, out):
                    return out
            self.emit(sim, out, {"type": "CHANGE_PHASE", "gamePhase": "ACTION_PHASE_THREE"})
            if not any(sum(c.values()) for c in sim.clouds):
                self.end_turn(sim, seat, out)
        elif kind in ("CHOOSE_CLOUD", "CHOOSE_CLOUD_TILE"):
            c = body["cloudIndex"]
            for colour in COLORS:
                for _ in range(sim.clouds[c][colour]):
                    self.emit(sim, out, {"type": "MOVE_STUDENT", "from": f"CLOUD:{c}", "to": f"ENTRANCE:{seat}",
                                         "color": colour})
            self.end_turn(sim, seat, out)
        elif kind == "ACTIVATE_CHARACTER_CARD":
            card = sim.card(body["cardId"])
            self.emit(sim, out, {"type": "ACTIVATE_CHARACTER_CARD", "characterCardIndex": card["id"], "player": seat})
            self.emit(sim, out, {"type": "REMOVE_COIN", "player": seat, "amount": card["price"]})
        elif kind == "MOVE_STUDENT_FROM_CARD_TO_ISLAND":
            self.emit(sim, out, {"type": "MOVE_STUDENT", "from": "CARD:0", "to": f"ISLAND:{body['islandIndex']}",
                                 "color": body["color"]})
            self.draw_to(sim, "CARD:0", out)
        elif kind == "MOVE_STUDENT_FROM_CARD_TO_TABLE":
            self.enter_dining(sim, seat, body["color"], "CARD:7", out)
            self.draw_to(sim, "CARD:7", out)
        elif kind == "SWAP_STUDENT_CARD_ENTRANCE":
            self.emit(sim, out, {"type": "MOVE_STUDENT", "from": f"ENTRANCE:{seat}", "to": "CARD:2",
                                 "color": body["studentFromEntrance"]})
            self.emit(sim, out, {"type": "MOVE_STUDENT", "from": "CARD:2", "to": f"ENTRANCE:{seat}",
                                 "color": body["studentFromCard"]})
        elif kind == "SWAP_STUDENT_ENTRANCE_TABLE":
            e, t = body["studentFromEntrance"], body["studentFromTable"]
            if e != t:
                sim.dining[seat][e] += 1
                self.professors_for(sim, seat, out)
                if sim.expert and sim.dining[seat][e] in (3, 6, 9) and sim.bank > 0:
                    self.emit(sim, out, {"type": "ADD_COIN", "player": seat})
                sim.dining[seat][t] -= 1
                self.professors_for(sim, seat, out)
                sim.dining[seat][e] -= 1
                sim.dining[seat][t] += 1
            self.emit(sim, out, {"type": "MOVE_STUDENT", "from": f"ENTRANCE:{seat}", "to": f"DININGROOM:{seat}",
                                 "color": e})
            self.emit(sim, out, {"type": "MOVE_STUDENT", "from": f"DININGROOM:{seat}", "to": f"ENTRANCE:{seat}",
                                 "color": t})
        elif kind == "CHOOSE_ISLAND" and self.input[0] == 5:
            self.emit(sim, out, {"type": "NO_ENTRY", "add": True, "islandIndex": body["islandIndex"]})
        elif kind == "CHOOSE_ISLAND":   # the Herald
            mother = sim.mother
            changed, _p = self.resolve(sim, body["islandIndex"], False, out)
            moved_to, sim.mother = sim.mother, mother
            if moved_to != mother:
                self.emit(sim, out, {"type": "MOVE_MOTHER_NATURE", "position": moved_to})
            if changed:
                self.ended(sim, out)
        elif kind == "CHOOSE_COLOR" and self.input[0] == 11:
            colour = body["color"]
            for s in range(sim.n):
                for _ in range(min(3, sim.dining[s][colour])):
                    sim.dining[s][colour] -= 1
                    self.professors_for(sim, s, out)
                    sim.dining[s][colour] += 1
                    self.emit(sim, out, {"type": "MOVE_STUDENT", "from": f"DININGROOM:{s}", "to": "BAG",
                                         "color": colour})
        return out

    @staticmethod
    def check(got: list[dict[str, Any]], expected: list[dict[str, Any]], body: dict[str, Any]) -> None:
        assert len(got) == len(expected), f"{body}:\n got      {got}\n expected {expected}"
        for g, e in zip(got, expected):
            if e.get("color") == ANY:
                assert g.get("color") in COLORS and {**g, "color": ANY} == e, (body, got, expected)
            else:
                assert g == e, f"{body}:\n got      {got}\n expected {expected}"
        refills = [(m["to"], COLORS.index(m["color"])) for m in got
                   if m["type"] == "ADD_STUDENT_TO" and m["to"].startswith("CLOUD:")]
        assert refills == sorted(refills, key=lambda r: (int(r[0].split(":")[1]), r[1])), "refill not grouped by colour"

    def after(self, seat: int, body: dict[str, Any], got: list[dict[str, Any]]) -> None:
        """Advance the turn bookkeeping once the board has applied ``got``."""
        kind = body["eventType"]
        if self._pending.get("emptied"):
            self.round_emptied = True
        if kind == "PLAY_ASSISTANT_CARD":
            self.plays.append(seat)
            if "action" in self._pending:
                self.action = self._pending["action"]
                self._new_turn()
        elif kind.startswith("MOVE_STUDENT_FROM_ENTRANCE"):
            self.moved += 1
        elif kind == "ACTIVATE_CHARACTER_CARD":
            self.activated = body["cardId"]
            inputs = {0: 1, 5: 1, 7: 1, 8: 1, 10: 1, 11: 1, 2: 3, 3: 2}.get(body["cardId"], 0)
            self.input = (body["cardId"], inputs) if inputs else None
        elif self.input is not None and kind not in ("CHOOSE_CLOUD", "MOVE_MOTHER_NATURE"):
            if kind == "CHOOSE_COLOR" and self.input[0] == 10:
                self.mushroom = body["color"]
            left = self.input[1] - 1
            self.input = None if kind == "END_SELECTION" or left == 0 else (self.input[0], left)
        if any(m["type"] == "CHANGE_PHASE" and m["gamePhase"] == "ACTION_PHASE_ONE" for m in got) \
                and kind != "PLAY_ASSISTANT_CARD":
            self._new_turn()
        if "round" in self._pending:
            first = self._pending["round"]
            self.planning = [(first + i) % self.board.n for i in range(self.board.n)]
            self.plays = []
            self.round += 1
            self.round_emptied = bool(self._pending.get("emptied"))

    def check_state(self, state: dict[str, Any]) -> None:
        """The turn items of GAME_STATE (6.5) agree with this reading of the rules."""
        turn = state["turn"]
        assert state["planningOrder"] == self.planning and state["actionOrder"] == self.action
        assert state["round"] == self.round and not state["finished"] and state["winners"] == []
        if state["phase"] != "PLANNING_PHASE":
            assert state["lastRound"] == (self.round_emptied or any(not h for h in self.board.hand))
            seat = state["currentPlayer"]
            played = self.board.played[seat]
            limit = (played + 1) // 2 + (2 if self.activated == 1 else 0)
            assert turn["motherNatureLimit"] == limit
            assert turn["activatedCard"] == self.activated
            assert turn["studentsToMove"] == ((4 if self.board.n == 3 else 3) - self.moved
                                              if state["phase"] == "ACTION_PHASE_ONE" else 0)
        pending = turn["pendingInput"]
        assert (pending and (pending["card"], pending["remaining"])) == (self.input or None), (pending, self.input)
