"""didax.scipy.cluster.vq: ``vq``, as ``jax.scipy.cluster.vq`` defines it."""

from didax.api.scipy_misc import vq as vq

__all__ = ["vq"]
