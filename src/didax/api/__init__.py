"""didax.api: what users import, behind the thin public modules."""
