"""didax.scipy's smaller modules against JAX's: signal, fft, ndimage, integrate, interpolate,
cluster.vq, optimize, sparse.linalg, spatial.transform.

One table of cases, each a function of a library (``Lib``: didax's or
JAX's modules under shared names) run on both: values and dtypes eagerly
and under ``jit`` (float64, the suite's mode), a subset in the 32-bit
defaults (``x64_off``), gradients against JAX's and finite differences,
``vmap``, edge values (NaN, infinities, zeros) and the errors of bad input.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from types import ModuleType
from typing import Any, Final, NamedTuple

import jax
import jax.numpy as jnp
import jax.scipy.cluster.vq
import jax.scipy.fft
import jax.scipy.integrate
import jax.scipy.interpolate
import jax.scipy.ndimage
import jax.scipy.optimize
import jax.scipy.signal
import jax.scipy.sparse.linalg
import jax.scipy.spatial.transform
import numpy as np
import pytest
from tests.slicing import slice_params

import didax as dx
import didax.numpy as dnp
import didax.scipy.cluster.vq
import didax.scipy.fft
import didax.scipy.integrate
import didax.scipy.interpolate
import didax.scipy.ndimage
import didax.scipy.optimize
import didax.scipy.signal
import didax.scipy.sparse.linalg
import didax.scipy.spatial.transform


class Lib(NamedTuple):
    """One library's modules, under names shared by both."""

    np: Any
    signal: ModuleType
    fft: ModuleType
    ndimage: ModuleType
    integrate: ModuleType
    interpolate: ModuleType
    vq: ModuleType
    optimize: ModuleType
    sparse: ModuleType
    transform: ModuleType
    jit: Any
    grad: Any
    vmap: Any
    jvp: Any


DIDAX = Lib(
    dnp,
    didax.scipy.signal,
    didax.scipy.fft,
    didax.scipy.ndimage,
    didax.scipy.integrate,
    didax.scipy.interpolate,
    didax.scipy.cluster.vq,
    didax.scipy.optimize,
    didax.scipy.sparse.linalg,
    didax.scipy.spatial.transform,
    dx.jit,
    dx.grad,
    dx.vmap,
    dx.jvp,
)
JAX = Lib(
    jnp,
    jax.scipy.signal,
    jax.scipy.fft,
    jax.scipy.ndimage,
    jax.scipy.integrate,
    jax.scipy.interpolate,
    jax.scipy.cluster.vq,
    jax.scipy.optimize,
    jax.scipy.sparse.linalg,
    jax.scipy.spatial.transform,
    jax.jit,
    jax.grad,
    jax.vmap,
    jax.jvp,
)


def leaves(x: Any) -> list[Any]:
    """The arrays of a result: Rotations and OptimizeResults are pytrees in both libraries."""
    if hasattr(x, "quat"):
        return [x.quat]
    return [leaf for leaf in jax.tree_util.tree_leaves(x) if leaf is not None]


def compare(got: Any, want: Any, rtol: float | None = None) -> None:
    """Same shapes and dtypes; values within ``rtol`` of the largest magnitude (a few ulps)."""
    g_leaves, w_leaves = leaves(got), leaves(want)
    assert len(g_leaves) == len(w_leaves)
    for g_leaf, w_leaf in zip(g_leaves, w_leaves, strict=True):
        g, w = np.asarray(g_leaf), np.asarray(w_leaf)
        assert g.shape == w.shape
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        if g.dtype.kind not in "fc":
            np.testing.assert_array_equal(g, w)
            continue
        tol = rtol if rtol is not None else 64 * float(np.finfo(g.dtype).eps)
        finite = np.abs(w[np.isfinite(w)])
        scale = max(float(finite.max()) if finite.size else 1.0, 1.0)
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol * scale)


RNG: Final = np.random.default_rng(29)
SIGNAL: Final = RNG.normal(size=(2, 40))
SIGNAL2: Final = RNG.normal(size=(2, 40))
VEC6: Final = RNG.normal(size=6)
VEC3: Final = RNG.normal(size=3)
IMG: Final = RNG.normal(size=(5, 6))
KER: Final = RNG.normal(size=(3, 2))
CUBE: Final = RNG.normal(size=(4, 5, 6))
COORDS: Final = RNG.uniform(-1.5, 6.5, size=(2, 7))
QUATS: Final = RNG.normal(size=(5, 4))
VECS: Final = RNG.normal(size=(5, 3))
SPD: Final = (lambda q: q @ q.T + 6 * np.eye(6))(RNG.normal(size=(6, 6)))
GEN: Final = RNG.normal(size=(6, 6)) + 4 * np.eye(6)
GRID: Final = (np.array([0.0, 1.0, 2.5, 4.0]), np.array([0.0, 1.0, 3.0]))
GRID_VALUES: Final = RNG.normal(size=(4, 3, 2))
POINTS: Final = RNG.uniform(-0.5, 4.5, size=(6, 2))


