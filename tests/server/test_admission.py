"""The admission every server shares (``server.admission``): the total, the quota per
address and of unfinished connections, trusted proxies counted apart, places given back
once, the file-handle limit raised and the cap kept under it."""

from __future__ import annotations

import resource

import pytest

from gameroom.server.admission import FILE_RESERVE, Admission, TrustedProxies, connection_cap, file_limit


def test_an_address_holds_at_most_its_quota_and_fewer_unfinished() -> None:
    admission = Admission(total=100, per_address=5, unfinished_per_address=2,
                          key_name=lambda key: f"--{key.replace('_', '-')}")
    first, second = admission.enter(("127.0.0.2", 1)), admission.enter(("127.0.0.2", 2))
    assert not isinstance(first, str) and not isinstance(second, str)
    refused = admission.enter(("127.0.0.2", 3))
    assert isinstance(refused, str) and "--unfinished-per-address" in refused
    assert not isinstance(admission.enter(("127.0.0.1", 4)), str)   # another address is let in
    first.unfinished = second.unfinished = False
    for port in range(3):   # each completes its request before the next opens
        place = admission.enter(("127.0.0.2", 10 + port))
        assert not isinstance(place, str)
        place.unfinished = False
    over = admission.enter(("127.0.0.2", 20))
    assert isinstance(over, str) and "--connections-per-address" in over and admission.holding(("127.0.0.2", 0)) == 5
    admission.leave(first)
    admission.leave(first)   # once only
    assert admission.holding(("127.0.0.2", 0)) == 4 and admission.open == 5
    assert not isinstance(admission.enter(("127.0.0.2", 21)), str)


def test_the_total_is_for_everyone_and_an_ipv6_client_counts_by_its_64() -> None:
    admission = Admission(total=3, per_address=2, unfinished_per_address=2)
    assert not isinstance(admission.enter(("2001:db8::1", 1, 0, 0)), str)
    assert not isinstance(admission.enter(("2001:db8::2", 1, 0, 0)), str)
    assert "connections_per_address" in str(admission.enter(("2001:db8::3", 1, 0, 0)))   # the same /64
    assert not isinstance(admission.enter(("127.0.0.1", 1)), str)
    full = admission.enter(("127.0.0.9", 1))
    assert isinstance(full, str) and "max_connections" in full


def test_trusted_proxies_are_not_counted_per_address() -> None:
    proxies = TrustedProxies("10.0.0.1, 192.168.0.0/24")
    assert "10.0.0.1" in proxies and "192.168.0.77" in proxies and "::ffff:10.0.0.1" in proxies
    assert "10.0.0.2" not in proxies and "not an address" not in proxies and not TrustedProxies("")
    admission = Admission(total=50, per_address=1, unfinished_per_address=1, trusted=proxies)
    assert all(not isinstance(admission.enter(("10.0.0.1", port)), str) for port in range(10))
    with pytest.raises(ValueError, match="'nonsense' is not an IP address or network"):
        TrustedProxies("10.0.0.1,nonsense")


def test_the_file_limit_is_raised_to_the_hard_one_and_the_cap_stays_under_it() -> None:
    soft = file_limit()
    assert soft == resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    assert hard == resource.RLIM_INFINITY or soft == hard
    assert connection_cap(1_000_000, 1024) == 1024 - FILE_RESERVE
    assert connection_cap(100, 1024) == 100
    assert connection_cap(1_000_000, 100_000) == 90_000
