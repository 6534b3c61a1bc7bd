"""gradkit._args: every argument rule once, with the argument's name and the fix in the message."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from gradkit import _args
from gradkit._args import (
    DTYPES,
    EPS_GRID,
    EPS_MAX,
    EPS_MIN,
    GRADCHECK_DEFAULTS,
    as_dtype,
    as_input_tuple,
    check_control_eps,
    check_eps,
    check_eps_values,
    check_points,
    check_scheme,
    check_tolerance,
    check_x,
    complex_counterpart,
    dtype_name,
    snap_eps,
)


def test_the_contract_names_and_values():
    assert set(DTYPES) == {"float64", "float32", "float16", "bfloat16"}
    assert GRADCHECK_DEFAULTS == {"eps": 1e-6, "atol": 1e-5, "rtol": 1e-3}
    assert (EPS_MIN, EPS_MAX) == (1e-12, 1.0)
    assert set(_args.__all__) <= set(dir(_args))


def test_eps_grid_is_the_decimal_1_2_5_grid_that_prints_exactly():
    assert len(EPS_GRID) == 37
    assert EPS_GRID[:4] == (1e-12, 2e-12, 5e-12, 1e-11)
    assert EPS_GRID[-4:] == (0.1, 0.2, 0.5, 1.0)
    assert [repr(v) for v in EPS_GRID[:3]] == ["1e-12", "2e-12", "5e-12"]
    # ÷10 and ×10 move three grid positions
    k = EPS_GRID.index(1e-6)
    assert EPS_GRID[k - 3] == 1e-7 and EPS_GRID[k + 3] == 1e-5


@pytest.mark.parametrize(
    ("eps", "expected"), [(1e-6, 1e-6), (3e-6, 2e-6), (4e-6, 5e-6), (1e-20, 1e-12), (7.0, 1.0)]
)
def test_snap_eps_finds_the_nearest_grid_value_on_a_log_scale(eps, expected):
    assert EPS_GRID[snap_eps(eps)] == expected


def test_eps_rules():
    assert check_eps(1e-3) == 1e-3
    assert check_eps(torch.tensor([2e-3], dtype=torch.float64)) == 2e-3
    for bad in (0, -1e-3, math.nan, math.inf):
        with pytest.raises(ValueError, match=r"eps must be a finite number > 0.*got"):
            check_eps(bad)
    with pytest.raises(TypeError, match=r"eps must be a positive number.*got a list of 0 values"):
        check_eps([])
    with pytest.raises(TypeError, match=r"eps must be a positive number.*got str"):
        check_eps("1e-3")
    with pytest.raises(ValueError, match=r"outside the range 1e-12 to 1"):
        check_control_eps(2.0)
    assert check_control_eps(1e-12) == 1e-12


def test_numpy_numbers_are_numbers_and_a_tolerance_may_be_inf_where_torch_allows_it():
    # issue 19, case 7: "eps must be a positive number such as 1e-6, got float32" was wrong
    assert check_eps(np.float32(1e-3)) == float(np.float32(1e-3))
    assert check_x(np.float64(2.0)) == 2.0
    assert check_tolerance(np.float32(0.5), "atol") == 0.5
    assert check_tolerance(math.inf, "atol", allow_inf=True) == math.inf
    with pytest.raises(ValueError, match=r"atol must be a finite number >= 0.*got inf"):
        check_tolerance(math.inf, "atol")
    with pytest.raises(ValueError, match=r"rtol must be a number >= 0.*got nan"):
        check_tolerance(math.nan, "rtol", allow_inf=True)
    with pytest.raises(TypeError, match=r"eps must be a positive number.*got bool"):
        check_eps(np.bool_(True))


def test_eps_values_follow_the_same_rule_as_one_eps():
    assert check_eps_values([1e-3, 1e-6]).tolist() == [1e-3, 1e-6]
    for bad in ([], [1e-3, 0.0], [-1e-3], [math.nan]):
        with pytest.raises(ValueError, match="eps must be a non-empty sequence of finite numbers"):
            check_eps_values(bad)


def test_dtype_rules():
    assert as_dtype("float32") is torch.float32
    assert as_dtype("torch.float64") is torch.float64
    assert as_dtype(torch.bfloat16) is torch.bfloat16
    assert dtype_name(torch.float16) == "float16"
    with pytest.raises(ValueError, match=r"float8_e4m3fn is not supported.*torch.float64"):
        as_dtype(torch.float8_e4m3fn)
    with pytest.raises(ValueError, match="dtype='float8' is not one of"):
        as_dtype("float8")
    with pytest.raises(TypeError, match="must be a floating torch dtype"):
        as_dtype(torch.int64)


def test_complex_counterparts():
    assert complex_counterpart(torch.float64) is torch.complex128
    assert complex_counterpart("float32") is torch.complex64
    assert complex_counterpart(torch.complex64) is torch.complex64
    with pytest.raises(ValueError, match="bfloat16 has no complex counterpart"):
        complex_counterpart(torch.bfloat16)


def test_tolerance_x_scheme_and_input_rules():
    assert check_tolerance(0, "atol") == 0.0
    with pytest.raises(ValueError, match=r"atol must be a finite number >= 0.*got nan"):
        check_tolerance(math.nan, "atol")
    assert check_x(torch.tensor(2.0)) == 2.0
    with pytest.raises(TypeError, match=r"x must be a single number.*complex"):
        check_x(1 + 2j)
    with pytest.raises(ValueError, match="x must be a finite number"):
        check_x(math.nan)
    assert check_scheme("forward") == "forward"
    with pytest.raises(ValueError, match="scheme='left'"):
        check_scheme("left")
    x = torch.ones(2)
    assert as_input_tuple(x) == (x,) and as_input_tuple([x, 2.0]) == (x, 2.0)
    with pytest.raises(TypeError, match=r"inputs is a dict; pass the values in the order"):
        as_input_tuple({"x": x})
    assert check_points([0.5, 2.0]).dtype is torch.float64
    with pytest.raises(TypeError, match="x must be real"):
        check_points(torch.tensor([1 + 2j]))
    with pytest.raises(ValueError, match="x must hold finite numbers, got nan"):
        check_points(math.nan)


def _inline_allowances(source: str) -> int:
    """How many ``atol + rtol * ...`` expressions a module's code writes (comments ignored)."""
    import ast

    def name(node) -> str:
        return node.id if isinstance(node, ast.Name) else ""

    found = 0
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            for a, b in ((node.left, node.right), (node.right, node.left)):
                if "atol" in name(a) and isinstance(b, ast.BinOp) and isinstance(b.op, ast.Mult):
                    found += any("rtol" in name(part) for part in ast.walk(b))
    return found


def test_the_tolerance_rule_is_written_once():
    from pathlib import Path

    import gradkit
    from gradkit._args import allowance

    root = Path(gradkit.__file__).parent
    places = {
        str(p.relative_to(root)): _inline_allowances(p.read_text(encoding="utf-8"))
        for p in root.rglob("*.py")
    }
    assert {p: n for p, n in places.items() if n} == {"_args.py": 1}
    assert _inline_allowances("x = atol + rtol * abs(n)\ny = 2 * rtol * n + atol\n") == 2
    assert allowance(-2.0, 1e-5, 1e-3) == 1e-5 + 2e-3
    assert allowance(torch.tensor([-2.0]), 0.0, 0.5).tolist() == [1.0]
