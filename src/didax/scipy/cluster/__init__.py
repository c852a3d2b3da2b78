"""didax.scipy.cluster: the ``vq`` module, as ``jax.scipy.cluster``."""

from didax.scipy.cluster import vq as vq

__all__ = ["vq"]
