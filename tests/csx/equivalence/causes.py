"""Root causes of the cases that fail today (each case's strict-xfail reason is one of these).

None at the moment: every pattern, op-table row and in-place method is equal on CPU and CSX, or
refused on CSX as its expectation says. When a new case fails, add a one-line cause here (what
differs and where it comes from) and name it in the case's XFAIL entry; when a fix lands, the
case XPASSes (a failure, ``strict=True``): delete its entry and the cause.
"""
