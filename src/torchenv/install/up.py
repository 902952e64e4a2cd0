"""``torchenv up``: make the project's env exactly what the plan and lock say, safely, then verify it.

Why this order: the cheap no-op check runs first (``install.noop``); everything else runs
under the project lock. The lock file is written only after an install succeeded, the
env carries an in-progress marker while it is being changed, and what stands at the env path
is judged by ``safety`` first: a project, a plain folder, a file or a link is never removed,
another Python env only with ``--force``. A rebuild (new Python, ``--force``) moves the
old env aside and puts it back if anything fails, because a venv cannot be built in one
place and renamed into another (its scripts hold absolute paths).
"""
from __future__ import annotations

import argparse
import dataclasses
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from ..errors import EnvError, LockError

if TYPE_CHECKING:
    from ..intent.model import Intent
    from ..lock.model import Lockfile, LockTarget
    from ..resolve.plan import Plan
    from ..safety import EnvClaim
    from ..ui import Ui


@dataclass(frozen=True)
class UpResult:
    status: str                     # up-to-date | installed | synced | repaired | rebuilt | verified
    env_path: Path
    target: str
    lock_path: Path
    verify_ok: bool | None = None   # None: not run
    changes: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
    warnings: tuple[str, ...] = ()  # the no-op path's warnings (requirement lines not applied), for the CLI

    @property
    def exit_code(self) -> int:
        return 1 if self.verify_ok is False else 0


def make_plan(intent: "Intent", args: argparse.Namespace) -> "Plan":
    """Probe (or assume) the machine and resolve; the single place ``up``/``lock`` ask for a plan."""
    from ..cluster.hooks import plan_on_node
    from ..commands._options import machine_from_args
    from ..resolve.reachable import available_plan
    from ..resolve.resolver import resolve

    on_node = plan_on_node(intent, args)       # --machine cluster.json: this node's type's target
    if on_node is not None:
        return on_node
    machine = machine_from_args(args)
    plan = resolve(intent, machine, sources_overrides=args, check_index=True)
    return available_plan(plan, intent, machine, args)   # cuda = "auto": a build whose files can be fetched


def machine_facts(plan: "Plan") -> dict[str, Any]:
    m = plan.machine
    facts: dict[str, Any] = {"os": m.os, "arch": m.arch, "driver": m.driver,
                             "compute-capabilities": [g.compute_capability or "?" for g in m.gpus]}
    if m.assumed:
        facts["assumed"] = True
    return {k: v for k, v in facts.items() if v is not None}


def new_lockfile(old: "Lockfile | None", intent: "Intent", reqs: list, target: "LockTarget", plan: "Plan",
                 ui: "Ui", project: dict | None = None, overrides: dict | None = None) -> "Lockfile":
    """The lock with ``target`` added/replaced; targets made for another intent are dropped (with a warning)."""
    from .. import __version__
    from ..lock.model import Lockfile
    from .requirements import lock_is_current, requirements_digest

    keep = ()
    if old is not None and lock_is_current(old, intent, reqs):
        keep = old.targets
    elif old is not None:
        stale = sorted(t.name for t in old.targets if t.name != target.name)
        if stale:
            ui.warn(f"torchenv.toml or the requirements changed: dropped targets {', '.join(stale)} from the lock; "
                    + "re-add them with " + ", ".join(f"`torchenv lock --target {n}`" for n in stale))
    facts = machine_facts(plan)
    if plan.machine.assumed and old is not None and old.machine and not old.machine.get("assumed"):
        facts = old.machine   # keep the real machine's facts when adding a target for another one
    base = Lockfile(intent_hash=intent.hash(), requirements_hash=requirements_digest(reqs), targets=keep,
                    machine=facts, torchenv_version=__version__, project=dict(project or {}),
                    overrides=dict(overrides or {}))
    return base.with_target(target)


def missing_target_error(lock: "Lockfile", want: str, lock_path: Path) -> LockError:
    names = ", ".join(t.name for t in lock.targets) or "none"
    return LockError(f"{lock_path} has targets {names}; none matches this machine ({want})",
                     hint=f"add it with `torchenv lock --target {want}`")


@contextmanager
def _aside(env: Path, project_dir: Path, force: bool, ui: "Ui") -> Iterator[None]:
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
            ui.warn(f"the new environment failed and could not be cleared ({exc}); your previous one is at {old}")
            raise
        ui.warn(f"the new environment failed; your previous one is back in place at {env}")
        raise
    try:
        safety.remove_env(old, project_dir, force=force, made_at=env)
    except safety.EnvRefused as exc:
        ui.warn(f"kept the previous environment at {old}: {exc.message}")


