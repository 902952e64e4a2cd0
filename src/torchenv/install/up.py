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

import contextvars
import dataclasses
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import EnvError, LockError
from ..i18n import _

if TYPE_CHECKING:
    from ..backends.base import Backend
    from ..errors import PulledInFamily
    from ..intent.model import Intent
    from ..intent.project_requirements import ProjectRequirement
    from ..lock.model import Lockfile, LockTarget
    from ..options import LockOptions, UpOptions
    from ..resolve.plan import Plan
    from ..safety import EnvClaim
    from ..ui import Ui
    from .stages import Project


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
    kernel: str = ""                # the Jupyter kernel registered for the env: "display name (name)"

    @property
    def exit_code(self) -> int:
        return 1 if self.verify_ok is False else 0


# The project's current torchenv.lock while ``up`` plans which of its targets to install (a context
# variable, so the planners tests hand in keep their two-argument form); ``lock`` plans without one.
LOCK_IN_USE: contextvars.ContextVar[Lockfile | None] = contextvars.ContextVar("lock_in_use", default=None)


def make_plan(intent: Intent, options: UpOptions | LockOptions) -> Plan:
    """Probe (or assume) the machine and resolve; the single place ``up``/``lock`` ask for a plan."""
    from ..cluster.hooks import plan_on_node
    from ..options import UpOptions
    from ..probe.assume import machine_for
    from ..resolve.resolver import resolve

    on_node = plan_on_node(intent, options.machine, options.sources)   # --machine cluster.json: this node's type
    if on_node is not None:
        return on_node
    machine = machine_for(options.machine, toolkits=False)   # `nvcc --version` is no input to a plan
    lock = LOCK_IN_USE.get()
    if lock is not None:
        recipes_only = resolve(intent, machine, sources_overrides=options.sources)
        if locked_files_at_hand(recipes_only, lock):
            return recipes_only
    offline = isinstance(options, UpOptions) and options.is_offline
    from ..resolve.reachable import reachable_plan  # not on the warm path: the locked files are at hand

    return reachable_plan(intent, machine, options.sources, offline=offline)   # cuda = "auto": fetchable


def locked_files_at_hand(plan: Plan, lock: Lockfile) -> bool:
    """Does ``lock`` hold the target ``plan`` names, with every torch-family file on this machine already?

    Why that is enough to plan from the recipes alone: the index check and the reachability
    check (``resolve.index_check``, ``resolve.reachable``) choose a build that can be fetched,
    for a new lock; this target's files need no fetching (``materialise`` still checks each
    hash, and the engine again). Skipping them saves the tier-index reads (a network round trip
    once their cache is 6 h old, a TCP probe per dead host) and ~50 ms of imports and work on
    every warm ``up``.
    """
    target = lock.target(plan.target_name)
    if target is None or plan.sources is None:
        return False
    from ..paths import wheel_cache
    from ..sources.index import local_path
    from ..sources.locate import local_candidates, torch_family
    from ..sources.routing import torch_candidates

    sources = plan.sources
    family = torch_family()
    cache = wheel_cache()
    locked = [w for w in target.wheels if w.name in family]

    def at_hand(wheel: Any) -> bool:
        if (cache / wheel.sha256[:2] / wheel.sha256 / wheel.filename).is_file():
            return True
        places = [*local_candidates(sources, wheel), *torch_candidates(sources, wheel.filename)]
        return any(p is not None and p.is_file() for p in map(local_path, places))
    return bool(locked) and all(at_hand(w) for w in locked)


def _replanned(plan: Plan, project: Project, options: UpOptions, exc: PulledInFamily, *, offline: bool,
               ui: Ui) -> tuple[Plan, Any]:
    from ..backends import make_backend
    from ..resolve.reachable import fallback_said, replanned

    found = replanned(plan, project.intent, options.sources, exc, offline=offline)
    if found is None:
        raise exc
    for line in fallback_said(found):
        ui.warn(line)
    return found, make_backend(plan=found, env_path=project.env, ui=ui)


