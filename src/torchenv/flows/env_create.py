"""Making an env where none stood, or in place of one moved aside: never leaving a half-made one.

Why apart from deciding what to sync: what stands at the env path is judged by ``safety``
first (a project, a plain folder, a file or a link is never removed, another Python env only
with ``--force``). A rebuild (new Python, ``--force``) moves the old env aside and puts it back
if anything fails, because a venv cannot be built in one place and renamed into another (its
scripts hold absolute paths).
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..i18n import _

if TYPE_CHECKING:
    from ..backends.base import Backend
    from ..lockfile.model import LockTarget
    from ..safety import EnvClaim
    from ..ui import Ui


@contextmanager
def moved_aside(env: Path, project_dir: Path, force: bool, ui: Ui) -> Iterator[None]:
    """Move ``env`` aside while a new one is built in its place; restore it if the build fails.

    Both the move and the final removal go through ``safety``, which looks again at what stands
    there: a file, a link, a project folder or a non-env folder is refused before anything moves.
    """
    from .. import safety

    old = safety.move_aside(env, project_dir, force=force)
    if old is None:
        yield
        return
    try:
        yield
    except BaseException:
        try:
            safety.remove_half_built(env, project_dir)
            old.rename(env)
        except OSError as exc:
            ui.warn(_("the new environment failed and could not be cleared ({error}); your previous one is at "
                      "{old}").format(error=exc, old=old))
            raise
        ui.warn(_("the new environment failed; your previous one is back in place at {env}").format(env=env))
        raise
    try:
        safety.remove_env(old, project_dir, force=force, made_at=env)
    except safety.EnvRefused as exc:
        ui.warn(_("kept the previous environment at {old}: {why}").format(old=old, why=exc.message))


def create_env(backend: Backend, env: Path, project_dir: Path, found: EnvClaim, ui: Ui) -> None:
    """Create the env marked as torchenv's from its first moment; a create that fails leaves nothing.

    Why the marker first: a kill (``kill -9``, a power cut) between making the folder and
    marking it left an env the next ``up`` could not prove was torchenv's, and refused
    without ``--force``. With the marker written into the folder before the engine fills
    it, a half-made env is always recognised as ours. Why clear it on a failure we see: it
    is half-made. Where an env stood before, ``moved_aside`` restores it.
    """
    from .. import safety

    try:
        if found.kind in (safety.ABSENT, safety.EMPTY):
            env.mkdir(parents=True, exist_ok=True)
            safety.write_owner(env, project_dir, backend=backend.plan.backend)
        backend.create()
    except BaseException:
        if found.kind in (safety.ABSENT, safety.EMPTY) and (env.exists() or env.is_symlink()):
            try:
                safety.remove_half_built(env, project_dir)
                if found.kind == safety.EMPTY:
                    env.mkdir()
            except (OSError, safety.EnvRefused) as exc:
                ui.warn(_("could not clear the half-made {env} ({error}); remove it before the next `torchenv up`").format(
                    env=env, error=exc))
        raise
    safety.write_owner(env, project_dir, backend=backend.plan.backend)


def create_while_fetching(backend: Backend, env: Path, project_dir: Path, found: EnvClaim, target: LockTarget,
                           ui: Ui) -> list[Path] | None:
    """The target's files, fetched while the venv is created where nothing stood; neither is left if one fails.

    Why at once: creating the venv needs none of the files, and downloads (or hashing local
    files) need no venv; run one after the other, each waits for the other for nothing. The
    backend may install the local files into the new venv while the others download.
    """
    from concurrent.futures import ThreadPoolExecutor

    from .. import safety

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="torchenv-create") as pool:
        made = pool.submit(create_env, backend, env, project_dir, found, ui)
        try:
            files = backend.materialise(target, new_env=made.result)
        except BaseException:
            if made.exception() is None and (env.exists() or env.is_symlink()):   # waits for the create
                try:
                    safety.remove_half_built(env, project_dir)
                except (OSError, safety.EnvRefused) as exc:
                    ui.warn(f"could not clear the new {env} ({exc}); remove it before the next `torchenv up`")
            raise
        made.result()
    return files
