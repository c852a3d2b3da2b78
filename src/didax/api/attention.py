"""``didax.nn.dot_product_attention``: JAX's reference (``implementation='xla'``) attention.

Design rules:
- The computation is JAX's ``_dot_product_attention_xla`` step for step, so
  that values and derivatives are JAX's: the query heads are grouped as
  ``(K, G)`` (``G = N // K`` query heads per key/value head) and the core is
  ``vmap``-ped over the group axis; logits are ``einsum("BTNH,BSNH->BNTS")``
  accumulated in ``promote_types(query.dtype, float32)``, scaled, biased,
  masked with a large negative number (``-0.7 * finfo.max``, capped at
  float32's range) rather than ``-inf`` (so a fully masked row is uniform,
  not NaN), soft-maxed in float32, cast to the key's dtype, and contracted
  with the values.
- Masks combine by ``and``: the boolean ``mask``, ``is_causal`` (lower
  triangle), ``local_window_size`` and the padding masks of
  ``query_seq_lengths``/``key_value_seq_lengths``; padded query rows are
  zeroed in the output.
- ``implementation='cudnn'`` is JAX's cuDNN flash attention, which needs an
  NVIDIA GPU: didax refuses it, as JAX does on a CPU.
- ``scaled_matmul``/``scaled_dot_general`` are block-scaled (fp8/fp4)
  products that JAX runs on cuDNN only (it has no CPU lowering of
  ``scaled_matmul``): didax's ``scaled_matmul`` computes what JAX's
  docstring defines it as (each scale repeated over its block, multiplied
  in, contracted over K in float32); ``scaled_dot_general`` without
  ``configs`` is ``lax.dot_general``, as JAX's, and with them (quantising
  to float8/float4, which didax arrays do not hold) is refused.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Literal, overload

import attrs
import ml_dtypes
import numpy as np

from didax.api.nn import softmax
from didax.api.numpy import elementwise as enp
from didax.api.numpy import manipulation as mnp
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.contractions import einsum
from didax.api.numpy.joining import repeat
from didax.api.numpy.operands import as_result, astype, operand
from didax.api.scipy_special import logsumexp
from didax.api.transformations import vmap
from didax.core import dtypes, lax
from didax.core.dtypes import DType, DTypeLike
from didax.core.lax.precision import DotAlgorithmPreset
from didax.core.values import get_aval

__all__ = [
    "dot_product_attention",
    "get_scaled_dot_general_config",
    "scaled_dot_general",
    "scaled_matmul",
]

_WindowSize = tuple[int, int]


def _large_negative(dtype: DType) -> Array:
    """``-0.7 * finfo(dtype).max``, capped at float32's (the softmax runs in float32)."""
    biggest = min(float(ml_dtypes.finfo(dtype).max), float(np.finfo(np.float32).max))
    return as_result(lax.full((), -0.7 * biggest, dtype))


def _iota(n: int) -> Array:
    return as_result(lax.iota(dtypes.int32, n))


def _causal_mask(t: int, s: int) -> Array:
    """``tril(ones((T, S)))``: query ``i`` sees keys ``j <= i``."""
    return enp.greater_equal(mnp.reshape(_iota(t), (1, 1, t, 1)), _iota(s))


def _window_mask(t: int, s: int, window: _WindowSize) -> Array:
    left, right = window
    q = mnp.reshape(_iota(t), (1, 1, t, 1))
    k = _iota(s)
    return enp.logical_and(
        enp.greater_equal(q, enp.subtract(k, right)), enp.less_equal(q, enp.add(k, left))
    )


def _padding_mask(t: int, s: int, q_len: Array | None, kv_len: Array | None) -> Array:
    """``(B, 1, T, S)``: entries inside both sequences' lengths."""
    mask: Array | bool = True
    if q_len is not None:
        mask = enp.less(mnp.reshape(_iota(t), (1, t, 1)), mnp.reshape(q_len, (-1, 1, 1)))
    if kv_len is not None:
        kv = enp.less(mnp.reshape(_iota(s), (1, 1, s)), mnp.reshape(kv_len, (-1, 1, 1)))
        mask = kv if mask is True else enp.logical_and(mask, kv)
    return mnp.expand_dims(mask, 1)


