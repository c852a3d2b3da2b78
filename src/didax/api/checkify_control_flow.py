"""``checkify`` inside ``cond``, ``while_loop`` and ``scan``: the error threaded through the body.

Design rules:
- A body is checked by a checker of its own (``RunBody``), which gives the
  body's check sites in program order (each a flag and the payload its
  message needs). A body without sites is bound as it was; otherwise the
  control-flow equation is rebuilt (through ``switch``, ``while_loop``,
  ``scan``) with the sites' flags and payloads as extra outputs (a branch
  reports the other branches' sites as not failed) or as extra loop
  carries, and they become sites of the enclosing checker.
- A loop keeps JAX's errors: one per kind (error category and payload
  types), the first failure in execution order (a site failing in an
  earlier iteration beats one earlier in the body failing later, its
  payload the failing iteration's). The carry holds per kind ``failed``
  and ``code`` (the body's site that failed first), and each site's
  payload; at the loop's end the site a kind's ``code`` names reports it.
  Among kinds the first site in program order wins, as JAX's smallest
  error code does.
- ``while_loop``'s ``cond_fun`` is evaluated unchecked, and a ``check``
  inside it is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol

import numpy as np

from didax.api.control_flow import scan, switch, while_loop
from didax.core import lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import Value
from didax.core.lax.checkify import check_p
from didax.core.lax.scan import ScanParams
from didax.core.lax.while_loop import WhileParams
from didax.core.values import get_aval
from didax.interpreters.evaluation import eval_jaxpr
from didax.interpreters.staging import trace_to_jaxpr
from didax.ir.jaxpr import Jaxpr, JaxprEqn

__all__ = ["CONTROL_FLOW", "BodyResult", "Site", "RunBody", "checked_control_flow"]

# (kind, static message parts): a check site's static half.
Site = tuple[str, tuple[Any, ...]]
# A body's results, then its sites' flags, payloads and static halves.
BodyResult = tuple[list[Any], list[Any], list[tuple[Any, ...]], list[Site]]


class RunBody(Protocol):
    """Runs a jaxpr under a fresh checker of the same error sets."""

    def __call__(self, jaxpr: Jaxpr, args: Sequence[Any]) -> BodyResult: ...


class AddSite(Protocol):
    def __call__(
        self, kind: str, static: tuple[Any, ...], flag: Any, payload: tuple[Any, ...] = ()
    ) -> None: ...


CONTROL_FLOW: Final = frozenset({"cond", "while", "scan"})


def _zeros(a: ShapedArray) -> Value:
    return lax.full(a.shape, 0, a.dtype)


def _probe(run: RunBody, jaxpr: Jaxpr) -> tuple[list[Site], list[list[ShapedArray]]]:
    """The body's sites and the types of their payloads (staged, not run)."""
    found: list[tuple[list[Site], list[int]]] = []

    def staged(*args: Any) -> list[Any]:
        _, _, payloads, sites = run(jaxpr, args)
        found.append((sites, [len(p) for p in payloads]))
        return [x for p in payloads for x in p]

    closed = trace_to_jaxpr(staged, [v.aval for v in jaxpr.in_binders], "checkify")
    sites, sizes = found[0]
    avals = list(closed.out_avals)
    grouped, at = [], 0
    for n in sizes:
        grouped.append(avals[at : at + n])
        at += n
    return sites, grouped


def _flat(payloads: Sequence[Sequence[Any]]) -> list[Any]:
    return [x for p in payloads for x in p]


def _regroup(flat: Sequence[Any], like: Sequence[Sequence[Any]]) -> list[tuple[Any, ...]]:
    out, at = [], 0
    for p in like:
        out.append(tuple(flat[at : at + len(p)]))
        at += len(p)
    return out


def _cond(run: RunBody, eqn: JaxprEqn, ins: list[Any], add: AddSite) -> list[Any] | None:
    branches: Sequence[Jaxpr] = eqn.params["branches"]
    probes = [_probe(run, b) for b in branches]
    if not any(sites for sites, _ in probes):
        return None
    n_out = len(branches[0].outs)

    def branch(k: int) -> Callable[..., list[Any]]:
        def fn(*ops: Any) -> list[Any]:
            outs, flags, payloads, _ = run(branches[k], ops)
            extra: list[Any] = []
            for j, (sites, avals) in enumerate(probes):
                for i in range(len(sites)):
                    mine = j == k
                    extra.append(flags[i] if mine else np.asarray(False))
                    extra += payloads[i] if mine else [_zeros(a) for a in avals[i]]
            return [*outs, *extra]

        return fn

    results: list[Any] = switch(ins[0], [branch(k) for k in range(len(branches))], *ins[1:])
    at = n_out
    for sites, avals in probes:
        for (kind, static), payload_avals in zip(sites, avals, strict=True):
            flag, payload = results[at], results[at + 1 : at + 1 + len(payload_avals)]
            add(kind, static, flag, tuple(payload))
            at += 1 + len(payload_avals)
    return list(results[:n_out])


