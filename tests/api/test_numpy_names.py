"""The public names of ``jax.numpy`` that ``didax.numpy`` lacks or supports only in part.

``MISSING`` lists each name of ``jax.numpy`` (JAX 0.10.2) absent from
``didax.numpy``, with its reason: a name absent without a reason fails the
test, and so does a listed name that ``didax.numpy`` now has, so the list
only shrinks as names land. At most 3% of ``jax.numpy``'s names may remain
(issue 29).

``LIMITED`` lists the names ``didax.numpy`` has only in part: none now.
The float8/float6/float4 types and the sub-byte integers (ml_dtypes' dtypes,
as JAX's) are dtypes of didax's arrays too (issue 29; their values against
JAX's are checked in ``tests/api/test_narrow_dtypes.py``), and the test
here checks that each narrow dtype name of JAX's is one didax's arrays take.
"""

from __future__ import annotations

from typing import Final

import jax.numpy as jnp
import numpy as np

import didax.numpy as dnp
from didax.core import dtypes

MISSING: Final[dict[str, str]] = {}


def _jax_names() -> list[str]:
    return sorted(n for n in dir(jnp) if not n.startswith("_"))


def _narrow_scalar_type(t: object) -> bool:
    return isinstance(t, type) and getattr(t, "dtype", None) in dtypes.NARROW


LIMITED: Final[dict[str, str]] = {}


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


def test_narrow_dtype_names_are_array_dtypes() -> None:
    narrow = [n for n in _jax_names() if _narrow_scalar_type(getattr(jnp, n))]
    assert len(narrow) == len(dtypes.NARROW)
    for name in narrow:
        dtype = np.dtype(getattr(dnp, name))
        assert dtype == np.dtype(getattr(jnp, name))
        assert dtype in dtypes.SUPPORTED
        assert dnp.zeros(2, dtype).dtype == dtype