@attrs.frozen
class _Options:
    """The core's arguments besides its operands (those JAX's vmap maps with None)."""

    is_causal: bool
    q_len: Array | None
    kv_len: Array | None
    window: _WindowSize | None
    scale: float
    return_residual: bool

    def apply(self, logits: Array, mask: Array | None) -> Array:
        padded = self.q_len is not None or self.kv_len is not None
        if mask is None and not self.is_causal and self.window is None and not padded:
            return logits
        shape = get_aval(logits).shape
        t, s = shape[2], shape[3]
        keep = as_result(lax.full(shape, True, dtypes.bool_))
        parts = [mask] if mask is not None else []
        if self.is_causal:
            parts.append(_causal_mask(t, s))
        if self.window is not None:
            parts.append(_window_mask(t, s, self.window))
        if padded:
            parts.append(_padding_mask(t, s, self.q_len, self.kv_len))
        for part in parts:
            keep = enp.logical_and(keep, part)
        return enp.where(keep, logits, _large_negative(get_aval(logits).dtype))


def _precision(dtype: DType) -> DotAlgorithmPreset | None:
    # As JAX (its issue 24047): 16-bit queries with float32 logits name the
    # algorithm, so the backward pass's products keep consistent types.
    if dtype == dtypes.bfloat16:
        return DotAlgorithmPreset.BF16_BF16_F32
    if dtype == dtypes.float16:
        return DotAlgorithmPreset.F16_F16_F32
    return None


def _core(
    query: Array,
    key: Array,
    value: Array,
    bias: Array | None,
    mask: Array | None,
    opts: _Options,
) -> Array | tuple[Array, Array]:
    q_dtype, k_dtype = get_aval(query).dtype, get_aval(key).dtype
    logits_dtype = dtypes.promote_types(q_dtype, dtypes.float32)
    logits = einsum(
        "BTNH,BSNH->BNTS",
        query,
        key,
        precision=_precision(q_dtype),
        preferred_element_type=logits_dtype,
    )
    logits = enp.multiply(logits, as_result(lax.full((), opts.scale, logits_dtype)))
    if bias is not None:
        logits = astype(enp.add(logits, bias), logits_dtype)
    padded = astype(opts.apply(logits, mask), dtypes.float32)
    probs = astype(softmax(padded, axis=-1), k_dtype)
    encoded = einsum("BNTS,BSNH->BTNH", probs, value)
    if opts.q_len is not None:
        t = get_aval(encoded).shape[1]
        rows = enp.less(mnp.reshape(_iota(t), (1, t)), mnp.reshape(opts.q_len, (-1, 1)))
        encoded = enp.multiply(encoded, astype(mnp.reshape(rows, (-1, t, 1, 1)), k_dtype))
    if not opts.return_residual:
        return encoded
    residual = mnp.transpose(astype(logsumexp(padded, axis=-1), k_dtype), (0, 2, 1))
    return encoded, lax.stop_gradient(residual)


def _grouped(t: Array | None, k: int, g: int) -> Array | None:
    """A ``(B, N, T, S)`` bias or mask as ``(B, K, G, T, S)`` (a single head broadcast)."""
    if t is None:
        return None
    b, n, tt, s = get_aval(t).shape
    if n == 1:
        return mnp.broadcast_to(mnp.expand_dims(t, 2), (b, n, g, tt, s))
    return mnp.reshape(t, (b, k, g, tt, s))


def _attention_xla(
    qkv: tuple[Array, Array, Array], bias: Array | None, mask: Array | None, opts: _Options
) -> Array | tuple[Array, Array]:
    query, key, value = qkv
    b, t, n, h = get_aval(query).shape
    k = get_aval(key).shape[2]
    g = n // k
    grouped_query = mnp.reshape(query, (b, t, k, g, h))
    grouped_bias, grouped_mask = _grouped(bias, k, g), _grouped(mask, k, g)

    def per_group(
        q: Array, bias_g: Array | None, mask_g: Array | None
    ) -> Array | tuple[Array, Array]:
        return _core(q, key, value, bias_g, mask_g, opts)

    # JAX's in_axes: the group axis of query (3), bias and mask (2); None maps nothing.
    mapped: Callable[..., Array | tuple[Array, Array]] = vmap(
        per_group, in_axes=(3, 2, 2), out_axes=3
    )
    out = mapped(grouped_query, grouped_bias, grouped_mask)
    if isinstance(out, tuple):
        encoded, residual = out
        return mnp.reshape(encoded, (b, t, n, h)), mnp.reshape(residual, (b, t, n))
    return mnp.reshape(out, (b, t, n, h))