def _rosen(m: Lib, x: Any) -> Any:
    return m.np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


Case = tuple[Callable[..., Any], tuple[Any, ...]]
_MODES: Final = ("full", "same", "valid")


def _convolutions(m: Lib, a: Any, b: Any, img: Any, ker: Any) -> Any:
    return (
        [m.signal.convolve(a, b, mode) for mode in _MODES],
        [m.signal.correlate(b, a, mode) for mode in _MODES],
        m.signal.convolve(a, b, "same", method="fft"),
        [m.signal.convolve2d(img, ker, mode) for mode in _MODES],
        [m.signal.correlate2d(img, ker, mode) for mode in _MODES],
        [m.signal.correlate2d(ker, img, mode) for mode in _MODES],
        m.signal.correlate2d(img + 1j * img[::-1], ker - 2j * ker),
        [m.signal.fftconvolve(img, ker, mode) for mode in _MODES],
        m.signal.fftconvolve(img, img[:, :3], axes=1),
        m.signal.detrend(img, axis=0, bp=[2]),
        m.signal.detrend(img, type="constant"),
    )


def _spectra(m: Lib, x: Any, y: Any) -> Any:
    return (
        m.signal.welch(x, nperseg=16),
        m.signal.welch(x, nperseg=16, average="median", scaling="spectrum"),
        m.signal.welch(x.T, window="hamming", nperseg=12, axis=0),
        m.signal.csd(x, y, nperseg=20, noverlap=5, detrend="linear"),
        m.signal.stft(x, nperseg=16),
        m.signal.istft(m.signal.stft(x, nperseg=16)[2], nperseg=16),
        [
            m.signal.stft(x, nperseg=15, boundary=b, padded=False, return_onesided=False)
            for b in ("odd", None)
        ],
    )


def _cosine_transforms(m: Lib, x: Any) -> Any:
    return (
        [
            getattr(m.fft, fn)(x, norm=norm)
            for fn in ("dct", "idct", "dctn", "idctn")
            for norm in ("backward", "ortho")
        ],
        m.fft.dct(x, n=7, axis=1),
        m.fft.idct(x + 1j * x[::-1]),
        m.fft.dctn(x, s=(5, 7), axes=(0, 2)),
    )


def _interpolations(m: Lib, img: Any, coords: Any, y: Any, values: Any, points: Any) -> Any:
    grid = (m.np.asarray(GRID[0]), m.np.asarray(GRID[1]))
    return (
        [
            m.ndimage.map_coordinates(img, [coords[0], coords[1]], order, mode, 1.5)
            for mode in ("constant", "nearest", "wrap", "mirror", "reflect")
            for order in (0, 1)
        ],
        m.ndimage.map_coordinates(m.np.arange(30).reshape(5, 6), [coords[0], coords[1]], 1),
        m.integrate.trapezoid(y, m.np.cumsum(y**2)),
        m.integrate.trapezoid(img, dx=0.5, axis=0),
        m.interpolate.RegularGridInterpolator(grid, values)(points),
        m.interpolate.RegularGridInterpolator(grid, values, "nearest")(points),
        m.interpolate.RegularGridInterpolator(grid, values, fill_value=None)(points),
        m.vq.vq(points, points[:3] + 0.1),
        m.vq.vq(y, y[:3]),
    )


def _solvers(m: Lib, x0: Any, spd: Any, gen: Any, b: Any) -> Any:
    return (
        m.optimize.minimize(partial(_rosen, m), x0, method="BFGS"),
        m.sparse.cg(spd, b)[0],
        m.sparse.cg(spd, b, M=m.np.diag(1 / m.np.diag(spd)), maxiter=3)[0],
        m.sparse.bicgstab(gen, b)[0],
        m.sparse.gmres(gen, b, restart=3),
        m.sparse.gmres(gen, b, restart=3, solve_method="incremental"),
    )


def _argmin(m: Lib, a: Any) -> Any:
    objective = lambda v, a: m.np.sum((v - a) ** 2 + v**4)  # noqa: E731
    return m.optimize.minimize(objective, m.np.zeros(3), (a,), method="BFGS").x


