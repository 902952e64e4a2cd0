"""``up``'s sync stage: make the env hold exactly the lock target, deciding first and fetching before any change.

Why decide first: a download failure (dead mirror, wrong bytes) must leave no new env, no
in-progress marker, and an existing env as it was. The env carries an in-progress marker while
it is being changed, and its state (``backends.state``) is recorded only once every locked
package is there.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import EnvError
from ..i18n import _
from .env_create import create_env, create_while_fetching, moved_aside

if TYPE_CHECKING:
    from ..backends.base import Backend
    from ..lockfile.model import LockTarget
    from ..resolve.plan import Plan
    from ..safety import EnvClaim
    from ..ui import Ui
    from .up import UpStatus


def usable_env_path(env: Path, project_dir: Path, *, force: bool) -> EnvClaim:
    """What stands at ``env``, when ``up`` may use it; else the refusal (nothing changed yet)."""
    from .. import safety

    found = safety.claim(env, project_dir)
    if found.kind == safety.NEVER:
        raise safety.refuse(found)
    if found.kind == safety.FOREIGN and not force:
        raise safety.foreign_refusal(found)
    return found


@dataclass(frozen=True)
class EnvSeen:
    """What ``sync_env`` found at the env path before deciding anything."""

    claim: EnvClaim
    ours: bool                       # made by torchenv (marker, or a legacy env it adopts)
    exists: bool
    python_now: str | None
    broken_python: str | None

    def rebuild_reason(self, target: LockTarget, force: bool) -> str | None:
        """Why the env must be built anew (``None``: keep it); the words ``up`` prints."""
        if not self.exists:
            return None
        rules = ((not self.ours, _("replacing (--force)")),
                 (self.python_now != target.python,
                  _("rebuilding (Python {was} -> {python})").format(was=self.python_now, python=target.python)),
                 (self.broken_python is not None, _("rebuilding ({why})").format(why=self.broken_python)),
                 (force, _("rebuilding (--force)")))
        return next((words for applies, words in rules if applies), None)


def _look(env: Path, project_dir: Path, force: bool) -> EnvSeen:
    from .. import safety
    from ..backends import state as st

    found = usable_env_path(env, project_dir, force=force)
    ours = found.kind in (safety.OURS, safety.LEGACY)
    exists = found.kind not in (safety.ABSENT, safety.EMPTY)
    broken = st.interpreter_problem(env, st.read_state(env)) if ours else None
    if ours and broken is None and not st.env_python(env).exists():
        broken = _("broken interpreter")
    return EnvSeen(found, ours, exists, st.env_python_version(env) if exists else None, broken)


def _in_place_action(backend: Backend, env: Path, target: LockTarget, ui: Ui, *, exact: bool = False) -> str:
    """For an env that stays: ``up-to-date``, ``repair``, ``reinstall``, ``restore`` or ``sync``.

    Packages added by hand stay unless ``exact`` (``up --exact``): an env changed only by additions is
    up to date, and its state records them, so the next ``up`` is a no-op again.
    """
    from ..backends import state as st

    if st.in_progress(env):
        ui.step(_("{env}: a previous install did not finish; repairing (re-installing every locked file)").format(
            env=env))
        return "repair"
    state = st.read_state(env)
    if state is None or state.target != target.name or state.lock_digest != st.target_digest(target) \
            or state.engine != backend.engine_name:
        ui.step(_("syncing {env} to target {target}").format(env=env, target=target.name))
        return "sync"
    fp = st.fingerprint(env, target.python)
    damage = _damage(env, state, fp)
    if damage is not None:
        ui.step(_("{env}: {damage}; repairing (re-installing every locked file)").format(env=env, damage=damage))
        backend.forget_cached(st.damaged_distributions(env, state))
        return "reinstall"
    from .project_install import kept_names

    keep = backend.kept_packages | kept_names(env)
    extra = hand_added(st.distributions(fp), target, keep) if exact else {}
    if fp == state.fingerprint and not extra:
        ui.step(_("{env} is up to date").format(env=env))
        return "up-to-date"
    changes = _hand_changes(st.distributions(fp), target, keep, exact=exact)
    for line in changes:
        ui.warn(f"{env}: {line}")
    if exact:
        ui.step(_("{env}: restoring the locked packages and removing those added by hand (policy: --exact)").format(
            env=env))
        return "restore-exact"
    if set(state.fingerprint) <= set(fp) and hand_added(st.distributions(fp), target, keep):   # only additions
        st.write_state(env, dataclasses.replace(state, fingerprint=fp, watched=st.watch_list(env, state.python)))
        ui.step(_("{env} is up to date; packages added by hand are kept (policy: keep; `torchenv up --exact` "
                  "removes them)").format(env=env))
        return "up-to-date"
    ui.step(_("{env}: restoring the locked packages; packages added by hand are kept (policy: keep; "
              "`torchenv up --exact` removes them)").format(env=env))
    return "restore"


# in-place action -> (re-install every file, keep what the lock does not name, the UpResult status)
_IN_PLACE: dict[str, tuple[bool, bool, UpStatus]] = {"repair": (True, False, "repaired"), "reinstall": (True, False, "repaired"),
             "restore": (False, True, "repaired"), "restore-exact": (False, True, "repaired"),
             "sync": (False, False, "synced")}


def sync_env(backend: Backend, env: Path, target: LockTarget, plan: Plan, ui: Ui, *, project_dir: Path,
             force: bool = False, exact: bool = False) -> UpStatus:
    """Make ``env`` hold exactly ``target``; returns the ``UpResult.status``.

    Why decide first and fetch before touching anything: a download failure (dead mirror,
    wrong bytes) must leave no new env, no in-progress marker, and an existing env as it was.
    """
    from .. import safety
    from ..backends import state as st

    seen = _look(env, project_dir, force)
    why = seen.rebuild_reason(target, force)
    if why is not None:
        safety.check_removable(env, project_dir, force=force)   # a legacy env or a link: refused before any fetch
    elif seen.claim.kind == safety.LEGACY:
        safety.write_owner(env, project_dir, backend=plan.backend)   # adopt it: from now on the marker proves it
    if seen.exists and why is None:
        action = _in_place_action(backend, env, target, ui, exact=exact)
        if action == "up-to-date":
            return "up-to-date"
    if seen.claim.kind == safety.ABSENT and backend.name == "venv":
        ui.step(_("{why} {env} with Python {python} ({installer})").format(
            why=_("creating"), env=env, python=target.python, installer=plan.installer))
        files = create_while_fetching(backend, env, project_dir, seen.claim, target, ui)
        st.mark_created(env)
        _install(backend, env, target, files, reinstall=False)
        return "installed"
    files = backend.materialise(target)
    if seen.exists and why is None:
        reinstall, keep_extra, status = _IN_PLACE[action]
        if action == "restore-exact":    # only what was added by hand goes: pip and the project itself stay
            from .project_install import kept_names

            backend.remove(sorted(hand_added(st.distributions(st.fingerprint(env, target.python)), target,
                                             backend.kept_packages | kept_names(env))))
        _install(backend, env, target, files, reinstall=reinstall, keep_extra=keep_extra)
        return status
    created = why is None
    ui.step(_("{why} {env} with Python {python} ({installer})").format(
        why=why or _("creating"), env=env, python=target.python, installer=plan.installer))
    with moved_aside(env, project_dir, force, ui):
        create_env(backend, env, project_dir, seen.claim, ui)
        st.mark_created(env)
        _install(backend, env, target, files, reinstall=False)
    return "installed" if created else "rebuilt"


def _install(backend: Backend, env: Path, target: LockTarget, files: list[Path] | None, *,
             reinstall: bool, keep_extra: bool = False) -> None:
    """Install under the in-progress marker; record the env's state only once every locked package is there."""
    from ..backends import state as st

    st.begin_install(env, target.name)
    try:
        backend.install(target=target, reinstall=reinstall, files=files, keep_extra=keep_extra)
        fp = st.fingerprint(env, target.python)
        have = st.distributions(fp)
        missing = [w.name for w in target.wheels if w.name not in have]
        if missing:
            raise EnvError(f"after installing, {env} lacks {', '.join(missing)}",
                           hint="run `torchenv up` again; if it persists, `torchenv doctor` shows what is wrong")
    except Exception as exc:
        st.fail_install(env, _failure_words(exc))
        raise
    st.end_install(env, st.EnvState(target=target.name, lock_digest=st.target_digest(target), fingerprint=fp,
                                    python=target.python, engine=backend.engine_name, torchenv=_version()))