def _four_d(x: ArrayLike) -> Array:
    v = as_result(operand(x))
    missing = 4 - get_aval(v).ndim
    return mnp.expand_dims(v, tuple(range(missing))) if missing > 0 else v


def _check(t: Array | None, shape: Sequence[int], dtype: DType | None, name: str) -> None:
    """JAX's checks of an operand's rank, dtype and (where not -1) sizes."""
    if t is None:
        return
    aval = get_aval(t)
    if aval.ndim != len(shape):
        raise ValueError(
            f"dot_product_attention: {name} ndim should be {len(shape)}, but got {aval.ndim}"
        )
    if dtype is not None and aval.dtype != dtype:
        raise ValueError(
            f"dot_product_attention: {name} dtype should be {dtype}, but got {aval.dtype}"
        )
    if any(want not in (-1, got) for want, got in zip(shape, aval.shape, strict=True)):
        raise ValueError(
            f"dot_product_attention: {name} shape should be {tuple(shape)}: "
            f"but got {tuple(aval.shape)}"
        )


@overload
def dot_product_attention(
    query: ArrayLike,
    key: ArrayLike,
    value: ArrayLike,
    bias: ArrayLike | None = None,
    mask: ArrayLike | None = None,
    *,
    scale: float | None = None,
    is_causal: bool = False,
    query_seq_lengths: ArrayLike | None = None,
    key_value_seq_lengths: ArrayLike | None = None,
    local_window_size: int | tuple[int, int] | None = None,
    implementation: Literal["xla", "cudnn"] | None = None,
    return_residual: Literal[False] = ...,
) -> Array: ...


@overload
def dot_product_attention(
    query: ArrayLike,
    key: ArrayLike,
    value: ArrayLike,
    bias: ArrayLike | None = None,
    mask: ArrayLike | None = None,
    *,
    scale: float | None = None,
    is_causal: bool = False,
    query_seq_lengths: ArrayLike | None = None,
    key_value_seq_lengths: ArrayLike | None = None,
    local_window_size: int | tuple[int, int] | None = None,
    implementation: Literal["xla", "cudnn"] | None = None,
    return_residual: Literal[True],
) -> tuple[Array, Array]: ...


