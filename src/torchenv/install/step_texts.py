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
    # what backends/state.py and install/up.py say is wrong with an env ({damage}, {problem}, {why} above)
    N_("{path} is missing from site-packages"),
    N_("{path} was changed after the install"),
    N_("it was installed by an older torchenv that did not record its files"),
    N_("{python} points to {target}, which does not exist"),
    N_("{python} does not exist"),
    N_("{python} now points to {target} (was {was})"),
    N_("a plain file"),
    N_("broken interpreter"),
    N_("was interrupted"), N_("failed"), N_("did not finish"),
)

# The warnings ``up`` prints (``Ui.warn`` and the no-op line) that are data elsewhere: the reachable-builds
# fallback of resolve/reachable.py (also in the plan's ``--json``) and the requirement-file notes of
# intent/requirements.py.
WARNING_TEXTS = (
    N_("reachable builds: chose torch {version} ({tier}) for Python {python}, {why}, because {how}; "
       "skipped {skipped}"),
    N_("reachable builds: chose torch {version} ({tier}) for Python {python}, {why}, because {how}; "
       "skipped {skipped} (and {count} more)"),
    N_("reachable builds: the resolve pulled in {name}, which the source of torch {version} ({tier}) "
       "does not serve ({message})"),
    N_("its files are on this machine"), N_("it can be fetched from here"),
    N_("the same build for another Python"), N_("{name} in {folder}"),
    N_("PyPI's own build of torch {version}"),
    N_("{where}: `-e {target}` is this project itself, not a dependency: it is not locked"),
    N_("{where}: editable install `-e {target}` is not locked by torchenv and is left out of the environment"),
    N_("{where}: option `{option}` of {requirement} ignored: {why}"),
    N_("{where}: option `{option}` ignored: {why}"),
    N_("torchenv takes package sources from torchenv.toml [mirror] and your pip config"),
    N_("{where}: the --hash values of {count} requirements are not compared; torchenv locks and checks its "
       "own sha256 for every file it installs (torchenv.lock)"),
)