def _create(backend: Any, env: Path, project_dir: Path, found: "EnvClaim", ui: "Ui") -> None:
    """Create the env and mark it as torchenv's; a create that fails (or is interrupted) leaves nothing.

    Why clear it here: a half-made folder carries no marker yet, so the next ``up`` could not
    prove it is torchenv's and would refuse it. Where an env stood before, ``_aside`` restores it.
    """
    from .. import safety

    try:
        backend.create()
    except BaseException:
        if found.kind in (safety.ABSENT, safety.EMPTY) and (env.exists() or env.is_symlink()):
            try:
                safety.remove_half_built(env, project_dir)
                if found.kind == safety.EMPTY:
                    env.mkdir()
            except (OSError, safety.EnvRefused) as exc:
                ui.warn(f"could not clear the half-made {env} ({exc}); remove it before the next `torchenv up`")
        raise
    safety.write_owner(env, project_dir, backend=backend.plan.backend)


def _hand_changes(before: dict[str, str], target: "LockTarget", keep: frozenset[str]) -> list[str]:
    locked = {w.name: w for w in target.wheels}
    out = []
    from ..sources.index import normalize

    for name, version in sorted(before.items()):
        want = locked.get(normalize(name))
        if name in keep:
            continue
        if want is None:
            out.append(f"{name} {version} was added by hand (not in torchenv.lock; add it to your requirements to keep it)")
        elif want.version.lower() != version.lower() and want.version.replace("-", "_") != version:
            out.append(f"{name} {version} was changed by hand (the lock has {want.version})")
    for name in sorted(set(locked) - set(before)):
        out.append(f"{name} {locked[name].version} was removed by hand")
    return out


def is_offline(args: argparse.Namespace) -> bool:
    """``--offline``, or ``--from PATH`` (which implies it)."""
    return bool(getattr(args, "offline", False) or getattr(args, "from_", None))


@contextmanager
def _offline_scope(args: argparse.Namespace) -> Iterator[Path | None]:
    """Offline: no tool in this process or its children may use the network; a scratch folder for the bundle's files."""
    if not is_offline(args):
        yield None
        return
    import tempfile

    from ..offline.install import no_network

    with no_network(), tempfile.TemporaryDirectory(prefix="torchenv-offline-") as tmp:
        yield Path(tmp)


def run_up(project_dir: Path, args: argparse.Namespace, ui: "Ui") -> UpResult:
    """Carry out ``torchenv up`` (``--offline`` included) for the project in ``project_dir``."""
    from . import noop

    project_dir = Path(project_dir).resolve()
    fast = noop.check(project_dir, args)
    if fast is not None:
        return UpResult("up-to-date", fast.env_path, fast.target, fast.lock_path, warnings=fast.warnings,
                        notes=(fast.kept,) if fast.kept else ())
    from .projectlock import project_lock

    with project_lock(project_dir, ui) as waited, _offline_scope(args) as scratch:
        if waited:   # the other run may have done the work
            again = noop.check(project_dir, args)
            if again is not None:
                return UpResult("up-to-date", again.env_path, again.target, again.lock_path)
        return _run_locked(project_dir, args, ui, scratch)


