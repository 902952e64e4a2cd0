"""The English shapes of the warnings torchenv prints that are data elsewhere, so ``Ui`` can show them translated.

Why templates at the display edge for these only: the reachable-builds fallback of
resolve/reachable.py is part of the plan (its ``--json`` and the Python API stay English), the
requirement-file notes are kept with the project's requirements and the source failures are
remembered as the dead-host memory's English reasons; ``Ui.warn`` matches them
(``i18n.translate_rendered``) where they are shown. The steps ``up`` prints are sentences marked with
``_()`` where they are made. In English nothing is matched and no catalogue is read.
A module of its own beside ``ui`` (not in the verbs' package): the console reads it, and the verbs use the console.
"""
from __future__ import annotations

from .i18n import N_
from .resolve.reason_texts import REASONS

# The warnings ``up`` prints (``Ui.warn`` and the no-op line) that are data elsewhere: the requirement-file notes
# of intent/project_requirements.py, and what locate/getfile say as a source fails (the reachable-builds fallback of
# resolve/reachable.py is a plan warning: its templates are the plan's, in resolve/reason_texts.py).
WARNING_TEXTS = (
    N_("{where}: `-e {target}` is this project itself, not a dependency: it is not locked"),
    N_("{where}: editable install `-e {target}` is not locked by torchenv and is left out of the environment"),
    N_("{where}: option `{option}` of {requirement} ignored: {why}"),
    N_("{where}: option `{option}` ignored: {why}"),
    N_("torchenv takes package sources from torchenv.toml [mirror] and your pip config"),
    N_("{where}: the --hash values of {count} requirements are not compared; torchenv locks and checks its "
       "own sha256 for every file it installs (torchenv.lock)"),
    # sources/locate.py and getfile.py, as a source fails while files are found or fetched
    N_("{url} failed while looking for {name} {version}; trying the next source"),
    N_("{url} failed while looking for {file}: {why}; trying the next source"),
    N_("{host} failed ({why}); not asking it again during this run"),
    N_("{host} failed a moment ago ({why}); not asking it again during this run"),
)

# a warning's values (what a fallback skipped, why a file could not be had) are plan reasons' texts
SHOWN_WARNINGS = WARNING_TEXTS + REASONS
