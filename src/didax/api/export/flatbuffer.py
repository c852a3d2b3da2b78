"""The FlatBuffers wire format, as much of it as JAX's ``Exported`` schema uses.

Design rules:
- didax reads and writes the bytes itself rather than depend on the
  ``flatbuffers`` package (whose Python runtime is untyped, and whose
  generated code for JAX's schema is JAX's private module): the format is
  small and fixed, and this module is its whole implementation for tables,
  strings, and vectors of scalars, strings and tables (no structs, unions
  or file identifiers: the schema has none).
- Writing lays the buffer out front to back: the root offset, then each
  table's vtable and fields, then what its fields refer to, so every
  ``uoffset`` points forward as the format requires and every scalar is
  aligned to its size from the buffer's start. Readers of the format (the
  ``flatbuffers`` runtime JAX reads with) accept any such layout; the
  ``flatc`` builders just happen to write back to front.
- A table is written from a ``Table``: its fields by slot (the schema's
  field index), each a ``Scalar`` or a reference (``Table``, ``str``,
  ``bytes``, ``Scalars`` or a list of tables or strings). A slot left out
  reads as the schema's default.
"""

from __future__ import annotations

import struct
from typing import Final, TypeAlias, final

import attrs

__all__ = ["Reader", "Scalar", "Scalars", "Table", "write"]


@final
@attrs.frozen
class Scalar:
    """A scalar field: its ``struct`` format (``"B"``, ``"b"``, ``"H"``, ``"I"``, ``"?"``...)."""

    fmt: str
    value: int | bool


@final
@attrs.frozen
class Scalars:
    """A vector of scalars of one ``struct`` format."""

    fmt: str
    values: tuple[int, ...]


@final
@attrs.frozen
class Table:
    fields: dict[int, Field]


Reference: TypeAlias = "Table | str | bytes | Scalars | list[Table] | list[str]"
Field: TypeAlias = "Scalar | Reference"


def _u32(value: int) -> bytes:
    return struct.pack("<I", value)


@final
class _Writer:
    def __init__(self) -> None:
        self.buf = bytearray()
        self.pending: list[tuple[int, Reference]] = []  # (uoffset position, its target)

    def pad(self, align: int, before: int = 0) -> None:
        """Zero bytes until the position ``before`` bytes on is a multiple of ``align``."""
        while (len(self.buf) + before) % align:
            self.buf.append(0)

    def reference_slot(self, target: Reference) -> None:
        self.pending.append((len(self.buf), target))
        self.buf += _u32(0)

    def flush(self) -> None:
        """Writes each pending reference's target after everything so far, then points at it."""
        while self.pending:
            at, target = self.pending.pop(0)
            where = self.target(target)
            self.buf[at : at + 4] = _u32(where - at)

    def target(self, target: Reference) -> int:
        if isinstance(target, Table):
            return self.table(target)
        if isinstance(target, str):
            return self.blob(target.encode("utf-8") + b"\0", len(target.encode("utf-8")))
        if isinstance(target, bytes):
            return self.blob(target, len(target))
        if isinstance(target, Scalars):
            size = struct.calcsize("<" + target.fmt)
            self.pad(max(size, 4), before=4)
            start = len(self.buf)
            self.buf += _u32(len(target.values))
            self.buf += struct.pack(f"<{len(target.values)}{target.fmt}", *target.values)
            return start
        self.pad(4)
        start = len(self.buf)
        self.buf += _u32(len(target))
        for item in target:
            self.reference_slot(item)
        return start

    def blob(self, data: bytes, length: int) -> int:
        self.pad(4)
        start = len(self.buf)
        self.buf += _u32(length) + data
        return start

    def table(self, table: Table) -> int:
        # The fields' layout from the table's start (8-aligned): the soffset,
        # then each field aligned to its size.
        layout: list[tuple[int, int, Field]] = []
        offset = 4
        for slot in sorted(table.fields):
            field = table.fields[slot]
            size = struct.calcsize("<" + field.fmt) if isinstance(field, Scalar) else 4
            offset += -offset % size
            layout.append((slot, offset, field))
            offset += size
        slots = 1 + max(table.fields, default=-1)
        vtable = [0] * slots
        for slot, at, _ in layout:
            vtable[slot] = at
        self.pad(2)
        vtable_at = len(self.buf)
        self.buf += struct.pack(f"<{2 + slots}H", 4 + 2 * slots, offset, *vtable)
        self.pad(8)
        start = len(self.buf)
        self.buf += struct.pack("<i", start - vtable_at)
        for _, at, field in layout:
            self.buf += bytes(start + at - len(self.buf))
            if isinstance(field, Scalar):
                self.buf += struct.pack("<" + field.fmt, field.value)
            else:
                self.reference_slot(field)
        self.buf += bytes(start + offset - len(self.buf))
        return start


def write(root: Table) -> bytearray:
    """The FlatBuffer whose root table is ``root``."""
    writer = _Writer()
    writer.reference_slot(root)
    writer.flush()
    return writer.buf


_NO_FIELD: Final = -1


@final
class Reader:
    """A table of a FlatBuffer: its fields read by slot (the schema's field index)."""

    def __init__(self, buf: bytes | bytearray, pos: int | None = None) -> None:
        self._buf = bytes(buf)
        self._pos = self._u32(0) if pos is None else pos

    def _u32(self, at: int) -> int:
        value: int = struct.unpack_from("<I", self._buf, at)[0]
        return value

    def _field(self, slot: int) -> int:
        (soffset,) = struct.unpack_from("<i", self._buf, self._pos)
        vtable = self._pos - soffset
        (vtable_size,) = struct.unpack_from("<H", self._buf, vtable)
        entry = 4 + 2 * slot
        if entry >= vtable_size:
            return _NO_FIELD
        (offset,) = struct.unpack_from("<H", self._buf, vtable + entry)
        return _NO_FIELD if offset == 0 else self._pos + offset

    def _deref(self, at: int) -> int:
        return at + self._u32(at)

    def scalar(self, slot: int, fmt: str, default: int = 0) -> int:
        at = self._field(slot)
        if at == _NO_FIELD:
            return default
        value: int = struct.unpack_from("<" + fmt, self._buf, at)[0]
        return value

    def table(self, slot: int) -> Reader | None:
        at = self._field(slot)
        return None if at == _NO_FIELD else Reader(self._buf, self._deref(at))

    def _vector(self, slot: int) -> tuple[int, int]:
        """(position of the first element, length); (0, 0) when the field is absent."""
        at = self._field(slot)
        if at == _NO_FIELD:
            return 0, 0
        start = self._deref(at)
        return start + 4, self._u32(start)

    def byte_vector(self, slot: int) -> bytes | None:
        at = self._field(slot)
        if at == _NO_FIELD:
            return None
        first, n = self._vector(slot)
        return self._buf[first : first + n]

    def string(self, slot: int) -> str | None:
        data = self.byte_vector(slot)
        return None if data is None else data.decode("utf-8")

    def scalars(self, slot: int, fmt: str) -> tuple[int, ...]:
        first, n = self._vector(slot)
        return tuple(struct.unpack_from(f"<{n}{fmt}", self._buf, first)) if n else ()

    def tables(self, slot: int) -> list[Reader]:
        first, n = self._vector(slot)
        return [Reader(self._buf, self._deref(first + 4 * i)) for i in range(n)]

    def strings(self, slot: int) -> list[str]:
        first, n = self._vector(slot)
        out = []
        for i in range(n):
            start = self._deref(first + 4 * i)
            out.append(self._buf[start + 4 : start + 4 + self._u32(start)].decode("utf-8"))
        return out
