"""The cstorch runtime above the backends: ``compile``/``trace`` (how a model and a step reach the
current backend) and the debug annotations (``name_scope``, ``pol``, ...)."""
