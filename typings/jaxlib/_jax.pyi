"""Minimal stubs for jaxlib's compiled ``_jax`` module: only what didax's adapter uses.

jaxlib ships no stubs for this extension module, so without these every
call into it (compile, execute, transfer) reaches mypy as ``Any``. Names
not declared here still resolve to ``Any`` (``__getattr__``), as before;
``lowering/xla.py`` is the only module that uses the declared ones.
Signatures are those jaxlib 0.10 reports in its docstrings.
"""

from collections.abc import Sequence
from typing import Any

import numpy as np

class Device:
    platform: str
    id: int
    device_kind: str

class CompileOptions:
    def __init__(self) -> None: ...
    def SerializeAsString(self) -> bytes: ...

class ArrayImpl:
    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def dtype(self) -> np.dtype[Any]: ...
    def block_until_ready(self) -> ArrayImpl: ...
    def is_deleted(self) -> bool: ...
    def __array__(self, dtype: Any = ..., copy: Any = ...) -> np.ndarray[Any, Any]: ...
    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...

class ResultHandler: ...

class ExecuteResults:
    def consume_with_handlers(
        self, out_handlers: Sequence[ResultHandler | object], strict: bool = ...
    ) -> list[ArrayImpl]: ...

class LoadedExecutable:
    def execute_sharded(
        self, arguments: Sequence[ArrayImpl], with_tokens: bool = ..., launch_id: int | None = ...
    ) -> ExecuteResults: ...
    def cost_analysis(self) -> dict[str, str | bool | int | list[int] | float]: ...
    def serialize(self) -> bytes: ...

class DeviceList:
    def __init__(self, devices: tuple[Device, ...]) -> None: ...

class Client:
    @property
    def platform(self) -> str: ...
    @property
    def platform_version(self) -> str: ...
    def devices(self) -> list[Device]: ...
    def compile_and_load(
        self,
        computation: str | bytes,
        executable_devices: Sequence[Device],
        compile_options: CompileOptions = ...,
    ) -> LoadedExecutable: ...
    def deserialize_executable(
        self,
        serialized: bytes,
        executable_devices: DeviceList,
        compile_options: CompileOptions | None = ...,
    ) -> LoadedExecutable: ...

def batched_device_put(
    aval: object,
    sharding: object,
    xs: Sequence[object],
    devices: Sequence[Device],
    committed: bool = ...,
    force_copy: bool = ...,
    host_buffer_semantics: Any = ...,
    enable_x64: bool | None = ...,
) -> ArrayImpl: ...
def __getattr__(name: str) -> Any: ...
