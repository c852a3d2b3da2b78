"""Every primitive of the package has a rule in every rule table, or a written reason why not.

The registry version of mypyc's exhaustive visitors: ``RULE_TABLES`` lists
the tables, ``EXEMPT`` the gaps that are intended, each with its reason. A
new table (transpose rules, lowering rules) joins by appending one entry to
``RULE_TABLES``, and its intended gaps by adding entries to ``EXEMPT``.

The primitives walked are those of ``ALL_PRIMITIVES`` that the package
defines: the standard primitives plus every ``Primitive`` bound to a name at
the top level of a ``didax.*`` module (the higher-order ones included, which
``core.lax`` declares by family). Primitives that tests or users create are not the package's
concern here.

Lowering rules are per platform (``lowering.mlir``): the ``lowering`` table
is complete when every primitive lowers on CPUs (its own rule there, or
one for every platform); each other platform of ``GPU_PLATFORMS`` is
checked as the table ``lowering[<platform>]``, with its own exemptions.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Final

import pytest

import didax
from didax.core.abstract_eval import ABSTRACT_EVAL
from didax.core.lax import (
    CUMULATIVE_PRIMITIVES,
    LINALG_PRIMITIVES,
    SPECIAL_PRIMITIVES,
    STANDARD_PRIMITIVES,
)
from didax.core.primitive import ALL_PRIMITIVES, Primitive, RuleTable
from didax.interpreters.batching import BATCH_RULES
from didax.interpreters.evaluation import IMPL_RULES
from didax.interpreters.flops import FLOPS_RULES
from didax.interpreters.jvp import JVP_RULES
from didax.interpreters.partial_eval import PE_RULES
from didax.interpreters.special import XLA_DEFINED
from didax.interpreters.transpose import TRANSPOSE_RULES
from didax.ir.passes import DCE_RULES
from didax.lowering.mlir import LOWERING_RULES, PLATFORMS

RULE_TABLES: Final[list[tuple[str, RuleTable[Any]]]] = [
    ("abstract_eval", ABSTRACT_EVAL),
    ("impl", IMPL_RULES),
    ("jvp", JVP_RULES),
    ("batching", BATCH_RULES),
    ("lowering", LOWERING_RULES),
    ("transpose", TRANSPOSE_RULES),
    ("partial_eval", PE_RULES),
    ("dce", DCE_RULES),
    ("flops", FLOPS_RULES),
]

# The platforms besides the CPU that every primitive should lower on; gaps
# are exempted as (name, "lowering[<platform>]").
GPU_PLATFORMS: Final = tuple(p for p in PLATFORMS if p != "cpu")

# The higher-order primitives: they carry jaxprs, so the default partial
# evaluation (stage it whole) and DCE (keep it whole) are not good enough.
HIGHER_ORDER: Final = {"jit", "cond", "while", "scan", "checkpoint"}

# The special element-wise primitives (didax.core.lax.special).
SPECIAL_NAMES: Final = tuple(p.name for p in SPECIAL_PRIMITIVES)

# The special functions XLA defines (chlo ops it expands with its own algorithms).
SPECIAL_XLA_DEFINED: Final = tuple(p.name for p in XLA_DEFINED)

# The windowed reductions (didax.core.lax.windows).
WINDOW_NAMES: Final = (
    "reduce_window",
    "reduce_window_sum",
    "reduce_window_max",
    "reduce_window_min",
    "select_and_gather_add",
    "select_and_scatter_add",
    "select_and_scatter",
)
# issue 28's first-order primitives of the structural family.
STRUCTURE_28: Final = ("split", "tile", "stack", "unstack", "optimization_barrier", "copy")

# issue 28's comparisons in XLA's total order (the sorting family).
TOTAL_ORDER_28: Final = ("eq_to", "le_to", "lt_to")

# (primitive name, table name) -> why that primitive needs no rule in that table.
EXEMPT: Final[dict[tuple[str, str], str]] = {
    **{
        (name, "transpose"): (
            "a custom call is never linear in an operand: jvp replaces it by its rule "
            "(custom_jvp) or by fwd and custom_lin (custom_vjp) before anything is transposed"
        )
        for name in ("custom_jvp_call", "custom_vjp_call")
    },
    ("custom_vmap_call", "transpose"): (
        "never linear in an operand: jvp replaces the call by its function's equations"
    ),
    **{
        (name, "partial_eval"): (
            "under linearize jvp has already replaced the call by its rule's equations; "
            "any other partial evaluation stages the call whole, as the rules need it whole"
        )
        for name in ("custom_jvp_call", "custom_vjp_call", "custom_vmap_call")
    },
    **{
        ("name", table): (
            "checkpoint_name's identity: partial evaluation stages it whole when its operand "
            "is unknown (checkpoint's rule reads it inside a region), and DCE drops it unused"
        )
        for table in ("partial_eval", "dce")
    },
    **{
        ("linear_call", table): (
            "partial evaluation stages the call whole and DCE keeps it whole: the user's "
            "transpose pairs with the whole function, so neither can be split"
        )
        for table in ("partial_eval", "dce")
    },
    ("check", "transpose"): "a check has no results, so nothing is linear in it",
    **{
        ("check", table): (
            "a check has no results: partial evaluation runs it when its operands are known "
            "and stages it otherwise; under checkify it is functionalized from the staged jaxpr"
        )
        for table in ("partial_eval", "dce")
    },
    ("custom_lin", "partial_eval"): (
        "its operands are residuals (known) and tangents (unknown): it is always staged "
        "whole into the linear jaxpr, which is where transposition needs it"
    ),
    **{
        (name, "dce"): (
            "kept whole when any result is used: the user's rules produce every output "
            "together, so the call cannot be split"
        )
        for name in ("custom_jvp_call", "custom_vjp_call", "custom_lin", "custom_vmap_call")
    },
    ("custom_lin", "batching"): (
        "custom_lin only exists inside a linear jaxpr, where transposition replaces it by "
        "the bwd rule; under vmap of grad it is the bwd rule that gets batched, and "
        "evaluating custom_lin itself is JAX's forward-mode error anyway"
    ),
    **{
        (p.name, table): (
            "a first-order primitive: partial evaluation stages it whole when an operand "
            "is unknown, and DCE drops it whole when no result is used; neither can do better"
        )
        for p in STANDARD_PRIMITIVES
        for table in ("partial_eval", "dce")
    },
    **{
        (name, table): (
            "a first-order primitive (gather, the scatters): partial evaluation stages it "
            "whole when an operand is unknown, and DCE drops it whole when its result is "
            "unused; neither can do better"
        )
        for name in (
            "gather",
            "scatter",
            "scatter-add",
            "scatter-sub",
            "scatter-mul",
            "scatter-min",
            "scatter-max",
        )
        for table in ("partial_eval", "dce")
    },
    **{
        (name, "transpose"): (
            "not linear in any operand (as in JAX): its jvp rule writes the tangent with "
            "gathers and a scatter-add, which is what a linear jaxpr holds"
        )
        for name in ("scatter-min", "scatter-max")
    },
    **{
        (name, table): (
            "a first-order primitive (the bit primitives, sort, select_n, clamp): partial "
            "evaluation stages it whole when an operand is unknown, and DCE drops it whole "
            "when no result is used; neither can do better"
        )
        for name in (
            "xor",
            "shift_left",
            "shift_right_logical",
            "shift_right_arithmetic",
            "population_count",
            "clz",
            "bitcast_convert_type",
            "mulhi",
            "sort",
            "select_n",
            "clamp",
        )
        for table in ("partial_eval", "dce")
    },
    **{
        (name, "transpose"): (
            "integer results (a bit cast's float results are bits): the tangent is zero, "
            "so it never has an UndefinedPrimal operand in a linear jaxpr"
        )
        for name in (
            "xor",
            "shift_left",
            "shift_right_logical",
            "shift_right_arithmetic",
            "population_count",
            "clz",
            "bitcast_convert_type",
            "mulhi",
        )
    },
    **{
        (name, table): (
            "a first-order element-wise primitive (core.lax.special): partial evaluation "
            "stages it whole when an operand is unknown, and DCE drops it whole when its "
            "result is unused; neither can do better"
        )
        for name in SPECIAL_NAMES
        for table in ("partial_eval", "dce")
    },
    **{
        (name, "transpose"): (
            "not linear in any operand (or its tangent is zero), so it never has an "
            "UndefinedPrimal operand in a linear jaxpr: linearize computes it in the "
            "known part"
        )
        for name in SPECIAL_NAMES
    },
    **{
        (p.name, table): (
            "a first-order primitive (the cumulative family): partial evaluation stages it "
            "whole when its operand is unknown, and DCE drops it whole when its result is "
            "unused; neither can do better"
        )
        for p in CUMULATIVE_PRIMITIVES
        for table in ("partial_eval", "dce")
    },
    **{
        (p.name, "transpose"): (
            "not linear (as in JAX): its jvp rule writes the tangent as an associative scan "
            "of element-wise products, selects, slices and concatenations, which is what a "
            "linear jaxpr holds, so it never has an UndefinedPrimal operand"
        )
        for p in CUMULATIVE_PRIMITIVES
    },
    **{
        ("fft", table): (
            "a first-order primitive: partial evaluation stages it whole when its operand "
            "is unknown, and DCE drops it whole when its result is unused; neither can do "
            "better"
        )
        for table in ("partial_eval", "dce")
    },
    **{
        (p.name, table): (
            "a first-order primitive (the decompositions and triangular_solve): partial "
            "evaluation stages it whole when its operand is unknown, and DCE drops it whole "
            "when no result is used (a decomposition's results come from one kernel call, "
            "so they cannot be split)"
        )
        for p in LINALG_PRIMITIVES
        for table in ("partial_eval", "dce")
    },
    **{
        (p.name, "transpose"): (
            "a decomposition is not linear (as in JAX): its jvp rule writes the tangent with "
            "triangular solves and products, which is what a linear jaxpr holds, so it never "
            "has an UndefinedPrimal operand"
        )
        for p in LINALG_PRIMITIVES
        if p.name != "triangular_solve"
    },
    ("nextafter", "jvp"): (
        "as in JAX, nextafter has no derivative rule (jax.grad of it raises): its result "
        "is the neighbouring float, and differentiating it is the caller's mistake; the "
        "missing rule's NotImplementedError names it"
    ),
    **{
        (name, "jvp"): (
            "as in JAX, which defines no derivative for it (jax.jvp of it raises): the "
            "missing rule's NotImplementedError names it"
        )
        for name in ("zeta", "igamma_grad_a")
    },
    ("iota", "batching"): (
        "iota has no operands, so none is ever batched: the batching trace binds it "
        "under its parent without looking for a rule"
    ),
    **{
        (name, "transpose"): (
            "not linear in any operand (or its tangent is zero), so it never has an "
            "UndefinedPrimal operand in a linear jaxpr: linearize computes it in the "
            "known part"
        )
        for name in (
            "rem",
            "pow",
            "max",
            "min",
            "integer_pow",
            "sign",
            "abs",
            "exp",
            "log",
            "log1p",
            "expm1",
            "sin",
            "cos",
            "tan",
            "tanh",
            "logistic",
            "sqrt",
            "rsqrt",
            "cbrt",
            "square",
            "clamp",
            "floor",
            "ceil",
            "round",
            "eq",
            "ne",
            "lt",
            "le",
            "gt",
            "ge",
            "and",
            "or",
            "not",
            "stop_gradient",
            "iota",
            "reduce_max",
            "reduce_min",
            "reduce_prod",
            "argmax",
            "argmin",
        )
    },
    # issue 14: collectives
    **{
        (name, table): (
            "a first-order primitive (the collectives, sharding_constraint): partial "
            "evaluation stages it whole when its operand is unknown, and DCE drops it whole "
            "when its result is unused; neither can do better"
        )
        for name in (
            [
                "psum",
                "pmax",
                "pmin",
                "all_gather",
                "all_to_all",
                "psum_scatter",
                "ppermute",
                "axis_index",
                "sharding_constraint",
            ]
        )
        for table in ("partial_eval", "dce")
    },
    ("pmax", "transpose"): "not linear (and not differentiable, as JAX's: its jvp raises)",
    ("pmin", "transpose"): "not linear (and not differentiable, as JAX's: its jvp raises)",
    # issue 26: linear algebra per platform
    **{
        (p.name, "lowering[rocm]"): (
            "no ROCm rule yet: hipSOLVER's kernels take the CUDA rules' shape, but no test "
            "has compared them with JAX's rocm lowering, so lowering the primitive for "
            "rocm fails with the clear error instead of emitting unchecked calls"
        )
        for p in LINALG_PRIMITIVES
        if p.name not in ("cholesky", "triangular_solve")  # StableHLO's ops everywhere
    },
    # issue 29: eig (LAPACK's geev)
    ("eig", "impl"): (
        "a LAPACK kernel (geev) XLA calls: evaluated eagerly by its compiled program, so "
        "eager values are the jitted ones"
    ),
    ("eig", "transpose"): (
        "not linear (as in JAX): its jvp writes the tangent with an LU solve, products and "
        "triangular solves, which is what a linear jaxpr holds"
    ),
    **{
        ("eig", table): (
            "a first-order primitive: partial evaluation stages it whole when its operand is "
            "unknown, and DCE drops it whole when no result is used (its results come from "
            "one geev call)"
        )
        for table in ("partial_eval", "dce")
    },
    **{
        ("eig", f"lowering[{platform}]"): (
            "CPUs only (lowering.eig): JAX picks among cuSOLVER's geev, MAGMA and a hybrid "
            "host kernel on GPUs, and none is compared with JAX's here, so lowering eig for "
            "a GPU fails with the clear error naming the primitive and the platform"
        )
        for platform in ("cuda", "rocm")
    },
    ("axis_index", "transpose"): "it has no operands, so nothing to transpose",
    # issue 28: custom_linear_solve (interpreters.solves)
    ("custom_linear_solve", "impl"): (
        "a higher-order primitive: evaluated eagerly by its compiled program, in which its "
        "solve program is inlined"
    ),
    **{
        ("custom_linear_solve", table): (
            "kept whole, as JAX's: under linearize the tangent solve is staged with its known "
            "constants as residuals, which is what its transpose rule needs, and its results "
            "come from one solve program"
        )
        for table in ("partial_eval", "dce")
    },
    **{
        ("conv_general_dilated", table): (
            "a first-order primitive: partial evaluation stages it whole when an operand "
            "is unknown, and DCE drops it whole when its result is unused; neither can do "
            "better"
        )
        for table in ("partial_eval", "dce")
    },
    ("conv_general_dilated", "impl"): (
        "XLA's convolution kernels: evaluated eagerly by its compiled program, so eager "
        "values are the jitted ones (and JAX's), bit for bit"
    ),
    # The impl table holds the host route of eager evaluation (NumPy, the
    # CPU's fast path); a primitive without one takes the compiled route (its
    # one-equation program), which needs only its lowering.
    **{
        (name, "impl"): (
            "a higher-order primitive: evaluated eagerly by its compiled program, so a loop "
            "runs in XLA, not as one NumPy call per iteration"
        )
        for name in ("jit", "cond", "while", "scan", "shard_map")
    },
    **{
        (name, "impl"): (
            "defined by XLA's algorithms (a chlo op XLA expands, XLA's FFT): evaluated "
            "eagerly by its compiled program, so eager values are the jitted ones, bit for bit"
        )
        for name in (*SPECIAL_XLA_DEFINED, "fft", "cbrt")
    },
    **{
        (name, "impl"): (
            "a LAPACK (or, on GPUs, cuSOLVER) kernel XLA calls: evaluated eagerly by its "
            "compiled program, so eager values are the jitted ones"
        )
        for name in ("cholesky", "triangular_solve", "lu", "qr", "eigh", "svd")
    },
    **{
        (name, "impl"): (
            "for complex numbers JAX's lexicographic pick does not propagate NaNs, so the "
            "answer depends on the scan's pairing: evaluated eagerly by its compiled program "
            "(that same scan)"
        )
        for name in ("cummax", "cummin")
    },
    **{
        (name, table): (
            "a windowed reduction (core.lax.windows): partial evaluation stages it whole "
            "when an operand is unknown, and DCE drops it whole when no result is used "
            "(the generic one's results come from one reduce_window, as JAX's); neither "
            "can do better"
        )
        for name in WINDOW_NAMES
        for table in ("partial_eval", "dce")
    },
    **{
        (name, "impl"): (
            "a windowed reduction: evaluated eagerly by its compiled program (XLA's "
            "reduce_window or select_and_scatter), as JAX evaluates it, so eager values are "
            "the jitted ones"
        )
        for name in WINDOW_NAMES
    },
    **{
        (name, "transpose"): (
            "not linear (as in JAX): a max/min window's jvp is select_and_gather_add, linear "
            "in the tangents, and the generic window has only a jvp in JAX, so it never has "
            "an UndefinedPrimal operand"
        )
        for name in ("reduce_window", "reduce_window_max", "reduce_window_min")
    },
    **{
        ("select_and_scatter", table): (
            "JAX defines none for its select_and_scatter_p (typing and lowering only): the "
            "derivatives of max/min windows use select_and_scatter_add, and no JAX function "
            "binds the generic one; the missing rule's NotImplementedError names it"
        )
        for table in ("jvp", "transpose", "batching")
    },
    # issue 28: structure, scatter_sub, random bits
    **{
        (name, table): (
            "a first-order primitive (split, tile, stack, unstack, optimization_barrier): "
            "partial evaluation stages it whole when an operand is unknown, and DCE drops it "
            "whole when no result is used; neither can do better"
        )
        for name in (*STRUCTURE_28, *TOTAL_ORDER_28, "rng_bit_generator", "rng_uniform")
        for table in ("partial_eval", "dce")
    },
    # issue 28: the generic reduce, the bitwise reductions, reduce_precision, top_k
    ("reduce", "impl"): (
        "a higher-order primitive (its reducer is a program): evaluated eagerly by its "
        "compiled program, a stablehlo.reduce, as JAX's"
    ),
    **{
        ("reduce", table): (
            "one stablehlo.reduce combines all its operands with one reducer: partial "
            "evaluation stages it whole when an operand is unknown, and DCE keeps it whole "
            "when any result is used (a variadic reducer's results depend on each other)"
        )
        for table in ("partial_eval", "dce")
    },
    ("reduce", "transpose"): (
        "not linear in general (as in JAX): its jvp writes the tangent as a tree of the "
        "reducer's jvp, which is what a linear jaxpr holds"
    ),
    **{
        (name, table): (
            "a first-order primitive (the bitwise reductions, reduce_precision, top_k): "
            "partial evaluation stages it whole when its operand is unknown, and DCE drops "
            "it whole when no result is used; neither can do better"
        )
        for name in (
            "reduce_and",
            "reduce_or",
            "reduce_xor",
            "reduce_precision",
            "top_k",
            "approx_top_k",
        )
        for table in ("partial_eval", "dce")
    },
    **{
        (name, "transpose"): (
            "boolean results: the tangent is zero, so it never has an UndefinedPrimal operand"
        )
        for name in TOTAL_ORDER_28
    },
    **{
        (name, "impl"): (
            "XLA's random-number algorithm: evaluated eagerly by its compiled program, so "
            "its bits are XLA's (JAX's), bit for bit"
        )
        for name in ("rng_bit_generator", "rng_uniform")
    },
    ("rng_bit_generator", "transpose"): (
        "integer results: the tangent is zero, so it never has an UndefinedPrimal operand"
    ),
    ("rng_uniform", "transpose"): "not linear, and JAX defines no derivative for it",
    ("rng_uniform", "jvp"): (
        "JAX defines none (jax.jvp of lax.rng_uniform raises): XLA's stateful draw has no "
        "derivative; the missing rule's NotImplementedError names it"
    ),
    ("rng_uniform", "batching"): (
        "JAX defines none: a stateful draw per batch element is not a vmap of one draw; "
        "the missing rule's NotImplementedError names it"
    ),
    **{
        (name, "transpose"): (
            "integer or boolean results, or not linear (top_k, as in JAX: its tangent is a "
            "gather of the operand's, which is what a linear jaxpr holds)"
        )
        for name in ("reduce_and", "reduce_or", "reduce_xor", "top_k", "approx_top_k")
    },
    # issue 29: random_gamma (JAX's random_gamma_p)
    ("random_gamma", "impl"): (
        "a rejection loop lowered as JAX lowers it: evaluated eagerly by its compiled "
        "program, so the samples are XLA's (JAX's), bit for bit"
    ),
    ("random_gamma", "transpose"): "not linear (its jvp multiplies by random_gamma_grad)",
    **{
        ("random_gamma", table): (
            "a first-order primitive: partial evaluation stages it whole when an operand is "
            "unknown, and DCE drops it whole when its result is unused"
        )
        for table in ("partial_eval", "dce")
    },
    # issue 29: schur, hessenberg, householder_product (core.lax.schur)
    **{
        (name, table): reason
        for name in ("schur", "hessenberg", "householder_product")
        for table, reason in (
            ("impl", "a LAPACK kernel XLA calls: evaluated eagerly by its compiled program"),
            ("jvp", "as in JAX, which defines none: the missing rule's error names it"),
            ("transpose", "not linear, and JAX defines no derivative for it"),
            ("partial_eval", "first-order: partial evaluation stages it whole"),
            ("dce", "first-order: one kernel call, dropped whole when no result is used"),
            ("lowering[rocm]", "as JAX's: no ROCm kernel (householder_product's unchecked)"),
        )
    },
    **{
        (name, "lowering[cuda]"): "as JAX's: LAPACK on CPUs only, lowering elsewhere raises"
        for name in ("schur", "hessenberg")
    },
    # Host callbacks (core.lax.callbacks): a debug callback has no results to
    # transpose, and pure/io callbacks are not differentiable (their jvp raises).
    **{
        (name, "transpose"): (
            "a host callback is never linear: its jvp prints primals or raises, as JAX's"
        )
        for name in ("debug_callback", "pure_callback", "io_callback")
    },
    **{
        (name, table): (
            "a first-order primitive: staged whole when an operand is unknown, and DCE "
            "keeps it by its effects (debug, io) or drops it whole (pure)"
        )
        for name in ("debug_callback", "pure_callback", "io_callback")
        for table in ("partial_eval", "dce")
    },
    ("ffi_call", "impl"): (
        "the foreign function is XLA's to call: eagerly it runs as its one-equation "
        "compiled program, as the LAPACK primitives do"
    ),
    ("ffi_call", "transpose"): "never linear: its jvp raises, as JAX's",
    **{
        ("ffi_call", table): (
            "a first-order primitive: staged whole when an operand is unknown, and DCE "
            "keeps it by its effect (has_side_effect) or drops it whole"
        )
        for table in ("partial_eval", "dce")
    },
    # issue 30: symbolic dimensions
    ("dim_as_value", "batching"): "it has no operands, so none is ever batched (as iota)",
    ("dim_as_value", "transpose"): "its tangent is zero: it is never linear in anything",
    **{
        ("dim_as_value", table): (
            "no operands: partial evaluation computes it in the known part (it is "
            "never unknown), and DCE drops it unused"
        )
        for table in ("partial_eval", "dce")
    },
}


def package_primitives() -> list[Primitive]:
    """The primitives of ``ALL_PRIMITIVES`` that didax itself defines, in registration order."""
    defined: set[Primitive] = set(STANDARD_PRIMITIVES)
    for info in pkgutil.walk_packages(didax.__path__, prefix="didax."):
        module = importlib.import_module(info.name)
        defined.update(v for v in vars(module).values() if isinstance(v, Primitive))
    return [p for p in ALL_PRIMITIVES if p in defined]


PRIMITIVES: Final = package_primitives()
TABLE_NAMES: Final = [name for name, _ in RULE_TABLES]


def test_tables_have_distinct_names() -> None:
    assert len(set(TABLE_NAMES)) == len(TABLE_NAMES)
    assert len({id(t) for _, t in RULE_TABLES}) == len(RULE_TABLES)


def test_higher_order_primitives_are_walked() -> None:
    assert {p.name for p in PRIMITIVES} >= HIGHER_ORDER


def test_walked_primitives() -> None:
    names = [p.name for p in PRIMITIVES]
    assert len(set(names)) == len(names), "exemptions are keyed by name: names must be unique"
    assert set(STANDARD_PRIMITIVES) <= set(PRIMITIVES)
    missing = [p.name for p in STANDARD_PRIMITIVES if p not in ALL_PRIMITIVES]
    assert not missing, f"standard primitives not registered in ALL_PRIMITIVES: {missing}"


def test_primitives_made_outside_the_package_are_not_walked() -> None:
    made_here = Primitive("rule_coverage_test_only")
    assert made_here in ALL_PRIMITIVES
    assert made_here not in package_primitives()


def _has_rule(table_name: str, table: RuleTable[Any], prim: Primitive) -> bool:
    if table_name.startswith("lowering["):
        return LOWERING_RULES.lowers_on(prim, table_name[len("lowering[") : -1])
    if table is LOWERING_RULES:
        return LOWERING_RULES.lowers_on(prim, "cpu")
    return prim in table


@pytest.mark.parametrize(("table_name", "table"), RULE_TABLES, ids=TABLE_NAMES)
def test_every_primitive_has_a_rule(table_name: str, table: RuleTable[Any]) -> None:
    missing = [
        p.name
        for p in PRIMITIVES
        if not _has_rule(table_name, table, p) and (p.name, table_name) not in EXEMPT
    ]
    assert not missing, (
        f"primitives with no {table.interpreter} rule (register one, or add "
        f"(name, {table_name!r}) to EXEMPT with the reason): {missing}"
    )


@pytest.mark.parametrize("platform", GPU_PLATFORMS)
def test_every_primitive_lowers_on_every_platform(platform: str) -> None:
    table_name = f"lowering[{platform}]"
    missing = [
        p.name
        for p in PRIMITIVES
        if not LOWERING_RULES.lowers_on(p, platform) and (p.name, table_name) not in EXEMPT
    ]
    assert not missing, (
        f"primitives with no lowering rule for {platform} (register one with "
        f"platform={platform!r}, or add (name, {table_name!r}) to EXEMPT with the reason): "
        f"{missing}"
    )


def test_exemptions_are_not_stale() -> None:
    known = {p.name: p for p in PRIMITIVES}
    tables: dict[str, RuleTable[Any]] = dict(RULE_TABLES)
    tables.update({f"lowering[{p}]": LOWERING_RULES for p in GPU_PLATFORMS})
    stale = []
    for (name, table_name), reason in EXEMPT.items():
        if name not in known:
            stale.append(f"{name}: no such primitive in the package")
        elif table_name not in tables:
            stale.append(f"{table_name}: no such rule table")
        elif _has_rule(table_name, tables[table_name], known[name]):
            stale.append(f"{name} has a {table_name} rule now: drop the exemption")
        if not reason.strip():
            stale.append(f"({name}, {table_name}) has no written reason")
    assert not stale, stale


@pytest.mark.parametrize(("table_name", "table"), RULE_TABLES, ids=TABLE_NAMES)
def test_missing_rule_names_primitive_and_interpreter(
    table_name: str, table: RuleTable[Any]
) -> None:
    prim = Primitive("rule_coverage_unruled")
    with pytest.raises(NotImplementedError) as info:
        table[prim]
    assert "rule_coverage_unruled" in str(info.value)
    assert table.interpreter in str(info.value)
