"""The names of the kernels jaxlib registers with XLA: LAPACK's, cuSOLVER's, hipSOLVER's.

Design rules:
- Part of the adapter over jaxlib (``xla``): a linear-algebra lowering
  emits a typed FFI custom call whose target is one of these names, and
  when jaxlib renames or moves a kernel, this file changes and nothing
  else.
- A name is read from jaxlib where jaxlib computes it (LAPACK's, which
  carries the dtype), and built from the platform's prefix where jaxlib
  only documents it (the GPU kernels', which read the dtype from their
  operands). A kernel a platform lacks is a ``NotImplementedError``
  naming it.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

# The LAPACK kernels jaxlib registers with XLA for CPUs (typed FFI custom
# calls): importing JAX's linalg module registers them, ``prepare_lapack_call``
# loads the LAPACK library they call and names the kernel for a dtype.
_LAPACK_PREFIX: Final = {
    np.dtype(np.float32): "s",
    np.dtype(np.float64): "d",
    np.dtype(np.complex64): "c",
    np.dtype(np.complex128): "z",
}


def lapack_target(fn_base: str, dtype: np.dtype[Any]) -> str:
    """The custom-call target of LAPACK's ``fn_base`` (``"getrf_ffi"``...) for ``dtype``.

    >>> lapack_target("getrf_ffi", np.dtype(np.float64))
    'lapack_dgetrf_ffi'
    >>> lapack_target("heevd_ffi", np.dtype(np.complex64))
    'lapack_cheevd_ffi'
    """
    from jax._src.lax import linalg as _jax_linalg  # noqa: F401  (registers the targets)
    from jaxlib import lapack as _lapack

    if dtype not in _LAPACK_PREFIX:
        raise NotImplementedError(f"no LAPACK kernel for {dtype}")
    name: str = _lapack.prepare_lapack_call(fn_base, dtype)  # type: ignore[no-untyped-call]
    return name


# The GPU kernels jaxlib's CUDA (ROCm) plugin registers with XLA as typed FFI
# targets (jaxlib's gpu_solver and gpu_linalg modules; importing JAX's linalg
# module registers them where the plugin is installed). Their names carry
# the platform's prefix and, unlike LAPACK's, no dtype: the kernels read it
# from their operands. Names, attributes and operand layouts are the same in
# jax/jaxlib 0.10.2 and 0.11.0 up to 0.11.1's development (jax/_src/lax/
# linalg.py, jaxlib/gpu_solver.py, jaxlib/gpu_linalg.py and the kernels'
# attribute decoders compared): there is no version to decide on yet.
_GPU_PREFIX: Final = {"cuda": "cu", "rocm": "hip"}


def _gpu_prefix(platform: str) -> str:
    from jax._src.lax import linalg as _jax_linalg  # noqa: F401  (registers the targets)

    if platform not in _GPU_PREFIX:
        raise NotImplementedError(f"no GPU solver kernels on platform {platform!r}")
    return _GPU_PREFIX[platform]


def gpu_solver_target(platform: str, fn_base: str) -> str:
    """The custom-call target of cuSOLVER's (hipSOLVER's) ``fn_base`` on ``platform``.

    >>> gpu_solver_target("cuda", "getrf")
    'cusolver_getrf_ffi'
    """
    return f"{_gpu_prefix(platform)}solver_{fn_base}_ffi"


def gpu_linalg_target(platform: str, fn_base: str) -> str:
    """The custom-call target of jaxlib's own GPU linear-algebra kernel ``fn_base``.

    >>> gpu_linalg_target("cuda", "lu_pivots_to_permutation")
    'cu_lu_pivots_to_permutation'
    """
    return f"{_gpu_prefix(platform)}_{fn_base}"
