"""``check``: a run-time assertion that ``checkify`` turns into an error value.

``check_p`` binds ``(pred, *fmt_args)`` with params ``message`` (a
``str.format`` template of the arguments) and has no results. Its rules are
in ``interpreters.checkify``; the api (``api.checkify``) functionalizes it.

Design rules (JAX's ``check_p``):
- Evaluated eagerly it raises ``JaxRuntimeError`` with the formatted
  message where ``pred`` is false anywhere; under ``checkify`` it becomes
  part of the returned ``Error``; staged without ``checkify`` it cannot be
  lowered, and says so with JAX's words.
- ``pred`` is boolean (any shape: vmap batches it; every element must hold).
"""

from __future__ import annotations

from typing import Final

from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL
from didax.core.dtypes import bool_
from didax.core.errors import DTypeError
from didax.core.primitive import Primitive

__all__ = ["check_p", "NOT_FUNCTIONALIZED"]

check_p: Final = Primitive("check", multiple_results=True)

NOT_FUNCTIONALIZED: Final = (
    "Cannot abstractly evaluate a checkify.check which was not functionalized. This "
    "probably means you tried to stage (jit/scan/pmap/...) a `check` without functionalizing "
    "it through `checkify.checkify`."
)


@ABSTRACT_EVAL.defines(check_p)
def _check_abstract_eval(pred: ShapedArray, *args: ShapedArray, message: str) -> list[ShapedArray]:
    if pred.dtype != bool_:
        raise DTypeError(f"check: the predicate must be boolean, got {pred.str_short()}")
    return []
