"""Batch-polymorphic exports: didax makes them, JAX and didax call them at two batch sizes.

One export per table row, with a symbolic batch dimension ``b``: JAX
deserializes didax's bytes and calls them at batch sizes 3 and 7, didax's
own ``Exported.call`` does too, and every result matches JAX's NumPy on
the same inputs (in both x64 modes). Then the types as JAX prints them,
the refusals (a wrong non-batch size, inconsistent batch sizes, primitives
whose lowering takes no symbolic dimension), and the symbolic-dimension
API itself (``symbolic_shape``, ``symbolic_args_specs``, comparisons)
against JAX's.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import export as jexport

import didax as dx
import didax.numpy as dnp
from didax.errors import InconclusiveDimensionOperation

JAX_READS: Any = pytest.mark.skipif(
    importlib.util.find_spec("flatbuffers") is None,
    reason="jax.export's serialization needs the flatbuffers package",
)

_RNG = np.random.default_rng(0)
_W1 = _RNG.normal(size=(4, 8))
_B1 = _RNG.normal(size=(8,))
_W2 = _RNG.normal(size=(8, 2))


def _mlp(np_: Any, x: Any) -> Any:
    # The acceptance example: dense, tanh, dense, a mean over the batch.
    h = np_.tanh(x @ _W1.astype(x.dtype) + _B1.astype(x.dtype))
    y = h @ _W2.astype(x.dtype)
    return np_.mean(y, axis=0), y


def _elementwise(np_: Any, x: Any) -> Any:
    # Scalars and a (4,) broadcast against (b, 4); unary functions; a size as a value.
    v = np_.arange(4.0).astype(x.dtype)
    return np_.exp(-(x**2)) * 2.0 + v, np_.maximum(np_.sin(x), v) / x.shape[0]


def _structural(np_: Any, x: Any) -> Any:
    # Reductions over either axis, a transpose, a reshape keeping b, a batch matmul.
    r = x.reshape((x.shape[0], 2, 2))
    return x.sum(axis=1), x.max(axis=0), x.T, r, r @ r


def _grad(np_: Any, x: Any) -> Any:
    # The gradient of a batch-mean loss (its transpose broadcasts back over b).
    grad = jax.grad if np_ is jnp else dx.grad
    return grad(lambda w: np_.mean(np_.tanh(x @ w) ** 2))(_W1.astype(x.dtype))


def _nn(np_: Any, x: Any) -> Any:
    # Custom-derivative functions, a softmax over b, added and removed axes.
    nn = jax.nn if np_ is jnp else dx.nn
    e = np_.expand_dims(x, 1)
    return nn.relu(x), nn.softmax(x, axis=0), np_.squeeze(e * e, 1), np_.mean(x, 0, keepdims=True)


def _joining(np_: Any, x: Any) -> Any:
    # A concatenation along b makes a 2*b dimension, used further on.
    twice = np_.concatenate([x, np_.flip(x, 0)])
    return twice * 2.0 + 1.0, np_.concatenate([x, x], axis=1), np_.clip(x, -0.5, 0.5)


ROWS: list[Callable[[Any, Any], Any]] = [_mlp, _elementwise, _structural, _grad, _nn, _joining]


def _export(fn: Callable[[Any, Any], Any], dtype: Any) -> Any:
    spec = dx.export.symbolic_args_specs(np.zeros((3, 4), dtype), "b, 4")
    return dx.export.export(dx.jit(lambda x: fn(dnp, x)))(spec)


def _check_both_ways(fn: Callable[[Any, Any], Any], dtype: Any, tol: float) -> None:
    exp = _export(fn, dtype)
    from_jax = jexport.deserialize(exp.serialize())
    for n in (3, 7):
        x = _RNG.normal(size=(n, 4)).astype(dtype)
        want = jax.tree_util.tree_leaves(fn(jnp, x))
        for got in (from_jax.call(x), exp.call(x)):
            leaves = jax.tree_util.tree_leaves(got)
            assert [np.shape(g) for g in leaves] == [np.shape(w) for w in want]
            for g, w in zip(leaves, want, strict=True):
                np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=tol, atol=tol)


@JAX_READS
@pytest.mark.parametrize("fn", ROWS, ids=lambda f: f.__name__)
def test_didax_exports_run_in_jax_and_didax_at_two_batch_sizes(fn: Any) -> None:
    _check_both_ways(fn, np.float64, 1e-12)


@JAX_READS
@pytest.mark.x64_off
def test_mlp_export_with_32_bit_defaults() -> None:
    _check_both_ways(_mlp, np.float32, 1e-5)


def test_types_print_the_symbol_as_jax() -> None:
    exp = _export(_mlp, np.float32)
    spec = jexport.symbolic_args_specs(np.zeros((3, 4), np.float32), "b, 4")
    jexp = jexport.export(jax.jit(lambda x: _mlp(jnp, x)))(spec)
    for ours, theirs in [(exp.in_avals, jexp.in_avals), (exp.out_avals, jexp.out_avals)]:
        assert [a.str_short() for a in ours] == [a.str_short(short_dtypes=True) for a in theirs]
    assert [a.str_short() for a in exp.out_avals] == ["f32[2]", "f32[b,2]"]
    joined = _export(_joining, np.float32).out_avals[0]
    assert joined.str_short() == "f32[2*b,4]"
    ours = dx.export.symbolic_args_specs(np.zeros((3, 4), np.float32), "b, 4")
    jaxpr = str(dx.jit(lambda x: _mlp(dnp, x)).trace(ours).jaxpr)
    assert "f32[b,4]" in jaxpr
    assert "dim_as_value[dim=b]" in jaxpr
    text = exp.mlir_module()
    assert "jax.uses_shape_polymorphism = true" in text
    assert "tensor<?x4xf32>" in text
    assert "stablehlo.get_dimension_size" in text
    assert exp.uses_global_constants
    assert jexp.uses_global_constants


def test_wrong_sizes_raise_as_jax() -> None:
    exp = _export(_mlp, np.float32)
    spec = jexport.symbolic_args_specs(np.zeros((3, 4), np.float32), "b, 4")
    jexp = jexport.export(jax.jit(lambda x: _mlp(jnp, x)))(spec)
    bad_args = [
        (np.zeros((3, 5), np.float32), "Shape mismatch"),
        (np.zeros((3, 4), np.int32), "Dtype mismatch"),
        (np.zeros(3, np.float32), "Rank mismatch"),
    ]
    for bad, what in bad_args:
        with pytest.raises(ValueError, match=what) as theirs:
            jexp.call(bad)
        with pytest.raises(ValueError, match=what) as ours:
            exp.call(bad)
        assert str(theirs.value) in str(ours.value)
    args = dx.export.symbolic_args_specs((np.zeros((3, 4)), np.zeros(3)), "b, ...")
    two = dx.export.export(dx.jit(lambda x, y: x.sum(axis=1) + y))(*args)
    with pytest.raises(ValueError, match=r"args\[1\].shape\[0\] \(= 2\) and the spec.*'b' \(= 3\)"):
        two.call(np.zeros((3, 4)), np.zeros(2))


@pytest.mark.parametrize(
    ("fn", "prim"),
    [
        (lambda x: dnp.cumsum(x, axis=0), "cumsum"),
        (lambda x: x[1:], "requires a constant"),  # the indexing's size arithmetic
        (lambda x: dnp.argmax(x, axis=0), "argmax"),
    ],
    ids=["cumsum", "slice", "argmax"],
)
def test_unsupported_primitives_raise_at_export(fn: Any, prim: str) -> None:
    spec = dx.ShapeDtypeStruct(dx.export.symbolic_shape("b, 4"), np.float32)
    with pytest.raises((NotImplementedError, InconclusiveDimensionOperation), match=prim):
        dx.export.export(dx.jit(fn))(spec)


def test_a_variable_must_be_some_whole_dimension() -> None:
    spec = dx.ShapeDtypeStruct(dx.export.symbolic_shape("2*b, 4"), np.float32)
    with pytest.raises(NotImplementedError, match="'b' is the whole size of no argument"):
        dx.export.export(dx.jit(lambda x: x + 1.0))(spec)


@pytest.mark.parametrize(
    "spec",
    ["b, 2*b+1", "(a, 4)", "b, -1 + b", "a*b, a + b, 3*a*b - b + 2", "(b,)", "b - 1, 2*b - 2"],
)
def test_symbolic_shape_parses_and_prints_as_jax(spec: str) -> None:
    assert str(dx.export.symbolic_shape(spec)) == str(jexport.symbolic_shape(spec))


def test_symbolic_shape_like_and_errors() -> None:
    for spec, like in [("_, b", (5, None)), ("b, ...", (None, 2, 3)), ("b, 1", (None, 1))]:
        got = dx.export.symbolic_shape(spec, like=like)
        assert str(got) == str(jexport.symbolic_shape(spec, like=like))
    for bad in ["b+", "b, 4)", "max(a, b)"]:
        with pytest.raises(ValueError, match="syntax error in symbolic shape"):
            dx.export.symbolic_shape(bad)
    with pytest.raises(NotImplementedError, match="constraints"):
        dx.export.symbolic_shape("a, b", constraints=("a >= b",))


def test_dimension_comparisons_as_jax() -> None:
    (b,) = dx.export.symbolic_shape("b")
    (jb,) = jexport.symbolic_shape("b")
    decided = [
        lambda d: d == 4,
        lambda d: d >= 1,
        lambda d: d > 0,
        lambda d: d < 1,
        lambda d: 2 * d + 1 > d,
    ]
    assert [f(b) for f in decided] == [f(jb) for f in decided]
    for undecided in (lambda d: d >= 2, lambda d: d < 4, lambda d: int(d)):
        with pytest.raises(InconclusiveDimensionOperation):
            undecided(b)
        with pytest.raises(jax.errors.InconclusiveDimensionOperation):
            undecided(jb)
    assert str((b + 1) * (b - 1)) == str((jb + 1) * (jb - 1))
    assert (2 * b + 1) - 2 * b == 1
    assert isinstance((2 * b) // 2, type(b))
    assert hash(b) == hash(dx.export.symbolic_shape("b")[0])


def test_is_symbolic_dim_and_args_specs() -> None:
    (b,) = dx.export.symbolic_shape("b")
    assert [dx.export.is_symbolic_dim(d) for d in (b, 2 * b, 3, np.int32(3))] == [
        True,
        True,
        False,
        False,
    ]
    args = (np.zeros((3, 4), np.float32), {"y": np.zeros(3, np.int32)})
    for specs in ["b, ...", ("b, 4", {"y": "b"})]:
        got = dx.export.symbolic_args_specs(args, specs)
        want = jexport.symbolic_args_specs(args, specs)
        assert str(got) == str(want).replace("ShapeDtypeStruct", "ShapeDtypeStruct")
    assert dx.export.SymbolicScope().constraints_str == ()