def _failure_words(exc: Exception) -> str:
    """What stopped an install, fit to store and show (no login from a URL in it)."""
    from ..errors import TorchenvError
    from ..redaction import redact_text

    text = exc.message if isinstance(exc, TorchenvError) else f"{type(exc).__name__}: {exc}"
    return redact_text(_("the install failed: {error}").format(error=" ".join(str(text).split())[:500]))


def _damage(env: Path, state: Any, fp: tuple[str, ...]) -> str | None:
    """What the sync left that is no longer there, in words; ``None`` for an intact env or one changed by
    hand (other dist-info names: restored without a re-install of everything)."""
    from ..backends import state as st

    if fp != state.fingerprint:
        return None
    if state.schema < st.STATE_SCHEMA:
        return _("it was installed by an older torchenv that did not record its files")
    return st.files_problem(env, state)


def hand_added(before: dict[str, str], target: LockTarget, keep: frozenset[str]) -> dict[str, str]:
    """The distributions in the env that the lock does not name (and that are not kept by design: pip, the project)."""
    from ..sources.index import normalize

    locked = {w.name for w in target.wheels}
    return {name: v for name, v in sorted(before.items()) if name not in keep and normalize(name) not in locked}


def _hand_changes(before: dict[str, str], target: LockTarget, keep: frozenset[str], *,
                  exact: bool = False) -> list[str]:
    locked = {w.name: w for w in target.wheels}
    out = []
    from ..sources.index import normalize

    added = _("{name} {version} was added by hand and is removed (`up --exact`)") if exact else _(
        "{name} {version} was added by hand and is kept (not in torchenv.lock: add it to your requirements to "
        "lock it; `torchenv up --exact` removes it)")
    for name, version in sorted(before.items()):
        want = locked.get(normalize(name))
        if name in keep:
            continue
        if want is None:
            out.append(added.format(name=name, version=version))
        elif want.version.lower() != version.lower() and want.version.replace("-", "_") != version:
            out.append(_("{name} {version} was changed by hand (the lock has {locked})").format(
                name=name, version=version, locked=want.version))
    for name in sorted(set(locked) - set(before)):
        out.append(_("{name} {version} was removed by hand").format(name=name, version=locked[name].version))
    return out


def _version() -> str:
    from ..version import __version__

    return __version__
