"""``didax.export``'s implementation: ``exported`` (``export``, ``Exported``), ``serialization``
(JAX's FlatBuffer schema) and ``flatbuffer`` (the wire format)."""
