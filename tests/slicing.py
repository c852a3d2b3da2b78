"""Long tables split in two: a slice the default run checks, the rest ``nox -s slow``'s.

The default run (``.ci/run``) has to stay under 30 minutes on 2 cores, so
a table whose rows differ only in a dtype, a shape or a variant of the
same code path checks a slice of them there, chosen so that every code
path the table reaches is still reached; the slow session checks every
row. ``slice_params`` marks the rows outside the slice; ``diagonal`` is
the common slice of a product of axes (every value of each axis, met in
turn); a table that is a loop inside one test is split with ``PARTS`` and
``in_part``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final, TypeVar

import pytest

T = TypeVar("T")

# The two halves of a table that loops inside one test: its rows in the
# slice, and the rest, marked slow.
PARTS: Final = [
    pytest.param(True, id="slice"),
    pytest.param(False, id="rest", marks=pytest.mark.slow),
]


def slice_params(
    rows: Iterable[T],
    in_slice: Callable[[T], bool],
    ids: Sequence[str] | Callable[[T], str] | None = None,
) -> list[Any]:
    """``rows`` as pytest parameters, those ``in_slice`` rejects marked slow.

    A row that is a tuple is unpacked into the parameters of the test, as
    ``pytest.mark.parametrize`` does with a tuple of names.
    """
    listed = list(rows)
    if ids is None:
        names: list[str | None] = [None] * len(listed)
    elif callable(ids):
        names = [ids(r) for r in listed]
    else:
        names = list(ids)
    return [
        pytest.param(
            *(r if isinstance(r, tuple) else (r,)),
            id=name,
            marks=() if in_slice(r) else (pytest.mark.slow,),
        )
        for r, name in zip(listed, names, strict=True)
    ]


def in_part(rows: Iterable[T], in_slice: Callable[[T], bool], part: bool) -> list[T]:
    """The rows of ``part`` (``PARTS``'s value): those ``in_slice`` accepts, or the rest."""
    return [r for r in rows if in_slice(r) == part]


def _id(value: Any) -> str:
    if isinstance(value, type):
        return value.__name__
    if isinstance(value, tuple):
        return f"({','.join(map(str, value))})"
    return str(value)


def diagonal(modulus: int, *axes: Sequence[Any]) -> list[Any]:
    """Every combination of the ``axes``' values, as parameters; the slice is
    those whose indices sum to a multiple of ``modulus``.

    With ``modulus`` at most each axis's size, every value of each axis is
    met in ``1 / modulus`` of the combinations (and every pair of values of
    two axes where ``modulus`` is their size), e.g. with two axes and
    ``modulus`` 2, each name at one of two dtypes, the dtypes alternating
    down the names. Ids join the values' names with ``-``.
    """
    return slice_params(
        itertools.product(*axes),
        lambda row: sum(a.index(v) for a, v in zip(axes, row, strict=True)) % modulus == 0,
        ids=lambda row: "-".join(_id(v) for v in row),
    )
