"""The batched engine: torch's slow-mode verdict and numbers, O(1) forward calls, safe fallbacks.

Also: gradkit follows the inputs' device (audited on CPU for factory calls without a device;
exercised on CUDA where a GPU exists), and the GPU benchmark script runs its code paths on CPU.
"""

from __future__ import annotations

import math
import sys
import warnings
from contextlib import contextmanager
from pathlib import Path

import pytest
import torch
from planted import planted_matmul
from torch.autograd.gradcheck import (
    GradcheckError,
    _check_analytical_jacobian_attributes,
    _get_numerical_jacobian,
)
from torch.overrides import TorchFunctionMode

import gradkit
from gradkit.engine import batched_verdict
from gradkit.jacobian import numeric_jacobian_details
from gradkit.zoo import (
    CATALOGUE,
    OneEntryWrongSquareFn,
    ReluFn,
    TransposedMatmulFn,
    WrongSquareFn,
)

SETTINGS = {"eps": 1e-6, "atol": 1e-5, "rtol": 1e-3}
CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def _torch_says(fn, inputs, **kwargs) -> bool:
    """torch's slow-mode verdict; an exception other than a mismatch counts as a failure."""
    try:
        return torch.autograd.gradcheck(fn, inputs, raise_exception=False, **kwargs)
    except Exception:  # noqa: BLE001 - torch raised before comparing Jacobians
        return False


def _dense(n: int, device="cpu", dtype=torch.float64, seed=0):
    gen = torch.Generator().manual_seed(seed)
    w = torch.randn(n, n, generator=gen, dtype=torch.float64).to(device=device, dtype=dtype)
    x = torch.randn(n, generator=gen, dtype=torch.float64).to(device=device, dtype=dtype)
    return (lambda v: v @ w), x.requires_grad_(True)


# ------------------------------------------------------------------------- verdicts and numbers


@pytest.mark.usefixtures("quiet_gradcheck")
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_batched_verdict_equals_torch_slow_mode(name, dtype):
    entry = CATALOGUE[name]
    torch.manual_seed(0)
    expected = _torch_says(entry.apply, entry.inputs(dtype))
    torch.manual_seed(0)
    verdict = batched_verdict(entry.apply, entry.inputs(dtype), **SETTINGS)
    torch.manual_seed(0)
    report = gradkit.check(entry.apply, entry.inputs(dtype), engine="batched")
    assert verdict.passed == expected
    assert report.passed == expected
    assert report.engine == "batched"
    assert report.cause == entry.expected_cause["float64" if dtype == torch.float64 else "float32"]


def _real_wrapper(fn, inputs):
    """The same function on real views: complex entries become (..., 2) real tensors.

    torch reports complex Jacobians through the Wirtinger split; through this wrapper both
    torch and gradkit nudge and seed exactly the same real numbers.
    """

    def wrapped(*reals):
        args = [
            torch.view_as_complex(r) if t.is_complex() else r
            for r, t in zip(reals, inputs, strict=True)
        ]
        out = fn(*args)
        outs = out if isinstance(out, tuple) else (out,)
        return tuple(torch.view_as_real(o) if o.is_complex() else o for o in outs)

    reals = tuple(
        (torch.view_as_real(t.detach()) if t.is_complex() else t.detach())
        .clone()
        .requires_grad_(t.requires_grad)
        for t in inputs
    )
    return wrapped, reals


def _torch_analytic(fn, inputs):
    """torch's slow-mode analytic Jacobians (one backward per output entry), as J[o][i]."""
    with torch.enable_grad():
        out = fn(*inputs)
    outs = out if isinstance(out, tuple) else (out,)
    per_output = [_check_analytical_jacobian_attributes(inputs, o, math.inf, False) for o in outs]
    return [[j.T for j in row] for row in per_output]


def _max_gap(ours, theirs) -> float:
    gap = 0.0
    for o, row in enumerate(theirs):
        for i, expected in enumerate(row):
            assert ours[o][i].shape == expected.shape
            gap = max(gap, float((ours[o][i] - expected).abs().max()))
    return gap


def _torch_numeric(fn, inputs, eps=SETTINGS["eps"]):
    """torch's slow-mode numeric Jacobians, as J[o][i]."""
    per_input = _get_numerical_jacobian(fn, inputs, eps=eps)
    return [[per_input[i][o].T for i in range(len(per_input))] for o in range(len(per_input[0]))]