def machine_facts(plan: Plan) -> dict[str, Any]:
    m = plan.machine
    facts: dict[str, Any] = {"os": m.os, "arch": m.arch, "driver": m.driver,
                             "compute-capabilities": [g.compute_capability or "?" for g in m.gpus]}
    if m.assumed:
        facts["assumed"] = True
    return {k: v for k, v in facts.items() if v is not None}


def new_lockfile(old: Lockfile | None, intent: Intent, reqs: list[ProjectRequirement], target: LockTarget, plan: Plan,
                 ui: Ui, project: dict[str, Any] | None = None, overrides: dict[str, Any] | None = None) -> Lockfile:
    """The lock with ``target`` added/replaced; targets made for another intent are dropped (with a warning)."""
    from ..intent.project_requirements import lock_is_current, requirements_digest
    from ..lock.model import Lockfile
    from ..version import __version__

    keep: tuple[LockTarget, ...] = ()
    if old is not None and lock_is_current(old, intent, reqs):
        keep = old.targets
    elif old is not None:
        stale = sorted(t.name for t in old.targets if t.name != target.name)
        if stale:
            ui.warn(_("torchenv.toml or the requirements changed: dropped targets {targets} from the lock; re-add "
                      "them with {commands}").format(targets=", ".join(stale),
                                                     commands=", ".join(f"`torchenv lock --target {n}`" for n in stale)))
    facts = machine_facts(plan)
    if plan.machine.assumed and old is not None and old.machine and not old.machine.get("assumed"):
        facts = old.machine   # keep the real machine's facts when adding a target for another one
    base = Lockfile(intent_hash=intent.hash(), requirements_hash=requirements_digest(reqs), targets=keep,
                    machine=facts, torchenv_version=__version__, project=dict(project or {}),
                    overrides=dict(overrides or {}))
    return base.with_target(target)


def missing_target_error(lock: Lockfile, want: str, lock_path: Path) -> LockError:
    names = ", ".join(t.name for t in lock.targets) or "none"
    return LockError(f"{lock_path} has targets {names}; none matches this machine ({want})",
                     hint=f"add it with `torchenv lock --target {want}`")


@contextmanager
def _aside(env: Path, project_dir: Path, force: bool, ui: Ui) -> Iterator[None]:
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


