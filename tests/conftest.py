"""Test-wide setup: the suite compares didax with JAX, the numerical oracle, in 64 bits.

Both libraries default to 32 bits. The suite's oracle comparisons run with
``jax_enable_x64`` on in both: set here, at collection, so that module-level
code sees it too (the subprocesses tests start inherit it through
``JAX_ENABLE_X64``), and for each test by the root ``conftest.py``, which
gives the doctests, the benchmarks and the tests marked ``x64_off`` the
defaults a user gets. ``DIDAX_TESTS_X64=0`` runs the whole suite in the
32-bit defaults instead (a survey: many tests spell out 64-bit expectations).
"""

import os

import jax

import didax as dx

if os.environ.get("DIDAX_TESTS_X64", "1") != "0":
    os.environ["JAX_ENABLE_X64"] = "1"
    jax.config.update("jax_enable_x64", True)
    dx.config.update("jax_enable_x64", True)
