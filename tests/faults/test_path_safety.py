"""Path safety: ``[env] path`` pointing at something that is not torchenv's env never loses a file.

Each case sets ``[env] path`` in torchenv.toml to a place that holds the user's work (the
project itself, a folder above it, another project that once ran ``up``, a checkout, a plain
folder, a file, a dangling link) and runs the real CLI, with and without ``--force``: exit 2,
a message naming the path and why, and every file under the test's root byte for byte as
it was. The property test at the end generates layouts and drives ``up`` in-process.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.faults.conftest import sanitize
from tests.faults.tools.snapshot import diff, tree_digest
from tests.support.cli import parse_args
from tests.support.console import unwrapped
from tests.support.world import MACHINE, TOML


def _user_code(folder: Path) -> None:
    (folder / "train.py").write_text("print('my model')\n")
    (folder / "data").mkdir(exist_ok=True)
    (folder / "data" / "labels.csv").write_text("id,label\n1,cat\n")
    (folder / ".git").mkdir(exist_ok=True)
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n")


def _up_in(world, project: Path):
    return world.cli("up", "-C", str(project), "--no-verify", *MACHINE,
                     "--torch-mirror", world.torch_url, "--pypi-mirror", world.pypi_url)


def _project_itself(world):
    _user_code(world.project)


def _above_the_project(world):
    _user_code(world.project)
    (world.root / "notes.txt").write_text("above the project\n")


def _other_project_that_ran_up(world):
    other = world.root / "other-project"
    other.mkdir()
    (other / "torchenv.toml").write_text(TOML)
    _user_code(other)
    r = _up_in(world, other)
    assert r.rc == 0 and (other / ".venv" / "pyvenv.cfg").is_file(), r.text


def _folder_with_pyproject(world):
    lib = world.project / "lib"
    lib.mkdir()
    (lib / "pyproject.toml").write_text("[project]\nname = 'mylib'\n")
    (lib / "mylib.py").write_text("X = 1\n")


def _folder_with_git(world):
    vendored = world.project / "vendored"
    vendored.mkdir()
    _user_code(vendored)


def _checkout_that_is_also_a_venv_at(work: Path) -> None:
    _user_code(work)
    (work / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.11.9\n")   # `python -m venv .` in a repo


def _checkout_that_is_also_a_venv(world):
    (world.project / "work").mkdir()
    _checkout_that_is_also_a_venv_at(world.project / "work")


def _plain_folder(world):
    results = world.project / "results"
    results.mkdir()
    (results / "run1.csv").write_text("epoch,loss\n1,0.5\n")


def _a_file(world):
    (world.project / ".venv").write_text("not a folder\n")


def _dangling_link(world):
    (world.project / ".venv").symlink_to(world.project / "moved-away-env")


LAYOUTS = [
    pytest.param("the project folder itself", ".", _project_itself, "is the project folder itself", id="dot"),
    pytest.param("a folder above the project", "..", _above_the_project, "is a folder above the project",
                 id="parent"),
    pytest.param("another project that once ran `up`", "../other-project", _other_project_that_ran_up,
                 "holds torchenv.toml", id="other-project"),
    pytest.param("a folder with pyproject.toml", "lib", _folder_with_pyproject, "holds pyproject.toml",
                 id="pyproject"),
    pytest.param("a folder with .git", "vendored", _folder_with_git, "holds .git", id="git"),
    pytest.param("a git checkout that is also a venv", "work", _checkout_that_is_also_a_venv, "holds .git",
                 id="checkout-venv"),
    pytest.param("a folder that is not an environment", "results", _plain_folder,
                 "is not a Python environment (no pyvenv.cfg, no conda-meta/)", id="not-an-env"),
    pytest.param("a file", ".venv", _a_file, "is a file, not an environment", id="file"),
    pytest.param("a dangling symbolic link", ".venv", _dangling_link, "is a symbolic link to", id="dangling-link"),
]


def _write_env_path(project: Path, path: str) -> None:
    (project / "torchenv.toml").write_text(TOML + f'\n[env]\npath = "{path}"\n')


def _set_env_path(world, path: str) -> None:
    _write_env_path(world.project, path)


def _everything(world) -> dict[str, str]:
    """Every file under the test's root except torchenv's home (cache) and its bookkeeping folders."""
    digest = tree_digest(world.root)
    home = world.torchenv_home.name
    return {k: v for k, v in digest.items() if not k.startswith(home)}


def _said(r, width: int = 170) -> str:
    """The error line and its hint, without the run's temp paths (for the reliability table)."""
    return sanitize(r.text[r.text.find("error:"):])[:width]