def dot_product_attention(
    query: ArrayLike,
    key: ArrayLike,
    value: ArrayLike,
    bias: ArrayLike | None = None,
    mask: ArrayLike | None = None,
    *,
    scale: float | None = None,
    is_causal: bool = False,
    query_seq_lengths: ArrayLike | None = None,
    key_value_seq_lengths: ArrayLike | None = None,
    local_window_size: int | tuple[int, int] | None = None,
    implementation: Literal["xla", "cudnn"] | None = None,
    return_residual: bool = False,
) -> Array | tuple[Array, Array]:
    """``softmax(Q K^T * scale + bias, masked) V`` per head, as JAX's reference implementation.

    Shapes: query ``(B, T, N, H)``, key and value ``(B, S, K, H)`` (or the
    same without ``B``), ``N`` a multiple of ``K`` (grouped-query attention);
    bias and mask broadcast to ``(B, N, T, S)``; ``scale`` defaults to
    ``1 / sqrt(H)``. With ``return_residual`` the log-sum-exp of each
    query's logits ``(B, T, N)`` comes too.

    >>> import numpy as np
    >>> q = np.ones((1, 2, 1, 4), np.float32)
    >>> dot_product_attention(q, q, np.arange(8.0, dtype=np.float32).reshape(1, 2, 1, 4),
    ...                       is_causal=True)[0, :, 0]
    Array([[0., 1., 2., 3.],
           [2., 3., 4., 5.]], dtype=float32)
    """
    output_shape = get_aval(operand(query)).shape
    q, k, v = _four_d(query), _four_d(key), _four_d(value)
    bias_4d = _four_d(bias) if bias is not None else None
    mask_4d = _four_d(mask) if mask is not None else None
    q_len = as_result(operand(query_seq_lengths)) if query_seq_lengths is not None else None
    kv_len = (
        as_result(operand(key_value_seq_lengths)) if key_value_seq_lengths is not None else None
    )
    window = (
        (operator.index(local_window_size),) * 2
        if isinstance(local_window_size, int)
        else local_window_size
    )
    b, _, kh, h = get_aval(k).shape
    key_dtype = get_aval(k).dtype
    _check(v, (b, get_aval(k).shape[1], kh, h), key_dtype, "value")
    _check(q, (b, -1, -1, h), key_dtype, "query")
    _check(mask_4d, (-1,) * 4, dtypes.bool_, "mask")
    _check(bias_4d, (-1,) * 4, None, "bias")
    _check(q_len, (b,), dtypes.int32, "query_seq_lengths")
    _check(kv_len, (b,), dtypes.int32, "key_value_seq_lengths")
    n = get_aval(q).shape[-2]
    if n % kh:
        raise ValueError(
            "dot_product_attention: the number of query heads must be a multiple of "
            f"key/value heads, but got {n} vs {kh}"
        )
    if implementation == "cudnn":
        raise RuntimeError(
            "dot_product_attention: implementation='cudnn' is cuDNN's flash attention, "
            "which needs an NVIDIA GPU; didax runs on CPUs: use implementation=None or 'xla'"
        )
    if implementation not in (None, "xla"):
        raise ValueError(
            f"dot_product_attention: unsupported implementation option: {implementation!r}"
        )
    scale_value = float(1.0 / np.sqrt(h)) if scale is None else scale
    opts = _Options(is_causal, q_len, kv_len, window, scale_value, return_residual)
    out = _attention_xla((q, k, v), bias_4d, mask_4d, opts)
    if isinstance(out, tuple):
        encoded, residual = out
        return mnp.reshape(encoded, output_shape), mnp.reshape(residual, output_shape[:-1])
    return mnp.reshape(out, output_shape)


@attrs.frozen
class BlockScaleConfig:
    """A block-scaled quantisation's configuration (JAX's ``cudnn...BlockScaleConfig``)."""

    mode: str
    block_size: int
    data_type: type[np.generic]
    scale_type: type[np.generic]
    global_scale: Array | None
    infer_only: bool


def _ml_dtype(name: str) -> type[np.generic]:
    """One of ``ml_dtypes``' float8/float4 scalar types (absent from its type stubs)."""
    scalar_type: type[np.generic] = getattr(ml_dtypes, name)
    return scalar_type


def get_scaled_dot_general_config(
    mode: Literal["nvfp4", "mxfp8"], global_scale: ArrayLike | None = None
) -> BlockScaleConfig:
    """The quantisation configuration of ``scaled_dot_general`` for ``'nvfp4'`` or ``'mxfp8'``.

    >>> get_scaled_dot_general_config("mxfp8").block_size
    32
    """
    if mode == "nvfp4":
        one = as_result(lax.full((1,), 1.0, dtypes.float32))
        return BlockScaleConfig(
            mode="nvfp4",
            block_size=16,
            data_type=_ml_dtype("float4_e2m1fn"),
            scale_type=_ml_dtype("float8_e4m3fn"),
            global_scale=one if global_scale is None else as_result(operand(global_scale)),
            infer_only=False,
        )
    if mode == "mxfp8":
        return BlockScaleConfig(
            mode="mxfp8",
            block_size=32,
            data_type=_ml_dtype("float8_e4m3fn"),
            scale_type=_ml_dtype("float8_e8m0fnu"),
            global_scale=None,
            infer_only=False,
        )
    raise ValueError(f"get_scaled_dot_general_config: unsupported mode: {mode!r}")


