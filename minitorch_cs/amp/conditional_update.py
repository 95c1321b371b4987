"""``cstorch.amp``'s conditional updates (defined with the optimizers, which the dynamic-loss-
scaling rollback wraps: ``optim.conditional_update``)."""
from ..optim.conditional_update import (ConditionalUpdateManager, isfinite,  # noqa: F401
                                         update_if_finite)
