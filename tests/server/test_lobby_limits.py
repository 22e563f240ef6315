"""The lobby's quota helpers (``server.lobby_limits``) with their clock injected: the key of
an address (IPv6 by its /64), the key of a username (NFKC + case folding), the failed-join
throttle's rate and burst, and the address book's counts and forgetting."""

from __future__ import annotations

from gameroom.server.lobby_limits import AddressBook, JoinThrottle, address_key, username_key


def test_address_keys() -> None:
    assert address_key(("127.0.0.2", 5000)) == "127.0.0.2"
    assert address_key(("::ffff:10.1.2.3", 5000, 0, 0)) == "10.1.2.3"
    # every address of one /64 is one key; the next /64 is another
    assert address_key(("2001:db8:1:2::1", 1, 0, 0)) == address_key(("2001:db8:1:2:ffff::9", 2, 0, 0))
    assert address_key(("2001:db8:1:2::1", 1, 0, 0)) != address_key(("2001:db8:1:3::1", 1, 0, 0))
    assert address_key(("fe80::1%eth0", 1, 0, 2)) == "fe80::/64"
    assert address_key("/run/lobby.sock") == "/run/lobby.sock"


def test_username_keys() -> None:
    assert username_key("Alice") == username_key("ALICE") == username_key("alice")
    assert username_key("\uff21\uff4c\uff49\uff43\uff45") == username_key("alice")   # full-width letters
    assert username_key("Stra\u00dfe") == username_key("STRASSE")
    assert username_key("bob") != username_key("alice")


def test_join_throttle_allows_its_rate_at_once_then_spaces_failures() -> None:
    throttle = JoinThrottle(6)   # one failure every 10 s, six at once
    for _ in range(6):
        assert throttle.wait(100.0) == 0
        throttle.failed(100.0)
    assert throttle.wait(100.0) == 10.0
    assert throttle.wait(105.0) == 5.0
    assert throttle.wait(110.0) == 0
    throttle.failed(110.0)
    assert throttle.wait(110.0) == 10.0
    # attempts that waited together and all failed push the next further
    throttle.failed(120.0)
    throttle.failed(120.0)
    assert throttle.wait(120.0) == 20.0
    assert not throttle.idle(150.0) and throttle.idle(200.0)
    assert JoinThrottle(0).wait(0.0) == 0   # 0: no limit


def test_address_book_counts_and_forgets() -> None:
    book = AddressBook(max_connections=2, max_rooms=1, failed_joins_per_minute=6)
    assert book.connect("a") and book.connect("a") and not book.connect("a") and book.connect("b")
    assert book.may_create_room("a")
    book.room_created("a")
    assert not book.may_create_room("a") and book.may_create_room("b")
    book.room_closed("a", 0.0)
    assert book.may_create_room("a")
    book.disconnect("a", 0.0)
    assert book.connect("a")
    for key in ("a", "a", "b"):
        book.disconnect(key, 0.0)
    assert book.uses == {}   # nothing held, no penalty: forgotten
    # a penalty outlives the connections
    book.connect("c")
    joins = book.use("c").joins
    assert joins is not None
    joins.failed(0.0)
    book.disconnect("c", 0.0)
    assert "c" in book.uses
    book.connect("c")
    book.disconnect("c", 100.0)
    assert "c" not in book.uses
    unlimited = AddressBook(0, 0, 0)
    assert all(unlimited.connect("x") for _ in range(1000)) and unlimited.may_create_room("x")