def _kinds(sites: Sequence[Site], avals: Sequence[Sequence[ShapedArray]]) -> list[int]:
    """Each site's error kind, numbered: JAX keeps one error per category and payload type."""
    keys: dict[tuple[object, ...], int] = {}
    return [
        keys.setdefault((kind, *((a.shape, a.dtype) for a in group)), len(keys))
        for (kind, _), group in zip(sites, avals, strict=True)
    ]


def _first_error(
    kinds: Sequence[int],
    state: list[Any],
    flags: Sequence[Any],
    payloads: Sequence[tuple[Any, ...]],
) -> list[Any]:
    """The loop's error state after one trip: a failure counts if none of its kind came before."""
    n = max(kinds) + 1
    failed, code = list(state[:n]), list(state[n : 2 * n])
    kept_groups = _regroup(state[2 * n :], payloads)
    new_kept: list[Any] = []
    for i, (k, flag, payload) in enumerate(zip(kinds, flags, payloads, strict=True)):
        first = lax.and_(lax.not_(failed[k]), flag)
        code[k] = lax.select(first, np.asarray(i, np.int32), code[k])
        for new, old in zip(payload, kept_groups[i], strict=True):
            shape = get_aval(old).shape
            pick = lax.broadcast_in_dim(first, shape, ()) if shape else first
            new_kept.append(lax.select(pick, new, old))
        failed[k] = lax.or_(failed[k], flag)
    return [*failed, *code, *new_kept]


def _initial_state(kinds: Sequence[int], avals: Sequence[Sequence[ShapedArray]]) -> list[Any]:
    n = max(kinds) + 1
    return [
        *(np.asarray(False) for _ in range(n)),
        *(np.asarray(0, np.int32) for _ in range(n)),
        *(_zeros(a) for group in avals for a in group),
    ]


def _report(
    sites: Sequence[Site],
    avals: Sequence[Sequence[ShapedArray]],
    state: Sequence[Any],
    add: AddSite,
) -> None:
    # A site reports the error its kind kept, if it is the site that failed first.
    kinds = _kinds(sites, avals)
    n = max(kinds) + 1
    failed, code, kept = state[:n], state[n : 2 * n], state[2 * n :]
    for i, ((kind, static), payload) in enumerate(zip(sites, _regroup(kept, avals), strict=True)):
        k = kinds[i]
        add(kind, static, lax.and_(failed[k], lax.eq(code[k], np.asarray(i, np.int32))), payload)


def _while(run: RunBody, eqn: JaxprEqn, ins: list[Any], add: AddSite) -> list[Any] | None:
    p: WhileParams[Jaxpr] = WhileParams(**eqn.params)
    if any(e.primitive is check_p for e in p.cond_jaxpr.eqns):
        raise NotImplementedError(
            "checkify: a check inside while_loop's cond_fun is not supported by didax; "
            "move it into body_fun"
        )
    sites, avals = _probe(run, p.body_jaxpr)
    if not sites:
        return None
    cond_consts, body_consts, carry = p.split(ins)
    n = len(carry)

    def keep_going(c: list[Any]) -> object:
        return eval_jaxpr(p.cond_jaxpr, [*cond_consts, *c[:n]])[0]

    def body(c: list[Any]) -> list[Any]:
        outs, flags, payloads, _ = run(p.body_jaxpr, [*body_consts, *c[:n]])
        return [*outs, *_first_error(kinds, c[n:], flags, payloads)]

    kinds = _kinds(sites, avals)
    final: list[Any] = while_loop(keep_going, body, [*carry, *_initial_state(kinds, avals)])
    _report(sites, avals, final[n:], add)
    return final[:n]


def _scan(run: RunBody, eqn: JaxprEqn, ins: list[Any], add: AddSite) -> list[Any] | None:
    p: ScanParams[Jaxpr] = ScanParams(**eqn.params)
    sites, avals = _probe(run, p.jaxpr)
    if not sites:
        return None
    consts, carry, xs = p.split(ins)
    n = len(carry)

    def step(c: list[Any], x: list[Any]) -> tuple[list[Any], list[Any]]:
        outs, flags, payloads, _ = run(p.jaxpr, [*consts, *c[:n], *x])
        return [*outs[:n], *_first_error(kinds, c[n:], flags, payloads)], list(outs[n:])

    kinds = _kinds(sites, avals)
    unroll: int | bool = p.unroll
    init = [*carry, *_initial_state(kinds, avals)]
    final, ys = scan(step, init, xs, p.length, p.reverse, unroll)
    _report(sites, avals, final[n:], add)
    return [*final[:n], *ys]


_RULES: Final = {"cond": _cond, "while": _while, "scan": _scan}


def checked_control_flow(
    run: RunBody, eqn: JaxprEqn, ins: list[Any], add: AddSite
) -> list[Any] | None:
    """``eqn`` (a cond, while or scan) with its body's checks, or None if its body has none."""
    return _RULES[eqn.primitive.name](run, eqn, ins, add)
