"""The English shapes of what ``init`` found in a project, so its lines can be shown translated.

Why templates and not ``_()`` where a finding is made: ``init --json`` returns the findings as
data, and ``commands/init.py`` reads their English meaning (``meaning.startswith("version =")``)
to write the comments in torchenv.toml; so they are made in English and matched against these
shapes (``i18n.translate_rendered``) only where a person reads them.
"""
from __future__ import annotations

from ..i18n import N_, translate_rendered

FOUND_TEXTS = (
    # what a line was read as (detect.py, detect_more.py)
    N_("read"),
    N_("read: its torch pins count like requirements"),
    N_("ignored"),
    N_("ignored: {reason}"),
    N_("ignored: already took {setting}"),
    N_("ignored tag +{tier}: already took {setting}"),
    N_("ignored: a range, not one Python version"),
    N_("ignored: not a CUDA version torchenv knows"),
    N_("ignored: outside the Python versions torch supports"),
    N_("ignored: an explicit index, and no torch source entry names it"),
    N_("the project itself, not a dependency"),
    N_("editable install: not locked by torchenv"),
    N_("{setting} (the index serves {tier} wheels)"),
    N_("{setting} (only where {marker})"),
    N_("{setting} (local tag +{tier})"),
    N_('{setting} (local tag +{tier}), replacing "{previous}" from an index URL'),
    N_("{setting} (its pip: list)"),
    N_("{setting} (the code imports it; no dependency file names it)"),
    N_("optional: {name} not added to with (the code runs without it: the import is guarded by except "
       "ImportError or if TYPE_CHECKING)"),
    N_("conda packages not installed: add the ones the code needs to a requirements file (torchenv installs "
       "the pip: list and wheels)"),
    # what was seen, where it is not the file's own text
    N_("could not be parsed"),
    N_("could not be parsed as YAML"),
    N_("conda environment file"),
    N_("file exists"),
    N_("{doc} says `{command}`"),
    N_("install_requires reads {text}"),
    N_("runtime file of requirements/ (docs, tests, dev and other accelerators' files left out)"),
)


def translate_found(text: str) -> str:
    """One part of an ``init`` finding in the active language (unchanged when it matches no shape)."""
    return translate_rendered(text, FOUND_TEXTS)
