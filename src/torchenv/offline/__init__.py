"""Offline and air-gapped installs: ``torchenv bundle`` and ``torchenv up --offline``.

Why a package of its own: clusters behind firewalls (and machines with no route to
download.pytorch.org) need every artifact of a lock carried over by hand. A bundle is one
tar with the lock's wheels (as a PEP 503 index), its conda packages (as a channel), a
manifest of sha256 + size for every file, the project's torchenv.toml/lock, and torchenv's
own wheels so ``./bootstrap --offline`` can install the tool itself.

Modules: ``layout`` (names inside a bundle, reading a tar or a folder), ``manifest``
(write/verify), ``indexes`` (PEP 503 pages, conda repodata), ``tool`` (torchenv's wheels),
``build`` (``torchenv bundle``), ``localdir`` (loose files a user downloaded by hand),
``install`` (the checks and restricted sources behind ``up --offline``).
"""
