"""What the fuzzer's programs run on, and the parts of JAX's reference that need no program.

Design rules:
- A program is written once against a namespace (``JAX_NS`` or
  ``DIDAX_NS``) and run at NumPy inputs (``inputs``: the arguments, their
  tangents, their batches) under each of ``TRANSFORMATIONS``.
- JAX's reference computes each distinct computation once (``DERIVED``,
  ``bases``, ``derive``) and is read on the host inside the caller's
  ``try`` (``on_host``).
- JAX's eager forward mode over a custom_vjp function raises exactly where
  the traced transformation holds a ``custom_lin`` equation
  (``runs_custom_lin``; JAX's own error is ``custom_lin_error``), so it is
  decided without running it; ``run_eagerly`` is for what tracing cannot
  decide.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np
import numpy.typing as npt
from tests.fuzz.fuzz_compare import Step
from tests.fuzz.fuzz_steps import N, cube_custom_vjp, fft_step

import didax
import didax.numpy as dnp

JAX_NS: Final = SimpleNamespace(
    np=jnp,
    lax=jax.lax,
    jit=jax.jit,
    grad=jax.grad,
    jvp=jax.jvp,
    vjp=jax.vjp,
    vmap=jax.vmap,
    linearize=jax.linearize,
    custom_jvp=jax.custom_jvp,
    custom_vjp=jax.custom_vjp,
    random=jax.random,
)
DIDAX_NS: Final = SimpleNamespace(
    np=dnp,
    lax=didax.lax,
    jit=didax.jit,
    grad=didax.grad,
    jvp=didax.jvp,
    vjp=didax.vjp,
    vmap=didax.vmap,
    linearize=didax.linearize,
    custom_jvp=didax.custom_jvp,
    custom_vjp=didax.custom_vjp,
    random=didax.random,
)


N_INPUTS: Final = 2


Arrays = Sequence[Any]


TRANSFORMATIONS: Final = [
    "eval",
    "jit",
    "jvp",
    "vmap",
    "grad",
    "vjp",
    "linearize",
    "jit(grad)",
    "vmap(grad)",
    "grad(grad)",
]


def inputs(seed: int, x64: bool = True) -> list[Any]:
    """The program's inputs, then their tangents, then their batches (NumPy arrays)."""
    rng = np.random.default_rng(seed)
    dtype = np.float64 if x64 else np.float32
    xs: list[npt.NDArray[np.floating[Any]]] = [
        rng.normal(size=(N, N)).astype(dtype) for _ in range(N_INPUTS)
    ]
    t = [x * 0.3 + 0.1 for x in xs]
    batched = [np.stack([x, x * -0.5 + 0.2]) for x in xs]
    return xs + t + batched


def split_inputs(arrays: Arrays) -> tuple[Arrays, Arrays, Arrays]:
    return arrays[:N_INPUTS], arrays[N_INPUTS : 2 * N_INPUTS], arrays[2 * N_INPUTS :]


Outcome = tuple[Any, Exception | None]  # a result, or the error raised instead


# JAX's reference computes each distinct computation once: inside its one
# ``jax.jit``, ``jit(f)`` is ``f`` traced again and ``jit(grad(f))`` is the
# first of ``grad(f, argnums=(0, 1))``; ``vjp`` at a ones cotangent is
# ``(f, grad(f, argnums=(0, 1)))`` (JAX's ``grad`` is its ``vjp``), and
# ``linearize`` is ``jvp`` (JAX's ``linearize`` is its ``jvp``, partly evaluated). Tracing
# and lowering the copies cost as much as the rest, and XLA would merge them.
# Where anything raises, each is computed on its own (``jax_outcomes``).
DERIVED: Final[dict[str, tuple[tuple[str, ...], Callable[..., Any]]]] = {
    "jit": (("eval",), lambda out: out),
    "jit(grad)": (("grad",), lambda grads: grads[0]),
    "vjp": (("eval", "grad"), lambda out, grads: (out, grads)),
    # ``linearize`` then its linear map at the tangents is ``jvp`` at them.
    "linearize": (("jvp",), lambda out_and_tangent: out_and_tangent),
}


def bases(names: Sequence[str]) -> list[str]:
    """The distinct computations that give ``names``' references, in ``TRANSFORMATIONS``' order."""
    needed = {b for n in names for b in DERIVED.get(n, ((n,), None))[0]}
    return [n for n in TRANSFORMATIONS if n in needed]


def derive(names: Sequence[str], results: dict[str, Any]) -> dict[str, Any]:
    """Each of ``names``' results from the distinct computations' ``results``."""
    out = {}
    for name in names:
        sources, make = DERIVED.get(name, ((name,), lambda r: r))
        out[name] = make(*(results[b] for b in sources))
    return out


def on_host(results: Any) -> Any:
    # Read inside the caller's ``try``: XLA reports a failure when the result is read.
    return jax.tree_util.tree_map(np.asarray, results)


def runs_custom_lin(jaxpr: jax.extend.core.Jaxpr) -> bool:
    """Whether ``jaxpr`` (or one inside it) holds a ``custom_lin`` equation."""
    return any(eqn.primitive.name == "custom_lin" for eqn in jaxpr.eqns) or any(
        runs_custom_lin(sub) for sub in jax.extend.core.subjaxprs(jaxpr)
    )


def custom_lin_error() -> Exception:
    """JAX's own error for forward mode over a custom_vjp function (its eager jvp of one)."""
    if not _CUSTOM_LIN_ERROR:
        try:
            jax.jvp(cube_custom_vjp(JAX_NS), (np.float32(1.0),), (np.float32(1.0),))
        except TypeError as e:
            _CUSTOM_LIN_ERROR.append(e)
    return _CUSTOM_LIN_ERROR[0]


_CUSTOM_LIN_ERROR: list[Exception] = []


def has_fft(steps: Sequence[Step]) -> bool:
    return any(fft_step(op) for op, _ in steps)


def trace_raises(fn: Callable[..., Any], arrays: Arrays) -> bool:
    try:
        jax.jit(fn).trace(*arrays)
    except Exception:
        return True
    return False


def run_eagerly(fetch: Callable[[], dict[str, Any]], name: str, without_jit: bool) -> Outcome:
    """JAX's outcome run eagerly: the reference where its jitted run raised.

    Eagerly JAX may accept what it refuses traced: a loop bound computed
    from the inputs is concrete there, so a fori_loop is a scan and has a
    gradient; that is the reference for didax's eager transformation. And
    where XLA itself failed on JAX's program (a ``JaxRuntimeError``: the CPU
    FFT thunk rejects some layouts JAX's lowering gives it), JAX runs it
    op by op, jit disabled, for the value the program means.
    """
    try:
        if without_jit:
            with jax.disable_jit():
                return fetch()[name], None
        return fetch()[name], None
    except Exception as e:
        return None, e
