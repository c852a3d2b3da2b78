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
"""

from __future__ import annotations

from typing import Final

import jax.numpy as jnp
import numpy as np
import pytest

import didax.numpy as dnp

MISSING: Final[dict[str, str]] = {}

_NARROW: Final = (
    "limited: ml_dtypes' dtype, as JAX's; didax's arrays do not take it (its eager "
    "evaluation and its lowering know no float8/float6/float4 or sub-byte integer types), "
    "and creating one raises a TypeError naming the dtype"
)
LIMITED: Final[dict[str, str]] = dict.fromkeys(
    (
        "float8_e3m4",
        "float8_e4m3",
        "float8_e4m3b11fnuz",
        "float8_e4m3fn",
        "float8_e4m3fnuz",
        "float8_e5m2",
        "float8_e5m2fnuz",
        "float8_e8m0fnu",
        "float4_e2m1fn",
        "float6_e2m3fn",
        "float6_e3m2fn",
        "int1",
        "int2",
        "int4",
        "uint1",
        "uint2",
        "uint4",
    ),
    _NARROW,
)


def _jax_names() -> list[str]:
    return sorted(n for n in dir(jnp) if not n.startswith("_"))


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


@pytest.mark.parametrize("name", sorted(LIMITED))
def test_limited_names_are_dtypes_that_arrays_refuse(name: str) -> None:
    dtype = np.dtype(getattr(dnp, name))
    assert dtype == np.dtype(getattr(jnp, name))
    assert np.zeros(2, dtype).dtype == dtype  # a dtype for host data
    with pytest.raises(TypeError, match=name):
        dnp.zeros(2, dtype)
