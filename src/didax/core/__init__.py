"""didax.core: dtypes, abstract values, primitives and the interpreter context.

The lowest layer: it knows nothing of jaxprs, transformations or XLA.
"""
