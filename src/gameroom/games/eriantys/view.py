"""A client's picture of an Eriantys game, kept up to date from the broadcasts alone.

:class:`TableView` starts at ``START_GAME`` and applies every server→client message of
§6.4 to a §6.5 snapshot, the way a remote client must (moves between locations, towers,
merges with Mother Nature following her island, coins and the bank, prices, phases,
planning and action orders). :meth:`TableView.acknowledge` adds what only the sender of
an event learns from its ``ACK``: the progress of its own pending card input (an
``END_SELECTION``, a Herald choice that changes nothing or a Mushroom Man colour has no
broadcast). The property tests check that this view equals the server's snapshot after
every event, which proves the broadcasts complete and in the right order. A ``GAME_STATE``
(a player back in its seat) replaces the view with the snapshot it carries.
"""

from __future__ import annotations

import copy
from typing import Any

from gameroom.games.eriantys.pieces import (BAG_PER_COLOR, BANK, CARD_INPUTS, CARD_REMAINING, CARD_STUDENTS,
                                            COLORS, ISLANDS, NO_ENTRY_TILES, TOWER_COLORS, constants, steps_of,
                                            team_of)

__all__ = ["TableView"]


def _zero() -> dict[str, int]:
    return {name: 0 for name in COLORS}


def _where(location: str) -> tuple[str, int | None]:
    kind, _, index = location.partition(":")
    return kind, (int(index) if index else None)


