"""``didax.scipy.stats``'s implementation: one module per distribution of ``jax.scipy.stats``.

Design rules:
- A module holds one distribution's functions, exactly the names JAX's
  module of that name has; ``didax.scipy.stats.<name>`` re-exports its
  ``__all__``.
- ``arguments`` holds what they share: JAX's promotion of the arguments
  (``promote_args_inexact``) and its typed constants.
- Each distribution's functions are JAX's formulas operation for operation
  (so values and derivatives are JAX's), over arguments promoted as JAX's
  (``arguments.inexact``); a module's docstring says only what is its own.
"""
