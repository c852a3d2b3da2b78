"""Finding the user's source line for error messages.

Design rule: the stack is walked only when an error is raised, never on the
hot path of tracing or dispatch, so good messages cost nothing when there is
no error.
"""

from __future__ import annotations

import os
import sys
from types import FrameType
from typing import Final

# src/didax/core/source_info.py -> src/didax/
_DIDAX_DIR: Final = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# Frames of these libraries are never the user's: an error reached through
# them points past them, at the code that called them.
_LIBRARY_DIRS: Final = tuple(
    os.path.dirname(os.path.abspath(m.__file__)) + os.sep
    for name in ("numpy", "jax")
    if (m := sys.modules.get(name)) is not None and m.__file__ is not None
)


def user_frame_summary() -> str:
    """``file:line (function)`` of the innermost frame outside didax, or ``'<unknown>'``."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith(_DIDAX_DIR) and not filename.startswith(_LIBRARY_DIRS):
            return f"{frame.f_code.co_filename}:{frame.f_lineno} ({frame.f_code.co_name})"
        frame = frame.f_back
    return "<unknown>"
