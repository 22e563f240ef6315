"""A person's composed answers (issue 20): a whole turn built on the board need not be one
of the offered answers; the game's own legality check judges it. A legal two-tile Q turn
sent by a person is taken (it was refused as "not one of the offered actions" before), an
illegal one is refused with the referee's reason, and tentative answers are judged
without being taken (the board's ``check`` message). In process, with the real game."""

from __future__ import annotations

import threading
from typing import Any

from gameroom.games import registry
from gameroom.games.q import codec
from gameroom.games.q.actions import Placement
from gameroom.games.q.rules import check_placements
from gameroom.games.q.state import PublicState
from gameroom.web.people import MAX_CHECKS, HumanPlayer


def two_tile_turn() -> tuple[PublicState, tuple[Placement, Placement]]:
    """A dealt Q position (seeded search) whose hand has a legal turn of two tiles."""
    game = registry.game("q")
    for seed in range(200):
        state = game.deal(seed, ["P1", "P2"])
        me = state.players[0]
        pub = PublicState(state.qmap, "P1", me.score, tuple(me.hand), (0,), len(state.pile))
        for i, first in enumerate(me.hand):
            for coord in state.qmap.candidates(first):
                one = Placement(coord, first)
                for j, second in enumerate(me.hand):
                    if i == j:
                        continue
                    r, c = coord
                    for near in ((r, c + 1), (r, c - 1), (r + 1, c), (r - 1, c)):
                        two = (one, Placement(near, second))
                        if check_placements(state.qmap, me.hand, two) is None:
                            return pub, two
    raise AssertionError("no two-tile turn in 200 deals")


def asked(person: HumanPlayer, pub: PublicState) -> tuple[threading.Thread, dict[str, Any]]:
    """The referee's take_turn call on its own thread, waiting for the person's answer."""
    got: dict[str, Any] = {}
    frames: list[Any] = []
    person.tell = frames.append
    thread = threading.Thread(target=lambda: got.update(answer=person.take_turn(pub)), daemon=True)
    thread.start()
    for _ in range(2000):
        if frames:
            break
        threading.Event().wait(0.01)
    assert frames and frames[-1]["type"] == "prompt"
    assert all(len(choice["action"]) == 1 for choice in frames[-1]["choices"] if isinstance(choice["action"], list))
    return thread, got


def test_a_legal_two_tile_turn_is_taken() -> None:
    pub, two = two_tile_turn()
    person = HumanPlayer("P1", registry.game("q"), 60.0, lambda frame: None)
    thread, got = asked(person, pub)
    assert person.answer({"action": codec.encode_choice(two)}) is None
    thread.join(timeout=60)
    assert got["answer"] == two


def test_an_illegal_composed_turn_is_refused_with_the_rules_reason() -> None:
    pub, (one, second) = two_tile_turn()
    far = Placement((one[0][0] + 1, one[0][1] + 1), second[1])   # beside neither row nor column
    person = HumanPlayer("P1", registry.game("q"), 60.0, lambda frame: None)
    thread, got = asked(person, pub)
    refusal = person.answer({"action": codec.encode_choice((one, far))})
    assert refusal is not None and refusal.startswith("illegal action") and "one row nor in one column" in refusal
    bad = person.answer({"action": [{"coordinate": {"row": 0}, "1tile": "red star"}]})
    assert bad is not None and "illegal action" in bad   # not even a placement: the codec's words
    assert person.answer({"action": "pass"}) is None     # the prompt is still open after refusals
    thread.join(timeout=60)
    assert got["answer"] is not None


def test_tentative_answers_are_judged_without_being_taken() -> None:
    pub, two = two_tile_turn()
    person = HumanPlayer("P1", registry.game("q"), 60.0, lambda frame: None)
    assert person.check([]) == "it is not your turn"
    thread, got = asked(person, pub)
    one, second = two
    crooked = Placement((one[0][0] + 1, one[0][1] + 1), second[1])
    problems = person.check([codec.encode_choice((one,)), codec.encode_choice(two), codec.encode_choice((one, crooked))])
    assert isinstance(problems, list)
    assert problems[0] is None and problems[1] is None and "one row nor in one column" in problems[2]
    assert person.check([None] * (MAX_CHECKS + 1)) == f"a check is a list of at most {MAX_CHECKS} actions"
    assert person.prompt is not None   # nothing was taken
    assert person.answer({"action": "pass"}) is None
    thread.join(timeout=60)
    assert got["answer"] is not None


def test_every_game_with_offers_has_a_board_module() -> None:
    for name in registry.names():
        game = registry.game(name)
        assert game.board is not None and game.board.is_file(), name
        assert "export function play" in game.board.read_text()


def test_composed_answers_of_bazaar_and_evolution_are_judged_by_their_rules() -> None:
    for name in ("bazaar", "evolution"):
        game = registry.game(name)
        moves = game.person_moves()
        check = game.person_check(moves)
        assert check is not None and check == moves.check   # the seat's own (it knows the deal)
        assert check("no_such_call", (), None) is not None


def test_an_accounts_seats_share_one_allowance_of_checks() -> None:
    """A person's bounds on checks are the account's, not the seat's: the seats one account
    holds in two matches (or two seats of one match) are judged within one allowance and one
    question at a time, so more matches do not multiply what a person may cost the room."""
    from gameroom.web.book import MatchBook
    from gameroom.web.limits import RoomLimits
    from gameroom.web.matches import MatchRequest, Owner

    book = MatchBook(RoomLimits(matches_per_user=8))
    games = registry.games()
    alone = book.start(MatchRequest.from_json({"game": "q", "seats": ["human", "dag"], "seed": 1}, games),
                       Owner("127.0.0.1", "u-ann", "ann"))
    shared = book.start(MatchRequest.from_json({"game": "q", "seats": ["human", "human"], "seed": 2}, games),
                        Owner("127.0.0.1", "u-ann", "ann"))
    try:
        assert shared.admit("P1", shared.tokens["P1"], "u-ann", "ann") is None
        assert shared.admit("P2", shared.tokens["P2"], "u-bob", "bob") is None
        ann = alone.humans["P1"].checks
        assert shared.humans["P1"].checks is ann       # the account's, across its matches
        assert shared.humans["P2"].checks is not ann   # another account's own
        assert ann.allowance is not shared.humans["P2"].checks.allowance
    finally:
        book.close()
