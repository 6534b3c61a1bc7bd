"""Engine suite: the batched check engine against torch's slow gradcheck, the floor, and sweeps.

Figures, each against an anchor timed in the same run (candidates are interleaved call by call,
so a noisy neighbour slows them alike):

- ``gradkit.check(f, (x,), engine="batched")`` end to end versus ``torch.autograd.gradcheck``
  (slow mode) for a dense ``f = x @ W`` in float64, n = 16, 64, 256 (and 1024 with ``full``),
  with each one's growth from n = 16;
- the floor: one stacked forward, one batched backward (``is_grads_batched``) and one
  comparison, nothing else; the engine is held to within 2x of it for n >= 256. The 40x-over-torch
  goal at n = 256 is for a quiet machine or a GPU; on a shared CPU it is printed, not held;
- ``gradkit.sweep`` over 61 eps x 4 dtypes for a 16-entry input versus a per-entry loop of
  ``numeric_slope`` calls (goal: median <= 20 ms and >= 20x the loop);
- with ``device="cuda"``: the same engine table on the GPU, and the TF32 effect on a float32
  matmul check (``torch.backends.cuda.matmul.allow_tf32`` off versus on).

CPU timings use one intra-op thread (set ``GRADKIT_BENCH_THREADS`` for more): on two shared cores
a second thread stalls whenever the other core is busy, which swamps every figure.
``python -m benchmarks --device cuda`` is the GPU script; without a GPU it stops with a
message instead of a traceback.
"""

from __future__ import annotations

import gc
import math
import os
import sys
import time
from collections.abc import Callable

import torch

import gradkit
from gradkit.numerics import DTYPES

from . import Row, summarize

__all__ = ["floor_check", "resolve_device", "run", "tf32_effect"]

SUITE = "engine"
_SIZES = (16, 64, 256)
_FULL_SIZES = (*_SIZES, 1024)
#: The engine is held to within this factor of the floor from this size up.
_FLOOR_FACTOR, _FLOOR_FROM = 2.0, 256
_TORCH_GOAL, _TORCH_GOAL_AT = 40.0, 256
_SETTINGS = {"eps": 1e-6, "atol": 1e-5, "rtol": 1e-3}


def resolve_device(device: str) -> torch.device:
    """The device a run asked for, or SystemExit with a message saying what to do instead."""
    try:
        resolved = torch.device(device)
    except (RuntimeError, TypeError) as error:
        raise SystemExit(
            f"benchmarks: --device {device!r} is not a device ({error}); use cpu or cuda"
        ) from None
    if resolved.type == "cpu":
        return resolved
    if resolved.type != "cuda":
        raise SystemExit(f"benchmarks: --device {device!r} is not supported; use cpu or cuda")
    if not torch.cuda.is_available():
        built = "with" if torch.backends.cuda.is_built() else "without"
        raise SystemExit(
            f"benchmarks: --device {device} needs a CUDA GPU, but torch.cuda.is_available() is "
            f"False (torch {torch.__version__}, built {built} CUDA). Run this script on a GPU "
            "machine, or leave out --device (or pass --device cpu) for the CPU figures."
        )
    if resolved.index is not None and resolved.index >= torch.cuda.device_count():
        raise SystemExit(
            f"benchmarks: --device {device}: only {torch.cuda.device_count()} GPU(s) visible"
        )
    return resolved


def _interleaved(
    candidates: dict[str, Callable[[], object]],
    repeat: int,
    warmup: int = 1,
    sync: Callable[[], None] | None = None,
) -> dict[str, list[float]]:
    """Milliseconds per call for each candidate, calls interleaved round-robin."""
    names = list(candidates)
    for _ in range(warmup):
        for name in names:
            candidates[name]()
    if sync:
        sync()
    samples: dict[str, list[float]] = {name: [] for name in names}
    gc.collect()
    for r in range(repeat):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            start = time.perf_counter()
            candidates[name]()
            if sync:
                sync()
            samples[name].append((time.perf_counter() - start) * 1000)
    return samples


def floor_check(f: Callable, x: torch.Tensor, eps: float, atol: float, rtol: float) -> bool:
    """The least work a full-Jacobian check needs, for a one-input, one-output ``f``.

    One stacked forward of all 2n nudged inputs, one batched backward
    (``is_grads_batched=True``) of the n x n identity, one ``allclose``; nothing else.
    """
    flat = x.detach().reshape(-1)
    n = flat.numel()
    rows = flat.expand(2 * n, n).clone()
    rows[:n].diagonal().sub_(eps)
    rows[n:].diagonal().add_(eps)
    with torch.no_grad():
        out = f(rows.reshape(2 * n, *x.shape)).reshape(2 * n, -1)
    numeric = (out[n:] - out[:n]).div_(2 * eps)  # row k: d f / d x_k
    y = f(x)
    m = y.numel()
    eye = torch.eye(m, dtype=y.dtype, device=y.device).reshape(m, *y.shape)
    (grads,) = torch.autograd.grad(y, x, eye, is_grads_batched=True)
    return torch.allclose(grads.reshape(m, n), numeric.T, rtol=rtol, atol=atol)