def _run_locked(project_dir: Path, args: argparse.Namespace, ui: "Ui", scratch: Path | None) -> UpResult:
    from ..backends import make_backend
    from ..intent.load import apply_overrides, load_project_intent
    from ..lock.diff import diff_targets
    from ..lock.io import read_lock, write_lock
    from ..lock.model import LOCK_FILE
    from . import noop, project_install, requirements as reqmod

    offline = is_offline(args)
    from_path = Path(args.from_).expanduser().resolve() if getattr(args, "from_", None) else None
    frozen = getattr(args, "frozen", False) or offline      # offline cannot resolve: the lock is the plan
    borrowed = None
    if offline and scratch is not None:
        from ..offline.install import borrowed_project

        borrowed = borrowed_project(project_dir, from_path, scratch / "project")
    src = borrowed or project_dir       # a fresh folder takes the bundle's torchenv.toml/lock (copied in later)
    base = _followed(load_project_intent(src), src, ui)
    args = _kept_overrides(args, base, src, ui)
    intent = apply_overrides(base, args)
    usable_env_path(noop.env_path_for(intent, project_dir), project_dir,
                    force=bool(getattr(args, "force", False)))   # refuse before planning, locking, fetching
    reqs, warnings = reqmod.gather(intent, src)
    for w in warnings:
        ui.warn(w)
    lock_path = project_dir / LOCK_FILE
    old_lock = read_lock(src / LOCK_FILE) if (src / LOCK_FILE).exists() else None
    current = old_lock is not None and reqmod.lock_is_current(old_lock, intent, reqs) \
        and project_install.lock_agrees(old_lock, project_dir)
    if frozen and old_lock is None:
        if offline:
            from ..offline.install import no_lock_error

            with ui.progress("planning (probe + resolve)"):
                plan = make_plan(intent, args)
            raise no_lock_error(lock_path, from_path, plan)
        raise LockError(f"{lock_path}: no lock file, and --frozen forbids resolving",
                        hint="run `torchenv lock` (or `torchenv up` without --frozen) and commit torchenv.lock")
    if frozen and not current:
        if offline:
            raise LockError(f"{lock_path} is out of date: torchenv.toml or the requirements changed since it was "
                            "written, and an offline install cannot re-resolve",
                            hint="undo the change, or run `torchenv lock` where there is network and bring the "
                                 "new lock (and a new bundle) here")
        raise LockError(f"{lock_path} is out of date: torchenv.toml or the project requirements changed since it "
                        "was written", hint="run `torchenv lock` and commit the result, or drop --frozen")

    with ui.progress("planning (probe + resolve)"):
        plan = make_plan(intent, args)
    from ..resolve.reachable import fallback_said

    for line in fallback_said(plan):
        ui.warn(line)
    reqmod.check_against_plan(reqs, plan)
    env = noop.env_path_for(intent, project_dir)
    backend = None
    changes: list[str] = []
    if current:
        target = old_lock.target(plan.target_name)
        if target is None:
            raise missing_target_error(old_lock, plan.target_name, lock_path)
    else:
        backend = make_backend(plan=plan, env_path=env, ui=ui)
        with ui.progress(f"locking {plan.target_name} ({plan.installer})"):
            target = backend.lock_target(requirements=reqmod.as_lines(reqs))
        if old_lock is not None:
            previous = old_lock.target(plan.target_name) or next(
                (t for t in old_lock.targets if t.os == target.os and t.arch == target.arch), None)
            changes = diff_targets(previous, target)
            ui.step("torchenv.toml or the requirements changed; the new lock differs in:")
            for line in changes or ["(no package changes)"]:
                ui.info(f"    {line}")

    install_target, notes = target, ()
    if offline:
        from ..offline.install import adopt_project_files, prepare_offline

        prep = prepare_offline(target, from_path=from_path, plan_sources=plan.sources, ui=ui)   # nothing changed yet
        for note in prep.notes:
            ui.step(f"offline: {note}, all hash-checked against torchenv.lock")
        if borrowed is not None:
            adopt_project_files(borrowed, project_dir, ui)
        plan = dataclasses.replace(plan, sources=prep.sources)
        install_target, notes = prep.target, prep.notes
    if backend is None or offline:
        backend = make_backend(plan=plan, env_path=env, ui=ui)

    status = sync_env(backend, env, install_target, plan, args, ui, project_dir=project_dir)
    if project_install.sync_project(env, backend.python(), plan, project_dir, ui) and status == "up-to-date":
        status = "synced"
    if not offline:
        _write_env_pip_conf(env, plan, ui)
    if not current:
        write_lock(lock_path, new_lockfile(old_lock, intent, reqs, target, plan, ui,
                                           project_install.lock_entry(project_dir), record_overrides(args, base)))
        ui.step(f"wrote {lock_path.name} (target {target.name})")
    verify_ok = None
    if not getattr(args, "no_verify", False):
        status, verify_ok = _verify_if_needed(status, env, backend.python(), target, plan, project_dir, ui)
    return UpResult(status, env, target.name, lock_path, verify_ok, tuple(changes), tuple(notes))


def _kept_overrides(args: argparse.Namespace, base: "Intent", project: Path, ui: "Ui") -> argparse.Namespace:
    """The flags the last ``up`` was run with, when this one gives none (said); ``--save`` writes them into
    torchenv.toml, after which they are plain intent."""
    from ..lock.io import read_lock
    from ..lock.model import LOCK_FILE
    from .overrides import given, remembered_args, said, save_to_toml

    lock = read_lock(project / LOCK_FILE) if (project / LOCK_FILE).exists() else None
    args, kept = remembered_args(args, base, lock)
    if kept:
        ui.step(said(kept))
    if getattr(args, "save", False) and given(args):
        path = save_to_toml(project, given(args))
        ui.step(f"wrote {', '.join(given(args))} into {path.name}".replace("with_", "with"))
    return args


