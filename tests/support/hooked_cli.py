"""``python -m torchenv`` with one test-only pause point, chosen by ``FAULT_HOOK``.

Why: a kill must land at a known point of ``up`` (mid-install, between writing the lock's
temp file and renaming it, during verify). The product offers no injection variable, so
this runner wraps one product function, touches ``FAULT_MARKER`` when the point is reached
and sleeps there until the test kills it. With ``TEST_CONNECTS_LOG`` set it also logs (and may cut)
each TCP connect (``connects.py``, beside this file). Everything else is the real CLI.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from connects import watch_from_environ  # tests/support/connects.py: this folder is sys.path[0]

watch_from_environ()
HOOK = os.environ.get("FAULT_HOOK", "")
MARKER = Path(os.environ.get("FAULT_MARKER", "/nonexistent"))


def reached() -> None:
    MARKER.write_text(str(os.getpid()))
    time.sleep(120)     # the test kills us here
    raise SystemExit("fault point was not killed")


def _wrap_install(partial: bool) -> None:
    from torchenv.engines.pip import PipEngine
    from torchenv.engines.uv import UvEngine

    for cls in (UvEngine, PipEngine):
        original = cls.install_files

        def install_files(self, *, env_python, files, hashes=None, reinstall=False, _orig=original, **kw):
            if partial or FAIL:   # some packages in, the rest not yet: a crash in the middle of the install
                _orig(self, env_python=env_python, files=list(files)[:1],
                      hashes=hashes, reinstall=reinstall, **kw)
            if FAIL:
                from torchenv.errors import EnvError
                raise EnvError("the installer failed: No space left on device")
            reached()

        cls.install_files = install_files


def _wrap_lock_fsync() -> None:
    import types

    import torchenv.fileio as fileio  # the lock is written through fileio.write_atomic

    real_os = fileio.os

    def fsync(fd: int) -> None:
        real_os.fsync(fd)
        if ".torchenv.lock." in os.readlink(f"/proc/self/fd/{fd}"):
            reached()      # temp file complete on disk, not yet renamed over torchenv.lock

    proxy = types.SimpleNamespace(**{k: getattr(real_os, k) for k in dir(real_os) if not k.startswith("__")})
    proxy.fsync = fsync
    fileio.os = proxy


def _wrap_verify() -> None:
    import torchenv.flows.verify_step as verify_step

    def slow_verify(*args, meanwhile=lambda: None, **kwargs):
        meanwhile()      # as the real verify: the lock is written while the script imports torch
        reached()

    verify_step._verify = slow_verify


def _fake_verify(ok: bool) -> None:
    """Verify answers at once (pass or fail) and leaves ``FAULT_MARKER``, so a test sees that it ran."""
    import torchenv.flows.verify_step as verify_step

    def verify(*args, meanwhile=lambda: None, **kwargs):
        meanwhile()
        MARKER.write_text("verified")
        return ok

    verify_step._verify = verify


def _wrap_create_venv() -> None:
    """Pause right after the engine made the env folder (and before ``up`` goes on)."""
    from torchenv.engines.uv import UvEngine

    original = UvEngine.create_venv

    def create_venv(self, *, _orig=original, **kw):
        _orig(self, **kw)
        reached()
    UvEngine.create_venv = create_venv


FAIL = HOOK == "install-fail"
if HOOK in ("install-partial", "install-start", "install-fail"):
    _wrap_install(partial=HOOK == "install-partial")
elif HOOK == "venv-created":
    _wrap_create_venv()
elif HOOK == "lock-write":
    _wrap_lock_fsync()
elif HOOK == "verify":
    _wrap_verify()
elif HOOK in ("verify-pass", "verify-fail"):
    _fake_verify(HOOK == "verify-pass")
elif HOOK:
    raise SystemExit(f"unknown FAULT_HOOK {HOOK!r}")

from torchenv.cli import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
