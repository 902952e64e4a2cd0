"""Environment backends: venv and conda."""