def record_overrides(args: argparse.Namespace, base: "Intent") -> dict:
    """What the lock remembers: nothing after ``--save`` (torchenv.toml holds the flags then)."""
    from .overrides import record

    return {} if getattr(args, "save", False) else record(args, base)


def _verify_if_needed(status: str, env: Path, python: Path, target: "LockTarget", plan: "Plan", project_dir: Path,
                      ui: "Ui") -> tuple[str, bool | None]:
    """Verify after a change, or when the env's last verify did not pass; ``(status, verify_ok)``.

    Why re-verify rather than rebuild: a verify that was interrupted only needs to run again, and
    one that failed usually failed for a reason outside the env (driver, GPU, machine); the
    install itself was checked file by file. The marker stays until a verify passes.
    """
    from . import state as st

    last = st.verify_problem(env)
    if status == "up-to-date":
        if last is None:
            return status, None
        ui.step(f"{env}: its last verify {last}; verifying again")
        status = "verified"
    st.begin_verify(env)
    ok = _verify(python, target, plan, project_dir, ui)
    st.end_verify(env, bool(ok))
    return status, ok


def _followed(intent: "Intent", project: Path, ui: "Ui") -> "Intent":
    """No torchenv.toml but a pylock.toml/uv.lock pinning torch: build that torch, and say so."""
    from ..export.follow import follow_existing_lock

    intent, followed = follow_existing_lock(intent, project)
    if followed is not None:
        ui.step(followed.sentence())
    return intent


def _materialise(backend: Any, target: "LockTarget") -> Any:
    """Every file of the target, fetched and hash-checked, for backends that can do it ahead of the install."""
    fetch_all = getattr(backend, "materialise", None)
    return fetch_all(target) if fetch_all is not None else None


def usable_env_path(env: Path, project_dir: Path, *, force: bool) -> "EnvClaim":
    """What stands at ``env``, when ``up`` may use it; else the refusal (nothing changed yet)."""
    from .. import safety

    found = safety.claim(env, project_dir)
    if found.kind == safety.NEVER:
        raise safety.refuse(found)
    if found.kind == safety.FOREIGN and not force:
        raise safety.foreign_refusal(found)
    return found


def sync_env(backend: Any, env: Path, target: "LockTarget", plan: "Plan", args: argparse.Namespace,
             ui: "Ui", *, project_dir: Path) -> str:
    """Make ``env`` hold exactly ``target``; returns the ``UpResult.status``.

    Why decide first and fetch before touching anything: a download failure (dead mirror,
    wrong bytes) must leave no new env, no in-progress marker, and an existing env as it was.
    """
    from .. import safety
    from . import state as st

    force = bool(getattr(args, "force", False))
    found = usable_env_path(env, project_dir, force=force)
    ours = found.kind in (safety.OURS, safety.LEGACY)
    exists = found.kind not in (safety.ABSENT, safety.EMPTY)
    python_now = st.env_python_version(env) if exists else None
    broken_python = st.interpreter_problem(env, st.read_state(env)) if ours else None
    if ours and broken_python is None and not st.env_python(env).exists():
        broken_python = "broken interpreter"
    rebuild = exists and (not ours or force or python_now != target.python or broken_python is not None)
    if rebuild:
        safety.check_removable(env, project_dir, force=force)   # a legacy env or a link: refused before any fetch
    elif found.kind == safety.LEGACY:
        safety.write_owner(env, project_dir, backend=plan.backend)   # adopt it: from now on the marker proves it
    engine = getattr(getattr(backend, "engine", None), "name", plan.installer)

    if not exists or rebuild:
        action = "create"
    elif st.in_progress(env):
        action = "repair"
    else:
        state = st.read_state(env)
        fp = st.fingerprint(env, target.python)
        if (state is not None and state.target == target.name and state.lock_digest == st.target_digest(target)
                and state.engine == engine):
            damage = _damage(env, state, fp)
            if fp == state.fingerprint and damage is None:
                ui.step(f"{env} is up to date")
                return "up-to-date"
            if damage is not None:
                ui.step(f"{env}: {damage}; repairing (re-installing every locked file)")
                action = "reinstall"
            else:
                from .project_install import kept_names

                for line in _hand_changes(st.distributions(fp), target, kept_names(env)):
                    ui.warn(f"{env}: {line}")
                action = "restore"
        else:
            action = "sync"

    files = _materialise(backend, target)

    def install(reinstall: bool) -> None:
        st.begin_install(env, target.name)
        extra = {"files": files} if files is not None else {}
        backend.install(target=target, reinstall=reinstall, **extra)
        fp = st.fingerprint(env, target.python)
        have = st.distributions(fp)
        missing = [w.name for w in target.wheels if w.name not in have]
        if missing:
            raise EnvError(f"after installing, {env} lacks {', '.join(missing)}",
                           hint="run `torchenv up` again; if it persists, `torchenv doctor` shows what is wrong")
        st.end_install(env, st.EnvState(target=target.name, lock_digest=st.target_digest(target),
                                        fingerprint=fp, python=target.python, engine=engine,
                                        torchenv=_version()))

    if action == "create":
        why = ("creating" if not exists else
               "replacing (--force)" if not ours else
               f"rebuilding (Python {python_now} -> {target.python})" if python_now != target.python else
               f"rebuilding ({broken_python})" if broken_python else "rebuilding (--force)")
        ui.step(f"{why} {env} with Python {target.python} ({plan.installer})")
        with _aside(env, project_dir, force, ui):
            _create(backend, env, project_dir, found, ui)
            st.mark_created(env)
            install(reinstall=False)
        return "installed" if why == "creating" else "rebuilt"
    if action in ("repair", "reinstall"):
        if action == "repair":
            ui.step(f"{env}: a previous install did not finish; repairing (re-installing every locked file)")
        else:
            _forget_cached(backend, st.damaged_distributions(env, state))
        install(reinstall=True)
        return "repaired"
    if action == "restore":
        ui.step(f"{env}: restoring the locked packages")
        install(reinstall=False)
        return "repaired"
    ui.step(f"syncing {env} to target {target.name}")
    install(reinstall=False)
    return "synced"


