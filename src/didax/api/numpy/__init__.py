"""didax.numpy's implementation: NumPy's names over didax's primitives.

    >>> import numpy as np
    >>> import didax as dx
    >>> import didax.numpy as dnp
    >>> x = np.arange(3, dtype=np.float32)
    >>> dnp.multiply(x, 2.0).dtype
    dtype('float32')
    >>> print(dx.make_jaxpr(lambda x: dnp.sum(x * 2.0))(x))
    { lambda a:f32[3] .
      let b:f32[3] = mul a 2.0
          c:f32[] = reduce_sum[axes=(0,)] b
      in ( c ) }

The modules follow the sections of NumPy's reference:

| module | NumPy's section |
| --- | --- |
| ``creation`` | array creation routines (and the dtype converters) |
| ``elementwise`` | mathematical functions, logic functions |
| ``reductions`` | sums, products, extrema, statistics |
| ``manipulation`` | array manipulation routines (shapes, joining along an axis) |
| ``joining`` | joining, splitting, tiling and appending |
| ``rearranging`` | flips, rolls, rotations, differences, padding |
| ``matrices`` | building matrices (triangles, diagonals), grids, constants |
| ``statistics`` | logical reductions, variances, averages, NaN-ignoring reductions |
| ``logic`` | comparisons of whole arrays, choosing among arrays, complex-type tests |
| ``positions`` | ``nonzero`` (below ``elementwise``: ``where``'s one-argument form) |
| ``searching`` | searching, sorted search, unique values and membership |
| ``sorting`` | ``sort``, ``argsort``, ``partition``, ``argpartition``, ``lexsort`` |
| ``histograms`` | histograms (also 2-d and n-d), ``digitize``, ``bincount`` |
| ``sets`` | the Array API's ``unique_*``, 1-d set operations |
| ``editing`` | deleting, inserting and putting elements, ``compress``, ``choose``, ``block`` |
| ``polynomials`` | ``polyval``, 1-d ``convolve`` and ``correlate`` |
| ``poly_algebra`` | polynomial arithmetic, ``polyfit``, ``vander`` |
| ``float_parts`` | ``frexp``, ``ldexp``, ``spacing``, ``cbrt``, ``i0``, ``unwrap``, windows |
| ``bit_packing`` | ``packbits``, ``unpackbits`` |
| ``functional`` | ``vectorize``, ``ufunc``, ``apply_along_axis``, ``fromfunction`` |
| ``type_names`` | NumPy's type names, ``isdtype``, ``astype``, printing options, I/O |
| ``linear_algebra`` | linear algebra (products) |
| ``contractions`` | ``einsum``, ``tensordot`` and other tensor products |
| ``indexing`` | indexing routines |
| ``methods`` | the ndarray's operators and methods |

and ``operands`` is what they share: turning arguments into operands of one
dtype and shape (promotion from ``core.promotion``, NumPy's broadcasting).

Design rules:
- Every function is a composition of the strict ``didax.lax`` primitives.
  Broadcasting and promotion are never left to a primitive: they are done
  explicitly, with ``convert_element_type`` and ``broadcast_in_dim`` before
  a primitive is bound, so that a jaxpr shows every conversion.
- dtypes promote on JAX's lattice, with 64-bit defaults and weak Python scalars.
- Each module lists its public names in ``__all__``; the facade
  ``didax.numpy`` re-exports exactly those, in one hop.
- The modules import each other in one direction, at module level: what
  two modules both need moves down (``operands``, ``positions``) rather
  than being imported inside a function to dodge a cycle
  (tests/api/test_module_imports.py).
"""
