"""didax.lax: one function per primitive, with strict types, and control flow.

Operands of element-wise functions have one shape and one dtype, except that
weakly typed values (Python scalars) take their partner's dtype, and, as in
JAX, the binary element-wise operations (arithmetic, comparisons, logical and
bitwise operations, shifts, ``atan2``, ``nextafter``, ``polygamma``) take
rank-0 operands beside an array of any shape (``mul x 2.0``: no broadcast
staged).

The primitives and their functions live in the family modules of
``didax.core.lax`` (``elementwise``, ``selection``, ``structural``,
``slicing``, ``reductions``, ``contractions``, ``ragged``, ``convolution``,
``windows``, ``conversions``, ``bits``, ``sorting``, ``cumulative``,
``special``, ``indexing``, ``scatter``, ``fft``, ``random_bits``, and the
control-flow primitives ``cond``, ``while_loop``, ``scan``, ``solves``);
what takes a Python function is in ``didax.api``: control flow as users
call it (``cond``, ``switch``, ``while_loop``, ``fori_loop``, ``scan``,
``map``) in ``control_flow``, ``reduce`` and ``associative_scan`` in
``reductions``, ``reduce_window`` in ``windows``, ``custom_linear_solve``
and ``custom_root`` in ``solves``, the collectives in ``parallel``, and
``optimization_barrier``, ``platform_dependent`` and ``scatter_apply`` in
``lax_extras``. This module re-exports each of those modules'
``__all__``: a family makes a name public by listing it there, and a new
family adds its two lines below. ``didax.lax.linalg`` is a submodule, as
``jax.lax.linalg`` is (``cholesky``, ``triangular_solve``, ``lu``, ``qr``,
``eigh``, ``svd``, ``schur``, ``hessenberg``, ``householder_product``).
"""

from didax.api import control_flow as _control_flow
from didax.api import lax_extras as _lax_extras
from didax.api import parallel as _parallel
from didax.api import reductions as _api_reductions
from didax.api import solves as _solves
from didax.api.control_flow import *  # noqa: F403
from didax.api.lax_extras import *  # noqa: F403
from didax.api.parallel import *  # noqa: F403
from didax.api.reductions import *  # noqa: F403
from didax.api.solves import *  # noqa: F403
from didax.api.windows import *  # noqa: F403
from didax.api.windows import __all__ as _api_windows
from didax.core.lax.bits import *  # noqa: F403
from didax.core.lax.bits import __all__ as _bits
from didax.core.lax.cond import *  # noqa: F403
from didax.core.lax.cond import __all__ as _cond
from didax.core.lax.contractions import *  # noqa: F403
from didax.core.lax.contractions import __all__ as _contractions
from didax.core.lax.conversions import *  # noqa: F403
from didax.core.lax.conversions import __all__ as _conversions
from didax.core.lax.convolution import *  # noqa: F403
from didax.core.lax.convolution import __all__ as _convolution
from didax.core.lax.cumulative import *  # noqa: F403
from didax.core.lax.cumulative import __all__ as _cumulative
from didax.core.lax.elementwise import *  # noqa: F403
from didax.core.lax.elementwise import __all__ as _elementwise
from didax.core.lax.fft import *  # noqa: F403
from didax.core.lax.fft import __all__ as _fft
from didax.core.lax.indexing import *  # noqa: F403
from didax.core.lax.indexing import __all__ as _indexing
from didax.core.lax.precision import *  # noqa: F403
from didax.core.lax.precision import __all__ as _precision
from didax.core.lax.ragged import *  # noqa: F403
from didax.core.lax.ragged import __all__ as _ragged
from didax.core.lax.random_bits import *  # noqa: F403
from didax.core.lax.random_bits import __all__ as _random_bits
from didax.core.lax.reductions import *  # noqa: F403
from didax.core.lax.reductions import __all__ as _reductions
from didax.core.lax.scan import *  # noqa: F403
from didax.core.lax.scan import __all__ as _scan
from didax.core.lax.scatter import *  # noqa: F403
from didax.core.lax.scatter import __all__ as _scatter
from didax.core.lax.selection import *  # noqa: F403
from didax.core.lax.selection import __all__ as _selection
from didax.core.lax.slicing import *  # noqa: F403
from didax.core.lax.slicing import __all__ as _slicing
from didax.core.lax.sorting import *  # noqa: F403
from didax.core.lax.sorting import __all__ as _sorting
from didax.core.lax.special import *  # noqa: F403
from didax.core.lax.special import __all__ as _special
from didax.core.lax.structural import *  # noqa: F403
from didax.core.lax.structural import __all__ as _structural
from didax.core.lax.while_loop import *  # noqa: F403
from didax.core.lax.while_loop import __all__ as _while_loop
from didax.core.lax.windows import *  # noqa: F403
from didax.core.lax.windows import __all__ as _windows
from didax.lax import linalg as linalg

__all__ = [
    "linalg",
    *_control_flow.__all__,
    *_lax_extras.__all__,
    *_parallel.__all__,
    *_solves.__all__,
    *_api_reductions.__all__,
    *_bits,
    *_cond,
    *_contractions,
    *_conversions,
    *_convolution,
    *_cumulative,
    *_elementwise,
    *_fft,
    *_indexing,
    *_precision,
    *_ragged,
    *_random_bits,
    *_reductions,
    *_scan,
    *_scatter,
    *_selection,
    *_slicing,
    *_sorting,
    *_special,
    *_structural,
    *_while_loop,
    *_api_windows,
    *_windows,
]
