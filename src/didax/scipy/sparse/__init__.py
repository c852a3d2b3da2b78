"""didax.scipy.sparse: the ``linalg`` module of Krylov solvers, as ``jax.scipy.sparse``."""

from didax.scipy.sparse import linalg as linalg

__all__ = ["linalg"]
