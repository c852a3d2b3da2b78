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

from didax import custom_batching as custom_batching
from didax import custom_derivatives as custom_derivatives
from didax import debug as debug
from didax import distributed as distributed
from didax import dlpack as dlpack
from didax import dtypes as dtypes
from didax import errors as errors
from didax import experimental as experimental
from didax import export as export
from didax import extend as extend
from didax import ffi as ffi
from didax import image as image
from didax import lax as lax
from didax import lib as lib
from didax import monitoring as monitoring
from didax import nn as nn
from didax import numpy as numpy
from didax import ops as ops
from didax import profiler as profiler
from didax import random as random
from didax import scipy as scipy
from didax import sharding as sharding
from didax import stages as stages
from didax import test_util as test_util
from didax import tree as tree
from didax import tree_util as tree_util
from didax import typing as typing
from didax import version as version
from didax.api import arrays as _arrays
from didax.api import autodiff as _autodiff
from didax.api import checkpoint as _checkpoint
from didax.api import config_flags as _config_flags
from didax.api import custom_gradient as _custom_gradient
from didax.api import devices as _devices
from didax.api import flops as _flops
from didax.api import fwd_and_bwd as _fwd_and_bwd
from didax.api import jit as _jit
from didax.api import linear_transpose as _linear_transpose
from didax.api import mesh_context as _mesh_context
from didax.api import named as _named
from didax.api import shard_map as _shard_map
from didax.api import sharding as _sharding
from didax.api import transformations as _transformations
from didax.api.arrays import *  # noqa: F403
from didax.api.autodiff import *  # noqa: F403
from didax.api.callbacks import effects_barrier as effects_barrier
from didax.api.callbacks import pure_callback as pure_callback
from didax.api.checkpoint import *  # noqa: F403
from didax.api.config_flags import *  # noqa: F403
from didax.api.custom_gradient import *  # noqa: F403
from didax.api.devices import *  # noqa: F403
from didax.api.distributed import (
    make_array_from_process_local_data as make_array_from_process_local_data,
)
from didax.api.distributed import process_count as process_count
from didax.api.distributed import process_index as process_index
from didax.api.flops import *  # noqa: F403
from didax.api.fwd_and_bwd import *  # noqa: F403
from didax.api.jit import *  # noqa: F403
from didax.api.linear_transpose import *  # noqa: F403
from didax.api.mesh_context import *  # noqa: F403
from didax.api.named import *  # noqa: F403
from didax.api.shard_map import *  # noqa: F403
from didax.api.sharding import *  # noqa: F403
from didax.api.transformations import *  # noqa: F403
from didax.core.config import config as config
from didax.core.config import default_matmul_precision as default_matmul_precision
from didax.core.config import disable_jit as disable_jit
from didax.core.config import enable_x64 as enable_x64
from didax.core.config import explain_cache_misses as explain_cache_misses
from didax.core.config import log_compiles as log_compiles
from didax.custom_derivatives import custom_jvp as custom_jvp
from didax.custom_derivatives import custom_vjp as custom_vjp
from didax.version import __version__ as __version__

__all__ = [
    *_arrays.__all__,
    *_jit.__all__,
    *_transformations.__all__,
    *_autodiff.__all__,
    "custom_jvp",
    "custom_vjp",
    "custom_derivatives",
    "debug",
    "ffi",
    "pure_callback",
    "effects_barrier",
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
    "log_compiles",
    "explain_cache_misses",
    "stages",
    "export",
    "errors",
    "experimental",
    "extend",
    "lax",
    "nn",
    "numpy",
    "random",
    "scipy",
    "tree_util",
    *_devices.__all__,
    *_config_flags.__all__,
    *_mesh_context.__all__,
    *_fwd_and_bwd.__all__,
    "custom_batching",
    "dlpack",
    "dtypes",
    "image",
    "lib",
    "monitoring",
    "ops",
    "profiler",
    "tree",
    "typing",
    "version",
]
