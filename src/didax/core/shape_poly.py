"""Symbolic dimensions: array sizes known only as expressions in dimension variables (JAX's).

Design rules:
- A ``DimExpr`` is a polynomial with integer coefficients in named
  dimension variables (``b``, ``2*b + 1``, ``a*b``), a value (``attrs``
  frozen, hashed and compared by its terms). It stands in a
  ``ShapedArray``'s shape where an ``int`` would, so shape rules that only
  compare, add or multiply dimensions work unchanged; a polynomial whose
  terms cancel is the plain ``int`` again.
- Every dimension variable is at least 1 (JAX's assumption). ``==`` is
  equality of the polynomials (``b == 4`` is False, as JAX's); ``<``, ``<=``,
  ``>``, ``>=`` answer when that assumption decides them for all values and
  raise ``InconclusiveDimensionOperation`` otherwise, as does ``int()`` (a
  context that needs a constant).
- Scopes (``SymbolicScope``) are JAX's name for the set of variables
  shared by one export's argument shapes; didax keeps no constraints in
  them (it raises for any), so dimensions compare by their terms alone.
- ``symbolic_shape`` parses JAX's shape language for polynomials: names,
  integers, ``+``, ``-``, ``*``, parentheses, and ``_``/``...`` taking sizes
  from ``like``. ``max``/``min``/``floordiv``/``mod`` terms are not parsed.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Final, SupportsIndex, TypeAlias, cast, final

import attrs

from didax.core.errors import InconclusiveDimensionOperation

__all__ = [
    "DimExpr",
    "InconclusiveDimensionOperation",
    "SymbolicScope",
    "all_dim_vars",
    "broadcast_shapes",
    "dims",
    "is_symbolic_dim",
    "is_constant_shape",
    "symbolic_shape",
]

_HELP: Final = (
    "\nThis error arises for comparison operations with shapes that\n"
    "are non-constant, and the result of the operation cannot be represented as\n"
    "a boolean value for all values of the symbolic dimensions involved."
)


# A monomial: its variables' names, sorted, repeated per power (``("a", "a", "b")`` is a^2*b).
Monomial: TypeAlias = tuple[str, ...]


def _strings(texts: Iterable[str]) -> tuple[str, ...]:
    return tuple(texts)


@final
@attrs.frozen
class SymbolicScope:
    """The scope of an export's dimension variables (JAX's); didax takes no constraints.

    >>> SymbolicScope().constraints_str
    ()
    """

    constraints_str: tuple[str, ...] = attrs.field(default=(), converter=_strings)

    def __attrs_post_init__(self) -> None:
        if self.constraints_str:
            raise NotImplementedError(
                f"SymbolicScope: symbolic constraints {self.constraints_str} are not supported "
                "by didax (every dimension variable is assumed only >= 1)"
            )


def _key(term: tuple[Monomial, int]) -> tuple[int, Monomial]:
    return (len(term[0]), term[0])


@final
@attrs.frozen(eq=False, repr=False)
class DimExpr:
    """``sum(coefficient * monomial) + constant`` over dimension variables (never constant).

    >>> b, = symbolic_shape("b")
    >>> 2 * b + 1, (2 * b + 1) - 2 * b, b == 4, b >= 1
    (2*b + 1, 1, False, True)
    """

    # The non-constant terms, highest degree first (JAX's printing order), no zero coefficient.
    terms: tuple[tuple[Monomial, int], ...]
    constant: int = 0

    @staticmethod
    def variable(name: str) -> DimExpr:
        return DimExpr((((name,), 1),))

    @staticmethod
    def _make(terms: dict[Monomial, int], constant: int) -> DimSize:
        kept = sorted(((m, c) for m, c in terms.items() if c != 0), key=_key, reverse=True)
        return DimExpr(tuple(kept), constant) if kept else constant

    def _as_dict(self) -> dict[Monomial, int]:
        return dict(self.terms)

    def evaluate(self, sizes: Mapping[str, int]) -> int | None:
        """The value at the variables' ``sizes`` (None where one is missing)."""
        if not self.variables() <= sizes.keys():
            return None
        return self.constant + sum(c * math.prod(sizes[v] for v in m) for m, c in self.terms)

    def as_variable(self) -> str | None:
        """The variable's name when this is exactly one variable (``b``, not ``2*b``)."""
        if self.constant or len(self.terms) != 1:
            return None
        ((monomial, coefficient),) = self.terms
        return monomial[0] if len(monomial) == 1 and coefficient == 1 else None

    def variables(self) -> frozenset[str]:
        return frozenset(v for m, _ in self.terms for v in m)

    # --- arithmetic ------------------------------------------------------------------

    def __add__(self, other: DimSize) -> DimSize:
        if not isinstance(other, DimExpr | int):
            return NotImplemented
        terms = self._as_dict()
        const = self.constant
        if isinstance(other, DimExpr):
            for m, c in other.terms:
                terms[m] = terms.get(m, 0) + c
            const += other.constant
        else:
            const += int(other)
        return DimExpr._make(terms, const)

    __radd__ = __add__

    def __neg__(self) -> DimSize:
        return DimExpr._make({m: -c for m, c in self.terms}, -self.constant)

    def __sub__(self, other: DimSize) -> DimSize:
        if not isinstance(other, DimExpr | int):
            return NotImplemented
        return self + (-other)

    def __rsub__(self, other: DimSize) -> DimSize:
        if not isinstance(other, DimExpr | int):
            return NotImplemented
        return (-self) + other

    def __mul__(self, other: DimSize) -> DimSize:
        if not isinstance(other, DimExpr | int):
            return NotImplemented
        if not isinstance(other, DimExpr):
            k = int(other)
            return DimExpr._make({m: c * k for m, c in self.terms}, self.constant * k)
        mine = [*self.terms, ((), self.constant)]
        theirs = [*other.terms, ((), other.constant)]
        terms: dict[Monomial, int] = {}
        for m1, c1 in mine:
            for m2, c2 in theirs:
                m = tuple(sorted(m1 + m2))
                terms[m] = terms.get(m, 0) + c1 * c2
        const = terms.pop((), 0)
        return DimExpr._make(terms, const)

    __rmul__ = __mul__

    def __floordiv__(self, other: DimSize) -> DimSize:
        return self._divide_exactly(other, "//")

    def __mod__(self, other: DimSize) -> DimSize:
        self._divide_exactly(other, "%")
        return 0

    def _divide_exactly(self, other: DimSize, op: str) -> DimSize:
        """``self / other`` where ``other`` is an int dividing every coefficient, else raises."""
        if isinstance(other, int) and other != 0:
            coefficients = [c for _, c in self.terms] + [self.constant]
            if all(c % other == 0 for c in coefficients):
                return DimExpr._make({m: c // other for m, c in self.terms}, self.constant // other)
        raise InconclusiveDimensionOperation(
            f"Symbolic dimension '{self}' {op} '{other}': didax divides a symbolic dimension "
            "only by an integer dividing every coefficient" + _HELP
        )

    # --- comparisons -----------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DimExpr | int):
            return NotImplemented
        return (
            isinstance(other, DimExpr)
            and self.terms == other.terms
            and (self.constant == other.constant)
        )

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, DimExpr | int):
            return NotImplemented
        return not self == other

    def __hash__(self) -> int:
        return hash((self.terms, self.constant))

    def _bounds(self) -> tuple[float, float]:
        """The least and greatest values over all variables >= 1 (a monomial is then >= 1)."""
        low: float = self.constant + sum(c for _, c in self.terms if c > 0)
        high: float = self.constant + sum(c for _, c in self.terms if c < 0)
        if any(c < 0 for _, c in self.terms):
            low = -float("inf")
        if any(c > 0 for _, c in self.terms):
            high = float("inf")
        return low, high

    def _decide(self, other: DimSize, op: str) -> bool:
        """Whether ``self - other >= 0`` (``op`` ">=") or ``> 0`` (">"), when decidable."""
        if not isinstance(other, DimExpr) and hasattr(other, "__index__"):
            other = operator.index(other)  # NumPy's integers too
        if not isinstance(other, DimExpr | int):
            raise TypeError(f"cannot compare the symbolic dimension '{self}' with {other!r}")
        diff = self - other
        if not isinstance(diff, DimExpr):
            return diff >= 0 if op == ">=" else diff > 0
        low, high = diff._bounds()
        strict = op == ">"
        if low > 0 or (low >= 0 and not strict):
            return True
        if high < 0 or (high <= 0 and strict):
            return False
        raise InconclusiveDimensionOperation(
            f"Symbolic dimension comparison '{self}' {op} '{other}' is inconclusive." + _HELP
        )

    def __ge__(self, other: DimSize) -> bool:
        return self._decide(other, ">=")

    def __gt__(self, other: DimSize) -> bool:
        return self._decide(other, ">")

    def __le__(self, other: DimSize) -> bool:
        return not self._decide(other, ">")

    def __lt__(self, other: DimSize) -> bool:
        return not self._decide(other, ">=")

    def __int__(self) -> int:
        raise InconclusiveDimensionOperation(
            f"Symbolic dimension '{self}' used in a context that requires a constant" + _HELP
        )

    __index__ = __int__

    def __bool__(self) -> bool:
        return True  # a dimension variable is >= 1 and the polynomial is not constant 0

    # --- printing --------------------------------------------------------------------

    def __str__(self) -> str:
        parts: list[str] = []
        for m, c in self.terms:
            powers = [f"{v}^{m.count(v)}" if m.count(v) > 1 else v for v in sorted(set(m))]
            body = "*".join(([str(abs(c))] if abs(c) != 1 else []) + powers)
            parts.append(("- " if c < 0 else "+ ") + body)
        if self.constant:
            parts.append(("- " if self.constant < 0 else "+ ") + str(abs(self.constant)))
        text = " ".join(parts)
        return text[2:] if text.startswith("+ ") else text

    __repr__ = __str__


DimSize: TypeAlias = "int | DimExpr"


def is_symbolic_dim(d: object) -> bool:
    """Whether ``d`` is a symbolic dimension (JAX's ``jax.export.is_symbolic_dim``).

    >>> is_symbolic_dim(symbolic_shape("b")[0]), is_symbolic_dim(3)
    (True, False)
    """
    return isinstance(d, DimExpr)


def is_constant_shape(shape: Sequence[object]) -> bool:
    """Whether every dimension of ``shape`` is an int."""
    return not any(isinstance(d, DimExpr) for d in shape)


def all_dim_vars(shapes: Sequence[Sequence[object]]) -> tuple[str, ...]:
    """The dimension variables of ``shapes``, sorted by name (JAX's order for them)."""
    names = {v for s in shapes for d in s if isinstance(d, DimExpr) for v in d.variables()}
    return tuple(sorted(names))


def broadcast_shapes(*shapes: Sequence[DimSize]) -> tuple[int, ...]:
    """NumPy's broadcasting of shapes with symbolic dimensions (ValueError where they differ).

    A 1 stretches to any size; other sizes must be equal polynomials.

    >>> b, = symbolic_shape("b")
    >>> broadcast_shapes((b, 1), (4,))
    (b, 4)
    """
    rank = max(len(s) for s in shapes)
    out: list[DimSize] = []
    for axis in range(rank):
        sizes = {s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0}
        sizes.discard(1)
        if len(sizes) > 1:
            raise ValueError(f"shapes {shapes} do not broadcast: sizes {sizes} at axis {axis}")
        out.append(sizes.pop() if sizes else 1)
    return _as_shape(out)


def dims(
    shape: Sequence[SupportsIndex], to_int: Callable[[SupportsIndex], int] = int
) -> tuple[int, ...]:
    """``shape`` with each size made an int by ``to_int``, or kept where symbolic."""
    return _as_shape([d if isinstance(d, DimExpr) else to_int(d) for d in shape])


def _as_shape(sizes: Sequence[object]) -> tuple[int, ...]:
    """``dims`` as a ``ShapedArray`` shape: a ``DimExpr`` stands for an int there."""
    return cast(tuple[int, ...], tuple(sizes))


# --- parsing ---------------------------------------------------------------------------

_TOKEN: Final = re.compile(r"\s*(?:(\.\.\.)|(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(.))")


@final
class _Parser:
    """Recursive descent over JAX's polynomial dimension syntax (see ``symbolic_shape``)."""

    def __init__(self, spec: str, like: Sequence[int | None] | None) -> None:
        self.spec = spec
        self.like = like
        self.tokens = list(self._tokenize(spec))
        self.pos = 0

    @staticmethod
    def _tokenize(spec: str) -> Iterator[str]:
        for m in _TOKEN.finditer(spec):
            tok = next((g for g in m.groups() if g is not None), None)
            if tok is not None and not tok.isspace():
                yield tok

    def error(self, what: str, dim: int) -> ValueError:
        return ValueError(
            f"syntax error in symbolic shape '{self.spec}' in dimension {dim}: {what}"
        )

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str | None:
        tok = self.peek()
        self.pos += 1
        return tok

    def shape(self) -> tuple[DimSize, ...]:
        wrapped = self.peek() == "("
        closing = self.tokens[-1] == ")" if self.tokens else False
        if wrapped and closing:
            self.tokens = self.tokens[1:-1]
        dims: list[DimSize] = []
        while self.peek() is not None:
            dims.extend(self.dimension(len(dims)))
            if self.peek() not in (None, ","):
                raise self.error(f"unexpected '{self.peek()}'", len(dims) - 1)
            if self.take() == "," and self.peek() is None:
                break  # a trailing comma, as in "(b,)"
        if self.like is not None and len(dims) != len(self.like):
            raise ValueError(
                f"symbolic shape '{self.spec}' has {len(dims)} dimensions, "
                f"and the argument has {len(self.like)}"
            )
        return tuple(dims)

    def dimension(self, i: int) -> list[DimSize]:
        tok = self.peek()
        if tok in ("_", "..."):
            self.take()
            if self.like is None:
                raise self.error(f"'{tok}' needs the argument's shape (`like`)", i)
            if tok == "...":
                taken = list(self.like[i : len(self.like) - self._remaining_dims()])
                if any(d is None for d in taken):
                    raise self.error("'...' for dimensions of unknown size", i)
                return [d for d in taken if d is not None]
            size = self.like[i] if i < len(self.like) else None
            if size is None:
                raise self.error("'_' for a dimension of unknown size", i)
            return [size]
        value = self.expr(i)
        if self.like is not None and i < len(self.like):
            known = self.like[i]
            if known is not None and isinstance(value, int) and value != known:
                raise ValueError(
                    f"symbolic shape '{self.spec}' has {value} in dimension {i}, "
                    f"and the argument has {known}"
                )
        return [value]

    def _remaining_dims(self) -> int:
        """How many dimensions the spec gives after a ``...`` just read."""
        depth, count, nonempty = 0, 0, False
        for tok in self.tokens[self.pos :]:
            depth += tok == "("
            depth -= tok == ")"
            if tok == "," and depth == 0:
                count += nonempty
                nonempty = False
            else:
                nonempty = True
        return count + nonempty

    def expr(self, i: int) -> DimSize:
        value = self.term(i)
        while self.peek() in ("+", "-"):
            op = self.take()
            rhs = self.term(i)
            value = value + rhs if op == "+" else value - rhs
        return value

    def term(self, i: int) -> DimSize:
        value = self.factor(i)
        while self.peek() == "*":
            self.take()
            value = value * self.factor(i)
        return value

    def factor(self, i: int) -> DimSize:
        tok = self.take()
        if tok is None:
            raise self.error("expecting a name, a number or '-' but found the end", i)
        if tok == "-":
            return -self.factor(i)
        if tok == "(":
            value = self.expr(i)
            if self.take() != ")":
                raise self.error("expecting ')'", i)
            return value
        if tok.isdigit():
            return int(tok)
        if tok[0].isalpha() or tok[0] == "_":
            if self.peek() == "(":
                raise self.error(f"'{tok}(...)' dimensions are not supported by didax", i)
            return DimExpr.variable(tok)
        raise self.error(f"unexpected '{tok}'", i)


def symbolic_shape(
    shape_spec: str | None,
    *,
    constraints: Sequence[str] = (),
    scope: SymbolicScope | None = None,
    like: Sequence[int | None] | None = None,
) -> tuple[DimSize, ...]:
    """The shape ``shape_spec`` writes, with symbolic dimensions (JAX's ``symbolic_shape``).

    ``_`` and ``...`` take sizes from ``like`` (an argument's shape).

    >>> symbolic_shape("b, 2*b+1, 4")
    (b, 2*b + 1, 4)
    >>> symbolic_shape("_, b", like=(5, None))
    (5, b)
    """
    SymbolicScope(constraints)  # raises for constraints
    del scope  # its constraints are empty: variables compare by name alone
    if shape_spec is None:
        shape_spec = "..."
    if not isinstance(shape_spec, str):
        raise ValueError(f"polymorphic shape spec should be a string, got {shape_spec!r}")
    return _Parser(shape_spec, like).shape()