def _create(backend: Backend, env: Path, project_dir: Path, found: EnvClaim, ui: Ui) -> None:
    """Create the env marked as torchenv's from its first moment; a create that fails leaves nothing.

    Why the marker first: a kill (``kill -9``, a power cut) between making the folder and
    marking it left an env the next ``up`` could not prove was torchenv's, and refused
    without ``--force``. With the marker written into the folder before the engine fills
    it, a half-made env is always recognised as ours. Why clear it on a failure we see: it
    is half-made. Where an env stood before, ``_aside`` restores it.
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


def _create_while_fetching(backend: Backend, env: Path, project_dir: Path, found: EnvClaim, target: LockTarget,
                           ui: Ui) -> list[Path] | None:
    """The target's files, fetched while the venv is created where nothing stood; neither is left if one fails.

    Why at once: creating the venv needs none of the files, and downloads (or hashing local
    files) need no venv; run one after the other, each waits for the other for nothing.
    """
    from concurrent.futures import ThreadPoolExecutor

    from .. import safety

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="torchenv-create") as pool:
        made = pool.submit(_create, backend, env, project_dir, found, ui)
        try:
            files = backend.materialise(target)
        except BaseException:
            if made.exception() is None and (env.exists() or env.is_symlink()):   # waits for the create
                try:
                    safety.remove_half_built(env, project_dir)
                except (OSError, safety.EnvRefused) as exc:
                    ui.warn(f"could not clear the new {env} ({exc}); remove it before the next `torchenv up`")
            raise
        made.result()
    return files


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


class OnlineSources:
    """Sources as the plan chose them (flags, torchenv.toml, env vars, pip.conf, .condarc, loaded once)."""

    offline = False

    @contextmanager
    def scope(self) -> Iterator[None]:
        yield

    def project_source(self, project_dir: Path) -> Path:
        return project_dir

    def missing_lock(self, lock_path: Path, planned: Callable[[], Plan]) -> LockError:
        return LockError(f"{lock_path}: no lock file, and --frozen forbids resolving",
                         hint="run `torchenv lock` (or `torchenv up` without --frozen) and commit torchenv.lock")

    def stale_lock(self, lock_path: Path) -> LockError:
        return LockError(f"{lock_path} is out of date: torchenv.toml or the project requirements changed since it "
                         "was written", hint="run `torchenv lock` and commit the result, or drop --frozen")

    def prepare(self, choice: TargetChoice, project: Project, ui: Ui) -> TargetChoice:
        return choice

    def after_sync(self, env: Path, plan: Plan, ui: Ui) -> None:
        _write_env_pip_conf(env, plan, ui)


class OfflineSources(OnlineSources):
    """No network for this process and its children; every file from the cache or ``--from``, hash-checked."""

    offline = True

    def __init__(self, from_path: Path | None) -> None:
        self.from_path = from_path
        self.scratch: Path | None = None
        self.borrowed: Path | None = None

    @contextmanager
    def scope(self) -> Iterator[None]:
        import tempfile

        from ..offline.install import no_network

        with no_network(), tempfile.TemporaryDirectory(prefix="torchenv-offline-") as tmp:
            self.scratch = Path(tmp)
            yield

    def project_source(self, project_dir: Path) -> Path:
        """A fresh folder takes the bundle's torchenv.toml/lock (copied in once the files check out)."""
        from ..offline.install import borrowed_project

        assert self.scratch is not None, "project_source runs inside scope()"
        self.borrowed = borrowed_project(project_dir, self.from_path, self.scratch / "project")
        return self.borrowed or project_dir

    def missing_lock(self, lock_path: Path, planned: Callable[[], Plan]) -> LockError:
        from ..offline.install import no_lock_error

        return no_lock_error(lock_path, self.from_path, planned())

    def stale_lock(self, lock_path: Path) -> LockError:
        return LockError(f"{lock_path} is out of date: torchenv.toml or the requirements changed since it was "
                         "written, and an offline install cannot re-resolve",
                         hint="undo the change, or run `torchenv lock` where there is network and bring the "
                              "new lock (and a new bundle) here")

    def prepare(self, choice: TargetChoice, project: Project, ui: Ui) -> TargetChoice:
        """Check every file before anything changes; then install from local folders only."""
        from ..offline.install import adopt_project_files, prepare_offline

        prep = prepare_offline(choice.target, from_path=self.from_path, plan_sources=choice.plan.sources, ui=ui)
        for note in prep.notes:
            ui.step(_("offline: {note}, all hash-checked against torchenv.lock").format(note=note))
        if self.borrowed is not None:
            adopt_project_files(self.borrowed, project.dir, ui)
        return dataclasses.replace(choice, plan=dataclasses.replace(choice.plan, sources=prep.sources),
                                   install_target=prep.target, notes=prep.notes)

    def after_sync(self, env: Path, plan: Plan, ui: Ui) -> None:
        return None   # the env's pip.conf would point at folders of this run


def sources_strategy(options: UpOptions) -> OnlineSources:
    """Chosen once per run: every later stage asks the strategy, never the flags."""
    return OfflineSources(options.from_) if options.is_offline else OnlineSources()


@dataclass(frozen=True)
class TargetChoice:
    """Stage 2's answer: the plan, the lock target to install, and whether the lock must be written."""

    plan: Plan
    target: LockTarget
    fresh: bool                               # resolved in this run: torchenv.lock gets it after the install
    changes: tuple[str, ...] = ()
    backend: Backend | None = None          # the one that locked it, reused for the install
    install_target: LockTarget | None = None   # the target with local URLs (offline)
    notes: tuple[str, ...] = ()


