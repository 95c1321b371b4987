"""Runtime core: devices, compile/trace, graph capture, lazy initialization."""
