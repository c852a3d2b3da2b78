"""Smoke test of the one adapter over jax/jaxlib's compiler and transfers."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.lowering import xla


def test_installed_versions_are_in_the_tested_range() -> None:
    xla.check_version()
    low, high = xla.TESTED_JAX_RANGE
    assert low < high


def test_version_parsing() -> None:
    assert xla._version_tuple("0.10.2") == (0, 10, 2)
    assert xla._version_tuple("0.10.2.dev20260101") == (0, 10, 2)


def _add_module(dtype_type: ir.Type, shape: tuple[int, ...]) -> str:
    with xla.make_ir_context(), ir.Location.unknown():
        module = ir.Module.create()
        t = ir.RankedTensorType.get(shape, dtype_type)
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp("main", ir.FunctionType.get([t, t], [t]))
            fn.attributes["sym_visibility"] = ir.StringAttr.get("public")
            entry = fn.add_entry_block()  # type: ignore[attr-defined]
            with ir.InsertionPoint(entry):
                func.ReturnOp([hlo.add(entry.arguments[0], entry.arguments[1])])
        return str(module)


@pytest.mark.parametrize("dtype", ["float64", "int64", "float32"])
def test_compile_transfer_execute_round_trip(dtype: str) -> None:
    with xla.make_ir_context():
        elem = {
            "float64": ir.F64Type.get(),
            "float32": ir.F32Type.get(),
            "int64": ir.IntegerType.get_signless(64),
        }[dtype]
        text = _add_module(elem, (3,))
    exe = xla.compile(text)
    big = np.array([2**62 + 1, -3, 5]) if dtype == "int64" else np.array([1 + 2.0**-40, 2, 3])
    x: np.ndarray[Any, Any] = big.astype(dtype)
    buf = xla.to_device(x)
    assert xla.is_buffer(buf)
    np.testing.assert_array_equal(xla.to_host(buf), x)  # 64-bit values survive the transfer
    (out,) = xla.execute(exe, [buf, buf], xla.result_handlers([(x.shape, x.dtype)]))
    xla.block_until_ready(out)
    result = xla.to_host(out)
    assert result.dtype == dtype
    np.testing.assert_array_equal(result, x + x)
    assert xla.platform() in ("cpu", "gpu", "cuda", "rocm", "tpu")
