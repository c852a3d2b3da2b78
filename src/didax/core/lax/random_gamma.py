"""``random_gamma_p``: Gamma(a, 1) samples drawn from keys, JAX's ``jax.random.random_gamma_p``.

``random_gamma_p.bind(key_data, a, log_space=False)`` draws one
``Gamma(a[i], 1)`` sample per element of ``a`` (its logarithm with
``log_space=True``) by Marsaglia and Tsang's rejection loop. The key data
are raw ``uint32[*key_shape, 2]`` keys whose key shape is a prefix of
``a``'s shape: each key draws the elements of ``a`` under it. The
interpreters' rules (batching over keys, the jvp by implicit
differentiation) are in ``interpreters.random_gamma``, the lowering in
``lowering.random_gamma``; ``didax.random.gamma`` is the api.

Design rules:
- Typed as JAX types it: the result is ``a``'s type. ``a`` is a float
  array; the key data's last axis is the two words of a Threefry key.
- didax's typed keys (``PRNGKeyArray``) are an api-level wrapper over
  the same data: the primitive takes the data, never the wrapper.
"""

from __future__ import annotations

from typing import Final

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, dtype_failure, shape_failure
from didax.core.primitive import Primitive

__all__ = ["random_gamma_p"]

random_gamma_p: Final = Primitive("random_gamma")


@ABSTRACT_EVAL.defines(random_gamma_p)
def _random_gamma_abstract_eval(
    key: ShapedArray, a: ShapedArray, *, log_space: bool
) -> ShapedArray:
    if key.dtype != dtypes.uint32 or key.ndim == 0 or key.shape[-1] != 2:
        raise dtype_failure(f"the key data must be uint32[..., 2], got {key.str_short()}")
    if not dtypes.is_float(a.dtype):
        raise dtype_failure(f"a must be a float array, got {a.str_short()}")
    key_shape = key.shape[:-1]
    if a.shape[: len(key_shape)] != key_shape:
        raise shape_failure(f"the key shape {key_shape} must be a prefix of a's shape {a.shape}")
    return a
