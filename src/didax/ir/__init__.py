"""didax.ir: jaxprs, their type checker, printer, fingerprints and passes.

Knows nothing of how jaxprs are made or run.
"""
