"""The conda side of torchenv, in plain Python: records, channels, virtual packages, specs, exports.

Why a package apart from ``engines/rattler.py``: everything here is data shaping that must be
cheap to import and testable without rattler; only the engine adapters talk to a solver.
"""
