"""didax.lax.linalg: the matrix decompositions and solves, as ``jax.lax.linalg``.

``cholesky``, ``triangular_solve``, ``lu``, ``qr``, ``eigh``, ``svd`` and
``eig`` (with JAX's signatures and result conventions), re-exported from
``didax.core.lax.linalg`` (``eig`` and ``eig_p`` from ``didax.core.lax.eig``),
where the primitives and their typing rules live; ``schur``, ``hessenberg``
and ``householder_product`` from ``didax.core.lax.schur``.
"""

from didax.core.lax.eig import eig as eig
from didax.core.lax.eig import eig_p as eig_p
from didax.core.lax.linalg import cholesky as cholesky
from didax.core.lax.linalg import eigh as eigh
from didax.core.lax.linalg import lu as lu
from didax.core.lax.linalg import qr as qr
from didax.core.lax.linalg import svd as svd
from didax.core.lax.linalg import symmetrize as symmetrize
from didax.core.lax.linalg import triangular_solve as triangular_solve
from didax.core.lax.schur import hessenberg as hessenberg
from didax.core.lax.schur import householder_product as householder_product
from didax.core.lax.schur import schur as schur

__all__ = [
    "cholesky",
    "triangular_solve",
    "lu",
    "qr",
    "eigh",
    "svd",
    "symmetrize",
    "schur",
    "hessenberg",
    "householder_product",
    "eig",
    "eig_p",
]