def _assert_same(ours, theirs) -> None:
    """Bit for bit the same blocks (NaN where torch has NaN)."""
    for o, row in enumerate(theirs):
        for i, expected in enumerate(row):
            assert ours[o][i].dtype == expected.dtype, (o, i)
            assert torch.equal(ours[o][i].nan_to_num(7.0), expected.nan_to_num(7.0)), (o, i)


_PLANTED = "planted x @ W (batched calls sum in reverse order)"


def _catalogue_case(name):
    """(fn, inputs) of a catalogue entry in float64 (complex ones through their real views), or
    the planted function whose batched calls round differently on every CPU."""
    if name == _PLANTED:
        f, x = planted_matmul()
        return f, (x,)
    entry = CATALOGUE[name]
    inputs = entry.inputs(torch.float64)
    if any(t.is_complex() for t in inputs):
        return _real_wrapper(entry.apply, inputs)
    return entry.apply, inputs


_NAMES = [_PLANTED, *sorted(set(CATALOGUE) - {"RandomForwardFn"})]


@pytest.mark.usefixtures("quiet_gradcheck")
@pytest.mark.parametrize("engine", ["torch", "batched"])
@pytest.mark.parametrize("name", _NAMES)
def test_reported_jacobians_are_torchs_own_bit_for_bit(name, engine):
    fn, inputs = _catalogue_case(name)
    report = gradkit.check(fn, inputs, engine=engine)
    _assert_same(report.numeric, _torch_numeric(fn, inputs))
    try:
        torch_analytic = _torch_analytic(fn, inputs)
    except RuntimeError:  # the backward itself is broken (wrong shape, in-place change)
        assert report.analytic is None
        return
    if name != "NoisyBackwardTanhFn":  # its backward adds fresh noise on every call
        _assert_same(report.analytic, torch_analytic)
    w = report.worst
    if w is not None:
        assert w.numeric == float(report.numeric[w.output][w.input][w.index])
        assert w.analytic == float(report.analytic[w.output][w.input][w.index])


@pytest.mark.parametrize("name", _NAMES)
def test_batched_jacobians_sit_within_the_slack_the_engine_proved(name):
    """gradkit.numeric_jacobian batches: it is torch's bit for bit where it nudged one entry per
    call, and within ``slack`` (the bound the engine proved) where it batched."""
    fn, inputs = _catalogue_case(name)
    details = numeric_jacobian_details(fn, inputs, eps=SETTINGS["eps"])
    for o, row in enumerate(_torch_numeric(fn, inputs)):
        for i, expected in enumerate(row):
            gap = float((details.jacobians[o][i] - expected).abs().max()) if expected.numel() else 0
            assert gap <= details.slack.get(i, 0.0), (o, i, details.modes)
    if name == _PLANTED:  # the test would be blind if batching rounded as single calls do
        assert details.modes == {0: "vmap"} and 0 < gap <= details.slack[0]
    try:
        torch_analytic = _torch_analytic(fn, inputs)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            gradkit.analytic_jacobian(fn, inputs)
        return
    limit = 1e-8 if name == "NoisyBackwardTanhFn" else 1e-12  # its backward adds 1e-10 noise
    assert _max_gap(gradkit.analytic_jacobian(fn, inputs), torch_analytic) <= limit


def test_dense_jacobians_agree_with_torch_within_rounding_of_one_evaluation():
    # x @ W is batched as one matrix product, which may sum in another order than torch's
    # single vector-matrix products: each value can move by a few roundings, divided by 2 eps
    f, x = _dense(96)
    per_input = _get_numerical_jacobian(f, (x,), eps=1e-6)
    numeric, modes, _, _ = numeric_jacobian_details(f, (x,), eps=1e-6)
    assert modes == {0: "vmap"}
    w = f(torch.eye(96, dtype=torch.float64))
    scale = float((x.detach().abs() @ w.abs()).max())  # matmul rounding scales with sum |x w|
    bound = 64 * torch.finfo(torch.float64).eps * scale / 2e-6
    assert float((numeric[0][0] - per_input[0][0].T).abs().max()) <= bound
    torch_analytic = _torch_analytic(f, (x,))
    assert _max_gap(gradkit.analytic_jacobian(f, (x,)), torch_analytic) <= 1e-12


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["float64", "float32"])
def test_numbers_are_torchs_where_batched_calls_round_differently(dtype, quiet_gradcheck):
    """The planted x @ W: its batched calls sum in another order, on any CPU. The verdict and
    every number shown are torch's, exactly, whichever engine decided."""
    f, x = planted_matmul(dtype=dtype)
    batched = numeric_jacobian_details(f, (x,), eps=1e-6).jacobians[0][0]
    theirs = _torch_numeric(f, (x,))[0][0]
    assert not torch.equal(batched, theirs)  # the planted rounding shows in batched numbers
    message = ""
    try:
        torch.autograd.gradcheck(f, (x,))
    except GradcheckError as error:
        message = str(error)
    for engine in ("torch", "batched"):
        report = gradkit.check(f, (x,), engine=engine)
        assert report.passed == (not message) and report.torch_message == message
        assert torch.equal(report.numeric[0][0], theirs)
        w = report.worst
        assert w.numeric == float(theirs[w.index]) and report.worst.position in report.explanation
        assert f"{w.numeric:.6g}" in report.explanation  # the words quote torch's number


