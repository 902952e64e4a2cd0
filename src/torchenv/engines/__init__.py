"""Installer engines: uv, pip, rattler, conda binaries."""
