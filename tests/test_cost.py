"""gradkit.cost: call counts, timings and fast_mode's miss, checked against torch itself.

``call_plan`` is the one statement of gradcheck's calls; every count here is measured by
``count_calls`` (a wrapper and a hook, as a learner could write them) on torch's own gradcheck.
"""

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


def _two_outputs(a, b):
    return a.sin(), (b * 2).cos()


def _mixed(a, b):
    return a * b.sum()


# (function, input sizes, settings): one and several inputs and outputs, both modes, and the
# undefined-gradient check switched off
PLAN_CASES = [
    (torch.sin, (1,), {}),
    (torch.sin, (7,), {}),
    (torch.sin, (7,), {"fast_mode": True}),
    (torch.sin, (7,), {"check_undefined_grad": False}),
    (_mixed, (5, 3), {}),
    (_mixed, (5, 3), {"fast_mode": True}),
    (_two_outputs, (5, 3), {}),
    (_two_outputs, (5, 3), {"fast_mode": True}),
    (_two_outputs, (4, 2), {"check_undefined_grad": False}),
    (lambda t: t.sum().reshape(1), (6,), {}),
    (lambda t: t.repeat(3), (2,), {}),
]


@pytest.mark.parametrize(("fn", "sizes", "settings"), PLAN_CASES)
def test_call_plan_is_what_torch_does(fn, sizes, settings):
    """The one statement of gradcheck's cost equals what a wrapped function counts."""
    inputs = tuple(torch.rand(k, dtype=torch.float64, requires_grad=True) for k in sizes)
    counted = cost.count_calls(fn, inputs, **settings)
    assert counted.passed
    plan = counted.plan
    assert plan is not None and (plan.n, plan.m) == (counted.n, counted.m)
    assert (counted.forward, counted.backward) == (plan.forward, plan.backward), plan
    assert sum(p.forward for p in plan.parts()) == plan.forward
    assert sum(p.backward for p in plan.parts()) == plan.backward


def test_call_plan_states_2n_plus_2_and_its_parts():
    plan = cost.call_plan(10)
    assert (plan.forward, plan.backward) == (22, 22)
    assert [(p.name, p.forward, p.backward) for p in plan.parts()] == [
        ("plain run", 1, 0),
        ("nudged runs", 20, 0),
        ("analytic side", 0, 20),
        ("zero grad_output", 0, 1),
        ("undefined gradient", 1, 1),
    ]
    fast = cost.call_plan(10, fast_mode=True)
    assert (fast.forward, fast.backward) == (4, 4)
    assert cost.call_plan(4, 9).backward == 20


def _counted_square():
    """x² as a Function that counts its own forward and backward calls."""
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

    return Counted, calls


def test_a_functions_own_counters_agree_with_the_plan():
    Counted, calls = _counted_square()

    x = torch.tensor([0.5, 1.5, 2.5, 3.0], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(Counted.apply, (x,))
    plan = cost.call_plan(4)
    assert (calls["forward"], calls["backward"]) == (plan.forward, plan.backward)


def test_complex_inputs_have_no_plan():
    z = torch.rand(3, dtype=torch.complex128, requires_grad=True)
    assert cost.count_calls(lambda t: t * t, (z,)).plan is None


@pytest.mark.parametrize(
    ("args", "settings", "message"),
    [
        ((0,), {}, "n must be"),
        ((3, 0), {}, "m must be"),
        ((2,), {"inputs": 3}, "3 input"),
        ((2, 2), {"outputs": 3}, "3 output"),
    ],
)
def test_call_plan_refuses_impossible_shapes(args, settings, message):
    with pytest.raises(ValueError, match=message):
        cost.call_plan(*args, **settings)


def test_fast_mode_makes_four_calls_whatever_n():
    for n in (1, 10, 100):
        x = torch.rand(n, dtype=torch.float64, requires_grad=True)
        counted = cost.count_calls(torch.sin, (x,), fast_mode=True)
        assert (counted.forward, counted.backward) == (4, 4)


def test_count_calls_counts_a_functions_own_calls_and_reports_failure():
    Counted, calls = _counted_square()

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
    assert miss.bug_term == pytest.approx(0.1 * miss.p0 * miss.q0)
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


@pytest.mark.parametrize(
    "fn",
    [OneEntryWrongSquareFn.apply, SquareFn.apply, WrongSquareFn.apply, torch.sin],
    ids=["one-entry", "square", "wrong-square", "sin"],
)
def test_fast_mode_by_hand_gives_torchs_verdict(fn):
    """Both ways of computing qᵀJp, step by step, reach torch's fast-mode verdict."""
    for n in range(1, 13):
        by_hand = cost.fast_mode_by_hand(fn, n)
        x = torch.linspace(0.25, 2.0, n, dtype=torch.float64, requires_grad=True)
        torch_says = torch.autograd.gradcheck(fn, (x,), fast_mode=True, raise_exception=False)
        assert by_hand.passed == torch_says, (n, by_hand)


def test_fast_mode_by_hand_shows_the_bugs_share():
    by_hand = cost.fast_mode_by_hand(n=3)
    x = by_hand.x
    assert torch.allclose(by_hand.jp, 2 * x * by_hand.p, atol=1e-8)  # J·p for x * x
    assert by_hand.numeric == pytest.approx(float(by_hand.q @ by_hand.jp))
    share = by_hand.analytic - by_hand.numeric
    assert share == pytest.approx(0.1 * float(by_hand.p[0] * by_hand.q[0]), rel=1e-6)
    assert not by_hand.passed
