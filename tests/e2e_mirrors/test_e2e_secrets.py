"""Private mirrors: a login in a configured URL (or in ``.netrc``) works, and is never shown or stored.

One loopback server plays a private mirror that answers 401 to any request without the right
HTTP Basic login; it serves the torch tier (``/<tier>/``) and the PyPI side (``/simple``). The
login's password is a unique token. The login is given in each place a user can give one
(``PIP_INDEX_URL``, pip.conf, ``[mirror]`` in torchenv.toml, the user's config.toml, the
``--pypi-mirror``/``--torch-mirror`` flags, ``.netrc``); ``up`` must install through it, and the
token must appear in no command's output and in no file torchenv wrote: the lock, the env's
files, torchenv's cache and config, the doctor report, the bundle.
"""
from __future__ import annotations

import secrets
import tarfile
from pathlib import Path

import pytest
from tests.support import serve_dir

from .conftest import ASSUME, TIER, TORCH, assert_ok, pypi_tree, torch_mirror_tree

USER = "deploy"
WAYS = ("PIP_INDEX_URL", "pip.conf", "torchenv.toml", "config.toml", "flags", ".netrc")


def _configure(e2e, way: str, base: str, token: str) -> list[str]:
    """Give the login for ``base`` the ``way`` a user would; returns extra flags for every command."""
    host = base.removeprefix("http://")
    secret = f"http://{USER}:{token}@{host}"
    plain_torch = f'torch = "{base}"\n'
    if way == "PIP_INDEX_URL":
        e2e.extra_env["PIP_INDEX_URL"] = f"{secret}/simple"
        e2e.write_toml(plain_torch)
    elif way == "pip.conf":
        conf = e2e.home / ".config" / "pip" / "pip.conf"
        conf.parent.mkdir(parents=True)
        conf.write_text(f"[global]\nindex-url = {secret}/simple\n")
        e2e.use_user_pip_config = True
        e2e.write_toml(plain_torch)
    elif way == "torchenv.toml":
        e2e.write_toml(f'torch = "{secret}"\npypi = "{secret}/simple"\n')
    elif way == "config.toml":
        e2e.user_config(f'[mirror]\ntorch = "{secret}"\npypi = "{secret}/simple"\n')
        e2e.write_toml()
    elif way == "flags":
        e2e.write_toml()
        return ["--torch-mirror", secret, "--pypi-mirror", f"{secret}/simple"]
    else:
        netrc = e2e.home / ".netrc"
        netrc.write_text(f"machine 127.0.0.1\nlogin {USER}\npassword {token}\n")
        netrc.chmod(0o600)
        e2e.write_toml(f'{plain_torch}pypi = "{base}/simple"\n')
    return []


def _files_with(token: str, *roots: Path, skip: tuple[Path, ...] = ()) -> list[str]:
    found = []
    for root in roots:
        for path in [root] if root.is_file() else root.rglob("*"):
            if path.is_file() and not path.is_symlink() and path not in skip and token.encode() in path.read_bytes():
                found.append(str(path))
    return found


def _bundle_members_with(token: str, bundle: Path) -> list[str]:
    with tarfile.open(bundle) as tar:
        return [m.name for m in tar.getmembers()
                if m.isfile() and token.encode() in tar.extractfile(m).read()]


