"""Jupyter kernelspecs for project envs, written as files (torchenv does not depend on Jupyter)."""
