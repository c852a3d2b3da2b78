"""The public names of ``jax.numpy`` that ``didax.numpy`` lacks or supports only in part.

``MISSING`` lists each name of ``jax.numpy`` (JAX 0.10.2) absent from
``didax.numpy``, with its reason: a name absent without a reason fails the
test, and so does a listed name that ``didax.numpy`` now has, so the list
only shrinks as names land. At most 3% of ``jax.numpy``'s names may remain
(issue 29).

``LIMITED`` lists the names ``didax.numpy`` has only as dtype names: the
float8/float6/float4 types and the sub-byte integers are ml_dtypes' dtypes,
as JAX's, usable as dtypes (``numpy.dtype``, ``finfo``, NumPy arrays), but
didax's arrays refuse them with a ``TypeError`` naming the dtype; the test
checks both halves, so the list must shrink when didax's arrays take them.
Its names are read from JAX (the scalar types whose dtypes didax refuses),
not listed again, and checked to be the ones ``didax.numpy`` has.
"""

from __future__ import annotations

from typing import Final

import jax.numpy as jnp
import numpy as np
import pytest

import didax.numpy as dnp
from didax.core import dtypes

MISSING: Final[dict[str, str]] = {}

_NARROW: Final = (
    "limited: ml_dtypes' dtype, as JAX's; didax's arrays do not take it (its eager "
    "evaluation and its lowering know no float8/float6/float4 or sub-byte integer types), "
    "and creating one raises a TypeError naming the dtype"
)


def _jax_names() -> list[str]:
    return sorted(n for n in dir(jnp) if not n.startswith("_"))


def _refused_dtype_of(t: object) -> bool:
    dtype = getattr(t, "dtype", None)
    return isinstance(dtype, np.dtype) and dtype not in dtypes.SUPPORTED


def _refused_scalar_type(t: object) -> bool:
    return isinstance(t, type) and _refused_dtype_of(t)


# jax.numpy's scalar types whose dtypes didax's arrays refuse (ml_dtypes' float8,
# float6, float4 and sub-byte integers), read from JAX rather than listed again.
NARROW_NAMES: Final = tuple(n for n in _jax_names() if _refused_scalar_type(getattr(jnp, n)))
LIMITED: Final[dict[str, str]] = dict.fromkeys(NARROW_NAMES, _NARROW)


def test_every_missing_name_has_a_reason() -> None:
    missing = [n for n in _jax_names() if not hasattr(dnp, n)]
    unexplained = [n for n in missing if n not in MISSING]
    assert not unexplained, f"names of jax.numpy missing from didax.numpy: {unexplained}"


def test_listed_names_are_missing() -> None:
    present = [n for n in MISSING if hasattr(dnp, n)]
    assert not present, f"didax.numpy has these now: remove them from MISSING: {present}"


def test_listed_names_are_jax_names() -> None:
    stale = sorted((set(MISSING) | set(LIMITED)) - set(_jax_names()))
    assert not stale, f"not names of jax.numpy: {stale}"


def test_at_most_three_percent_remain() -> None:
    assert len(MISSING) <= 0.03 * len(_jax_names())


def test_didax_has_the_narrow_names_jax_has() -> None:
    ours = [n for n in dir(dnp) if not n.startswith("_")]
    assert NARROW_NAMES
    assert [n for n in ours if _refused_dtype_of(getattr(dnp, n))] == list(NARROW_NAMES)


@pytest.mark.parametrize("name", sorted(LIMITED))
def test_limited_names_are_dtypes_that_arrays_refuse(name: str) -> None:
    dtype = np.dtype(getattr(dnp, name))
    assert dtype == np.dtype(getattr(jnp, name))
    assert np.zeros(2, dtype).dtype == dtype  # a dtype for host data
    with pytest.raises(TypeError, match=name):
        dnp.zeros(2, dtype)
