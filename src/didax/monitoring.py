"""didax.monitoring: JAX's ``jax.monitoring`` (events, durations and scalars to listeners).

The registry is JAX's own, re-exported from ``didax.api.monitoring``: a
listener registered here also hears JAX's events, and one registered with
JAX hears the events didax records.
"""

from didax.api import monitoring as _monitoring
from didax.api.monitoring import *  # noqa: F403

__all__ = [*_monitoring.__all__]