def _rotations(m: Lib, q: Any, v: Any, t: Any, s: Any) -> Any:
    rot = m.transform.Rotation
    r = rot.from_quat(q)
    slerp = m.transform.Slerp.init(t, r)
    return (
        [getattr(r, conv)() for conv in ("as_matrix", "as_mrp", "as_rotvec", "magnitude")],
        r.as_quat(canonical=True, scalar_first=True),
        [(r.as_euler(seq, degrees=True), rot.from_euler(seq, v)) for seq in ("ZYX", "xzx")],
        rot.from_euler("YXY", v, degrees=True),
        rot.from_matrix(r.as_matrix()),
        rot.from_mrp(v),
        rot.from_rotvec(v * 30, degrees=True),
        rot.identity(),
        r.apply(v),
        rot.from_quat(q[0]).apply(v, inverse=True),
        (r * rot.from_quat(q[::-1])).inv(),
        rot.concatenate([r, rot.from_quat(q[:2])]),
        slerp(s),
    )


# name -> (f(lib, *args), args): each runs under jit in both libraries, most eagerly too.
CASES: Final[dict[str, Case]] = {
    "convolutions": (_convolutions, (VEC6, VEC3, IMG, KER)),
    "spectra": (_spectra, (SIGNAL, SIGNAL2)),
    "cosine_transforms": (_cosine_transforms, (CUBE,)),
    "interpolations": (_interpolations, (IMG, COORDS, VEC6, GRID_VALUES, POINTS)),
    "solvers": (_solvers, (np.array([-1.2, 1.0, 0.5, 0.3]), SPD, GEN, VEC6)),
    "rotations": (_rotations, (QUATS, VECS, np.array([0.0, 1.0, 3.0, 4.0, 7.0]), VECS[:3, 0])),
}


def _rotations_eagerly(m: Lib, q: Any, v: Any) -> Any:
    r = m.transform.Rotation.from_quat(q)
    return r.as_euler("zxz"), r.apply(v)


# Eagerly, op by op in both libraries (the solvers' loops are staged either way).
EAGER: Final[dict[str, Case]] = {
    "convolutions": (
        lambda m, a, b, img, ker: (
            m.signal.convolve(a, b),
            m.signal.correlate2d(img, ker, "same"),
            m.signal.fftconvolve(img, ker, "valid"),
            m.signal.detrend(img),
        ),
        (VEC6, VEC3, IMG, KER),
    ),
    "cosine_transforms": (lambda m, x: (m.fft.dct(x), m.fft.idctn(x, norm="ortho")), (IMG,)),
    "interpolations": (
        lambda m, img, c, v, p: (
            m.ndimage.map_coordinates(img, [c[0], c[1]], 1, "wrap"),
            m.integrate.trapezoid(img, axis=0),
            m.vq.vq(p, p[:3]),
        ),
        (IMG, COORDS, GRID_VALUES, POINTS),
    ),
    "rotations": (_rotations_eagerly, (QUATS, VECS)),
}


@pytest.mark.parametrize("name", CASES)
def test_values_match_jax_under_jit(name: str) -> None:
    f, args = CASES[name]
    # Jitted against jitted: XLA's fusions round alike in both.
    compare(DIDAX.jit(partial(f, DIDAX))(*args), JAX.jit(partial(f, JAX))(*args))


# Op by op, each group is seconds of JAX's eager compiles: the slice's two
# groups run didax's eager path through signal, ndimage, integrate and vq;
# the rotations and cosine transforms, checked under jit, add no new path.
@pytest.mark.parametrize(
    "name", slice_params(EAGER, lambda n: n in ("convolutions", "interpolations"))
)
def test_values_match_jax_eagerly(name: str) -> None:
    f, args = EAGER[name]
    compare(f(DIDAX, *args), f(JAX, *args))


def _in_32_bits(m: Lib, a: Any, b: Any, img: Any, q: Any) -> Any:
    return (
        m.signal.convolve(a, b, "same"),
        m.fft.dct(img, norm="ortho"),
        m.ndimage.map_coordinates(img, [a, b[::-1]], 1, "reflect"),
        m.vq.vq(img, img[:2]),
        # The minimiser and its jvp in a parameter of the objective, through the while loops.
        m.jvp(partial(_argmin, m), (b[:3],), (m.np.ones(3, a.dtype),)),
        m.transform.Rotation.from_quat(q).as_euler("xyz"),
    )


@pytest.mark.x64_off
def test_values_match_jax_in_32_bit_mode() -> None:
    """float32 inputs in the 32-bit defaults: float32 results (int32 codes), float32 values."""
    args = tuple(a.astype(np.float32) for a in (VEC6, VEC6[::-1], IMG, QUATS))
    compare(
        DIDAX.jit(partial(_in_32_bits, DIDAX))(*args),
        JAX.jit(partial(_in_32_bits, JAX))(*args),
        rtol=2e-4,
    )


