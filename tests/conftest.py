"""Test-wide setup: JAX, the numerical oracle, computes in 64 bits like didax."""

import jax

jax.config.update("jax_enable_x64", True)
