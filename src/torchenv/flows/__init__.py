"""Carrying out ``torchenv up`` and ``torchenv lock``: project lock, env state, requirements, orchestration.

Why a package apart from ``backends``: a backend knows how to build one env kind; this
package decides *when* to build (no-op, repair, rebuild beside), keeps the user's env
safe, and ties plan, lock, install and verify together. The no-op check
(``flows.noop``) imports only the standard library.
"""
