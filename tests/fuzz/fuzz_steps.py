"""The fuzzer's steps, grouped in families: each a function of two earlier values.

Design rules:
- A step is ``fn(ns, a, b)``: ``ns`` is the namespace (``np``, ``lax``,
  ``custom_jvp``... of didax or of JAX), ``a`` and ``b`` are earlier values of
  the program, each an ``(N, N)`` floating array (float64, or float32 in
  32-bit mode), and the result is again one. So any step reads any earlier
  value, and every subsequence of a program is a program (shrinking drops
  steps freely).
- A step must be well posed on *any* input, since it reads whatever an
  earlier step made: linear algebra builds a well-conditioned matrix from
  ``tanh`` of its input (eigenvalues and singular values kept apart, so
  their vectors' derivatives are finite), eigenvectors and QR factors are
  used only through sign-invariant functions (``v * v``, ``q * q``, ``r *
  r``), a complex intermediate comes back as a real function of it.
  Indices are in bounds (constant, or traced from ``argmax``/``argsort``).
- A family carries the relative tolerance its steps need (a 16-bit round
  trip rounds at about 1e-3); a program is compared at the largest of its
  steps', and at least the 32-bit floor in 32-bit mode.
- Control flow (``CONTROL``) wraps other steps: ``"fori:sin"`` runs ``sin``
  in a ``fori_loop`` body, ``"cond:dot:cumsum"`` picks between two. Bodies
  hold any step of a family with ``in_bodies`` (all but control flow).

To add a family (as convolutions, windows and random draws were): write its
steps as ``fn(ns, a, b) -> (N, N)`` functions, put them in a ``Family`` in
``FAMILIES`` with the tolerance they need, and give the namespace (in
``fuzz.py``'s ``JAX_NS``/``DIDAX_NS``) any module they reach for. The
program mix draws a family first, uniformly, then a step in it, so a new
family is drawn as often as any other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, NamedTuple

import numpy as np

N: Final = 3  # the side of every value's square shape

StepFn = Callable[[Any, Any, Any], Any]  # (namespace, a, b) -> an (N, N) value


class Family(NamedTuple):
    steps: dict[str, StepFn]
    rtol: float = 1e-7  # what the family's float64 results need (relative)
    in_bodies: bool = True  # may run inside a control-flow body
    # JAX's reference must run eagerly: the family's errors show only when
    # run, and jit would drop an unused step's with the dead code.
    eager_reference: bool = False


# Constant indices are int32: JAX, switching 32-bit mode on and off in one
# process, reuses an index computation traced for an int64 array in the other
# mode and raises (``lax.add requires arguments to have the same dtypes``).
_IDX: Final = np.array([2, 0, 2], np.int32)  # gathered rows (with a repeat), in bounds for N = 3
_UNIQUE: Final = np.array([2, 0], np.int32)  # rows set (``set`` with repeats has no defined winner)
_NEGATIVE: Final = np.array([-1, 0, -3], np.int32)  # negative indices count from the end
_CLIPPED: Final = np.array([5, -7, 1], np.int32)  # out of bounds, for ``mode="clip"``


def _arr(ns: Any, a: Any) -> Any:
    # An input is a NumPy array, which has no ``.at``: as an array of the namespace.
    return ns.np.asarray(a)


def _softplus_like(ns: Any) -> Any:
    """A function with a custom JVP (the same derivative as its definition), per namespace."""

    @ns.custom_jvp
    def f(x: Any) -> Any:
        return ns.np.log1p(ns.np.exp(-ns.np.abs(x))) + ns.np.maximum(x, 0.0)

    @f.defjvp
    def f_jvp(primals: Any, tangents: Any) -> Any:
        (x,), (t,) = primals, tangents
        return f(x), t / (1.0 + ns.np.exp(-x))

    return f


def cube_custom_vjp(ns: Any) -> Any:
    """``x**3 / 3`` with a custom VJP (its own derivative); forward mode of it raises, in both."""

    @ns.custom_vjp
    def f(x: Any) -> Any:
        return x * x * x / 3.0

    def fwd(x: Any) -> Any:
        return f(x), x

    def bwd(x: Any, g: Any) -> Any:
        return (g * x * x,)

    f.defvjp(fwd, bwd)
    return f


ELEMENTWISE: Final = Family(
    {
        "sin": lambda ns, a, b: ns.np.sin(a),
        "cos": lambda ns, a, b: ns.np.cos(a),
        "tanh": lambda ns, a, b: ns.np.tanh(a),
        "exp": lambda ns, a, b: ns.np.exp(ns.np.clip(a, -3.0, 3.0)),
        "log1p_abs": lambda ns, a, b: ns.np.log1p(ns.np.abs(a)),
        "sqrt": lambda ns, a, b: ns.np.sqrt(a * a + 1.0),
        "square": lambda ns, a, b: ns.np.square(a) * 0.5,
        "add": lambda ns, a, b: a + b,
        "subtract": lambda ns, a, b: a - b,
        "multiply": lambda ns, a, b: a * b,
        "maximum": lambda ns, a, b: ns.np.maximum(a, b),
        "minimum": lambda ns, a, b: ns.np.minimum(a, b),
        "divide": lambda ns, a, b: a / (b * b + 1.0),
        "where": lambda ns, a, b: ns.np.where(a > b, a, b * 0.5),
        "scalar": lambda ns, a, b: a * 1.5 - 0.25,
        "row_broadcast": lambda ns, a, b: a + b[0],
        "custom_jvp": lambda ns, a, b: _softplus_like(ns)(a),
    }
)
# Forward mode of a custom_vjp function raises, in either library, when run.
CUSTOM_VJP: Final = Family(
    {"custom_vjp": lambda ns, a, b: cube_custom_vjp(ns)(ns.np.tanh(a))}, eager_reference=True
)

REDUCTIONS: Final = Family(
    {
        "sum": lambda ns, a, b: ns.np.broadcast_to(ns.np.sum(a, axis=0, keepdims=True), (N, N)),
        "mean": lambda ns, a, b: a - ns.np.mean(a, axis=1, keepdims=True),
        "max": lambda ns, a, b: ns.np.broadcast_to(ns.np.max(a, axis=1)[:, None], (N, N)),
        "cumsum": lambda ns, a, b: ns.np.cumsum(a, axis=0),
        "cummax": lambda ns, a, b: ns.lax.cummax(a, axis=1, reverse=True),
        "sort": lambda ns, a, b: ns.np.sort(a, axis=1),
    }
)

SHAPES: Final = Family(
    {
        "transpose": lambda ns, a, b: a.T,
        "reshape": lambda ns, a, b: ns.np.reshape(ns.np.reshape(a, (N * N,))[::-1], (N, N)),
        "flip": lambda ns, a, b: ns.np.flip(a, axis=0),
        "slice_concat": lambda ns, a, b: ns.np.concatenate([a[1:], b[:1]], axis=0),
        "dot": lambda ns, a, b: ns.np.dot(a, b) / N,
    }
)


def _rows_of(ns: Any, b: Any) -> Any:
    """Traced row indices in bounds: where each column of ``b`` is largest."""
    return ns.np.argmax(b, axis=0)


def _dynamic_slice(ns: Any, a: Any, b: Any) -> Any:
    start = ns.np.argmax(b[:, 0])  # traced; clamped so the (2, N) window fits
    return ns.np.concatenate([ns.lax.dynamic_slice(a, (start, 0), (2, N)), b[:1]], axis=0)


INDEXING: Final = Family(
    {
        "gather": lambda ns, a, b: a[_IDX],
        "gather_negative": lambda ns, a, b: a[_NEGATIVE][:, ::-1],
        "gather_columns": lambda ns, a, b: _arr(ns, a).at[:, _IDX].get(),
        "gather_clip": lambda ns, a, b: _arr(ns, a).at[_CLIPPED].get(mode="clip"),
        "scatter_add": lambda ns, a, b: _arr(ns, a).at[_IDX].add(b),
        "at_set": lambda ns, a, b: _arr(ns, a).at[_UNIQUE].set(b[:2]),
        "at_mul": lambda ns, a, b: _arr(ns, a).at[_IDX].mul(b),
        "at_mul_unique": lambda ns, a, b: _arr(ns, a).at[_UNIQUE].mul(b[1:]),
        "at_min": lambda ns, a, b: _arr(ns, a).at[_IDX].min(b),
        "at_max": lambda ns, a, b: _arr(ns, a).at[_IDX, 1].max(b[0]),
        "at_slice": lambda ns, a, b: _arr(ns, a).at[1:, ::2].set(b[:2, :2]),
        "at_slice_add": lambda ns, a, b: _arr(ns, a).at[::-1, 1].add(b[0]),
        "at_point": lambda ns, a, b: _arr(ns, a).at[1, 2].set(b[0, 0] * 2.0),
        "traced_gather": lambda ns, a, b: a[_rows_of(ns, b)],
        "traced_scatter": lambda ns, a, b: _arr(ns, a).at[_rows_of(ns, b)].add(b),
        "traced_at_set": lambda ns, a, b: _arr(ns, a).at[ns.np.argmin(b[0])].set(b[1]),
        "traced_at_get": lambda ns, a, b: _arr(ns, a).at[_rows_of(ns, b), _IDX].get()[:, None] * b,
        "dynamic_slice": _dynamic_slice,
        "dynamic_update": lambda ns, a, b: ns.lax.dynamic_update_slice(
            a, b[:2, :2], (ns.np.argmax(b[0]), ns.np.argmin(b[0]))
        ),
        "take_along": lambda ns, a, b: ns.np.take_along_axis(a, ns.np.argsort(b, axis=1), axis=1),
    }
)


def _spd(ns: Any, a: Any) -> Any:
    """A symmetric positive definite matrix, condition number at most 1 + N."""
    t = ns.np.tanh(a)
    return ns.np.dot(t, t.T) + N * ns.np.eye(N, dtype=a.dtype)


def _dominant(ns: Any, a: Any) -> Any:
    """A strictly diagonally dominant (so invertible, well-conditioned) nonsymmetric matrix."""
    return ns.np.tanh(a) + 2.0 * N * ns.np.eye(N, dtype=a.dtype)


def _separated(ns: Any, a: Any) -> Any:
    """Symmetric, eigenvalues within 0.9 of 0, 2, 4: at least 0.2 apart (Weyl)."""
    t = ns.np.tanh(a) * 0.15
    return t + t.T + ns.np.diag(ns.np.arange(N, dtype=a.dtype) * 2.0)


def _eigh(ns: Any, a: Any, b: Any) -> Any:
    w, v = ns.np.linalg.eigh(_separated(ns, a))
    return v * v + w[None, :] * 0.1  # v's columns are known up to sign: v * v is not


def _qr(ns: Any, a: Any, b: Any) -> Any:
    q, r = ns.np.linalg.qr(_dominant(ns, a))
    return q * q + r * r * 0.01  # q's columns and r's rows are known up to sign


def _svd(ns: Any, a: Any, b: Any) -> Any:
    # Singular values within 0.9 of 1, 3, 5: distinct and nonzero.
    m = ns.np.tanh(a) * 0.3 + ns.np.diag(ns.np.arange(N, dtype=a.dtype) * 2.0 + 1.0)
    u, s, vt = ns.np.linalg.svd(m, full_matrices=False)
    return ns.np.dot(u * s, vt) * 0.2 + u * u + s[:, None] * 0.1


LINALG: Final = Family(
    {
        "solve": lambda ns, a, b: ns.np.linalg.solve(_dominant(ns, a), b),
        "solve_spd": lambda ns, a, b: ns.np.linalg.solve(_spd(ns, a), b),
        "cholesky": lambda ns, a, b: ns.np.linalg.cholesky(_spd(ns, a)),
        "qr": _qr,
        "eigh": _eigh,
        "eigvalsh": lambda ns, a, b: ns.np.linalg.eigvalsh(_separated(ns, a)) * b,
        "svd": _svd,
        "svd_values": lambda ns, a, b: ns.np.linalg.svd(_dominant(ns, a), compute_uv=False) * b,
        "inv": lambda ns, a, b: ns.np.linalg.inv(_dominant(ns, a)),
        "det": lambda ns, a, b: ns.np.linalg.det(_spd(ns, a)) * 0.05 * b,
    },
    rtol=1e-6,
)


def _complex(ns: Any, a: Any, b: Any) -> Any:
    return ns.lax.complex(a, b)


FFT: Final = Family(
    {
        "fft": lambda ns, a, b: _re_im(ns, ns.np.fft.fft(a)),
        "ifft": lambda ns, a, b: _re_im(ns, ns.np.fft.ifft(_complex(ns, a, b), axis=0)),
        "rfft_irfft": lambda ns, a, b: ns.np.fft.irfft(ns.np.fft.rfft(a) * (1.0 - 0.5j), n=N),
        "rfft_real": lambda ns, a, b: ns.np.concatenate([ns.np.fft.rfft(a, axis=0).real, b[:1]]),
        "fft2": lambda ns, a, b: _re_im(ns, ns.np.fft.fft2(a)) / N,
    }
)


def _re_im(ns: Any, z: Any) -> Any:
    return ns.np.real(z) + 0.5 * ns.np.imag(z)


COMPLEX: Final = Family(
    {
        # |z| with z kept away from 0, where abs has no derivative.
        "complex_abs": lambda ns, a, b: ns.np.abs(_complex(ns, a, b) + 3.0),
        "complex_square": lambda ns, a, b: _re_im(ns, _complex(ns, a, b) ** 2),
        # The real part in (1, 3): away from the negative real axis, where angle jumps.
        "complex_angle": lambda ns, a, b: ns.np.angle(_complex(ns, ns.np.tanh(a) + 2.0, b)),
        "complex_exp": lambda ns, a, b: _re_im(ns, ns.np.exp(_complex(ns, ns.np.tanh(a), b))),
        "complex_conj": lambda ns, a, b: ns.np.real(
            _complex(ns, a, b) * ns.np.conj(_complex(ns, b, a * 0.5))
        ),
        "complex_dot": lambda ns, a, b: (
            ns.np.real(ns.np.dot(_complex(ns, a, b), ns.np.conj(_complex(ns, b, a)).T)) / N
        ),
    }
)


def _round_trip(dtype: str) -> StepFn:
    return lambda ns, a, b: a.astype(getattr(ns.np, dtype)).astype(a.dtype)


def _compute_in(dtype: str) -> StepFn:
    def step(ns: Any, a: Any, b: Any) -> Any:
        low = getattr(ns.np, dtype)
        return (ns.np.tanh(a.astype(low)) * b.astype(low)).astype(a.dtype)

    return step


FLOAT32: Final = Family({"f32": _round_trip("float32")}, rtol=1e-6)
FLOAT16: Final = Family({"f16": _round_trip("float16"), "f16_math": _compute_in("float16")}, 1e-2)
BFLOAT16: Final = Family(
    {"bf16": _round_trip("bfloat16"), "bf16_math": _compute_in("bfloat16")}, rtol=5e-2
)


def _conv(ns: Any, a: Any, kernel: Any, padding: Any, **dilations: Any) -> Any:
    """``a`` convolved with ``kernel`` (2-D; one batch entry, one feature): an (N, N) result."""
    out = ns.lax.conv_general_dilated(
        a[None, None], kernel[None, None], (1, 1), padding, **dilations
    )
    return ns.np.reshape(out, (N, N))


CONVOLUTION: Final = Family(
    {
        "conv": lambda ns, a, b: _conv(ns, a, b * 0.5, "SAME"),
        # A 2 x 2 kernel dilated to 3 x 3, over ``a`` padded by one on each side.
        "conv_dilated": lambda ns, a, b: _conv(
            ns, a, b[:2, 1:], ((1, 1), (1, 1)), rhs_dilation=(2, 2)
        ),
        # ``a`` dilated to 5 x 5 (zeros between), a 3 x 3 kernel, no padding: 3 x 3 again.
        "conv_lhs_dilated": lambda ns, a, b: _conv(
            ns, a, b * 0.3, ((0, 0), (0, 0)), lhs_dilation=(2, 2)
        ),
        "convolve": lambda ns, a, b: a + ns.np.convolve(a[0], b[1], mode="same"),
    }
)


def _window(ns: Any, a: Any, init: float, op: str, dims: Any, strides: Any, pad: Any) -> Any:
    # A Python scalar: JAX knows the monoid (so the derivative) only from a
    # concrete initial value, and an array made under jit is traced.
    return ns.lax.reduce_window(a, init, getattr(ns.lax, op), dims, strides, pad)


WINDOWS: Final = Family(
    {
        "window_max": lambda ns, a, b: _window(ns, a, -np.inf, "max", (2, 2), (1, 1), "SAME"),
        "window_min": lambda ns, a, b: _window(ns, a, np.inf, "min", (1, 3), (1, 1), "SAME"),
        # Rows padded by one above: windows of two rows, three of them.
        "window_sum": lambda ns, a, b: _window(ns, a, 0.0, "add", (2, 1), (1, 1), ((1, 0), (0, 0))),
        # Padded to 6 x 6, windows of 2 x 2 at stride 2: 3 x 3.
        "window_strided": lambda ns, a, b: _window(
            ns, a, 0.0, "add", (2, 2), (2, 2), ((1, 2), (1, 2))
        ),
    }
)


def _key(ns: Any, seed: int) -> Any:
    return ns.random.PRNGKey(seed)  # fixed: both libraries draw the same bits from it


RANDOM: Final = Family(
    {
        "normal": lambda ns, a, b: a + ns.random.normal(_key(ns, 1), (N, N), a.dtype) * 0.1,
        "uniform": lambda ns, a, b: a * ns.random.uniform(_key(ns, 2), (N, N), a.dtype, -1.0, 1.0),
        "bernoulli": lambda ns, a, b: ns.np.where(
            ns.random.bernoulli(_key(ns, 3), 0.5, (N, N)), a, b
        ),
        "permutation": lambda ns, a, b: a[ns.random.permutation(_key(ns, 4), N)],
        # Not ``gamma``: its sampler's loop takes seconds to compile, in either
        # library, under each transformation (the search would spend most of
        # its time there); not ``truncated_normal``: at ``-O0`` (how the
        # search compiles, ``fuzz.FAST_COMPILE``) XLA's CPU compiler gets its
        # eager float32 jvp wrong, JAX's own too (0 for some entries).
    }
)


def _stable(ns: Any, f: StepFn, c: Any, b: Any) -> Any:
    """A loop body's step, bounded so that repeating it stays finite."""
    return ns.np.tanh(f(ns, c, b))


