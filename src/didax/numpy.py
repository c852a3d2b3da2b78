"""didax.numpy: NumPy-named functions with NumPy broadcasting and JAX's promotion.

The functions live in the modules of ``didax.api.numpy`` (one per section
of NumPy's reference); this module re-exports each module's ``__all__``.
Importing it also gives tracers and Arrays NumPy's operators and methods.
"""

from didax.api.located import locate_module_errors
from didax.api.numpy import bit_packing as _bit_packing
from didax.api.numpy import bits as _bits
from didax.api.numpy import contractions as _contractions
from didax.api.numpy import creation as _creation
from didax.api.numpy import editing as _editing
from didax.api.numpy import elementwise as _elementwise
from didax.api.numpy import fft, linalg
from didax.api.numpy import float_parts as _float_parts
from didax.api.numpy import functional as _functional
from didax.api.numpy import histograms as _histograms
from didax.api.numpy import index_tricks as _index_tricks
from didax.api.numpy import indexing as _indexing
from didax.api.numpy import joining as _joining
from didax.api.numpy import linear_algebra as _linear_algebra
from didax.api.numpy import logic as _logic
from didax.api.numpy import manipulation as _manipulation
from didax.api.numpy import matrices as _matrices
from didax.api.numpy import methods as _methods  # noqa: F401  (installs the array methods)
from didax.api.numpy import more_elementwise as _more_elementwise
from didax.api.numpy import more_routines as _more_routines
from didax.api.numpy import poly_algebra as _poly_algebra
from didax.api.numpy import polynomials as _polynomials
from didax.api.numpy import positions as _positions
from didax.api.numpy import quantiles as _quantiles
from didax.api.numpy import rearranging as _rearranging
from didax.api.numpy import reductions as _reductions
from didax.api.numpy import searching as _searching
from didax.api.numpy import sets as _sets
from didax.api.numpy import sorting as _sorting
from didax.api.numpy import statistics as _statistics
from didax.api.numpy import type_names as _type_names
from didax.api.numpy.bit_packing import *  # noqa: F403
from didax.api.numpy.bits import *  # noqa: F403
from didax.api.numpy.contractions import *  # noqa: F403
from didax.api.numpy.creation import *  # noqa: F403
from didax.api.numpy.editing import *  # noqa: F403
from didax.api.numpy.elementwise import *  # noqa: F403
from didax.api.numpy.float_parts import *  # noqa: F403
from didax.api.numpy.functional import *  # noqa: F403
from didax.api.numpy.histograms import *  # noqa: F403
from didax.api.numpy.index_tricks import *  # noqa: F403
from didax.api.numpy.indexing import *  # noqa: F403
from didax.api.numpy.joining import *  # noqa: F403
from didax.api.numpy.linear_algebra import *  # noqa: F403
from didax.api.numpy.logic import *  # noqa: F403
from didax.api.numpy.manipulation import *  # noqa: F403
from didax.api.numpy.matrices import *  # noqa: F403
from didax.api.numpy.more_elementwise import *  # noqa: F403
from didax.api.numpy.more_routines import *  # noqa: F403
from didax.api.numpy.poly_algebra import *  # noqa: F403
from didax.api.numpy.polynomials import *  # noqa: F403
from didax.api.numpy.positions import *  # noqa: F403
from didax.api.numpy.quantiles import *  # noqa: F403
from didax.api.numpy.rearranging import *  # noqa: F403
from didax.api.numpy.reductions import *  # noqa: F403
from didax.api.numpy.searching import *  # noqa: F403
from didax.api.numpy.sets import *  # noqa: F403
from didax.api.numpy.sorting import *  # noqa: F403
from didax.api.numpy.statistics import *  # noqa: F403
from didax.api.numpy.type_names import *  # noqa: F403

__all__ = [
    "fft",
    "linalg",
    *_creation.__all__,
    *_elementwise.__all__,
    *_reductions.__all__,
    *_linear_algebra.__all__,
    *_manipulation.__all__,
    *_contractions.__all__,
    *_joining.__all__,
    *_logic.__all__,
    *_matrices.__all__,
    *_more_elementwise.__all__,
    *_rearranging.__all__,
    *_statistics.__all__,
    *_indexing.__all__,
    *_bits.__all__,
    *_sorting.__all__,
    *_quantiles.__all__,
    *_index_tricks.__all__,
    *_more_routines.__all__,
    *_positions.__all__,
    *_searching.__all__,
    *_histograms.__all__,
    *_polynomials.__all__,
    *_bit_packing.__all__,
    *_editing.__all__,
    *_float_parts.__all__,
    *_functional.__all__,
    *_poly_algebra.__all__,
    *_sets.__all__,
    *_type_names.__all__,
]

# Argument errors of these functions name the caller's line (didax.api.located).
locate_module_errors(globals(), __all__)
