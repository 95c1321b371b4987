"""Primitive ops, one module per family (elementwise, reduce, movement, linalg, nn, random)."""