def _cond(ns: Any, a: Any, b: Any, f: StepFn, g: StepFn) -> Any:
    return ns.lax.cond(ns.np.sum(b) > 0.0, lambda x: f(ns, x, b), lambda x: g(ns, x, b) * 0.5, a)


def _switch(ns: Any, a: Any, b: Any, f: StepFn, g: StepFn) -> Any:
    # Index 0, 1 or 2 for two branches: 2 is clamped to the last, as in JAX.
    branches = [lambda x: f(ns, x, b), lambda x: g(ns, x, b) - 1.0]
    return ns.lax.switch(ns.np.argmax(b[0]), branches, a)


def _fori(ns: Any, a: Any, b: Any, f: StepFn) -> Any:
    return ns.lax.fori_loop(0, 3, lambda i, c: _stable(ns, f, c, b) + b * 0.1, a)


def _fori_traced(ns: Any, a: Any, b: Any, f: StepFn) -> Any:
    # A traced trip count (1 to 3) makes it a while loop: no reverse mode, in either library.
    stop = ns.np.argmax(b[0]) + 1
    return ns.lax.fori_loop(0, stop, lambda i, c: _stable(ns, f, c, b), a)


def _while(ns: Any, a: Any, b: Any, f: StepFn) -> Any:
    def body(state: Any) -> Any:
        i, c = state
        return i + 1, _stable(ns, f, c, b) * 0.9 + b * 0.1

    bound = ns.np.argmin(b[1]) + 1  # data-dependent, at most N
    return ns.lax.while_loop(lambda s: s[0] < bound, body, (0, a))[1]


