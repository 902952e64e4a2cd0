"""The English shapes of what ``init`` found in a project, so its lines can be shown translated.

Why templates and not ``_()`` where a finding is made: ``init --json`` returns the findings as
data, and ``commands/init.py`` reads their English meaning (``meaning.startswith("version =")``)
to write the comments in torchenv.toml; so they are made in English and matched against these
shapes (``i18n.translate_rendered``) only where a person reads them.
"""
from __future__ import annotations

from ..i18n import N_, translate_rendered

FOUND_TEXTS = (
    # what a line was read as (evidence/project.py, evidence/rank.py)
    N_("{setting} (lock file)"),
    N_("{setting} (local tag)"),
    N_("{setting} (exact pin)"),
    N_("{setting} (install command)"),
    N_("{setting} (a range)"),
    N_("{setting} (Dockerfile base)"),
    N_("agrees: {setting}"),
    N_("set aside: {why}"),
    N_("skipped: {why}"),
    N_("meant for {target}, not this target"),
    N_("meant for {target}, not {host}"),
    N_("conflicts with {where} ({value}); the first one read wins"),
    N_("{where} (lock file) is stronger evidence than this ({other})"),
    N_("{where} (local tag) is stronger evidence than this ({other})"),
    N_("{where} (exact pin) is stronger evidence than this ({other})"),
    N_("{where} (install command) is stronger evidence than this ({other})"),
    N_("{where} (a range) is stronger evidence than this ({other})"),
    N_("{where} (Dockerfile base) is stronger evidence than this ({other})"),
    N_("lock file"),
    N_("local tag"),
    N_("exact pin"),
    N_("install command"),
    N_("a range"),
    N_("Dockerfile base"),
    N_("an import"),
    N_("one of the project's tiers ({tiers}): the machine picks"),
    N_("outside {where} ({spec})"),
    N_("an explicit index, and no torch source entry names it"),
    N_('cuda = "auto": the project names several tiers ({tiers}); each machine gets the one that fits it'),
    N_('the CPU alternative of a CUDA file (cuda = "auto" picks the build per machine)'),
    N_("the {target} route, an alternative to the PyTorch one"),
    N_("meant for another accelerator ({target})"),
    N_("the README gives it as optional or as an example"),
    N_("{extras} names a torch build (version, tier): torchenv picks it per machine"),
    N_("the driver the machine needs, not the build torch comes in"),
    N_("the extra {group} does not install torch"),
    N_("a per-OS or per-accelerator requirement file"),
    N_("{where} names it"),
    N_("requirement file"),
    N_("(the project)"),
    N_("read"),
    N_("read: its torch pins count like requirements"),
    N_("ignored"),
    N_("ignored: {reason}"),
    N_("ignored: outside the Python versions torch supports"),
    N_("ignored: an explicit index, and no torch source entry names it"),
    N_("the project itself, not a dependency"),
    N_("editable install: not locked by torchenv"),
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
