"""Models shipped with minitorch_cs.modelzoo (each registers itself in ``registry``)."""