class TableView:
    """The snapshot a client builds from the broadcasts (``referee`` policy by default:
    a ``PLAYER_DISCONNECT`` that keeps the room open is an ejection)."""

    def __init__(self, room_id: int | None = None) -> None:
        self.room_id = room_id
        self.state: dict[str, Any] | None = None
        self._bag_emptied = False

    # -- reading ------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The current view as a §6.5 object (derived fields filled in)."""
        s = copy.deepcopy(self.state)
        assert s is not None, "no START_GAME seen yet"
        turn = s["turn"]
        if s["finished"]:
            s["currentPlayer"] = None
            s["turn"] = {"studentsToMove": 0, "motherNatureLimit": None, "activatedCard": None,
                         "pendingInput": None, "mushroomColor": None}
        else:
            if s["phase"] != "ACTION_PHASE_ONE":
                turn["studentsToMove"] = 0
            current = s["currentPlayer"]
            played = s["players"][current]["playedAssistant"] if current is not None else None
            if s["phase"] == "PLANNING_PHASE" or played is None:
                turn["motherNatureLimit"] = None
            else:
                turn["motherNatureLimit"] = steps_of(played) + (2 if turn["activatedCard"] == 1 else 0)
        s["lastRound"] = self._bag_emptied or any(len(p["hand"]) + (p["playedAssistant"] is not None) <= 1
                                                  for p in s["players"])
        return s

    # -- messages -----------------------------------------------------------------------

    def apply(self, message: dict[str, Any]) -> None:
        """Apply one broadcast (messages of other kinds are ignored)."""
        handler = getattr(self, "_" + message["type"].lower(), None)
        if handler is not None:
            handler(message)

    def acknowledge(self, event: dict[str, Any]) -> None:
        """The sender's own event was accepted: advance its pending card input."""
        s = self.state
        turn = s["turn"]
        pending = turn["pendingInput"]
        kind = event.get("eventType")
        if pending is None or kind == "ACTIVATE_CHARACTER_CARD":
            return
        if kind == "END_SELECTION":
            turn["pendingInput"] = None
            return
        if kind == "CHOOSE_COLOR" and pending["card"] == 10:
            turn["mushroomColor"] = event["color"]
        pending["remaining"] -= 1
        if pending["remaining"] == 0:
            turn["pendingInput"] = None

    def _start_game(self, m: dict[str, Any]) -> None:
        n, expert = m["numberOfPlayers"], m["expert"]
        c = constants(n)
        self._bag_emptied = False
        self.state = {
            "roomId": self.room_id, "expert": expert, "numberOfPlayers": n, "round": 0,
            "phase": "PLANNING_PHASE", "currentPlayer": None, "planningOrder": [], "actionOrder": [],
            "players": [{"seat": seat, "username": name, "towerColor": TOWER_COLORS[team_of(seat, n)],
                         "connected": True, "ejected": False, "entrance": _zero(), "diningRoom": _zero(),
                         "hand": list(range(1, 11)), "playedAssistant": None, "coins": 0 if expert else None}
                        for seat, name in enumerate(m["players"])],
            "towers": {TOWER_COLORS[t]: c.towers for t in range(c.teams)},
            "professors": {name: None for name in COLORS},
            "islands": [{"students": _zero(), "towers": 0, "towerColor": None, "noEntry": 0} for _ in range(ISLANDS)],
            "motherNature": 0,
            "clouds": [_zero() for _ in range(n)],
            "bag": 5 * BAG_PER_COLOR,
            "bank": BANK if expert else None,
            "characterCards": [],
            "turn": {"studentsToMove": 0, "motherNatureLimit": None, "activatedCard": None,
                     "pendingInput": None, "mushroomColor": None},
            "lastRound": False, "suspended": False, "finished": False, "winners": [],
        }

    def _game_state(self, m: dict[str, Any]) -> None:
        """A complete snapshot (sent to a player back in its seat, or a spectator): the
        view starts again from it, whatever it had missed."""
        self.state = copy.deepcopy(m["state"])
        self.room_id = self.state.get("roomId", self.room_id)
        self._bag_emptied = self.state["bag"] == 0   # the bag is never filled again

    def _holder(self, location: str) -> dict[str, int] | None:
        """The student counts at a location (None for the bag)."""
        s = self.state
        kind, index = _where(location)
        if kind == "ENTRANCE":
            return s["players"][index]["entrance"]
        if kind == "DININGROOM":
            return s["players"][index]["diningRoom"]
        if kind == "ISLAND":
            return s["islands"][index]["students"]
        if kind == "CLOUD":
            return s["clouds"][index]
        if kind == "CARD":
            return next(card for card in s["characterCards"] if card["id"] == index)["students"]
        return None

    def _take_from_bag(self) -> None:
        self.state["bag"] -= 1
        if self.state["bag"] == 0:
            self._bag_emptied = True

    def _add_student_to(self, m: dict[str, Any]) -> None:
        self._holder(m["to"])[m["color"]] += 1
        if not m["to"].startswith("ISLAND:"):   # islands are only set up, from the setup bag
            self._take_from_bag()

    def _move_student(self, m: dict[str, Any]) -> None:
        s = self.state
        source, target = self._holder(m["from"]), self._holder(m["to"])
        color = m["color"]
        source[color] -= 1
        if target is None:
            s["bag"] += 1
        else:
            target[color] += 1
        if (s["phase"] == "ACTION_PHASE_ONE" and s["turn"]["pendingInput"] is None
                and m["from"].startswith("ENTRANCE:")):
            s["turn"]["studentsToMove"] -= 1

    def _move_towers(self, m: dict[str, Any]) -> None:
        s = self.state
        amount = m["amount"]
        source_kind, source = _where(m["from"])
        target_kind, target = _where(m["to"])
        if source_kind == "PLAYER":
            name = TOWER_COLORS[source]
            s["towers"][name] = max(0, s["towers"][name] - amount)
            island = s["islands"][target]
            island["towers"] += amount
            island["towerColor"] = name
        else:
            island = s["islands"][source]
            island["towers"] -= amount
            if island["towers"] == 0:
                island["towerColor"] = None
            s["towers"][TOWER_COLORS[target]] += amount

    def _merge_islands(self, m: dict[str, Any]) -> None:
        s = self.state
        first, second = m["firstIslandIndex"], m["secondIslandIndex"]
        keep, gone = s["islands"][first], s["islands"][second]
        for name in COLORS:
            keep["students"][name] += gone["students"][name]
        keep["towers"] += gone["towers"]
        keep["noEntry"] += gone["noEntry"]
        del s["islands"][second]
        mother = s["motherNature"]   # she follows her island
        if mother == second:
            mother = first
        if mother > second:
            mother -= 1
        s["motherNature"] = mother

    def _no_entry(self, m: dict[str, Any]) -> None:
        s = self.state
        delta = 1 if m["add"] else -1
        s["islands"][m["islandIndex"]]["noEntry"] += delta
        card = next(card for card in s["characterCards"] if card["id"] == 5)
        card["noEntryTiles"] -= delta

    def _set_professor_to(self, m: dict[str, Any]) -> None:
        self.state["professors"][m["color"]] = m["player"]

    def _move_mother_nature(self, m: dict[str, Any]) -> None:
        self.state["motherNature"] = m["position"]

    def _play_assistant_card(self, m: dict[str, Any]) -> None:
        player = self.state["players"][m["player"]]
        player["hand"].remove(m["assistantCard"])
        player["playedAssistant"] = m["assistantCard"]

    def _notify_character_card(self, m: dict[str, Any]) -> None:
        card_id = m["card"]
        self.state["characterCards"].append({
            "id": card_id, "price": m["price"], "used": False,
            "students": _zero() if card_id in CARD_STUDENTS else None,
            "noEntryTiles": NO_ENTRY_TILES if card_id == 5 else None})

    def _activate_character_card(self, m: dict[str, Any]) -> None:
        turn = self.state["turn"]
        card_id = m["characterCardIndex"]
        turn["activatedCard"] = card_id
        if card_id in CARD_INPUTS:
            turn["pendingInput"] = {"card": card_id, "accepts": list(CARD_INPUTS[card_id]),
                                    "remaining": CARD_REMAINING[card_id]}

    def _remove_coin(self, m: dict[str, Any]) -> None:
        s = self.state
        amount = m["amount"]
        s["players"][m["player"]]["coins"] -= amount
        card = next(card for card in s["characterCards"] if card["id"] == s["turn"]["activatedCard"])
        if card["used"]:
            s["bank"] += amount
        else:
            s["bank"] += amount - 1
            card["used"] = True
            card["price"] += 1

    def _add_coin(self, m: dict[str, Any]) -> None:
        s = self.state
        s["players"][m["player"]]["coins"] += 1
        s["bank"] -= 1

    def _change_turn(self, m: dict[str, Any]) -> None:
        self.state["currentPlayer"] = m["playingPlayer"]

    def _change_phase(self, m: dict[str, Any]) -> None:
        s = self.state
        phase, before = m["gamePhase"], s["phase"]
        s["phase"] = phase
        turn = s["turn"]
        n = s["numberOfPlayers"]
        if phase == "PLANNING_PHASE":
            if s["bag"] == 0:   # the refill found the bag empty
                self._bag_emptied = True
            s["round"] += 1
            first = s["actionOrder"][0] if s["actionOrder"] else s["currentPlayer"]
            if s["round"] == 1 or s["actionOrder"]:
                s["planningOrder"] = [(first + k) % n for k in range(n)]
            for player in s["players"]:
                player["playedAssistant"] = None
        if phase in ("PLANNING_PHASE", "ACTION_PHASE_ONE"):
            turn.update(studentsToMove=0, activatedCard=None, pendingInput=None, mushroomColor=None)
        if phase == "ACTION_PHASE_ONE":
            if before == "PLANNING_PHASE":
                position = {seat: i for i, seat in enumerate(s["planningOrder"])}
                played = [p for p in s["players"] if p["playedAssistant"] is not None]
                s["actionOrder"] = [p["seat"] for p in sorted(
                    played, key=lambda p: (p["playedAssistant"], position[p["seat"]]))]
            turn["studentsToMove"] = constants(n).moves

    def _player_disconnect(self, m: dict[str, Any]) -> None:
        for player in self.state["players"]:
            if player["username"] == m["username"]:
                player["connected"] = False
                player["ejected"] = not m.get("roomClosed", False)

    def _end_game(self, m: dict[str, Any]) -> None:
        self.state["finished"] = True
        self.state["winners"] = list(m["winners"])