@pytest.mark.parametrize("way,installer", [(way, "uv") for way in WAYS] + [("pip.conf", "pip"), (".netrc", "pip")])
def test_private_mirror_login_works_and_never_leaks(e2e, e2e_wheels, way, installer):
    token = "tok" + secrets.token_hex(12)
    e2e.installer = installer
    torch_mirror_tree(e2e.root / "mirror", [e2e_wheels.torch, e2e_wheels.vision])
    pypi_tree(e2e.root / "mirror", e2e_wheels, planted=False)
    with serve_dir(e2e.root / "mirror", auth=(USER, token)) as base:
        flags = _configure(e2e, way, base, token)
        proj = ["-C", str(e2e.project)]
        runs = {}
        if installer == "uv":   # the installer-blind commands: the same code for pip, run by the uv case of this way
            runs.update({"plan": e2e.torchenv("plan", *proj, *ASSUME, *flags),
                         "plan --json": e2e.torchenv("plan", "--json", *proj, *ASSUME, *flags)})
        runs["up"] = e2e.up(*flags)
        assert_ok(runs["up"])
        assert e2e.installed_version("torch") == TORCH and e2e.origin("torch") == "genuine"
        assert e2e.installed_version("fakedep") == "1.0.0"
        assert any(h.startswith(f"/{TIER}/torch-") for h in base.hits), base.hits

        # a fresh machine: no env, no cache; the lock has no login, the user's config has it
        import shutil
        shutil.rmtree(e2e.env)
        shutil.rmtree(e2e.torchenv_home / "cache", ignore_errors=True)
        runs["up --frozen"] = e2e.up("--frozen", *flags)
        assert_ok(runs["up --frozen"])
        assert e2e.origin("torch") == "genuine"

        report = e2e.root / "doctor-report.md"
        candidates = e2e.root / "candidates.toml"
        candidates.write_text(f'[pypi.private]\nurl = "http://{USER}:{token}@{base.removeprefix("http://")}/simple"\n')
        bundle = e2e.root / "offline.tar"
        runs.update({
            "lock": e2e.torchenv("lock", *proj, *ASSUME, *flags),
            "doctor": e2e.torchenv("doctor", "--env", str(e2e.env), "--no-import"),
            "doctor --report": e2e.torchenv("doctor", "--env", str(e2e.env), "--no-import", "--report", str(report)),
            "verify --json": e2e.torchenv("verify", "--json", "--env", str(e2e.env), "--timeout", "60"),
            "bundle": e2e.torchenv("bundle", *proj, "--no-tool", "-o", str(bundle)),
        })
        if installer == "uv":
            runs.update({
                "mirror list": e2e.torchenv("mirror", "list", *proj),
                "mirror list --json": e2e.torchenv("mirror", "list", "--json", *proj),
                "mirror test": e2e.torchenv("mirror", "test", "--kind", "pypi", "--candidates-file", str(candidates),
                                            "--timeout", "2", *proj),
            })
            tested = runs["mirror test"].text
            # a refused login is shown as "HTTP 401" (sources.http.describe); a bare "401" may be part of the port
            assert "private" in tested and "HTTP 401" not in tested and "│ ok" in tested, tested

    leaked = {name: run.text for name, run in runs.items() if token in run.text}
    assert not leaked, f"the token was printed by: {sorted(leaked)}\n" + "\n---\n".join(leaked.values())
    users_own = (e2e.home / ".netrc", e2e.home / ".config" / "pip" / "pip.conf", e2e.project / "torchenv.toml",
                 e2e.torchenv_home / "config" / "config.toml")      # where the user wrote the login
    written = _files_with(token, e2e.project, e2e.torchenv_home, e2e.home, report, skip=users_own)
    assert not written, f"the token was written into {written}"
    if bundle.is_file():
        assert _bundle_members_with(token, bundle) == []
    lock_text = e2e.lock.read_text()
    assert f"{USER}:" not in lock_text and "@127.0.0.1" not in lock_text, lock_text


@pytest.mark.parametrize("installer", ["uv", "pip"])
def test_a_wrong_login_fails_with_401_and_no_message_shows_it(e2e, e2e_wheels, installer):
    """When the mirror refuses, every warning, error and engine output is still redacted."""
    token = "tok" + secrets.token_hex(12)
    e2e.installer = installer
    torch_mirror_tree(e2e.root / "torch", [e2e_wheels.torch, e2e_wheels.vision])
    pypi_tree(e2e.root / "pypi", e2e_wheels, planted=False)
    with serve_dir(e2e.root / "torch") as torch, serve_dir(e2e.root / "pypi", auth=(USER, "the-right-one")) as base:
        secret = f"http://{USER}:{token}@{base.removeprefix('http://')}"
        e2e.write_toml(f'torch = "{torch}"\npypi = "{secret}/simple"\n')   # the engine meets the 401
        runs = [e2e.torchenv("plan", "--json", "-C", str(e2e.project), *ASSUME), e2e.up(),
                e2e.torchenv("up", "--json", "-C", str(e2e.project), *ASSUME, "--no-verify")]
    assert runs[1].rc != 0 and runs[2].rc != 0, runs[1].text
    leaked = [run.text for run in runs if token in run.text]
    assert not leaked, "\n---\n".join(leaked)
    assert _files_with(token, e2e.project, e2e.torchenv_home, skip=(e2e.project / "torchenv.toml",)) == []
