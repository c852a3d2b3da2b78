"""``didax.scipy.spatial.transform``: ``Rotation`` and ``Slerp``, as JAX's.

Design rules:
- Both are pytrees, as JAX's NamedTuples are: a ``Rotation`` is its unit
  quaternion(s) ``quat`` (scalar last, ``(4,)`` or ``(N, 4)``); a ``Slerp``
  its key times, their differences, the rotations and the rotation
  vectors between neighbours. They cross ``jit`` and ``vmap``.
- Every conversion is JAX's formula on one quaternion (or matrix, vector),
  mapped over leading axes by ``_vectorized`` (JAX uses
  ``jnp.vectorize`` with the same core shapes), so values and derivatives
  are JAX's. Axis sequences of ``from_euler``/``as_euler`` are static, as
  the strings they come from are.
- ``Rotation.random`` is not implemented in JAX (it raises); neither is it
  here.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np
from jax import tree_util

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.contractions import cross
from didax.api.numpy.creation import ones, zeros
from didax.api.numpy.decompositions import eigh
from didax.api.numpy.elementwise import abs as _abs
from didax.api.numpy.elementwise import cos, maximum, sin, sqrt, where
from didax.api.numpy.joining import atleast_1d, hstack
from didax.api.numpy.linear_algebra import dot
from didax.api.numpy.manipulation import broadcast_to, stack
from didax.api.numpy.manipulation import concatenate as _concatenate
from didax.api.numpy.more_elementwise import arctan2, deg2rad, hypot, rad2deg
from didax.api.numpy.operands import as_result, asarray, broadcast_shapes, operand
from didax.api.numpy.rearranging import diff, roll
from didax.api.numpy.reductions import argmax
from didax.api.numpy.searching import searchsorted
from didax.api.transformations import vmap

__all__ = ["Rotation", "Slerp"]


def _vectorized(*core: int) -> Callable[[Callable[..., Array]], Callable[..., Array]]:
    """Map a function of arrays of ranks ``core`` over their broadcast leading axes."""

    def wrap(fn: Callable[..., Array]) -> Callable[..., Array]:
        @functools.wraps(fn)
        def mapped(*args: ArrayLike) -> Array:
            arrays = [as_result(operand(a)) for a in args]
            lead = [a.shape[: a.ndim - c] for a, c in zip(arrays, core, strict=True)]
            batch = broadcast_shapes(fn.__name__, *lead)
            if not batch:
                return fn(*arrays)
            size = math.prod(batch)
            flat = [
                broadcast_to(a, batch + a.shape[a.ndim - c :]).reshape(
                    (size, *a.shape[a.ndim - c :])
                )
                for a, c in zip(arrays, core, strict=True)
            ]
            out: Array = vmap(fn)(*flat)
            return out.reshape(batch + out.shape[1:])

        return mapped

    return wrap


def _vector_norm(vector: Array) -> Array:
    return sqrt(dot(vector, vector))


@_vectorized(1)
def _normalize_quaternion(quat: Array) -> Array:
    return quat / _vector_norm(quat)


@_vectorized(2, 1)
def _apply(matrix: Array, vector: Array) -> Array:
    return matrix @ vector


@_vectorized(1)
def _as_matrix(quat: Array) -> Array:
    x, y, z, w = quat[0], quat[1], quat[2], quat[3]
    x2, y2, z2, w2 = x * x, y * y, z * z, w * w
    xy, zw, xz, yw, yz, xw = x * y, z * w, x * z, y * w, y * z, x * w
    rows = [
        [x2 - y2 - z2 + w2, 2 * (xy - zw), 2 * (xz + yw)],
        [2 * (xy + zw), -x2 + y2 - z2 + w2, 2 * (yz - xw)],
        [2 * (xz - yw), 2 * (yz + xw), -x2 - y2 + z2 + w2],
    ]
    return stack([stack(row) for row in rows])


@_vectorized(1)
def _as_mrp(quat: Array) -> Array:
    sign = where(quat[3] < 0, -1.0, 1.0)
    return sign * quat[:3] / (1.0 + sign * quat[3])


def _as_rotvec(quat: Array, degrees: bool) -> Array:
    @_vectorized(1)
    def one(q: Array) -> Array:
        q = where(q[3] < 0, -q, q)
        angle = 2.0 * arctan2(_vector_norm(q[:3]), q[3])
        angle2 = angle * angle
        small_scale = 2 + angle2 / 12 + 7 * angle2 * angle2 / 2880
        large_scale = angle / sin(angle / 2)
        scale = where(angle <= 1e-3, small_scale, large_scale)
        return (rad2deg(scale) if degrees else scale) * q[:3]

    return one(quat)


@_vectorized(1, 1)
def _compose_quat(p: Array, q: Array) -> Array:
    c = cross(p[:3], q[:3])
    return stack(
        [
            p[3] * q[0] + q[3] * p[0] + c[0],
            p[3] * q[1] + q[3] * p[1] + c[1],
            p[3] * q[2] + q[3] * p[2] + c[2],
            p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2],
        ]
    )


def _euler_from_quat(quat: Array, axes: list[int], extrinsic: bool, degrees: bool) -> Array:
    first, third = (0, 2) if extrinsic else (2, 0)
    i, j, k = axes if extrinsic else axes[::-1]
    symmetric = i == k
    if symmetric:
        k = 3 - i - j
    sign_int = (i - j) * (j - k) * (k - i) // 2
    eps = 1e-7

    @_vectorized(1)
    def one(q: Array) -> Array:
        sign = asarray(sign_int, q.dtype)
        if symmetric:
            a, b, c, d = q[3], q[i], q[j], q[k] * sign
        else:
            a, b, c, d = q[3] - q[j], q[i] + q[k] * sign, q[j] + q[3], q[k] * sign - q[i]
        middle = 2 * arctan2(hypot(c, d), hypot(a, b))
        case = where(_abs(middle - np.pi) <= eps, 2, 0)
        case = where(_abs(middle) <= eps, 1, case)
        half_sum, half_diff = arctan2(b, a), arctan2(d, c)
        angles = [zeros((), q.dtype), middle, zeros((), q.dtype)]
        angles[0] = where(case == 1, 2 * half_sum, 2 * half_diff * (-1 if extrinsic else 1))
        angles[first] = where(case == 0, half_sum - half_diff, angles[first])
        angles[third] = where(case == 0, half_sum + half_diff, angles[third])
        if not symmetric:
            angles[third] = angles[third] * sign
            angles[1] = angles[1] - np.pi / 2
        out = (stack(angles) + np.pi) % (2 * np.pi) - np.pi
        return rad2deg(out) if degrees else out

    return one(quat)


def _axis_index(axis: str) -> int:
    if axis not in "xyz":
        raise ValueError(f"Expected axis to be from ['x', 'y', 'z'], got {axis}")
    return "xyz".index(axis)


def _elementary_quat(axis: int, angle: Array) -> Array:
    parts = [zeros((), angle.dtype)] * 3 + [cos(angle / 2.0)]
    parts[axis] = sin(angle / 2.0)
    return stack(parts)


def _quat_from_euler(angles: Array, axes: list[int], intrinsic: bool, degrees: bool) -> Array:
    @_vectorized(1)
    def one(a: Array) -> Array:
        if a.shape[0] != len(axes):
            raise ValueError(
                f"Rotation.from_euler: expected {len(axes)} angles per rotation, got {a.shape[0]}"
            )
        a = deg2rad(a) if degrees else a
        result = _elementary_quat(axes[0], a[0])
        for idx in range(1, len(axes)):
            q = _elementary_quat(axes[idx], a[idx])
            result = _compose_quat(result, q) if intrinsic else _compose_quat(q, result)
        return result

    return one(angles)


def _from_rotvec(rotvec: Array, degrees: bool) -> Array:
    @_vectorized(1)
    def one(v: Array) -> Array:
        v = deg2rad(v) if degrees else v
        angle = _vector_norm(v)
        angle2 = angle * angle
        small_scale = 0.5 - angle2 / 48 + angle2 * angle2 / 3840
        large_scale = sin(angle / 2) / angle
        scale = where(angle <= 1e-3, small_scale, large_scale)
        return hstack([scale * v, cos(angle / 2)])

    return one(rotvec)


@_vectorized(2)
def _from_matrix(matrix: Array) -> Array:
    trace = matrix[0, 0] + matrix[1, 1] + matrix[2, 2]
    decision = stack([matrix[0, 0], matrix[1, 1], matrix[2, 2], trace])
    i = argmax(decision)
    j = (i + 1) % 3
    k = (j + 1) % 3
    quat_012 = zeros(4, dtype=matrix.dtype)
    quat_012 = quat_012.at[i].set(1 - decision[3] + 2 * matrix[i, i])
    quat_012 = quat_012.at[j].set(matrix[j, i] + matrix[i, j])
    quat_012 = quat_012.at[k].set(matrix[k, i] + matrix[i, k])
    quat_012 = quat_012.at[3].set(matrix[k, j] - matrix[j, k])
    quat_3 = stack(
        [
            matrix[2, 1] - matrix[1, 2],
            matrix[0, 2] - matrix[2, 0],
            matrix[1, 0] - matrix[0, 1],
            1 + decision[3],
        ]
    )
    return _normalize_quaternion(where(i != 3, quat_012, quat_3))


@_vectorized(1)
def _from_mrp(mrp: Array) -> Array:
    squared_plus_1 = dot(mrp, mrp) + 1
    return hstack([2 * mrp[:3], 2 - squared_plus_1]) / squared_plus_1


@_vectorized(1)
def _inv(quat: Array) -> Array:
    return quat * asarray(np.array([-1, -1, -1, 1]), quat.dtype)


@_vectorized(1)
def _magnitude(quat: Array) -> Array:
    return 2.0 * arctan2(_vector_norm(quat[:3]), _abs(quat[3]))


@_vectorized(1)
def _make_canonical(quat: Array) -> Array:
    neg, zero = quat < 0, quat == 0
    flip = (
        neg[3]
        | (zero[3] & neg[0])
        | (zero[3] & zero[0] & neg[1])
        | (zero[3] & zero[0] & zero[1] & neg[2])
    )
    return where(flip, -quat, quat)


def _parse_seq(name: str, seq: str, count_ok: bool) -> tuple[list[int], bool]:
    """The axis indices of ``seq`` and whether it is intrinsic (upper case)."""
    if not count_ok:
        raise ValueError(
            f"{name}: expected axis specification to be a non-empty string of upto 3 "
            f"characters, got {seq}"
        )
    intrinsic = re.match(r"^[XYZ]{1,3}$", seq) is not None
    extrinsic = re.match(r"^[xyz]{1,3}$", seq) is not None
    if not (intrinsic or extrinsic):
        raise ValueError(
            f"{name}: expected axes from `seq` to be from ['x', 'y', 'z'] or ['X', 'Y', 'Z'], "
            f"got {seq}"
        )
    if any(seq[i] == seq[i + 1] for i in range(len(seq) - 1)):
        raise ValueError(f"{name}: expected consecutive axes to be different, got {seq}")
    return [_axis_index(c) for c in seq.lower()], intrinsic


@attrs.frozen(eq=False)
class Rotation:
    """Rotations in three dimensions, as ``jax.scipy.spatial.transform.Rotation``.

    >>> import numpy as np
    >>> r = Rotation.from_euler("z", 90, degrees=True)
    >>> r.apply(np.array([1.0, 0.0, 0.0])).round(6)
    Array([0., 1., 0.], dtype=float32)
    """

    quat: Array

    @classmethod
    def concatenate(cls, rotations: Sequence[Rotation]) -> Rotation:
        """The rotations of ``rotations`` one after another, as one stack."""
        return cls(_concatenate([r.quat for r in rotations]))

    @classmethod
    def from_euler(cls, seq: str, angles: ArrayLike, degrees: bool = False) -> Rotation:
        """From Euler angles about the axes ``seq`` (``'xyz'`` extrinsic, ``'XYZ'`` intrinsic)."""
        axes, intrinsic = _parse_seq("Rotation.from_euler", seq, 1 <= len(seq) <= 3)
        return cls(_quat_from_euler(atleast_1d(angles), axes, intrinsic, degrees))

    @classmethod
    def from_matrix(cls, matrix: ArrayLike) -> Rotation:
        """From rotation matrices ``(..., 3, 3)``."""
        return cls(_from_matrix(matrix))

    @classmethod
    def from_mrp(cls, mrp: ArrayLike) -> Rotation:
        """From modified Rodrigues parameters ``(..., 3)``."""
        return cls(_from_mrp(mrp))

    @classmethod
    def from_quat(cls, quat: ArrayLike) -> Rotation:
        """From quaternions ``(..., 4)``, scalar last (normalised)."""
        return cls(_normalize_quaternion(quat))

    @classmethod
    def from_rotvec(cls, rotvec: ArrayLike, degrees: bool = False) -> Rotation:
        """From rotation vectors ``(..., 3)`` (axis times angle)."""
        return cls(_from_rotvec(as_result(operand(rotvec)), degrees))

    @classmethod
    def identity(cls, num: int | None = None, dtype: Any = float) -> Rotation:
        """The identity rotation (``num`` must be None, as in JAX)."""
        if num is not None:
            raise ValueError(f"Rotation.identity: num must be None, got {num}")
        return cls(asarray(np.array([0.0, 0.0, 0.0, 1.0]), dtype))

    @classmethod
    def random(cls, random_key: ArrayLike, num: int | None = None) -> Rotation:
        """Not implemented in JAX 0.10.2 (it raises), nor here."""
        raise NotImplementedError("Rotation.random is not implemented (nor is it in JAX)")

    def __getitem__(self, indexer: Any) -> Rotation:
        if self.single:
            raise TypeError("Single rotation is not subscriptable.")
        return Rotation(self.quat[indexer])

    def __len__(self) -> int:
        if self.single:
            raise TypeError("Single rotation has no len().")
        return self.quat.shape[0]

    def __mul__(self, other: Rotation) -> Rotation:
        return Rotation.from_quat(_compose_quat(self.quat, other.quat))

    def apply(self, vectors: ArrayLike, inverse: bool = False) -> Array:
        """The rotation(s) applied to ``vectors`` ``(..., 3)`` (or their inverse)."""
        matrix = self.as_matrix()
        return _apply(matrix.mT if inverse else matrix, vectors)

    def as_euler(self, seq: str, degrees: bool = False) -> Array:
        """Euler angles about the three axes ``seq``."""
        if len(seq) != 3:
            raise ValueError(f"Rotation.as_euler: expected 3 axes, got {seq}.")
        axes, intrinsic = _parse_seq("Rotation.as_euler", seq, True)
        return _euler_from_quat(self.quat, axes, not intrinsic, degrees)

    def as_matrix(self) -> Array:
        """Rotation matrices ``(..., 3, 3)``."""
        return _as_matrix(self.quat)

    def as_mrp(self) -> Array:
        """Modified Rodrigues parameters ``(..., 3)``."""
        return _as_mrp(self.quat)

    def as_rotvec(self, degrees: bool = False) -> Array:
        """Rotation vectors ``(..., 3)``."""
        return _as_rotvec(self.quat, degrees)

    def as_quat(self, canonical: bool = False, scalar_first: bool = False) -> Array:
        """Quaternions ``(..., 4)``, scalar last unless ``scalar_first``."""
        quat = _make_canonical(self.quat) if canonical else self.quat
        return roll(quat, shift=1, axis=-1) if scalar_first else quat

    def inv(self) -> Rotation:
        """The inverse rotation(s)."""
        return Rotation(_inv(self.quat))

    def magnitude(self) -> Array:
        """The rotation angle(s), in radians."""
        return _magnitude(self.quat)

    def mean(self, weights: ArrayLike | None = None) -> Rotation:
        """The (weighted) mean rotation: the top eigenvector of ``sum w q q^T``."""
        w = (
            ones(self.quat.shape[0], dtype=self.quat.dtype)
            if weights is None
            else asarray(weights, self.quat.dtype)
        )
        if w.ndim != 1:
            raise ValueError(f"Expected `weights` to be 1 dimensional, got shape {w.shape}.")
        if w.shape[0] != len(self):
            raise ValueError(
                "Expected `weights` to have number of values equal to number of rotations, "
                f"got {w.shape[0]} values and {len(self)} rotations."
            )
        k = dot(w[None, :] * self.quat.T, self.quat)
        _, v = eigh(k)
        return Rotation(v[:, -1])

    @property
    def single(self) -> bool:
        """Whether this is one rotation (not a stack)."""
        return self.quat.ndim == 1


@attrs.frozen(eq=False)
class Slerp:
    """Spherical linear interpolation of rotations, as JAX's (build it with ``Slerp.init``).

    >>> import numpy as np
    >>> key = Rotation.from_euler("z", np.array([[0.0], [90.0]]), degrees=True)
    >>> Slerp.init(np.array([0.0, 1.0]), key)(0.5).as_euler("zyx", degrees=True).round(4)
    Array([45., -0.,  0.], dtype=float32)
    """

    times: Array
    timedelta: Array
    rotations: Rotation
    rotvecs: Array

    @classmethod
    def init(cls, times: ArrayLike, rotations: Rotation) -> Slerp:
        """The interpolator of ``rotations`` (at least two) at the key ``times``."""
        if not isinstance(rotations, Rotation):
            raise TypeError("Slerp.init: `rotations` must be a `Rotation` instance.")
        if rotations.single or len(rotations) == 1:
            raise ValueError("Slerp.init: `rotations` must be a sequence of at least 2 rotations.")
        t = asarray(times, rotations.quat.dtype)
        if t.ndim != 1:
            raise ValueError(
                f"Expected times to be specified in a 1 dimensional array, got {t.ndim} dimensions."
            )
        if t.shape[0] != len(rotations):
            raise ValueError(
                "Expected number of rotations to be equal to number of timestamps given, got "
                f"{len(rotations)} rotations and {t.shape[0]} timestamps."
            )
        starts = Rotation(rotations.as_quat()[:-1])
        rotvecs = (starts.inv() * Rotation(rotations.as_quat()[1:])).as_rotvec()
        return cls(times=t, timedelta=diff(t), rotations=starts, rotvecs=rotvecs)

    def __call__(self, times: ArrayLike) -> Rotation:
        t = asarray(times, self.times.dtype)
        if t.ndim > 1:
            raise ValueError("`times` must be at most 1-dimensional.")
        single_time = t.ndim == 0
        t = atleast_1d(t)
        ind = maximum(searchsorted(self.times, t) - 1, 0)
        alpha = (t - self.times[ind]) / self.timedelta[ind]
        result = self.rotations[ind] * Rotation.from_rotvec(self.rotvecs[ind] * alpha[:, None])
        return result[0] if single_time else result


tree_util.register_pytree_node(
    Rotation, lambda r: ((r.quat,), None), lambda _, children: Rotation(*children)
)
tree_util.register_pytree_node(
    Slerp,
    lambda s: ((s.times, s.timedelta, s.rotations, s.rotvecs), None),
    lambda _, children: Slerp(*children),
)
