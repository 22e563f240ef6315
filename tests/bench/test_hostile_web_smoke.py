"""The web room's hostile-user benchmark runs end to end in its quick form (a real room,
an attacker process per attack, honest matches beside it): one row per attack of
finding 3 with its figures, the room's peak memory far from the finding's gigabytes.
Times are printed, never asserted."""

from gameroom.bench.hostile_web import ATTACKS, run_attacks

KEYS = {"finding", "attack", "peak_rss_mb", "honest_s_without", "honest_s_with"}


def test_every_attack_is_run_beside_honest_matches_and_the_memory_stays_bounded():
    report = run_attacks(quick=True)
    print(report)
    assert [row["attack"] for row in report] == list(ATTACKS)
    for row in report:
        assert set(row) == KEYS and row["finding"] == 3
        assert row["honest_s_without"] > 0 and row["honest_s_with"] > 0
        assert 0 < row["peak_rss_mb"] < 300, row
