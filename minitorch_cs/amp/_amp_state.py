"""The process-wide mixed-precision settings (defined in ``core.amp_state``, below the backends:
the emulated wafer applies them to the steps it compiles)."""
from ..core.amp_state import *  # noqa: F401,F403
from ..core.amp_state import AmpState, _amp_state  # noqa: F401
