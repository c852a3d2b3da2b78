"""Functions of functions: ``vectorize``, ``ufunc``/``frompyfunc``, ``apply_along_axis``,
``apply_over_axes``, ``fromfunction`` and ``mask_indices``.

As ``jax.numpy``'s, they are built on ``vmap`` rather than Python loops:
``apply_along_axis`` maps ``func1d`` over every axis but ``axis``,
``fromfunction`` over one ``arange`` per axis, and ``vectorize`` over the
broadcast loop dimensions (with a NumPy gufunc ``signature``, over those
outside the core dimensions). A ``ufunc`` made from a scalar function gets
NumPy's methods: ``outer`` (two nested ``vmap``), ``reduce`` and
``accumulate`` (a ``scan`` along the axis, JAX's generic path), and ``at``
(a ``scan`` over the indices, so that repeated indices accumulate).

Design rules:
- The mapped function sees tracers: it must be traceable, as in JAX.
- ``ufunc.at`` returns the new array (``inplace=False``), Arrays being
  immutable; ``reduceat`` has no generic form here and is refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from typing import Any

from didax.api.control_flow import scan
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.creation import arange, asarray, ones
from didax.api.numpy.manipulation import (
    broadcast_to,
    concatenate,
    expand_dims,
    moveaxis,
    ravel,
    reshape,
)
from didax.api.numpy.more_routines import broadcast_shapes
from didax.api.numpy.operands import as_result, normalize_axes, operand
from didax.api.numpy.positions import nonzero
from didax.api.transformations import vmap
from didax.core.dtypes import DTypeLike
from didax.core.values import get_aval

__all__ = [
    "vectorize",
    "ufunc",
    "frompyfunc",
    "apply_along_axis",
    "apply_over_axes",
    "fromfunction",
    "mask_indices",
]


def apply_along_axis(
    func1d: Callable[..., Any], axis: int, arr: ArrayLike, *args: Any, **kwargs: Any
) -> Any:
    """``func1d`` applied to each 1-d slice of ``arr`` along ``axis`` (through ``vmap``)."""
    a = as_result(operand(arr))
    ndim = get_aval(a).ndim
    (axis,) = normalize_axes(axis, ndim, "apply_along_axis")

    def func(x: Array) -> Any:
        return func1d(x, *args, **kwargs)

    for i in range(1, ndim - axis):
        func = vmap(func, in_axes=i, out_axes=-1)
    for _ in range(axis):
        func = vmap(func, in_axes=0, out_axes=0)
    return func(a)


def apply_over_axes(
    func: Callable[[Array, int], Array], a: ArrayLike, axes: Sequence[int]
) -> Array:
    """``func(a, axis)`` for each axis in turn, a dropped axis put back (NumPy's rule)."""
    out = asarray(a)
    for axis in axes:
        b = func(out, axis)
        if get_aval(b).ndim == get_aval(out).ndim - 1:
            b = expand_dims(b, axis)
        elif get_aval(b).ndim != get_aval(out).ndim:
            raise ValueError("apply_over_axes: func is not returning an array of the correct shape")
        out = b
    return out


def fromfunction(
    function: Callable[..., Any], shape: Sequence[int], *, dtype: DTypeLike = float, **kwargs: Any
) -> Any:
    """``function`` of the index grids of ``shape`` (one ``arange`` per axis, mapped over)."""
    dims = tuple(int(d) for d in shape)
    for i in range(len(dims)):
        in_axes = tuple(0 if j == len(dims) - 1 - i else None for j in range(len(dims)))
        function = vmap(function, in_axes=in_axes)
    return function(*(arange(d, dtype=dtype) for d in dims), **kwargs)


def mask_indices(
    n: int, mask_func: Callable[[Array, int], Array], k: int = 0, *, size: int | None = None
) -> tuple[Array, ...]:
    """The indices of the nonzero entries of ``mask_func(ones((n, n)), k)`` (``triu``, ...)."""
    return nonzero(mask_func(ones((n, n)), k), size=size)


# --- vectorize ------------------------------------------------------------------------------

_DIMS = r"\w+"
_ARGUMENT = rf"\((?:{_DIMS}(?:,{_DIMS})*)?\)"
_SIGNATURE = re.compile(rf"^{_ARGUMENT}(?:,{_ARGUMENT})*->{_ARGUMENT}(?:,{_ARGUMENT})*$")


def _parse_signature(signature: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """A gufunc signature's core dimensions: ``"(m,n),(n)->(m)"`` → inputs', outputs'."""
    sig = signature.replace(" ", "")
    if not _SIGNATURE.match(sig):
        raise ValueError(f"vectorize: not a valid gufunc signature: {signature!r}")
    ins, outs = sig.split("->")

    def parts(side: str) -> list[tuple[str, ...]]:
        return [tuple(d for d in arg.split(",") if d) for arg in re.findall(r"\(([^)]*)\)", side)]

    return parts(ins), parts(outs)


def vectorize(
    pyfunc: Callable[..., Any],
    *,
    excluded: Collection[int | str] = frozenset(),
    signature: str | None = None,
) -> Callable[..., Any]:
    """``pyfunc`` mapped over its arguments' broadcast loop dimensions (NumPy's ``vectorize``).

    >>> vectorize(lambda a, b: a + b)(np.arange(3), np.ones((2, 1), np.int32)).shape
    (2, 3)
    >>> vectorize(lambda x: x.sum(), signature="(n)->()")(np.ones((4, 3))).shape
    (4,)
    """
    core = _parse_signature(signature) if signature is not None else None

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        static = {i: a for i, a in enumerate(args) if i in excluded}
        static_kw = {k: v for k, v in kwargs.items() if k in excluded}
        mapped_kw = [k for k in kwargs if k not in excluded]
        names = [i for i in range(len(args)) if i not in excluded]
        arrays = [asarray(args[i]) for i in names] + [asarray(kwargs[k]) for k in mapped_kw]
        if core is None:
            core_ndims = [0] * len(arrays)
        else:
            if len(core[0]) != len(arrays):
                raise TypeError(
                    f"vectorize: the signature has {len(core[0])} inputs, got {len(arrays)}"
                )
            core_ndims = [len(c) for c in core[0]]
        loops = [
            get_aval(a).shape[: get_aval(a).ndim - n]
            for a, n in zip(arrays, core_ndims, strict=True)
        ]
        loop_shape = broadcast_shapes(*loops)
        arrays = [
            broadcast_to(a, loop_shape + get_aval(a).shape[get_aval(a).ndim - n :])
            for a, n in zip(arrays, core_ndims, strict=True)
        ]

        def call(*xs: Any) -> Any:
            pos = iter(xs[: len(names)])
            full = [static[i] if i in static else next(pos) for i in range(len(args))]
            kw = dict(static_kw, **dict(zip(mapped_kw, xs[len(names) :], strict=True)))
            return pyfunc(*full, **kw)

        func = call
        for _ in loop_shape:
            func = vmap(func)
        return func(*arrays)

    wrapped.__name__ = getattr(pyfunc, "__name__", "vectorized")
    wrapped.__doc__ = getattr(pyfunc, "__doc__", None)
    return wrapped


# --- ufunc ----------------------------------------------------------------------------------


class ufunc:
    """A function of scalars with NumPy's ufunc methods (JAX's ``jnp.ufunc``).

    >>> add = ufunc(lambda a, b: a + b, 2, 1, name="add", identity=0)
    >>> add.reduce(np.arange(5))
    Array(10, dtype=int32)
    >>> add.outer(np.arange(2), np.arange(3)).shape
    (2, 3)
    """

    def __init__(
        self,
        func: Callable[..., Any],
        /,
        nin: int,
        nout: int,
        *,
        name: str | None = None,
        nargs: int | None = None,
        identity: Any = None,
    ) -> None:
        self.func = func
        self.nin = int(nin)
        self.nout = int(nout)
        self.nargs = self.nin if nargs is None else int(nargs)
        self.identity = identity
        self.__name__ = name or getattr(func, "__name__", "ufunc")

    def __repr__(self) -> str:
        return f"<didax.numpy.ufunc '{self.__name__}'>"

    def __call__(self, *args: ArrayLike) -> Any:
        if len(args) != self.nin:
            raise TypeError(
                f"{self.__name__}() takes {self.nin} positional arguments, got {len(args)}"
            )
        return vectorize(self.func)(*args)

    def _binary(self, method: str) -> None:
        if self.nin != 2 or self.nout != 1:
            raise ValueError(f"{method} only supported for binary ufuncs with a single output")

    def outer(self, A: ArrayLike, B: ArrayLike, /) -> Any:
        """``self(a, b)`` for every pair of elements, of shape ``A.shape + B.shape``."""
        self._binary("outer")
        a, b = asarray(A), asarray(B)
        pairs = vmap(vmap(self.func, (None, 0)), (0, None))(ravel(a), ravel(b))
        return reshape(pairs, get_aval(a).shape + get_aval(b).shape)

    def reduce(
        self,
        a: ArrayLike,
        axis: int | None = 0,
        dtype: DTypeLike = None,
        out: object = None,
        keepdims: bool = False,
        initial: ArrayLike | None = None,
        where: ArrayLike | None = None,
    ) -> Array:
        """``a`` reduced along ``axis`` by repeated application (a ``scan``)."""
        self._binary("reduce")
        if out is not None or where is not None:
            raise NotImplementedError("reduce: the 'out' and 'where' arguments are not supported")
        arr = asarray(a, dtype)
        shape = get_aval(arr).shape
        if axis is None:
            final = (1,) * len(shape) if keepdims else ()
            arr, axis = ravel(arr), 0
        else:
            (axis,) = normalize_axes(axis, len(shape), "reduce")
            final = (
                (*shape[:axis], 1, *shape[axis + 1 :])
                if keepdims
                else shape[:axis] + shape[axis + 1 :]
            )
        xs = moveaxis(arr, axis, 0)
        # As JAX's: the identity (or ``initial``) starts the scan; else the first element.
        start = self.identity if initial is None else initial
        if start is None and get_aval(xs).shape[0] == 0:
            raise ValueError(
                f"zero-size array to reduction operation {self.__name__} which has no identity"
            )
        if start is None:
            init, xs = xs[0], xs[1:]
        else:
            init = broadcast_to(asarray(start, get_aval(xs).dtype), get_aval(xs).shape[1:])
        result, _ = scan(
            lambda c, x: (asarray(self.func(c, x), get_aval(xs).dtype), None), init, xs
        )
        return reshape(result, final)

    def accumulate(
        self, a: ArrayLike, axis: int = 0, dtype: DTypeLike = None, out: object = None
    ) -> Array:
        """The running results of ``reduce`` along ``axis``."""
        self._binary("accumulate")
        if out is not None:
            raise NotImplementedError("accumulate: the 'out' argument is not supported")
        arr = asarray(a, dtype)
        (axis,) = normalize_axes(axis, get_aval(arr).ndim, "accumulate")
        xs = moveaxis(arr, axis, 0)

        def step(c: Any, x: Any) -> tuple[Any, Any]:
            y = asarray(self.func(c, x), get_aval(xs).dtype)
            return y, y

        _, rest = scan(step, xs[0], xs[1:])
        return moveaxis(concatenate([expand_dims(xs[0], 0), rest], axis=0), 0, axis)

    def at(
        self, a: ArrayLike, indices: Any, b: ArrayLike | None = None, /, *, inplace: bool = True
    ) -> Array:
        """``a`` with ``a[indices] = self(a[indices], b)`` applied index by index."""
        if inplace:
            raise NotImplementedError("ufunc.at: didax Arrays are immutable: pass inplace=False")
        arr = asarray(a)
        index = indices if isinstance(indices, tuple) else (indices,)
        index_arrays = [asarray(i) for i in index]
        shape = broadcast_shapes(*(get_aval(i).shape for i in index_arrays))
        flat_index = [ravel(broadcast_to(i, shape)) for i in index_arrays]
        n = len(flat_index[0]) if flat_index else 0
        sub_shape = get_aval(arr[tuple(i[:1] for i in flat_index)]).shape[1:]
        if b is None:
            if self.nin != 1:
                raise ValueError("ufunc.at: a binary ufunc needs the operand b")
            values = None
        else:
            values = reshape(broadcast_to(asarray(b), shape + sub_shape), (n, *sub_shape))

        def step(acc: Array, x: Any) -> tuple[Array, None]:
            where = tuple(x[0])
            old = acc[where]
            new = self.func(old) if x[1] is None else self.func(old, x[1])
            return as_result(acc.at[where].set(new)), None

        result, _ = scan(step, arr, (tuple(flat_index), values))
        return as_result(result)

    def reduceat(self, *args: Any, **kwargs: Any) -> Array:
        """Refused: a user ``ufunc`` has no generic ``reduceat`` in didax."""
        raise NotImplementedError(f"{self.__name__}.reduceat is not supported")


def frompyfunc(func: Callable[..., Any], /, nin: int, nout: int, *, identity: Any = None) -> ufunc:
    """A ``ufunc`` from a scalar function (NumPy's ``frompyfunc``, JAX's)."""
    return ufunc(func, nin, nout, identity=identity)
