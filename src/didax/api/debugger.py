"""``didax.debug.breakpoint``: a debugger prompt where the program runs (``jax.debug.breakpoint``).

Design rules:
- At trace time ``breakpoint()`` records the caller's frame: its locals
  (arrays and tracers become the callback's operands, everything else
  stays a Python value), file, line and function. A debug callback then
  opens a small command line when the program reaches that point, with the
  locals' values: ``p``/``pp`` evaluate an expression in them, ``l`` lists
  the source, ``w`` says where, ``c`` or ``q`` continue. It reads
  ``sys.stdin`` and writes ``sys.stdout`` as found when it opens, as JAX's
  command-line debugger does.
- It is a debug callback, so it follows ``debug.callback``'s semantics under
  every transformation (once per batch element under vmap; on the forward
  pass under grad; ``ordered=True`` orders it with other ordered effects).
"""

from __future__ import annotations

import cmd
import linecache
import pprint
import sys
from typing import Final

from didax.api.debugging import debug_callback

__all__ = ["breakpoint"]


class _DebuggerCli(cmd.Cmd):
    """The prompt: one frame's locals, evaluated on demand."""

    prompt = "(didaxdb) "
    use_rawinput = False

    def __init__(self, env: dict[str, object], filename: str, line: int, function: str) -> None:
        super().__init__(stdin=sys.stdin, stdout=sys.stdout)
        self.env = env
        self.filename, self.line, self.function = filename, line, function

    def _say(self, text: str) -> None:
        self.stdout.write(text + "\n")

    def _eval(self, expr: str) -> object:
        return eval(expr, {}, dict(self.env))  # the user's own expression, as pdb's

    def do_p(self, arg: str) -> bool:
        """p expression: print its value."""
        try:
            self._say(repr(self._eval(arg)))
        except Exception as e:  # the prompt reports and stays, as pdb's
            self._say(f"*** {type(e).__name__}: {e}")
        return False

    def do_pp(self, arg: str) -> bool:
        """pp expression: pretty-print its value."""
        try:
            self._say(pprint.pformat(self._eval(arg)))
        except Exception as e:
            self._say(f"*** {type(e).__name__}: {e}")
        return False

    def do_l(self, arg: str) -> bool:
        """l: list the source around the breakpoint."""
        for n in range(max(1, self.line - 5), self.line + 6):
            text = linecache.getline(self.filename, n).rstrip("\n")
            self._say(f"{'->' if n == self.line else '  '} {n:4d} {text}")
        return False

    def do_w(self, arg: str) -> bool:
        """w: where the breakpoint is."""
        self._say(f"> {self.filename}({self.line}){self.function}()")
        return False

    def do_c(self, arg: str) -> bool:
        """c: continue the program."""
        return True

    def do_EOF(self, arg: str) -> bool:  # cmd's name for end of input
        return True

    do_list, do_where, do_continue, do_q, do_quit = do_l, do_w, do_c, do_c, do_c


_SKIPPED: Final = ("__builtins__",)


def breakpoint(  # noqa: A001 - the public name, as JAX's jax.debug.breakpoint
    *,
    backend: str | None = None,
    filter_frames: bool = True,
    num_frames: int | None = None,
    ordered: bool = False,
    token: object = None,
    **kwargs: object,
) -> object:
    """Stops where the program reaches this point and opens a prompt on the caller's locals.

    >>> import io, sys, didax
    >>> def f(x):
    ...     y = x * 2
    ...     didax.debug.breakpoint()
    ...     return y
    >>> sys.stdin = io.StringIO("p y\\nc\\n")
    >>> didax.jit(f)(3)
    (didaxdb) Array(6, dtype=int32)
    (didaxdb) Array(6, dtype=int32, weak_type=True)
    >>> sys.stdin = sys.__stdin__
    """
    del backend, filter_frames, num_frames, kwargs
    frame = sys._getframe(1)
    env = {k: v for k, v in frame.f_locals.items() if k not in _SKIPPED}
    where = (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)

    def enter(values: dict[str, object]) -> None:
        _DebuggerCli(values, *where).cmdloop()

    debug_callback(enter, env, ordered=ordered)
    return token
