"""``didax.ffi``: a foreign function registered with XLA, called like JAX's ``ffi_call``.

The end-to-end tests build a tiny C++ handler against the XLA FFI headers
jaxlib ships (``didax.ffi.include_dir()``), register it once through
``didax.ffi`` (jaxlib's registry is process-wide, so JAX's ``ffi_call``
reaches it too) and compare didax's calls with JAX's; they are skipped,
with the reason, where no C++ compiler is found, and being a compile of
several seconds they are the slow session's. CI keeps the lowering, the
effect and the errors.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jax
import numpy as np
import pytest

import didax
import didax.ffi
from didax.core import effects

SOURCE = r"""
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
static ffi::Error AddDeltaImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y,
                               float delta) {
  for (size_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i] + delta;
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(AddDelta, AddDeltaImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>().Attr<float>("delta"));
"""

TARGET = "didax_test_add_delta"


def _call(lib: Any, x: Any, delta: float = 1.5, vmap_method: str | None = None) -> Any:
    spec = lib.ShapeDtypeStruct(np.shape(x), np.float32)
    return lib.ffi.ffi_call(TARGET, spec, vmap_method=vmap_method)(x, delta=np.float32(delta))


@pytest.fixture(scope="module")
def add_delta(tmp_path_factory: pytest.TempPathFactory) -> str:
    compiler = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    header = Path(didax.ffi.include_dir()) / "xla" / "ffi" / "api" / "ffi.h"
    if compiler is None:
        pytest.skip("no C++ compiler (c++, g++ or clang++) on PATH to build the FFI target")
    if not header.exists():
        pytest.skip(f"jaxlib ships no XLA FFI headers here ({header})")
    where = tmp_path_factory.mktemp("ffi")
    (where / "add.cc").write_text(SOURCE)
    library = where / "libadd.so"
    subprocess.run(
        [compiler, "-shared", "-fPIC", "-std=c++17", "-w", f"-I{didax.ffi.include_dir()}",
         str(where / "add.cc"), "-o", str(library)],
        check=True,
        env={**os.environ},
    )  # fmt: skip
    handler = ctypes.cdll.LoadLibrary(str(library)).AddDelta
    didax.ffi.register_ffi_target(TARGET, didax.ffi.pycapsule(handler), platform="cpu")
    return TARGET


@pytest.mark.slow
def test_ffi_call_as_jax(add_delta: str) -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    expected = np.asarray(jax.jit(lambda v: _call(jax, v))(x))
    np.testing.assert_array_equal(expected, x + 1.5)
    np.testing.assert_array_equal(np.asarray(_call(didax, x)), expected)  # eager
    np.testing.assert_array_equal(np.asarray(didax.jit(lambda v: _call(didax, v))(x)), expected)
    for method in ("sequential", "expand_dims", "broadcast_all"):
        ours = didax.jit(didax.vmap(lambda v, m=method: _call(didax, v, 2.0, m)))(x)
        theirs = jax.jit(jax.vmap(lambda v, m=method: _call(jax, v, 2.0, m)))(x)
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


def test_ffi_call_lowering_and_effect() -> None:
    x = np.zeros(3, np.float32)
    text = didax.jit(lambda v: _call(didax, v)).lower(x).as_text()
    assert f"stablehlo.custom_call @{TARGET}(%arg0)" in text
    assert "backend_config = {delta = 1.500000e+00 : f32}" in text
    assert "api_version = 4" in text
    spec = didax.ShapeDtypeStruct((3,), np.float32)
    kept = didax.make_jaxpr(
        lambda v: (didax.ffi.ffi_call(TARGET, spec, has_side_effect=True)(v), v)[1]
    )(x)
    assert kept.effects == {effects.FFI}
    assert [e.primitive.name for e in kept.eqns] == ["ffi_call"]


def test_ffi_call_errors_as_jax() -> None:
    x = np.zeros(3, np.float32)
    for lib in (jax, didax):
        with pytest.raises(
            ValueError, match=f"The FFI call to `{TARGET}` cannot be differentiated"
        ):
            lib.jvp(lambda v, lib=lib: _call(lib, v), (x,), (x,))
        with pytest.raises(NotImplementedError, match="vmap_method"):
            lib.vmap(lambda v, lib=lib: _call(lib, v))(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="register_ffi_type"):
        didax.ffi.register_ffi_type_id("t", None)
