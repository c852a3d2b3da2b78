# The C extension didax.core._native (_native.c): its Python references are
# didax.api.hit_path.PyHitPath and didax.core.array.Array.block_until_ready.
from collections.abc import Callable
from typing import Any

class HitPath:
    _cache: Any
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

def array_methods(
    array: type[Any], deleted: object, namespace: dict[str, Any], /
) -> Callable[[Any], Any]: ...
def configure_hit_path(
    cell: list[Any], overrides: object, context: object, trace: object, /
) -> None: ...
