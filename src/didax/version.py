"""didax.version: the installed didax's version (``__version__``), as ``jax.version``."""

from importlib.metadata import version as _installed_version

__version__: str = _installed_version("didax")