def run_up(project_dir: Path, options: UpOptions, ui: Ui) -> UpResult:
    """Carry out ``torchenv up`` (``--offline`` included) for the project in ``project_dir``."""
    from . import noop

    project_dir = Path(project_dir).resolve()
    fast = noop.check(project_dir, options)
    if fast is not None:
        return UpResult("up-to-date", fast.env_path, fast.target, fast.lock_path, warnings=fast.warnings,
                        notes=(fast.kept,) if fast.kept else ())
    from .projectlock import project_lock

    strategy = sources_strategy(options)
    with project_lock(project_dir, ui) as waited, strategy.scope():
        if waited:   # the other run may have done the work
            again = noop.check(project_dir, options)
            if again is not None:
                return UpResult("up-to-date", again.env_path, again.target, again.lock_path)
        return _run_locked(project_dir, options, ui, strategy)


def _run_locked(project_dir: Path, options: UpOptions, ui: Ui, strategy: OnlineSources) -> UpResult:
    """The stages, in order: load → decide the target → sources → sync → record → verify."""
    from ..backends import make_backend
    from ..errors import BuildFailed
    from . import project_install
    from .stages import load_project

    project = load_project(project_dir, options.intent, ui, source=strategy.project_source(project_dir), up=options)
    usable_env_path(project.env, project_dir, force=options.force)   # refuse before planning, locking, fetching
    for w in project.warnings:
        ui.warn(w)
    choice = strategy.prepare(decide_target(project, options, strategy, ui), project, ui)
    for added in (r for r in project.reqs if r.added and choice.fresh):   # said where it is locked, never silently
        ui.step(_("{name} locked too: {why} ([env] jupyter = false leaves it out)").format(
            name=added.text, why=_shown_reason(added.added)))
    backend = choice.backend or make_backend(plan=choice.plan, env_path=project.env, ui=ui)
    try:
        status = sync_env(backend, project.env, choice.install_target or choice.target, choice.plan, ui,
                          project_dir=project_dir, force=options.force, exact=options.exact)
    except BuildFailed as exc:      # a dependency built from source: its log kept, its first errors named
        raise project_install.saved_log(exc, project_dir) from None

    def record() -> None:
        strategy.after_sync(project.env, choice.plan, ui)
        _record(project, choice, ui)

    try:
        if project_install.sync_project(project.env, backend.python(), choice.plan, project_dir, ui) \
                and status == "up-to-date":
            status = "synced"
    except BuildFailed:
        record()      # the locked packages are installed and the lock says so; the project itself is not: no "ready"
        raise

    verify_ok = None
    if options.no_verify:
        record()
    else:
        status, verify_ok = _verify_if_needed(status, project.env, backend.python(), choice.target, choice.plan,
                                              project_dir, ui, meanwhile=record)
    kernel = _kernel(project, choice.target, ui) if verify_ok is not False else ""
    return UpResult(status, project.env, choice.target.name, project.lock_path, verify_ok, choice.changes,
                    choice.notes, kernel=kernel)


def _kernel(project: Project, target: LockTarget, ui: Ui) -> str:
    """Register (or update) the env's Jupyter kernelspec when the project wants a kernel; its name in words.

    Why a warning and not a failure: the env is built and verified; a data dir that cannot be
    written costs the kernel only, and ``torchenv kernel install`` says why again.
    """
    from ..errors import TorchenvError
    from ..intent.project_requirements import kernel_wanted

    if kernel_wanted(project.intent, project.dir, list(project.reqs)) is None:
        return ""
    from ..jupyter.project import sync_kernel

    try:
        done = sync_kernel(project.env, project.dir, target)
    except (TorchenvError, OSError) as exc:
        ui.warn(_("the Jupyter kernel was not registered: {why}").format(why=getattr(exc, "message", exc)))
        return ""
    if done.change != "unchanged":
        words = _("registered") if done.change == "registered" else _("updated")
        ui.step(_("Jupyter kernel {name} {change} in {folder}").format(
            name=done.kernel.name, change=words, folder=done.kernel.folder.parent))
    return f"{done.kernel.display_name} ({done.kernel.name})"