def _rotated(m: Lib, q: Any) -> Any:
    return m.transform.Rotation.from_quat(q).apply(VECS).sum()


# name -> (scalar f(lib, x), x): gradients against JAX's.
GRADS: Final[dict[str, Case]] = {
    "convolve": (lambda m, a: (m.signal.convolve(a, VEC3) ** 2).sum(), (VEC6,)),
    "convolve2d": (lambda m, a: (m.signal.convolve2d(a, KER, "same") ** 2).sum(), (IMG,)),
    "fftconvolve": (lambda m, a: (m.signal.fftconvolve(a, KER, "same") ** 2).sum(), (IMG,)),
    "dct": (lambda m, x: (m.fft.dct(x, norm="ortho") ** 3).sum(), (IMG,)),
    "map_coordinates": (
        lambda m, c: m.ndimage.map_coordinates(IMG, [c[0], c[1]], 1, "mirror").sum(),
        (COORDS,),
    ),
    "trapezoid": (lambda m, y: m.integrate.trapezoid(y**2, dx=0.3), (VEC6,)),
    "grid_interpolator": (
        lambda m, v: m.interpolate.RegularGridInterpolator(GRID, v)(POINTS[:3]).sum(),
        (GRID_VALUES,),
    ),
    "rotation_apply": (_rotated, (QUATS,)),
    "cg_matrix": (lambda m, a: m.sparse.cg(a, VEC6, tol=1e-12)[0].sum(), (SPD,)),
}


def _all_of(table: dict[str, Case], m: Lib, transform: Callable[..., Any]) -> Callable[..., Any]:
    """One function computing ``transform(f)`` of every row of ``table`` (one compiled program)."""

    def run(*args: Any) -> Any:
        return [
            transform(partial(f, m))(*a) for (f, _), a in zip(table.values(), args, strict=True)
        ]

    return run


def _table_args(table: dict[str, Case]) -> list[tuple[Any, ...]]:
    return [args for _, args in table.values()]


def test_gradients_match_jax() -> None:
    """Every row's gradient, all in one jitted program per library."""
    args = _table_args(GRADS)
    got = DIDAX.jit(_all_of(GRADS, DIDAX, DIDAX.grad))(*args)
    want = JAX.jit(_all_of(GRADS, JAX, JAX.grad))(*args)
    for g, w in zip(got, want, strict=True):
        compare(g, w, rtol=1e-9)


