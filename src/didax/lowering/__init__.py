"""didax.lowering: jaxpr -> StableHLO, compilation through PJRT, device arrays.

Not built yet (the jit issue builds it); the layer exists so that the
layering contract covers it from the start.
"""
