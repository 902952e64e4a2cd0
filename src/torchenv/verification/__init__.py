"""Prove an environment works: import, versions, devices, compute (and ``--deep`` training).

The checks run in the env's own interpreter (``checks_script.py``); ``runner`` drives them
and ``report`` holds the result. Importing this package costs only dataclasses.
"""
from __future__ import annotations

from .report import Check, VerifyReport, read_report, render_report, write_report
from .runner import run_verify

__all__ = ["Check", "VerifyReport", "read_report", "render_report", "run_verify", "write_report"]
