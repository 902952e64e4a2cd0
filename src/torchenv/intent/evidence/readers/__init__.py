"""One reader per format: pure functions from a file's text to ``Record``s (nothing is run or fetched)."""