def _scan(ns: Any, a: Any, b: Any, f: StepFn, reverse: bool) -> Any:
    def body(c: Any, x: Any) -> Any:
        return _stable(ns, f, c, x) + x * 0.1, c * x

    carry, ys = ns.lax.scan(body, a, ns.np.stack([b, b * 0.5 - a]), reverse=reverse)
    return carry + ys[0] - ys[1] * 0.5


def _scan_rows(ns: Any, a: Any, b: Any) -> Any:
    carry, ys = ns.lax.scan(lambda c, x: (c * 0.5 + x, c + x), a[0], b)
    return ys + carry


# Control flow: each takes one or two steps for its body (looked up by name).
ControlFn = Callable[..., Any]
CONTROL: Final[dict[str, tuple[int, ControlFn]]] = {
    "cond": (2, _cond),
    "switch": (2, _switch),
    "fori": (1, _fori),
    "fori_traced": (1, _fori_traced),
    "while": (1, _while),
    "scan": (1, lambda ns, a, b, f: _scan(ns, a, b, f, reverse=False)),
    "scan_reverse": (1, lambda ns, a, b, f: _scan(ns, a, b, f, reverse=True)),
}
CONTROL_FAMILY: Final = Family({"scan_rows": _scan_rows}, in_bodies=False)
# Control flow that JAX runs differently eagerly: its trip count, computed
# from the inputs, is concrete there (the loop a ``scan``, with a gradient)
# and traced under ``jit`` (a while loop, without one).
BOUNDED_BY_VALUE: Final = frozenset({"fori_traced"})

