"""Custom pytree nodes in serialized exports: JAX's two registration functions.

Design rules:
- A node type serializes once registered here under a name, with functions
  that turn its auxiliary data into bytes and back; the name is what the
  bytes hold, so JAX reads a didax export whose nodes JAX registered under
  the same name and functions, and the other way round.
- Deserializing rebuilds the structure from the node's type and auxiliary
  data (``PyTreeDef.from_node_data_and_children``), or with the
  registration's ``from_children`` when it gives one (namedtuples, whose
  auxiliary data is their field names).
- Registering a type or a name twice is an error, as in JAX.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple, TypeVar

__all__ = ["register_namedtuple_serialization", "register_pytree_node_serialization"]

T = TypeVar("T")

SerializeAuxdata = Callable[[Any], bytes]
DeserializeAuxdata = Callable[[bytes], Any]
FromChildren = Callable[[Any, Sequence[Any]], Any]


class Deserialization(NamedTuple):
    nodetype: type[Any]
    deserialize_auxdata: DeserializeAuxdata
    from_children: FromChildren | None


# node type -> (serialized name, serialize_auxdata); serialized name -> how to read it.
SERIALIZERS: Final[dict[type[Any], tuple[str, SerializeAuxdata]]] = {}
DESERIALIZERS: Final[dict[str, Deserialization]] = {}


def register_pytree_node_serialization(
    nodetype: type[T],
    *,
    serialized_name: str,
    serialize_auxdata: SerializeAuxdata,
    deserialize_auxdata: DeserializeAuxdata,
    from_children: FromChildren | None = None,
) -> type[T]:
    """Lets exports whose pytrees hold ``nodetype`` nodes serialize (JAX's function).

    ``nodetype`` must be a registered pytree node (``tree_util.register_pytree_node``)
    unless ``from_children`` builds one from its auxiliary data and children.
    Returns ``nodetype``, so that it decorates a class.
    """
    if nodetype in SERIALIZERS:
        raise ValueError(
            f"Duplicate serialization registration for type `{nodetype}`. Previous "
            f"registration was with serialized_name `{SERIALIZERS[nodetype][0]}`."
        )
    if serialized_name in DESERIALIZERS:
        raise ValueError(
            f"Duplicate serialization registration for serialized_name `{serialized_name}`. "
            f"Previous registration was for type `{DESERIALIZERS[serialized_name].nodetype}`."
        )
    SERIALIZERS[nodetype] = (serialized_name, serialize_auxdata)
    DESERIALIZERS[serialized_name] = Deserialization(nodetype, deserialize_auxdata, from_children)
    return nodetype


def register_namedtuple_serialization(nodetype: type[T], *, serialized_name: str) -> type[T]:
    """Lets exports whose pytrees hold ``nodetype`` namedtuples serialize (JAX's function)."""
    fields = getattr(nodetype, "_fields", None)
    if fields is None or not issubclass(nodetype, tuple):
        raise ValueError(
            "Use `didax.export.register_pytree_node_serialization` for types other than "
            "`collections.namedtuple`."
        )

    def serialize_auxdata(aux: Any) -> bytes:
        return json.dumps(list(fields)).encode("utf-8")

    def deserialize_auxdata(data: bytes) -> Any:
        return json.loads(data.decode("utf-8"))

    def from_children(aux: Any, children: Sequence[Any]) -> Any:
        return nodetype(**dict(zip(aux, children, strict=True)))

    return register_pytree_node_serialization(
        nodetype,
        serialized_name=serialized_name,
        serialize_auxdata=serialize_auxdata,
        deserialize_auxdata=deserialize_auxdata,
        from_children=from_children,
    )