@pytest.mark.parametrize("verb", ["up", "up --force"], ids=["plain", "force"])
@pytest.mark.parametrize("label,env_path,setup,why", LAYOUTS)
@pytest.mark.fault("`[env] path = \"{env_path}\"`: {label}", where="`torchenv {verb}` (real CLI)",
                   expect="exit 2 before planning; the message names the path and why; every file under the "
                          "test root unchanged byte for byte; nothing renamed aside")
def test_env_path_that_is_not_an_env_is_never_removed(world, label, env_path, setup, why, verb, observed):
    setup(world)
    _set_env_path(world, env_path)
    before = _everything(world)
    r = world.up(*verb.split()[1:])
    assert r.rc == 2, r.text
    text = unwrapped(r.text)          # the console wraps long paths; the words are what matter
    assert "Traceback" not in text and why in text, r.text
    assert "will not remove, replace or rebuild it" in text, r.text
    assert "planning" not in r.out, "refused before probing, resolving or fetching anything"
    assert diff(before, _everything(world)) == []
    assert not list(world.root.rglob("*.torchenv-old-*"))
    observed(_said(r))


@pytest.mark.fault("`[env] path` = another project's env (`../other-project/.venv`)",
                   where="`torchenv up` without --force (real CLI)",
                   expect="exit 2; names the project the env belongs to; nothing changed")
def test_another_projects_env_is_not_taken_over(world, observed):
    _other_project_that_ran_up(world)
    _set_env_path(world, "../other-project/.venv")
    before = _everything(world)
    r = world.up()
    assert r.rc == 2, r.text
    assert "torchenv made here for the project" in r.text and "other-project" in r.text and "--force" in r.text, r.text
    assert diff(before, _everything(world)) == []
    observed(_said(r))


