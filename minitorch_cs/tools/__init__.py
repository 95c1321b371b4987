"""Command-line tools (porting scripts from the real stack)."""
