"""``checkpoint`` (``remat``): a region the backward pass recomputes; its typing and policies.

``remat_p`` binds ``(*args)`` with params ``jaxpr`` (the region, constant-
free), ``policy`` (which intermediate values may be saved as residuals) and
``prevent_cse``. ``didax.checkpoint`` binds it (``api.checkpoint``). The
interpreters' rules are in ``interpreters.checkpoint``, the lowering (the
region, inline) in ``lowering.checkpoint``.

Design rules:
- It computes what the region computes: the operands are the region's
  inputs (weak types aside), the results its outputs.
- A policy is ``policy(prim, *avals, **params) -> bool`` (JAX's
  ``checkpoint_policies``): ``nothing_saveable`` recomputes everything,
  ``dots_saveable`` keeps the results of ``dot_general``, and
  ``everything_saveable`` keeps all (plain reverse mode).
- ``name_p`` is the identity with a ``name`` param (``checkpoint_name``);
  ``save_only_these_names`` and ``save_any_names_but_these`` are policies
  that read it, as JAX's.
- Typed against ``core.lax.programs.Program``: core sees the region's
  types, never its equations.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL
from didax.core.lax.contractions import dot_general_p
from didax.core.lax.programs import Program, check_operands
from didax.core.primitive import Primitive

__all__ = ["remat_p", "name_p"]

remat_p: Final = Primitive("checkpoint", multiple_results=True)
# ``checkpoint_name(x, name)``: the identity, with a name the policies read
# (JAX's ``name_p``, shown as ``name`` in jaxprs).
name_p: Final = Primitive("name")

Policy = Callable[..., bool]


def nothing_saveable(prim: Primitive, *avals: ShapedArray, **params: object) -> bool:
    """Save no intermediate value: the backward pass recomputes the whole region."""
    return False


def everything_saveable(prim: Primitive, *avals: ShapedArray, **params: object) -> bool:
    """Save every intermediate value (as without checkpointing)."""
    return True


def dots_saveable(prim: Primitive, *avals: ShapedArray, **params: object) -> bool:
    """Save the results of matrix products (``dot_general``); recompute the rest."""
    return prim is dot_general_p


def dots_with_no_batch_dims_saveable(prim: Primitive, *avals: ShapedArray, **params: Any) -> bool:
    """Save the results of matrix products without batch dimensions."""
    if prim is not dot_general_p:
        return False
    (_, _), (lhs_batch, _) = params["dimension_numbers"]
    return not lhs_batch


def save_only_these_names(*names: str) -> Policy:
    """Save only the values named (``checkpoint_name``) with one of ``names``."""
    chosen = frozenset(names)

    def policy(prim: Primitive, *avals: ShapedArray, **params: object) -> bool:
        return prim is name_p and params["name"] in chosen

    return policy


def save_any_names_but_these(*names: str) -> Policy:
    """Save only named values, except those named with one of ``names``."""
    excluded = frozenset(names)

    def policy(prim: Primitive, *avals: ShapedArray, **params: object) -> bool:
        return prim is name_p and params["name"] not in excluded

    return policy


def save_anything_except_these_names(*names: str) -> Policy:
    """Save every value except those named with one of ``names``.

    (JAX 0.10.2's function of this name saves everything, its names aside;
    this is what its docstring says.)
    """
    excluded = frozenset(names)

    def policy(prim: Primitive, *avals: ShapedArray, **params: object) -> bool:
        return not (prim is name_p and params["name"] in excluded)

    return policy


def save_from_both_policies(policy_1: Policy, policy_2: Policy) -> Policy:
    """A value is saveable if either policy saves it."""

    def policy(prim: Primitive, *avals: ShapedArray, **params: Any) -> bool:
        return bool(policy_1(prim, *avals, **params)) or bool(policy_2(prim, *avals, **params))

    return policy


@ABSTRACT_EVAL.defines(name_p)
def _name_abstract_eval(x: ShapedArray, *, name: str) -> ShapedArray:
    return x


@ABSTRACT_EVAL.defines(remat_p)
def _remat_abstract_eval(
    *avals: ShapedArray, jaxpr: Program, policy: Policy, prevent_cse: bool
) -> list[ShapedArray]:
    check_operands(avals, jaxpr.in_avals, "the checkpointed function")
    return list(jaxpr.out_avals)
