"""Runtime core below the backends: devices and their file-backed store, graph capture for the
emulated wafer, lazy weight initialization, per-op generator seeding, cstorch creation helpers and
nested-structure walking."""
