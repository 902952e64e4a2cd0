"""probe."""
