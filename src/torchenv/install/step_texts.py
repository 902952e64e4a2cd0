"""The English shapes of ``up``'s progress steps, so ``Ui`` can show them in the user's language.

Why templates at the display edge: the steps are written where ``up`` works (``install/``,
``backends/``), and are shown by ``Ui.step`` / ``Ui.progress``; matching them there
(``i18n.translate_rendered``) translates every step without touching the code that makes them.
In English nothing is matched and no catalogue is read.
"""
from __future__ import annotations

from ..i18n import N_

STEP_TEXTS = (
    N_("planning (probe + resolve)"),
    N_("locking {target} ({installer})"),
    N_("getting {count} files"),
    N_("installing {count} packages ({installer})"),
    N_("{why} {env} with Python {python} ({installer})"),
    N_("creating"), N_("replacing (--force)"), N_("rebuilding (--force)"),
    N_("rebuilding (Python {was} -> {python})"), N_("rebuilding ({why})"),
    N_("wrote {lock} (target {target})"),
    N_("verifying (import torch, devices, a small computation)"),
    N_("{env} is up to date"),
    N_("syncing {env} to target {target}"),
    N_("{env}: restoring the locked packages"),
    N_("{env}: a previous install did not finish; repairing (re-installing every locked file)"),
    N_("{env}: {damage}; repairing (re-installing every locked file)"),
    N_("{env}: its last verify {problem}; verifying again"),
    N_("torchenv.toml or the requirements changed; the new lock differs in:"),
    N_("offline: {note}, all hash-checked against torchenv.lock"),
)
