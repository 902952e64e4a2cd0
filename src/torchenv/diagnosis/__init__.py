"""``torchenv doctor``: read an env's torch build from its files, check it against the machine, explain errors.

Modules: ``envscan`` (files -> EnvFacts), ``archscan`` (arch string in the libraries), ``checks_build`` /
``checks_system`` (findings), ``fixes`` (commands for this env; resolver-derived tier), ``runtime`` (import
check in the env's interpreter), ``explain`` (catalogue ``recipes/errors.toml``), ``report`` (redacted
Markdown), ``diagnose`` (one run). Nothing is imported here so ``torchenv --help`` stays cheap.
"""