def _foreign_venv(env: Path) -> None:
    env.mkdir()
    (env / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.11.9\n")
    (env / "bin").mkdir()
    (env / "bin" / "python").write_text("#!/bin/sh\n")


@pytest.mark.fault("a Python env torchenv did not create at `.venv`",
                   where="`torchenv up`, then `up --force` (real CLI)",
                   expect="plain up: exit 2, untouched; --force: replaced, nothing outside .venv changed, "
                          "no `.venv.torchenv-old-*` left")
def test_force_replaces_only_the_foreign_env(world, observed):
    _user_code(world.project)
    _foreign_venv(world.env)
    before = _everything(world)
    r = world.up()
    assert r.rc == 2 and "torchenv did not create" in r.text and "--force" in r.text, r.text
    assert diff(before, _everything(world)) == []
    r = world.up("--force")
    assert r.rc == 0, r.text
    assert world.env_imports() == "2.4.1+cpu"
    changed = [line for line in diff(before, _everything(world)) if not line.startswith("+ ")]
    assert changed and all(line[2:].startswith("proj/.venv") for line in changed), changed
    assert not list(world.root.rglob("*.torchenv-old-*"))
    observed(f"plain: exit 2; --force: {r.status}, only proj/.venv replaced")


@pytest.mark.fault("torchenv's own env moved to another folder (marker names the old path)",
                   where="`[env] path` set to the copy; `torchenv up` (real CLI)",
                   expect="exit 2: says where torchenv made it and offers --force; nothing changed")
def test_moved_env_is_not_taken_for_ours(world, observed):
    assert world.up().rc == 0
    shutil.copytree(world.env, world.project / "venv-copy", symlinks=True)
    _set_env_path(world, "venv-copy")
    before = _everything(world)
    r = world.up()
    assert r.rc == 2 and "torchenv made for this project at" in r.text and str(world.env) in r.text, r.text
    assert diff(before, _everything(world)) == []
    observed(_said(r))


@pytest.mark.fault("`.venv` is a link to torchenv's env, which was moved and the link re-pointed",
                   where="`torchenv up` (real CLI)",
                   expect="exit 2: one coherent message (made for this project at the old place, now at the new "
                          "one), --force offered; nothing changed")
def test_a_moved_linked_env_is_named_without_contradiction(world, observed):
    real = world.root / "envs" / "proj-env"
    real.mkdir(parents=True)
    world.env.symlink_to(real, target_is_directory=True)
    assert world.up().rc == 0 and (real / "pyvenv.cfg").is_file()
    moved = world.root / "envs" / "proj-env-moved"
    real.rename(moved)
    world.env.unlink()
    world.env.symlink_to(moved, target_is_directory=True)
    before = _everything(world)
    r = world.up()
    text = unwrapped(r.text)
    assert r.rc == 2, r.text
    assert "not here for this project" not in text, r.text
    assert f"made for this project at {real}" in text and f"now at {moved}" in text and "--force" in text, r.text
    assert diff(before, _everything(world)) == []
    observed(_said(r))


# --- property: generated layouts, every path into removal --------------------------------------

import hashlib
import os
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as hs

from torchenv import safety
from torchenv.backends import state as st
from torchenv.backends.base import Backend
from torchenv.errors import TorchenvError

# weighted towards places whose content is drawn (the first five always hold the user's work)
PLACES = [".", "..", "../other", "../loose", "src"] + [".venv", "envs/a", "../shared-env"] * 3
CONTENTS = ["absent", "empty", "file", "dangling-link", "plain-folder", "pyproject-folder", "git-folder", "venv-in-checkout",
            "foreign-venv", "foreign-conda", "legacy", "ours", "ours-interrupted", "ours-moved", "link-to-ours",
            "link-to-foreign", "other-projects-env"]
FAILS = [None, "create", "install", "interrupt"]


class FakeBackend(Backend):
    """Creates a venv- or conda-shaped env without any installer; fails where the example says."""

    def __init__(self, *, plan, env_path, ui, fail=None):
        super().__init__(plan=plan, env_path=env_path, ui=ui)
        self.fail = fail
        self.name = plan.backend

    def lock_target(self, *, requirements):
        from torchenv.lockfile.model import LockTarget

        p = self.plan
        return LockTarget(name=p.target_name, os="linux", arch="x86_64", tier=p.tier, python=p.python,
                          backend=p.backend, torch="2.4.1+cpu")

    def _maybe_fail(self, point):
        if self.fail == point:
            (self.env_path / f"half-made-by-{point}").write_text("x")
            raise TorchenvError(f"simulated failure during {point}")
        if self.fail == "interrupt" and point == "install":
            raise KeyboardInterrupt

    def create(self):
        env, python = self.env_path, self.plan.python
        env.mkdir(parents=True, exist_ok=True)
        self._maybe_fail("create")
        if self.plan.backend == "conda":
            (env / "conda-meta").mkdir(exist_ok=True)
            (env / "conda-meta" / f"python-{python}.0-0.json").write_text("{}")
        else:
            (env / "pyvenv.cfg").write_text(f"home = /usr/bin\nversion = {python}.0\n")
        (env / "bin").mkdir(exist_ok=True)
        (env / "bin" / "python").write_text("#!/bin/sh\n")

    def install(self, *, target, reinstall=False, files=None, keep_extra=False):
        self._maybe_fail("install")
        site = st.site_packages(self.env_path, target.python)
        site.mkdir(parents=True, exist_ok=True)
        (site / "installed-by-torchenv.txt").write_text(target.name)

    def python(self):
        return self.env_path / "bin" / "python"

    def installed(self):
        return {}


@contextmanager
def _fake_world(mp, python: str, backend: str, fail):
    from torchenv.machine import Machine
    from torchenv.resolve.plan import Plan

    def plan_for(request):
        intent = request.intent
        return Plan(torch_version="2.4.1", tier="cpu", tier_status="stable", cuda_version=None, python=python,
                    backend=backend, installer=intent.env.installer, platform="linux-x86_64", packages=(),
                    pypi_default_build=False, reasons=(), machine=Machine(os="linux", arch="x86_64"),
                    intent=intent)

    mp.setattr("torchenv.backends.make_backend", lambda **kw: FakeBackend(fail=fail, **kw))
    yield plan_for


def _up(project: Path, env_path: str | None, *, force=False, python="3.11", backend="venv", fail=None):
    """``torchenv up`` in-process (the same ``run_up`` the CLI calls), with the fake plan and backend.

    ``env_path``: written to torchenv.toml first (``None``: the file is as the test left it).
    """
    from torchenv.commands._options import up_options
    from torchenv.flows.up import run_up
    from torchenv.ui import Ui

    if env_path is not None:
        _write_env_path(project, env_path)
    args = parse_args("up", "-C", str(project), "--no-verify", *(["--force"] if force else []))
    with pytest.MonkeyPatch.context() as mp, _fake_world(mp, python, backend, fail) as planner:
        return run_up(project, up_options(args), Ui(quiet=True), planner=planner)


def _project(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "torchenv.toml").write_text(TOML)
    _user_code(folder)
    (folder / ".torchenv").mkdir()          # what every project holds once `up` ran
    (folder / ".torchenv" / "verify.json").write_text("{}")
    return folder


def _make(content: str, at: Path, world: Path, project: Path, backend: str) -> None:
    """Put ``content`` at ``at`` (which does not exist yet)."""
    at.parent.mkdir(parents=True, exist_ok=True)
    simple = {"empty": lambda: at.mkdir(), "file": lambda: at.write_text("user's file\n"),
              "dangling-link": lambda: at.symlink_to(world / "gone")}
    if content in simple:
        simple[content]()
    elif content in ("plain-folder", "pyproject-folder", "git-folder"):
        at.mkdir()
        (at / "results.csv").write_text("1\n")
        marker = {"pyproject-folder": "pyproject.toml", "git-folder": ".git"}.get(content)
        if marker:
            (at / marker).mkdir() if marker == ".git" else (at / marker).write_text("[project]\n")
    elif content == "venv-in-checkout":
        at.mkdir()
        _checkout_that_is_also_a_venv_at(at)
    elif content in ("foreign-venv", "legacy"):
        _foreign_venv(at)
        if content == "legacy":
            (at / ".torchenv").mkdir()
            (at / ".torchenv" / "state.json").write_text("{}")
    elif content == "foreign-conda":
        (at / "conda-meta").mkdir(parents=True)
        (at / "conda-meta" / "python-3.11.0-0.json").write_text("{}")
    elif content in ("ours", "ours-interrupted"):
        _up(project, str(at), backend=backend)
        if content == "ours-interrupted":
            st.begin_install(at, "linux-x86_64-cpu")
    elif content == "ours-moved":
        made = world / "made-here"
        _up(project, str(made), backend=backend)
        shutil.copytree(made, at, symlinks=True)
    elif content in ("link-to-ours", "link-to-foreign"):
        real = world / "real-env"
        _make("ours" if content == "link-to-ours" else "foreign-venv", real, world, project, backend)
        at.symlink_to(real)
    elif content == "other-projects-env":
        _up(world / "other", str(at), backend=backend)
    (project / "torchenv.lock").unlink(missing_ok=True)   # each example starts from the user's files only


def _files(world: Path) -> dict[str, str]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(world):
        base = Path(dirpath)
        for name in dirnames + filenames:
            p = base / name
            if p.is_symlink():
                out[str(p)] = "link -> " + os.readlink(p)
            elif p.is_file():
                out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


# What each generated case is, from how it was made (the oracle: never ``safety.claim``, the function under
# test). The first five places always hold the user's work: the project, the folder above it, another project,
# a loose folder of files and the project's sources.
USERS_WORK = frozenset({".", "..", "../other", "../loose", "src"})
KIND_OF_CONTENT = {
    "absent": safety.ABSENT, "empty": safety.EMPTY, "file": safety.NEVER, "dangling-link": safety.NEVER,
    "plain-folder": safety.NEVER, "pyproject-folder": safety.NEVER, "git-folder": safety.NEVER,
    "venv-in-checkout": safety.NEVER, "foreign-venv": safety.FOREIGN, "foreign-conda": safety.FOREIGN,
    "legacy": safety.LEGACY, "ours": safety.OURS, "ours-interrupted": safety.OURS, "ours-moved": safety.FOREIGN,
    "link-to-ours": safety.OURS, "link-to-foreign": safety.FOREIGN, "other-projects-env": safety.FOREIGN,
}
THROUGH_A_LINK = frozenset({"link-to-ours", "link-to-foreign"})


@dataclass(frozen=True)
class Expected:
    """What the case's path is, known from the case: its claim kind and whether it is a link to a folder."""

    path: Path
    kind: str
    link: bool


def _expected(case: dict, path: Path) -> Expected:
    if case["place"] in USERS_WORK:
        return Expected(path, safety.NEVER, link=False)
    return Expected(path, KIND_OF_CONTENT[case["content"]], link=case["content"] in THROUGH_A_LINK)


def _allowed(found: Expected, project: Path, force: bool) -> list[Path]:
    """Where a change is acceptable: torchenv's bookkeeping, and the env when the rules let it be replaced."""
    places = [project / ".torchenv", project / "torchenv.lock"]
    real = found.path.resolve()
    if found.kind in (safety.OURS, safety.LEGACY):
        places.append(real / ".torchenv")
    if not found.link and (found.kind == safety.OURS or (force and found.kind in (safety.FOREIGN, safety.LEGACY))):
        places.append(real)
    return places


def _outside(changed: list[str], allowed: list[Path]) -> list[str]:
    return [c for c in changed if not any(Path(c) == a or a in Path(c).parents for a in allowed)]


layouts = hs.fixed_dictionaries({
    "place": hs.sampled_from(PLACES), "content": hs.sampled_from(CONTENTS), "force": hs.booleans(),
    "python": hs.sampled_from(["3.11", "3.12"]), "backend": hs.sampled_from(["venv", "conda"]),
    "fail": hs.sampled_from(FAILS)})


def _layout(root: Path, case: dict) -> tuple[Path, Path]:
    world = root / "w"
    project = _project(world / "proj")
    _project(world / "other")
    (world / "loose").mkdir()
    (world / "loose" / "thesis.tex").write_text("chapter 1\n")
    (project / "src").mkdir()
    (project / "src" / "model.py").write_text("class Net: ...\n")
    env = (project / case["place"]).absolute()
    if not (env.exists() or env.is_symlink()):
        _make(case["content"], env, world, project, case["backend"])
    return world, project


@pytest.mark.fault("generated layouts (hypothesis, 250 cases): `[env] path` at the project, above it, another "
                   "project, a checkout, a plain folder, a file, a link, a foreign/legacy/moved/interrupted env, "
                   "torchenv's own env; venv and conda; with and without --force; create/install failing or "
                   "interrupted", where="`up` and `up --force` (in-process `run_up`, fake backend)",
                   expect="no file outside an env torchenv proved it made (or, with --force, another Python env) "
                          "is removed or changed; a failed run leaves the old env in place; no "
                          "`*.torchenv-old-*` left")
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(case=layouts)
def test_no_file_outside_a_proven_env_is_ever_removed(case, observed):
    with tempfile.TemporaryDirectory() as tmp:
        world, project = _layout(Path(tmp), case)
        _write_env_path(project, case["place"])
        found = _expected(case, (project / case["place"]).absolute())
        claimed = safety.claim(found.path, project)
        assert (claimed.kind, bool(claimed.link)) == (found.kind, found.link), (case, claimed)
        before = _files(world)
        outcome = "ok"
        try:
            _up(project, None, force=case["force"], python=case["python"], backend=case["backend"],
                fail=case["fail"])
        except (TorchenvError, KeyboardInterrupt) as exc:
            outcome = type(exc).__name__
        after = _files(world)
        event(f"{found.kind}{' via link' if found.link else ''}, force={case['force']}: {outcome}")
        changed = [k for k, v in before.items() if after.get(k) != v]
        allowed = _allowed(found, project, case["force"])
        if outcome != "ok":   # a failed run puts the old env back: only bookkeeping may differ
            allowed = [a for a in allowed if a.name in (".torchenv", "torchenv.lock")]
        assert _outside(changed, allowed) == [], (case, found, outcome)
        assert not [k for k in after if ".torchenv-old-" in k], (case, outcome)
    observed("as expected")


@pytest.mark.fault("generated layouts (hypothesis, 250 cases): `safety.remove_env` / `move_aside` called "
                   "directly on any path", where="the one removal function every caller goes through",
                   expect="removes only an env the marker proves torchenv made for this project at this path "
                          "(or, with force, another Python env); otherwise EnvRefused and nothing changed")
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(case=layouts, how=hs.sampled_from(["remove", "aside"]))
def test_the_removal_function_refuses_everything_else(case, how, observed):
    with tempfile.TemporaryDirectory() as tmp:
        world, project = _layout(Path(tmp), case)
        path = (project / case["place"]).absolute()
        found = _expected(case, path)
        before = _files(world)
        try:
            if how == "remove":
                safety.remove_env(path, project, force=case["force"])
            else:
                aside = safety.move_aside(path, project, force=case["force"])
                if aside is not None:
                    safety.remove_env(aside, project, force=case["force"], made_at=path)
            refused = False
        except safety.EnvRefused:
            refused = True
        changed = [k for k, v in before.items() if _files(world).get(k) != v]
        allowed = [] if refused else _allowed(found, project, case["force"])
        assert _outside(changed, allowed) == [], (case, found)
        if found.kind == safety.NEVER or (found.link and found.kind != safety.EMPTY):
            assert refused, (case, found)
    observed("as expected")


def test_scratch_is_removed_only_inside_its_own_folder(tmp_path):
    """A temp folder or replaced cache entry goes through ``safety.remove_scratch``: a path computed wrongly
    (outside the folder it belongs in, the folder itself, or a link out of it) removes nothing."""
    from torchenv.safety import remove_scratch

    store, user = tmp_path / "store", tmp_path / "user-files"
    (store / ".entry.1.tmp" / "pkg").mkdir(parents=True)
    (user / "notes").mkdir(parents=True)
    (user / "notes" / "thesis.tex").write_text("years of work")
    (store / "link-out").symlink_to(user)
    before = tree_digest(user)
    assert not remove_scratch(user, inside=store)                  # outside
    assert not remove_scratch(store, inside=store)                 # the folder itself
    assert not remove_scratch(store / "link-out", inside=store)    # a link out of it
    assert not remove_scratch(store / ".." / "user-files", inside=store)
    assert tree_digest(user) == before and (store / "link-out").is_symlink()
    assert remove_scratch(store / ".entry.1.tmp", inside=store) and not (store / ".entry.1.tmp").exists()
    assert remove_scratch(store / "gone", inside=store)            # already gone: no error
