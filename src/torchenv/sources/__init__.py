"""Package sources: torch index/mirrors, the PyPI side, local wheelhouses, conda mirrors."""
