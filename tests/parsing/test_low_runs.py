"""columns.low_runs: the gap finder shared by column detection and table column cuts."""

from __future__ import annotations

from docintel.parsing.columns import low_runs


def test_runs_at_or_below_the_bound():
    assert list(low_runs([3, 0, 0, 4, 1, 5, 0], most=1)) == [(1, 3), (4, 5), (6, 7)]


def test_a_run_starts_above_the_floor_and_goes_on_while_low():
    # soft gaps: start on a bin crossed by a few cells (above 1), continue through lower bins
    assert list(low_runs([5, 2, 0, 3, 6, 1, 6], most=3, above=1)) == [(1, 4)]


def test_no_gap():
    assert list(low_runs([4, 4, 4], most=1)) == []
    assert list(low_runs([], most=1)) == []