def _shown_reason(reason: str) -> str:
    """A plan reason in the active language, as `plan` shows it."""
    from ..reasons import shown

    return shown(reason)


def decide_target(project: Project, options: UpOptions, strategy: OnlineSources, ui: Ui) -> TargetChoice:
    """The lock's target when the lock is current; else a new one, resolved now. The frozen rules live here."""
    from .stages import lock_with, plan_for

    frozen = options.frozen or strategy.offline       # offline cannot resolve: the lock is the plan
    if frozen and project.lock is None:
        raise strategy.missing_lock(project.lock_path, lambda: plan_for(project, options, ui))
    if frozen and not project.lock_current:
        raise strategy.stale_lock(project.lock_path)
    token = LOCK_IN_USE.set(project.lock if project.lock_current else None)
    try:
        plan = plan_for(project, options, ui)
    finally:
        LOCK_IN_USE.reset(token)
    from ..errors import PulledInFamily
    from ..resolve.reachable import fallback_said

    for line in fallback_said(plan):
        ui.warn(line)
    if project.lock is not None and project.lock_current:
        target = project.lock.target(plan.target_name)
        if target is None:
            raise missing_target_error(project.lock, plan.target_name, project.lock_path)
        return TargetChoice(plan, target, fresh=False)
    from ..backends import make_backend

    backend = make_backend(plan=plan, env_path=project.env, ui=ui)
    try:
        target = lock_with(backend, plan, project, ui)
    except PulledInFamily as exc:       # torchvision through a PyPI dependency: plan a build that serves it
        plan, backend = _replanned(plan, project, options, exc, offline=strategy.offline, ui=ui)
        target = lock_with(backend, plan, project, ui)
    return TargetChoice(plan, target, fresh=True, changes=_announce_changes(project.lock, target, ui),
                        backend=backend)


def _announce_changes(old: Lockfile | None, target: LockTarget, ui: Ui) -> tuple[str, ...]:
    """What the new target changes against the old lock's target for this machine (or its os/arch)."""
    if old is None:
        return ()
    from ..lock.diff import diff_targets

    previous = old.target(target.name) or next(
        (t for t in old.targets if t.os == target.os and t.arch == target.arch), None)
    changes = diff_targets(previous, target)
    ui.step(_("torchenv.toml or the requirements changed; the new lock differs in:"))
    for line in changes or [_("(no package changes)")]:
        ui.info(f"    {line}")
    return tuple(changes)


def _record(project: Project, choice: TargetChoice, ui: Ui) -> None:
    """Write the lock only now: a lock that names files no install ever succeeded with helps nobody."""
    if not choice.fresh:
        return
    from ..lock.io import write_lock
    from .project_install import lock_entry

    write_lock(project.lock_path, new_lockfile(project.lock, project.intent, list(project.reqs), choice.target,
                                               choice.plan, ui, lock_entry(project.dir), project.remembered))
    ui.step(_("wrote {lock} (target {target})").format(lock=project.lock_path.name, target=choice.target.name))