def test_a_batched_pass_reads_torchs_numbers_of_the_inputs_it_checked():
    """A batched pass computes torch's numbers when first read, from copies taken at check
    time: the caller changing its tensor afterwards changes nothing shown."""
    f, x = planted_matmul()
    with _counting(f) as calls:
        report = gradkit.check(f, (x,), engine="batched")
        before = calls["n"]
        assert report.passed and before < 2 * x.numel()  # the verdict took no call per entry
        theirs = _torch_numeric(f, (x.detach().clone().requires_grad_(True),))[0][0]
        with torch.no_grad():
            x.mul_(3.0)
        after = calls["n"]
        numeric = report.numeric[0][0]
        assert calls["n"] >= after + 2 * x.numel()  # read now: torch's calls, one per nudge
    assert torch.equal(numeric, theirs)
    assert report.worst.numeric == float(theirs[report.worst.index])
    assert report.worst.comparison in report.explanation and report.cause == "pass"
    assert report.worst.comparison in str(report) and report.worst.position in report._repr_html_()


# ------------------------------------------------------------------- what cannot be batched


def _reads_grad_mode(x):
    return x * 2 if torch.is_grad_enabled() else x * x


def _reads_requires_grad(x):
    return x * 2 if x.requires_grad else x * x


@pytest.mark.parametrize("n", [1, 12], ids=["one-by-one", "batched"])
@pytest.mark.parametrize("fn", [_reads_grad_mode, _reads_requires_grad])
def test_a_function_that_reads_how_torch_calls_it_gets_torchs_verdict(fn, n):
    """At x = 2 both branches agree (4), so the proof's base point cannot tell them apart; the
    nudged calls can (2x against x * x). The engine calls fn as torch does."""
    x = torch.full((n,), 2.0, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(fn, (x,))
    report = gradkit.check(fn, (x,), engine="batched")
    assert report.passed and report.cause == "pass"
    assert batched_verdict(fn, (x,), **SETTINGS).passed


class CenterFn(torch.autograd.Function):
    """x - mean(x) with a correct backward; its forward mixes rows if given a batch."""

    @staticmethod
    def forward(ctx, x):
        return x - x.mean()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output - grad_output.mean()


def _counter_function():
    calls = {"n": 0}

    def counted(x):
        calls["n"] += 1
        return x * x + 1e-3 * calls["n"]  # the output drifts with the number of calls

    return counted


def _random_forward(x):
    return x * (1 + 0.01 * torch.rand_like(x))


def _x24():
    return torch.linspace(-1.5, 2.0, 24, dtype=torch.float64).requires_grad_(True)


@pytest.mark.parametrize(
    ("make", "expected", "note"),
    [
        (_counter_function, False, "changes Python state it can reach"),
        (lambda: _random_forward, False, "could not be batched"),
        (lambda: CenterFn.apply, True, "could not be batched"),
    ],
    ids=["side-effect-counter", "random-forward", "mixes-batch-rows"],
)
def test_unbatchable_functions_loop_with_a_note_and_keep_torchs_verdict(make, expected, note):
    torch.manual_seed(0)
    assert _torch_says(make(), (_x24(),)) is expected
    torch.manual_seed(0)
    report = gradkit.check(make(), (_x24(),), engine="batched")
    assert report.passed is expected
    assert any(note in n for n in report.notes)
    _, modes, reasons, _ = numeric_jacobian_details(make(), (_x24(),), eps=1e-6)
    assert modes == {0: "loop"}
    assert reasons[0]


@pytest.mark.parametrize("make", [_counter_function, lambda: CenterFn.apply])
def test_looped_numbers_are_torchs_numbers(make):
    # gradkit loops in torch's own order (x - eps, then x + eps, entry by entry), so even a
    # function whose output drifts call by call gets torch's Jacobian
    # (up to the rounding of x*x + 1e-3 * calls, which starts from another call count here)
    theirs = _get_numerical_jacobian(make(), (_x24(),), eps=1e-6)[0][0].T
    ours = gradkit.numeric_jacobian(make(), (_x24(),))[0][0]
    assert float((ours - theirs).abs().max()) <= 1e-9


def test_a_batched_row_mixing_forward_would_have_given_a_wrong_answer():
    # what the verification prevents: with a leading batch dimension CenterFn's mean runs over
    # every row, the numeric Jacobian loses its -1/n and disagrees with the (correct) backward
    x = _x24()
    n = x.numel()
    rows = x.detach().expand(2 * n, n).clone()
    rows[:n].diagonal().sub_(1e-6)
    rows[n:].diagonal().add_(1e-6)
    with torch.no_grad():
        out = CenterFn.apply(rows)
    naive = ((out[n:] - out[:n]) / 2e-6).T
    analytic = gradkit.analytic_jacobian(CenterFn.apply, (x,))[0][0]
    assert not torch.allclose(analytic, naive, atol=1e-5, rtol=1e-3)
    assert gradkit.check(CenterFn.apply, (x,), engine="batched").passed


def test_plain_row_mixing_code_is_batched_exactly_by_vmap():
    def center(v):
        return v - v.mean()

    report = gradkit.check(center, (_x24(),), engine="batched")
    assert report.passed and not report.notes
    assert numeric_jacobian_details(center, (_x24(),), eps=1e-6)[1] == {0: "vmap"}


def test_small_inputs_are_nudged_one_entry_per_call_without_a_note():
    x = torch.tensor([0.5, 1.5, -0.75], dtype=torch.float64, requires_grad=True)
    _, modes, reasons, _ = numeric_jacobian_details(torch.nn.functional.softplus, (x,), eps=1e-6)
    assert modes == {0: "small"} and reasons == {0: []}
    assert not gradkit.check(torch.nn.functional.softplus, (x,), engine="batched").notes


# --------------------------------------------------------------------------- forward calls


@contextmanager
def _counting(f):
    """Count the calls of ``f`` from outside, with a profiler: a counter ``f`` could reach is
    Python state that changes between calls, which sends a check to torch."""
    calls = {"n": 0}
    code = getattr(f, "__code__", None) or type(f).__call__.__code__

    def profile(frame, event, _arg):
        if event == "call" and frame.f_code is code:
            calls["n"] += 1

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield calls
    finally:
        sys.setprofile(previous)


def test_dense_batched_check_calls_the_forward_a_constant_number_of_times():
    counts = {}
    for n in (32, 128):
        f, x = _dense(n)
        with _counting(f) as calls:
            assert gradkit.check(f, (x,), engine="batched").passed
        counts[n] = calls["n"]
        with _counting(f) as calls:
            assert torch.autograd.gradcheck(f, (x,))
        assert calls["n"] >= 2 * n + 2  # torch's slow mode: one call per nudge, and more
    # one forward with autograd and one without (the engine's proof), one batched call, three
    # single rows verifying it, the undefined-grad check; never one per entry
    assert counts[32] == counts[128] <= 10


# ---------------------------------------------------------------------------- torch's checks


def test_batched_engine_runs_torchs_other_slow_mode_checks():
    x = _x24()
    report = gradkit.check(WrongSquareFn.apply, (x,), engine="batched")
    assert not report.passed and "Jacobian mismatch" in report.torch_message

    class IgnoresGradOutput(torch.autograd.Function):
        @staticmethod
        def forward(ctx, v):
            return v.clone()

        @staticmethod
        def backward(ctx, grad_output):
            return torch.ones_like(grad_output)

    # one entry, so the Jacobian (1) matches; only the zero grad_output check can catch it
    y = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
    verdict = batched_verdict(IgnoresGradOutput.apply, (y,), **SETTINGS)
    assert not verdict.passed and not _torch_says(IgnoresGradOutput.apply, (y,))
    assert verdict.message == "backward not multiplied by grad_output"

    fast = batched_verdict(WrongSquareFn.apply, (x,), fast_mode=True, **SETTINGS)
    assert not fast.passed and "fast_mode=True" in fast.notes[0]  # torch's fast mode decided
    none = batched_verdict(torch.sin, (x.detach(),), **SETTINGS)
    assert not none.passed and none.error_type == "ValueError"
    expanded = torch.ones(1, dtype=torch.float64).expand(4).requires_grad_(True)
    assert not batched_verdict(torch.sin, (expanded,), **SETTINGS).passed
    assert not _torch_says(torch.sin, (expanded,))


def test_batched_engine_gives_torchs_float32_warning():
    x = torch.linspace(0.1, 1.0, 12, dtype=torch.float32, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        verdict = batched_verdict(torch.sin, (x,), **SETTINGS)
    assert any("not a double precision" in w for w in verdict.warnings)


# ------------------------------------------------------------------------------------ devices


_FACTORIES = {
    torch.zeros,
    torch.ones,
    torch.empty,
    torch.full,
    torch.eye,
    torch.arange,
    torch.linspace,
    torch.logspace,
    torch.rand,
    torch.randn,
    torch.randint,
    torch.tensor,
    torch.as_tensor,
    torch.scalar_tensor,
}
_AUDITED = (
    "_args.py",
    "realview.py",
    "plan.py",
    "batching.py",
    "jacobian.py",
    "analytic.py",
    "slopes.py",
    "theory.py",
    "sweeps.py",
    "engine.py",
    "diagnosis.py",
    "causes.py",
    "rounding.py",
    "patterns.py",
)


class _ImplicitDeviceAudit(TorchFunctionMode):
    """Records factory calls made from gradkit's own files without a ``device=``."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in _FACTORIES and "device" not in kwargs:
            data_is_tensor = bool(args) and isinstance(args[0], torch.Tensor)
            caller = sys._getframe(1).f_code.co_filename
            package = str(Path(gradkit.__file__).parent)
            if caller.startswith(package) and caller.endswith(_AUDITED) and not data_is_tensor:
                self.found.append(f"torch.{func.__name__} at {caller}:{sys._getframe(1).f_lineno}")
        return func(*args, **kwargs)


def test_engine_and_check_create_no_tensor_on_an_implicit_device():
    zoo_cases = [
        (OneEntryWrongSquareFn.apply, CATALOGUE["OneEntryWrongSquareFn"].inputs()),
        (TransposedMatmulFn.apply, CATALOGUE["TransposedMatmulFn"].inputs()),
        (ReluFn.apply, (torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True),)),
        (CATALOGUE["ComplexSquareFn"].apply, CATALOGUE["ComplexSquareFn"].inputs()),
        (CenterFn.apply, (_x24(),)),
        (WrongSquareFn.apply, (torch.linspace(0.5, 2, 12, dtype=torch.float64).requires_grad_(),)),
    ]
    f, x = _dense(40)
    with _ImplicitDeviceAudit() as audit:
        reports = [gradkit.check(fn, inputs, engine="batched") for fn, inputs in zoo_cases]
        reports.append(gradkit.check(f, (x,), engine="batched"))
        gradkit.numeric_jacobian(f, (x,), chunk_size=7)
        gradkit.analytic_jacobian(f, (x,), batched=False)
    assert [r.passed for r in reports] == [False, False, False, True, True, False, True]
    assert audit.found == []


@CUDA
@pytest.mark.usefixtures("quiet_gradcheck")
@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_cuda_verdicts_equal_torchs(name):
    entry = CATALOGUE[name]

    def on_cuda():
        return tuple(
            t.detach().cuda().requires_grad_(t.requires_grad) for t in entry.inputs(torch.float64)
        )

    torch.manual_seed(0)
    expected = _torch_says(entry.apply, on_cuda())
    torch.manual_seed(0)
    report = gradkit.check(entry.apply, on_cuda(), engine="batched")
    assert report.passed == expected
    if report.numeric is not None:
        assert all(j.device.type == "cuda" for row in report.numeric for j in row)


@CUDA
def test_cuda_dense_check_matches_cpu():
    f_cpu, x_cpu = _dense(64)
    f_gpu, x_gpu = _dense(64, device="cuda")
    cpu = gradkit.check(f_cpu, (x_cpu,), engine="batched")
    gpu = gradkit.check(f_gpu, (x_gpu,), engine="batched")
    assert cpu.passed and gpu.passed
    assert gpu.numeric[0][0].device.type == "cuda"
    assert torch.allclose(gpu.analytic[0][0].cpu(), cpu.analytic[0][0], atol=1e-12)
    assert torch.allclose(gpu.numeric[0][0].cpu(), cpu.numeric[0][0], atol=1e-7)
    assert gradkit.check(f_gpu, (x_gpu,)).passed  # torch's engine on the same tensors


def test_gradcheck_error_type_is_torchs():
    verdict = batched_verdict(WrongSquareFn.apply, (_x24(),), **SETTINGS)
    assert isinstance(verdict.exception, GradcheckError)