def _dense(n: int, device: torch.device, dtype: torch.dtype = torch.float64):
    gen = torch.Generator().manual_seed(n)
    w = torch.randn(n, n, generator=gen, dtype=torch.float64).to(device=device, dtype=dtype)
    x = torch.randn(n, generator=gen, dtype=torch.float64).to(device=device, dtype=dtype)

    def f(v: torch.Tensor) -> torch.Tensor:
        return v @ w

    return f, x.requires_grad_(True)


def _repeat(n: int, device: torch.device) -> int:
    if device.type == "cuda":
        return {16: 30, 64: 20, 256: 10}.get(n, 4)
    return {16: 30, 64: 20, 256: 12}.get(n, 3)


def _engine_rows(
    sizes: tuple[int, ...], device: torch.device, label: str, repeat: int | None = None
) -> list[Row]:
    sync = torch.cuda.synchronize if device.type == "cuda" else None
    medians: dict[int, dict[str, tuple[float, float]]] = {}
    for n in sizes:
        f, x = _dense(n, device)
        report = gradkit.check(f, (x,), engine="batched", **_SETTINGS)
        if not report.passed or not floor_check(f, x, **_SETTINGS):
            raise RuntimeError(f"x @ W, n={n}: the batched check or the floor did not pass")
        samples = _interleaved(
            {
                "engine": lambda f=f, x=x: gradkit.check(f, (x,), engine="batched", **_SETTINGS),
                "floor": lambda f=f, x=x: floor_check(f, x, **_SETTINGS),
                "torch": lambda f=f, x=x: torch.autograd.gradcheck(f, (x,), **_SETTINGS),
            },
            repeat=repeat or _repeat(n, device),
            sync=sync,
        )
        medians[n] = {k: summarize(v) for k, v in samples.items()}
        print(f"  engine n={n}: done", file=sys.stderr, flush=True)
    base = sizes[0]
    rows = []
    for n in sizes:
        eng, flo, tor = medians[n]["engine"], medians[n]["floor"], medians[n]["torch"]
        grow_e = eng[0] / medians[base]["engine"][0]
        grow_t = tor[0] / medians[base]["torch"][0]
        ratio = tor[0] / eng[0]
        if n == _TORCH_GOAL_AT:
            if device.type == "cuda":
                goal, met = f">= {_TORCH_GOAL:.0f}x torch", ratio >= _TORCH_GOAL
            else:
                goal = (
                    f">= {_TORCH_GOAL:.0f}x torch (goal for a quiet machine/GPU; here held to "
                    "the floor)"
                )
                met = None
        else:
            goal, met = f"growth from n={base} printed", None
        rows.append(
            Row(
                SUITE,
                f"batched x@W n={n} {label} (x{grow_e:.3g} vs n={base})",
                *eng,
                f"torch gradcheck (x{grow_t:.3g} vs n={base})",
                *tor,
                goal,
                met,
            )
        )
        rows.append(
            Row(
                SUITE,
                f"floor n={n}: 1 fwd + 1 bwd + 1 compare",
                *flo,
                "torch gradcheck",
                *tor,
                "what batching alone reaches",
                None,
            )
        )
        held = n >= _FLOOR_FROM
        rows.append(
            Row(
                SUITE,
                f"check batched n={n} = {eng[0] / flo[0]:.2f}x its floor",
                *eng,
                "floor: 1 fwd + 1 bwd + 1 compare",
                *flo,
                f"within {_FLOOR_FACTOR:.0f}x of the floor (ratio >= {1 / _FLOOR_FACTOR:.2f}x)"
                if held
                else f"(held from n={_FLOOR_FROM}: fixed costs dominate here)",
                (eng[0] <= _FLOOR_FACTOR * flo[0]) if held else None,
            )
        )
    return rows


def _sweep_loop(f: Callable, x: torch.Tensor, grid: torch.Tensor) -> list[float]:
    """The per-entry anchor: one numeric_slope call per (dtype, eps, entry)."""
    slopes = []
    for dtype in DTYPES.values():
        for eps in grid.tolist():
            for value in x.tolist():
                try:
                    slopes.append(gradkit.numeric_slope(f, value, eps, dtype=dtype))
                except ValueError:  # eps rounds to 0 in this dtype
                    slopes.append(math.nan)
    return slopes


def _sweep_rows(full: bool) -> list[Row]:
    def f(v: torch.Tensor) -> torch.Tensor:
        return v**3

    x = torch.linspace(0.25, 2.0, 16, dtype=torch.float64)
    result = gradkit.sweep(f, x)
    grid = result.eps
    loop = torch.tensor(_sweep_loop(f, x, grid), dtype=torch.float64)
    if loop.numel() != len(DTYPES) * grid.numel() * x.numel():
        raise RuntimeError("the sweep's per-entry anchor computed the wrong number of slopes")
    samples = _interleaved(
        {"sweep": lambda: gradkit.sweep(f, x), "loop": lambda: _sweep_loop(f, x, grid)},
        repeat=8 if full else 5,
    )
    sweep, anchor = summarize(samples["sweep"]), summarize(samples["loop"])
    met = sweep[0] <= 20.0 and anchor[0] / sweep[0] >= 20.0
    return [
        Row(
            SUITE,
            f"sweep {x.numel()} entries x {grid.numel()} eps x {len(DTYPES)} dtypes [cpu]",
            *sweep,
            "per-entry loop of numeric_slope",
            *anchor,
            "median <= 20 ms and >= 20x the loop",
            met,
        )
    ]


