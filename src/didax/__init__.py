"""didax: JAX's core, rebuilt as a typed, strictly layered library.

    >>> import didax as dx
    >>> dx.jvp(lambda x: x * x, (3.0,), (1.0,))
    (array(9.), array(6.))

The public names live here and in ``didax.numpy``, ``didax.lax``,
``didax.tree_util``, ``didax.errors`` and ``didax.extend``; everything else
is internal.
"""

from didax import errors as errors
from didax import extend as extend
from didax import lax as lax
from didax import numpy as numpy
from didax import tree_util as tree_util
from didax.api.autodiff import grad as grad
from didax.api.autodiff import hessian as hessian
from didax.api.autodiff import jacrev as jacrev
from didax.api.autodiff import linearize as linearize
from didax.api.autodiff import value_and_grad as value_and_grad
from didax.api.autodiff import vjp as vjp
from didax.api.jit import Array as Array
from didax.api.jit import compile_cache_info as compile_cache_info
from didax.api.jit import device_put as device_put
from didax.api.jit import jit as jit
from didax.api.transformations import jacfwd as jacfwd
from didax.api.transformations import jvp as jvp
from didax.api.transformations import make_jaxpr as make_jaxpr
from didax.api.transformations import vmap as vmap

__all__ = [
    "Array",
    "compile_cache_info",
    "device_put",
    "jit",
    "errors",
    "extend",
    "lax",
    "numpy",
    "tree_util",
    "grad",
    "hessian",
    "jacfwd",
    "jacrev",
    "linearize",
    "value_and_grad",
    "vjp",
    "jvp",
    "make_jaxpr",
    "vmap",
]
