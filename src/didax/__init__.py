"""didax: JAX's core, rebuilt as a typed, strictly layered library.

    >>> import didax as dx
    >>> dx.jvp(lambda x: x * x, (3.0,), (1.0,))
    (Array(9., dtype=float32, weak_type=True), Array(6., dtype=float32, weak_type=True))

The public names live here and in ``didax.numpy``, ``didax.lax``,
``didax.random``, ``didax.nn``, ``didax.scipy``, ``didax.tree_util``,
``didax.errors`` and ``didax.extend``; everything else is internal. Each
public module re-exports, in one hop, the ``__all__`` of the modules that
implement its names.
"""

from didax import custom_derivatives as custom_derivatives
from didax import distributed as distributed
from didax import errors as errors
from didax import experimental as experimental
from didax import extend as extend
from didax import lax as lax
from didax import nn as nn
from didax import numpy as numpy
from didax import random as random
from didax import scipy as scipy
from didax import sharding as sharding
from didax import test_util as test_util
from didax import tree_util as tree_util
from didax.api import arrays as _arrays
from didax.api import autodiff as _autodiff
from didax.api import checkpoint as _checkpoint
from didax.api import custom_gradient as _custom_gradient
from didax.api import flops as _flops
from didax.api import jit as _jit
from didax.api import linear_transpose as _linear_transpose
from didax.api import named as _named
from didax.api import shard_map as _shard_map
from didax.api import sharding as _sharding
from didax.api import transformations as _transformations
from didax.api.arrays import *  # noqa: F403
from didax.api.autodiff import *  # noqa: F403
from didax.api.checkpoint import *  # noqa: F403
from didax.api.custom_gradient import *  # noqa: F403
from didax.api.distributed import (
    make_array_from_process_local_data as make_array_from_process_local_data,
)
from didax.api.distributed import process_count as process_count
from didax.api.distributed import process_index as process_index
from didax.api.flops import *  # noqa: F403
from didax.api.jit import *  # noqa: F403
from didax.api.linear_transpose import *  # noqa: F403
from didax.api.named import *  # noqa: F403
from didax.api.shard_map import *  # noqa: F403
from didax.api.sharding import *  # noqa: F403
from didax.api.transformations import *  # noqa: F403
from didax.core.config import config as config
from didax.core.config import default_matmul_precision as default_matmul_precision
from didax.core.config import disable_jit as disable_jit
from didax.core.config import enable_x64 as enable_x64
from didax.custom_derivatives import custom_jvp as custom_jvp
from didax.custom_derivatives import custom_vjp as custom_vjp

__all__ = [
    *_arrays.__all__,
    *_jit.__all__,
    *_transformations.__all__,
    *_autodiff.__all__,
    "custom_jvp",
    "custom_vjp",
    "custom_derivatives",
    *_checkpoint.__all__,
    *_custom_gradient.__all__,
    *_linear_transpose.__all__,
    *_named.__all__,
    "test_util",
    *_flops.__all__,
    *_sharding.__all__,
    *_shard_map.__all__,
    "distributed",
    "process_index",
    "process_count",
    "make_array_from_process_local_data",
    "sharding",
    "config",
    "enable_x64",
    "default_matmul_precision",
    "disable_jit",
    "errors",
    "experimental",
    "extend",
    "lax",
    "nn",
    "numpy",
    "random",
    "scipy",
    "tree_util",
]
