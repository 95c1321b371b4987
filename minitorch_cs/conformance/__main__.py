"""``python -m minitorch_cs.conformance export|check|list ...``."""
import sys

from .runner import main

sys.exit(main())
