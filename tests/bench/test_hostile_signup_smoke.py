"""The hostile sign-up and records benchmark runs end to end in its quick form (real
``gameroom`` processes): the rows have their keys, every forgery is detected and the
honest game is played beside the silent connections. Times are printed, never asserted."""

import math

from gameroom.bench.hostile_signup import DATABASE_FORGERIES, REPLAY_FORGERIES, run_attacks


def test_quick_hostile_signup_rows() -> None:
    rows = run_attacks(quick=True, period=120)   # the game starts at the fourth sign-up: a long period costs nothing
    signup = [row for row in rows if row["finding"] == 6]
    records = [row for row in rows if row["finding"] == 2]
    assert len(signup) == 1 and len(records) == 2
    for row in signup:
        assert set(row) == {"finding", "attack", "peak_rss_mb", "honest_s_without", "honest_s_with"}
        assert math.isfinite(row["honest_s_without"]) and math.isfinite(row["honest_s_with"]), row
    assert [(row["detected"], row["forgeries"]) for row in records] == [
        (len(REPLAY_FORGERIES), len(REPLAY_FORGERIES)), (len(DATABASE_FORGERIES), len(DATABASE_FORGERIES))]
    assert all(row["peak_rss_mb"] > 0 for row in rows)
