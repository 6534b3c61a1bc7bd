"""gradkit.cost: call counts, timings and fast_mode's miss, checked against torch itself."""

from __future__ import annotations

import pytest
import torch

from gradkit import cost
from gradkit.zoo import OneEntryWrongSquareFn, SquareFn, WrongSquareFn


@pytest.mark.parametrize("n", [1, 2, 10, 37])
def test_slow_mode_makes_2n_plus_2_forward_calls(n):
    x = torch.rand(n, dtype=torch.float64, requires_grad=True)
    counted = cost.count_calls(torch.sin, (x,))
    assert counted.forward == 2 * n + 2
    assert counted.n == n
    assert counted.passed


@pytest.mark.parametrize(("repeat", "m"), [(None, 1), (1, 10), (3, 30)])
def test_slow_mode_makes_2m_plus_2_backward_calls_for_m_outputs(repeat, m):
    x = torch.rand(10, dtype=torch.float64, requires_grad=True)

    def fn(t):
        y = torch.sin(t)
        return y.sum().reshape(1) if repeat is None else y.repeat(repeat)

    counted = cost.count_calls(fn, (x,))
    assert (counted.forward, counted.backward) == (22, 2 * m + 2)


def test_fast_mode_makes_four_calls_whatever_n():
    for n in (1, 10, 100):
        x = torch.rand(n, dtype=torch.float64, requires_grad=True)
        counted = cost.count_calls(torch.sin, (x,), fast_mode=True)
        assert (counted.forward, counted.backward) == (4, 4)


def test_count_calls_counts_a_functions_own_calls_and_reports_failure():
    calls = {"forward": 0, "backward": 0}

    class Counted(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            calls["forward"] += 1
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad_output):
            calls["backward"] += 1
            (x,) = ctx.saved_tensors
            return grad_output * 2 * x

    x = torch.tensor([0.5, 1.5, 2.5], dtype=torch.float64, requires_grad=True)
    counted = cost.count_calls(Counted.apply, x)
    assert (counted.forward, counted.backward) == (calls["forward"], calls["backward"])
    assert cost.count_calls(WrongSquareFn.apply, (x,)).passed is False


def test_call_table_pairs_slow_and_fast():
    rows = cost.call_table((1, 10, 100))
    assert [(s.forward, f.forward) for s, f in rows] == [(4, 4), (22, 4), (202, 4)]
    assert all(not s.fast_mode and f.fast_mode for s, f in rows)


def test_time_gradcheck_returns_positive_times_per_size():
    timings = cost.time_gradcheck((4, 40), repeats=1)
    assert [t.n for t in timings] == [4, 40]
    assert all(t.slow_s > 0 and t.fast_s > 0 and t.ratio > 0 for t in timings)


@pytest.mark.parametrize("n", range(1, 41))
def test_fast_mode_arithmetic_reproduces_torchs_verdict(n):
    """Our u, v and tolerance give torch's fast-mode verdict at every size."""
    miss = cost.fast_mode_miss(n)
    assert miss.fast_passed == (miss.bug_term <= miss.allowed)
    assert miss.slow_passed is False


def test_fast_mode_miss_at_ten_is_deterministic_whatever_the_seed():
    verdicts = set()
    for seed in (0, 1, 1234):
        torch.manual_seed(seed)
        miss = cost.fast_mode_miss(10)
        verdicts.add((miss.fast_passed, miss.slow_passed, miss.bug_term))
    assert len(verdicts) == 1
    ((fast, slow, bug_term),) = verdicts
    assert fast and not slow
    assert bug_term == pytest.approx(6.24e-4, rel=1e-3)
    x = torch.linspace(0.25, 2.0, 10, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(OneEntryWrongSquareFn.apply, (x,), fast_mode=True)


def test_fast_mode_misses_lists_the_sizes_it_lets_through():
    assert cost.fast_mode_misses(range(1, 21)) == [6, 10, 12, 13]
    assert 16 not in cost.fast_mode_misses([16])


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "10"])
def test_bad_sizes_are_refused_with_the_argument_named(bad):
    with pytest.raises(ValueError, match="n must be a whole number"):
        cost.fast_mode_miss(bad)
    with pytest.raises(ValueError, match="sizes must be a whole number"):
        cost.call_table([bad])


def test_count_calls_refuses_a_non_callable():
    with pytest.raises(TypeError, match="fn must be callable"):
        cost.count_calls(42, (torch.zeros(1, dtype=torch.float64, requires_grad=True),))
    x = torch.tensor([0.5], dtype=torch.float64, requires_grad=True)
    assert cost.count_calls(SquareFn.apply, (x,)).passed