@pytest.mark.parametrize("name", ["convolve", "map_coordinates", "rotation_apply", "trapezoid"])
def test_gradients_match_finite_differences(name: str) -> None:
    f, (x,) = GRADS[name]
    fd = DIDAX.jit(partial(f, DIDAX))
    grad = np.asarray(DIDAX.jit(DIDAX.grad(partial(f, DIDAX)))(x)).ravel()
    eps = 1e-6
    for i in range(0, x.size, max(1, x.size // 4)):
        step = np.zeros(x.size)
        step[i] = eps
        step = step.reshape(x.shape)
        numeric = (float(fd(x + step)) - float(fd(x - step))) / (2 * eps)
        np.testing.assert_allclose(grad[i], numeric, rtol=1e-5, atol=1e-6)


# name -> (f(lib, x), batched x): vmap over the leading axis, against JAX's vmap.
VMAPS: Final[dict[str, Case]] = {
    "convolve": (lambda m, a: m.signal.convolve(a, VEC3, "same"), (IMG,)),
    "dct": (lambda m, x: m.fft.dct(x, norm="ortho"), (IMG,)),
    "map_coordinates": (lambda m, c: m.ndimage.map_coordinates(IMG, [c, c[::-1]], 1), (COORDS,)),
    "vq": (lambda m, c: m.vq.vq(VECS, c), (np.stack([VECS[:3], VECS[2:]]),)),
    "rotation": (lambda m, q: m.transform.Rotation.from_quat(q).as_euler("xyz"), (QUATS,)),
    "cg": (lambda m, b: m.sparse.cg(SPD, b)[0], (IMG,)),
}


def test_vmap_matches_jax() -> None:
    """Every row mapped over its leading axis, in one program per library."""
    args = _table_args(VMAPS)
    got = DIDAX.jit(_all_of(VMAPS, DIDAX, DIDAX.vmap))(*args)
    want = JAX.jit(_all_of(VMAPS, JAX, JAX.vmap))(*args)
    for g, w in zip(got, want, strict=True):
        compare(g, w)


def test_rotation_mean_and_pytrees() -> None:
    weights = np.arange(5.0)
    got = DIDAX.transform.Rotation.from_quat(QUATS).mean(weights).quat
    want = JAX.transform.Rotation.from_quat(QUATS).mean(weights).quat
    # An eigenvector: its sign is the eigensolver's choice.
    compare(got * np.sign(got[3]), want * np.sign(want[3]))
    rot = DIDAX.transform.Rotation.from_quat(QUATS)
    assert len(rot) == 5
    assert DIDAX.jit(lambda r: r.inv())(rot).quat.shape == (5, 4)
    interp = DIDAX.interpolate.RegularGridInterpolator(GRID, GRID_VALUES)
    compare(DIDAX.jit(lambda f, p: f(p))(interp, POINTS), interp(POINTS))


EDGE: Final = np.array([0.0, np.inf, -np.inf, np.nan, 1e300, 1e-300])


@pytest.mark.parametrize(
    "name",
    ["convolve", "trapezoid", "dct", "map_coordinates", "vq", "as_rotvec", "from_rotvec"],
)
def test_edge_values_match_jax(name: str) -> None:
    f: Callable[[Lib], Any] = {
        "convolve": lambda m: m.signal.convolve(EDGE, np.array([1.0, -1.0])),
        "trapezoid": lambda m: m.integrate.trapezoid(EDGE),
        "dct": lambda m: m.fft.dct(EDGE[:1]),
        "map_coordinates": lambda m: m.ndimage.map_coordinates(
            np.arange(6.0), [np.array([np.nan, np.inf, -np.inf, 0.0, 5.0, -1.0])], 1, "nearest"
        ),
        "vq": lambda m: m.vq.vq(np.array([[np.nan], [np.inf], [0.0]]), np.array([[0.0], [1.0]])),
        "as_rotvec": lambda m: m.transform.Rotation.from_quat(
            np.array([[0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1e-9, -1.0]])
        ).as_rotvec(),
        "from_rotvec": lambda m: (
            m.transform.Rotation.from_rotvec(
                np.array([[0.0, 0.0, 0.0], [1e-5, 0.0, 0.0], [np.pi, 0.0, 0.0]])
            ).quat
        ),
    }[name]
    compare(f(DIDAX), f(JAX))


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: DIDAX.signal.convolve(VEC6, VEC3, "bad"), ValueError, "convolve: mode"),
        (lambda: DIDAX.signal.convolve(IMG, VEC3), ValueError, "convolve: in1 and in2"),
        (lambda: DIDAX.signal.convolve2d(IMG, KER, boundary="wrap"), NotImplementedError, "fill"),
        (lambda: DIDAX.signal.fftconvolve(IMG, KER, "bad"), ValueError, "fftconvolve: mode"),
        (lambda: DIDAX.signal.detrend(IMG, type="quadratic"), ValueError, "detrend"),
        (lambda: DIDAX.signal.welch(SIGNAL, nperseg=8, noverlap=8), ValueError, "noverlap"),
        (lambda: DIDAX.fft.dct(VEC6, type=1), NotImplementedError, "dct: only DCT type 2"),
        (lambda: DIDAX.fft.idctn(IMG, norm="forward"), ValueError, "idctn: norm"),
        (lambda: DIDAX.ndimage.map_coordinates(IMG, [VEC3], 1), ValueError, "map_coordinates"),
        (lambda: DIDAX.ndimage.map_coordinates(IMG, [VEC3, VEC3], 3), NotImplementedError, "order"),
        (lambda: DIDAX.vq.vq(VECS, VEC3), ValueError, "vq: observation"),
        (lambda: DIDAX.optimize.minimize(_rosen, VEC3, method="CG"), ValueError, "minimize"),
        (lambda: DIDAX.optimize.minimize(_rosen, VEC3, [], method="BFGS"), TypeError, "tuple"),
        (lambda: DIDAX.sparse.cg(IMG, VEC6), ValueError, "cg: linear operator"),
        (lambda: DIDAX.sparse.gmres(GEN, VEC6, solve_method="qr"), ValueError, "gmres"),
        (lambda: DIDAX.transform.Rotation.from_euler("xxy", VEC3), ValueError, "consecutive"),
        (lambda: DIDAX.transform.Rotation.from_quat(QUATS[0])[0], TypeError, "subscriptable"),
        (
            lambda: DIDAX.interpolate.RegularGridInterpolator(GRID, GRID_VALUES, "cubic"),
            ValueError,
            "RegularGridInterpolator: method",
        ),
    ],
)
def test_bad_input_is_refused_with_the_functions_name(
    call: Callable[[], Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        call()
