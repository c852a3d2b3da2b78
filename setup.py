"""The C extension, jit's hit path (src/didax/core/_native.c); the rest is in pyproject.toml.

Optional: where it cannot be built (no C compiler) the install goes on, and
didax runs the path's Python reference (didax.api.hit_path).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("didax.core._native", sources=["src/didax/core/_native.c"], optional=True)
    ]
)
