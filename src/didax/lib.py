"""didax.lib: JAX's ``jax.lib``, which exposes no public names (its jaxlib modules are private).

didax's use of jaxlib is the lowering layer's (``didax.lowering.xla``).
"""

__all__: list[str] = []