FAMILIES: Final[dict[str, Family]] = {
    "elementwise": ELEMENTWISE,
    "reductions": REDUCTIONS,
    "shapes": SHAPES,
    "indexing": INDEXING,
    "linalg": LINALG,
    "fft": FFT,
    "complex": COMPLEX,
    "float32": FLOAT32,
    "custom_vjp": CUSTOM_VJP,
    "float16": FLOAT16,
    "bfloat16": BFLOAT16,
    "convolution": CONVOLUTION,
    "windows": WINDOWS,
    "random": RANDOM,
    "control": CONTROL_FAMILY,  # plus every name in CONTROL, drawn as this family
}
FAMILY_OF: Final = {op: name for name, fam in FAMILIES.items() for op in fam.steps}
BODY_OPS: Final = sorted(op for fam in FAMILIES.values() if fam.in_bodies for op in fam.steps)


def leaf_ops(op: str) -> list[str]:
    """The plain steps in ``op``: itself, or a control-flow step's body steps."""
    head, *body = op.split(":")
    return body if head in CONTROL else [head]


def step_fn(op: str) -> StepFn:
    """The function of ``(ns, a, b)`` that ``op`` names (``"fori:sin"``, ``"dot"``...)."""
    head, *body = op.split(":")
    if head in CONTROL:
        arity, control = CONTROL[head]
        if len(body) != arity or not set(body) <= set(BODY_OPS):
            raise ValueError(f"bad control-flow step {op!r}")
        fns = [FAMILIES[FAMILY_OF[b]].steps[b] for b in body]
        return lambda ns, a, b: control(ns, a, b, *fns)
    if head not in FAMILY_OF or body:
        raise ValueError(f"unknown operation {op!r}")
    return FAMILIES[FAMILY_OF[head]].steps[head]


def rtol_of(op: str) -> float:
    return max(FAMILIES[FAMILY_OF[leaf]].rtol for leaf in leaf_ops(op))


def eager_only(op: str) -> bool:
    return any(FAMILIES[FAMILY_OF[leaf]].eager_reference for leaf in leaf_ops(op))


def bounded_by_value(op: str) -> bool:
    return op.split(":")[0] in BOUNDED_BY_VALUE


def of_family(op: str, family: str) -> bool:
    """Whether ``op`` is, or its control-flow body holds, a step of ``family``."""
    return any(FAMILY_OF[leaf] == family for leaf in leaf_ops(op))


def fft_step(op: str) -> bool:
    return of_family(op, "fft")


def random_op(rng: np.random.Generator) -> str:
    """A family uniformly, then one of its steps (control flow: a wrapper, then its body)."""
    family = str(rng.choice(sorted(FAMILIES)))
    if family == "control":
        heads = sorted(CONTROL) + sorted(CONTROL_FAMILY.steps)
        head = str(rng.choice(heads))
        if head not in CONTROL:
            return head
        return ":".join([head] + [str(rng.choice(BODY_OPS)) for _ in range(CONTROL[head][0])])
    return str(rng.choice(sorted(FAMILIES[family].steps)))