def tf32_effect(device: torch.device, shape: tuple[int, int] = (8, 64)) -> list[dict]:
    """A float32 ``X @ W`` check with ``torch.backends.cuda.matmul.allow_tf32`` off, then on.

    Returns one dict per setting: ``allow_tf32``, ``rel_error`` (max |y32 - y64| / max |y64|
    of the forward against a float64 reference), ``default`` (verdict at gradcheck's defaults),
    ``sized`` (verdict at float32-sized settings eps=1e-2, atol=rtol=1e-3), ``seconds`` (the
    sized check). On a CPU the flag changes nothing, which is itself the CPU answer.
    """
    gen = torch.Generator().manual_seed(0)
    w64 = torch.randn(shape[1], shape[1], generator=gen, dtype=torch.float64)
    x64 = torch.randn(shape, generator=gen, dtype=torch.float64)
    w32, x32 = w64.to(device, torch.float32), x64.to(device, torch.float32)
    reference = (x32.double() @ w32.double()).cpu()  # exact products of the float32 values
    flag = torch.backends.cuda.matmul.allow_tf32
    results = []
    try:
        for allow in (False, True):
            torch.backends.cuda.matmul.allow_tf32 = allow

            def f(v: torch.Tensor) -> torch.Tensor:
                return v @ w32.to(v.dtype)  # follows v, so check() can retry in float64

            y = f(x32).double().cpu()
            rel = float((y - reference).abs().max() / reference.abs().max())
            x = x32.clone().requires_grad_(True)
            default = gradkit.check(f, (x,), engine="batched")
            start = time.perf_counter()
            sized = gradkit.check(f, (x,), engine="batched", eps=1e-2, atol=1e-3, rtol=1e-3)
            if device.type == "cuda":
                torch.cuda.synchronize(device)
            seconds = time.perf_counter() - start
            results.append(
                {
                    "allow_tf32": allow,
                    "rel_error": rel,
                    "default": default.verdict,
                    "sized": sized.verdict,
                    "sized_cause": sized.cause,
                    "seconds": seconds,
                }
            )
    finally:
        torch.backends.cuda.matmul.allow_tf32 = flag
    return results


def _tf32_rows(device: torch.device) -> list[Row]:
    results = tf32_effect(device)
    off, on = results
    rows = []
    for r in results:
        state = "on" if r["allow_tf32"] else "off"
        rows.append(
            Row(
                SUITE,
                f"TF32 {state}: f32 X@W check, eps=1e-2 tol 1e-3",
                r["seconds"] * 1000,
                r["seconds"] * 1000,
                "same check, TF32 off",
                off["seconds"] * 1000,
                off["seconds"] * 1000,
                f"matmul rel err {r['rel_error']:.1e}; verdict {r['sized']} ({r['sized_cause']}); "
                f"at gradcheck defaults {r['default']}",
                None,
            )
        )
    growth = on["rel_error"] / max(off["rel_error"], 1e-300)
    if growth > 10:
        print(f"  TF32 raised the float32 matmul error {growth:.3g}x", file=sys.stderr)
    return rows


def run(full: bool = False, device: str = "cpu") -> list[Row]:
    """The engine suite's rows (see the module docstring).

    Parameters
    ----------
    full : bool
        Add n = 1024 to the engine table.
    device : str
        ``"cpu"`` or ``"cuda"``; without CUDA, ``"cuda"`` stops with a message (SystemExit).
    """
    resolved = resolve_device(device)
    sizes = _FULL_SIZES if full else _SIZES
    threads = torch.get_num_threads()
    wanted = os.environ.get("GRADKIT_BENCH_THREADS", "1")
    if not wanted.isdigit() or int(wanted) < 1:
        raise SystemExit(
            f"benchmarks: GRADKIT_BENCH_THREADS={wanted!r} must be a whole number >= 1"
        )
    rows: list[Row] = []
    try:
        if resolved.type == "cpu":
            torch.set_num_threads(int(wanted))
            label, name = "[cpu]", f"CPU, {wanted} intra-op thread(s)"
        else:
            if resolved.index is not None:  # plain "cuda" means the current device
                torch.cuda.set_device(resolved)
            label, name = "[cuda]", torch.cuda.get_device_name(resolved)
        print(f"  engine suite on {name}", file=sys.stderr, flush=True)
        rows += _engine_rows(sizes, resolved, label)
        rows += _sweep_rows(full)
        if resolved.type == "cuda":
            rows += _tf32_rows(resolved)
    finally:
        torch.set_num_threads(threads)
    return rows