def _verify_if_needed(status: str, env: Path, python: Path, target: LockTarget, plan: Plan, project_dir: Path,
                      ui: Ui, *, meanwhile: Callable[[], None] = lambda: None) -> tuple[str, bool | None]:
    """Verify after a change, or when the env's last verify did not pass; ``(status, verify_ok)``.

    ``meanwhile`` (writing torchenv.lock and the env's pip.conf) runs exactly once: while the
    verify's ``import torch`` runs when there is a verify, else at once.

    Why re-verify rather than rebuild: a verify that was interrupted only needs to run again, and
    one that failed usually failed for a reason outside the env (driver, GPU, machine); the
    install itself was checked file by file. The marker stays until a verify passes.
    """
    from ..backends import state as st

    once = _Once(meanwhile)
    last = st.verify_problem(env)
    if status == "up-to-date":
        if last is None:
            once()
            return status, None
        ui.step(_("{env}: its last verify {problem}; verifying again").format(env=env, problem=_(last)))
        status = "verified"
    from ..verify import bytecode

    st.begin_verify(env)               # before the script starts: an interrupted verify leaves it behind
    site = st.site_packages(env, target.python)
    bytecode.lend(site, target, target.python)       # what an earlier env's verify compiled for these wheels
    ok = _verify(python, target, plan, project_dir, ui, meanwhile=once)
    once()                             # a verify that did not run it (one handed in by a test)
    st.end_verify(env, bool(ok))
    if ok:
        bytecode.keep(site, target, target.python)
    return status, ok


class _Once:
    """``work`` run on the first call only."""

    def __init__(self, work: Callable[[], None]) -> None:
        self.work, self.done = work, False

    def __call__(self) -> None:
        if not self.done:
            self.done = True
            self.work()


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
_IN_PLACE = {"repair": (True, False, "repaired"), "reinstall": (True, False, "repaired"),
             "restore": (False, True, "repaired"), "restore-exact": (False, True, "repaired"),
             "sync": (False, False, "synced")}


def sync_env(backend: Backend, env: Path, target: LockTarget, plan: Plan, ui: Ui, *, project_dir: Path,
             force: bool = False, exact: bool = False) -> str:
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
            return action
    if seen.claim.kind == safety.ABSENT and backend.name == "venv":
        ui.step(_("{why} {env} with Python {python} ({installer})").format(
            why=_("creating"), env=env, python=target.python, installer=plan.installer))
        files = _create_while_fetching(backend, env, project_dir, seen.claim, target, ui)
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
    with _aside(env, project_dir, force, ui):
        _create(backend, env, project_dir, seen.claim, ui)
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


def _write_env_pip_conf(env: Path, plan: Plan, ui: Ui) -> None:
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


def verify_env(python: Path, target: LockTarget, plan: Plan, project_dir: Path, ui: Ui, *,
               meanwhile: Callable[[], None] = lambda: None) -> bool:
    """Verify the env; ``meanwhile`` runs while its interpreter starts and imports torch.

    Why start the script first: ``import torch`` takes 2-4 s on a fresh env and needs nothing
    from this process; writing torchenv.lock and the env's pip.conf (and importing what the
    report is rendered with) meanwhile takes that work off the wall clock. Whatever
    ``meanwhile`` raises stops the script: no verify outlives the run it belongs to.
    """
    from ..verify import render_report, write_report
    from ..verify.expect import expected_from_target, gpu_expected
    from ..verify.runner import start_verify

    # one rule for "expects a GPU", shared with `torchenv verify`: a GPU tier, and a GPU on the planned machine
    expects_gpu = gpu_expected(target.tier, target.os, plan.machine)
    with _bytecode_allowed():          # the script's environment is taken when it starts
        running = start_verify(python, expected=expected_from_target(target), expects_gpu=expects_gpu)
    try:
        meanwhile()
        with ui.progress(_("verifying (import torch, devices, a small computation)")):
            report = running.result()
    except BaseException:
        running.stop()
        raise
    write_report(project_dir, report)
    if ui.quiet:
        if not report.ok:
            ui.error(report.verdict())
    elif not ui.json_mode:
        render_report(ui, report)
    return bool(report.ok)


_verify = verify_env   # the call point `up` uses (tests/faults/tools/hooked_cli.py pauses there)


def _version() -> str:
    from ..version import __version__

    return __version__
