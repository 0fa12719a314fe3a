"""Theoretical bounds, one module per mechanism, one pure function per theorem."""
