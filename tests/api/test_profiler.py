"""``didax.profiler``: a trace TensorBoard and Perfetto open, annotations, memory profiles."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp


def test_trace_writes_an_xplane_that_holds_the_annotations(tmp_path: Path) -> None:
    step = dx.jit(lambda x: dnp.sin(x) * 2)

    @dx.profiler.annotate_function
    def annotated(x: np.ndarray) -> object:
        return step(x).block_until_ready()

    with dx.profiler.trace(tmp_path):
        with dx.profiler.TraceAnnotation("didax-annotation"):
            annotated(np.ones(4, np.float32))
        with dx.profiler.StepTraceAnnotation("train", step_num=3):
            step(np.ones(4, np.float32)).block_until_ready()
    planes = list(tmp_path.glob("plugins/profile/*/*.xplane.pb"))
    assert len(planes) == 1
    data = planes[0].read_bytes()
    for event in (b"didax-annotation", b"annotated", b"train"):
        assert event in data
    assert b"jax_version" in data


def test_one_trace_at_a_time(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="no profile started"):
        dx.profiler.stop_trace()
    dx.profiler.start_trace(str(tmp_path))
    try:
        with pytest.raises(RuntimeError, match="already been started"):
            dx.profiler.start_trace(str(tmp_path))
    finally:
        dx.profiler.stop_trace()
    with pytest.raises(NotImplementedError, match="perfetto"):
        dx.profiler.start_trace(tmp_path, create_perfetto_trace=True)


def test_device_memory_profile(tmp_path: Path) -> None:
    keep = dnp.ones((64, 64))
    profile = dx.profiler.device_memory_profile()
    assert len(gzip.decompress(profile)) > 0
    dx.profiler.save_device_memory_profile(tmp_path / "memory.prof")
    assert gzip.decompress((tmp_path / "memory.prof").read_bytes())
    with pytest.raises(ValueError, match="one backend"):
        dx.profiler.device_memory_profile("tpu")
    del keep