def _scaled_check(name: str, a: tuple[int, ...], b: tuple[int, ...], what: str) -> None:
    if a[0] != b[0] or a[2] != b[2]:
        raise ValueError(
            f"scaled_matmul requires {name} to have matching batch (B) and contract (K) "
            f"dimensions, but got shapes {a} and {b}{what}"
        )


def scaled_matmul(
    lhs: ArrayLike,
    rhs: ArrayLike,
    lhs_scales: ArrayLike,
    rhs_scales: ArrayLike,
    preferred_element_type: DTypeLike = np.float32,
) -> Array:
    """The block-scaled product ``einsum("BMK,BNK->BMN", lhs * lhs_scales, rhs * rhs_scales)``.

    Each scale covers a block of ``K // K_scales`` consecutive entries along K;
    the products are computed in float32 and returned as ``preferred_element_type``.

    >>> import numpy as np
    >>> a = np.array([1.0, 2.0, 3.0], np.float32).reshape(1, 1, 3)
    >>> b = np.array([4.0, 5.0, 6.0], np.float32).reshape(1, 1, 3)
    >>> s = np.full((1, 1, 1), 0.5, np.float32)
    >>> scaled_matmul(a, b, s, s)
    Array([[[8.]]], dtype=float32)
    """
    a, b, sa, sb = (as_result(operand(x)) for x in (lhs, rhs, lhs_scales, rhs_scales))
    shapes = [tuple(get_aval(x).shape) for x in (a, b, sa, sb)]
    if any(len(shape) != 3 for shape in shapes):
        raise ValueError("scaled_matmul requires all inputs to be 3-dimensional arrays")
    _scaled_check("inputs a and b", shapes[0], shapes[1], "")
    _scaled_check("scales", shapes[2], shapes[3], "")
    if shapes[2][1] != shapes[0][1] or shapes[3][1] != shapes[1][1]:
        raise ValueError(
            "scaled_matmul requires scales to match non-contract dimensions of inputs, but got "
            f"shapes a: {shapes[0]}, b: {shapes[1]}, a_scales: {shapes[2]}, b_scales: {shapes[3]}"
        )
    out_dtype = dtypes.canonicalize(preferred_element_type)

    def scaled(x: Array, scales: Array) -> Array:
        block = get_aval(x).shape[2] // get_aval(scales).shape[2]
        wide = repeat(astype(scales, dtypes.float32), block, axis=-1)
        return enp.multiply(astype(x, dtypes.float32), wide)

    product = einsum("BMK,BNK->BMN", scaled(a, sa), scaled(b, sb))
    return astype(product, out_dtype)


def scaled_dot_general(
    lhs: ArrayLike,
    rhs: ArrayLike,
    dimension_numbers: tuple[
        tuple[Sequence[int], Sequence[int]], tuple[Sequence[int], Sequence[int]]
    ],
    preferred_element_type: DTypeLike = np.float32,
    configs: Sequence[BlockScaleConfig] | None = None,
    implementation: Literal["cudnn"] | None = None,
) -> Array:
    """``lax.dot_general`` with block-scaled quantisation of its operands (``configs``).

    Without ``configs`` it is ``lax.dot_general`` with ``preferred_element_type``;
    with them, JAX quantises and runs cuDNN's block-scaled product, which needs
    an NVIDIA GPU (JAX itself cannot run it on a CPU): didax refuses.

    >>> import numpy as np
    >>> x = np.ones((2, 3), np.float32)
    >>> scaled_dot_general(x, x, (((1,), (1,)), ((), ())))
    Array([[3., 3.],
           [3., 3.]], dtype=float32)
    """
    del implementation  # (JAX: deprecated and ignored)
    if configs is not None:
        raise NotImplementedError(
            "scaled_dot_general: block-scaled products (configs) run on cuDNN only "
            "(JAX has no CPU lowering of scaled_matmul); pass configs=None for dot_general"
        )
    out: Array = as_result(
        lax.dot_general(
            operand(lhs),
            operand(rhs),
            dimension_numbers,
            preferred_element_type=dtypes.canonicalize(preferred_element_type),
        )
    )
    return out