def _damage(env: Path, state: Any, fp: tuple[str, ...]) -> str | None:
    """What the sync left that is no longer there, in words; ``None`` for an intact env or one changed by
    hand (other dist-info names: restored without a re-install of everything)."""
    from . import state as st

    if fp != state.fingerprint:
        return None
    if state.schema < st.STATE_SCHEMA:
        return "it was installed by an older torchenv that did not record its files"
    return st.files_problem(env, state)


def _forget_cached(backend: Any, names: list[str]) -> None:
    """Drop damaged packages from an installer cache that hardlinks into envs (see state.damaged_distributions)."""
    forget = getattr(getattr(backend, "engine", None), "forget_cached", None)
    if forget is not None and names:
        forget(names)


def _write_env_pip_conf(env: Path, plan: "Plan", ui: "Ui") -> None:
    """Make ``pip install`` inside the env use the plan's sources (when sources.envconfig exists)."""
    try:
        from ..sources.envconfig import write_venv_pip_conf
    except ImportError:
        return
    if plan.backend == "venv" and plan.sources is not None:
        write_venv_pip_conf(env, plan.sources)


@contextmanager
def _bytecode_allowed() -> Iterator[None]:
    """Let verify's ``import torch`` write ``.pyc`` even when PYTHONDONTWRITEBYTECODE=1 is exported.

    Why: uv installs without bytecode (compiling costs ~6 s per install); the first import
    writes ``.pyc`` for exactly the modules ``import torch`` needs (~0.35 s extra once), and
    every later ``import torch`` then takes ~1.1 s instead of ~2.5 s (baseline-bench.md §4).
    """
    saved = os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ["PYTHONDONTWRITEBYTECODE"] = saved


def verify_env(python: Path, target: "LockTarget", plan: "Plan", project_dir: Path, ui: "Ui") -> bool:
    from ..verify import render_report, run_verify, write_report
    from ..verify.expect import expected_from_target

    with ui.progress("verifying (import torch, devices, a small computation)"), _bytecode_allowed():
        report = run_verify(python, expected=expected_from_target(target), expects_gpu=plan.expects_gpu)
    write_report(project_dir, report)
    if ui.quiet:
        if not report.ok:
            ui.error(report.verdict())
    elif not ui.json_mode:
        render_report(ui, report)
    return bool(report.ok)


_verify = verify_env   # the call point `up` uses (tests/faults/tools/hooked_cli.py pauses there)


def _version() -> str:
    from .. import __version__

    return __version__
