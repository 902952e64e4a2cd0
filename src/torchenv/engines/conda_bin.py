"""Drive the user's own conda, mamba or micromamba: solve with ``create --dry-run --json``,
install with ``create --file explicit.txt`` (an ``@EXPLICIT`` list: no second solve).

Why use theirs when it is there: their ``.condarc`` carries what torchenv cannot guess (a
corporate channel_alias, custom_channels, proxy, SSL and auth settings), and the env it makes
is one they already know how to manage. Virtual packages still come from the Machine, through
``CONDA_OVERRIDE_*`` and ``CONDA_SUBDIR``, so a GPU-less host can solve for a CUDA target.
"""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from ..conda.channels import canonical_url
from ..conda.engine import CondaEngine
from ..conda.records import CondaRecord
from ..conda.virtual import parse
from ..errors import BackendError, SourceError
from ..i18n import _

# virtual package -> the override conda, mamba and micromamba all read (an empty value disables it)
_OVERRIDES = {"__cuda": "CONDA_OVERRIDE_CUDA", "__glibc": "CONDA_OVERRIDE_GLIBC", "__osx": "CONDA_OVERRIDE_OSX",
              "__linux": "CONDA_OVERRIDE_LINUX", "__win": "CONDA_OVERRIDE_WIN",
              "__archspec": "CONDA_OVERRIDE_ARCHSPEC"}
_TIMEOUT_S = 900


class CondaBinary(CondaEngine):
    def __init__(self, *, path: str, kind: str) -> None:
        self.path = path
        self.kind = kind            # conda | mamba | micromamba
        self.name = kind

    # -- argument and environment construction (pure; tested with a fake binary) ---------------
    def solve_args(self, *, prefix: Path, channels: Sequence[str], specs: Sequence[str]) -> list[str]:
        args = [self.path, "create", "--dry-run", "--json", "--yes", "--prefix", str(prefix), "--override-channels"]
        for channel in channels:
            args += ["--channel", channel]
        return args + list(specs)

    def install_args(self, *, prefix: Path, explicit_file: Path, fresh: bool = True,
                     reinstall: bool = False) -> list[str]:
        """``create`` for a new prefix; ``install`` (explicit: no solve) to update an existing env in place."""
        verb = "create" if fresh else "install"
        again = ["--force-reinstall"] if reinstall and not fresh else []
        return [self.path, verb, "--yes", "--json", *again, "--prefix", str(prefix), "--file", str(explicit_file)]

    def environment(self, *, platform: str, virtual_packages: Sequence[str]) -> dict[str, str]:
        env = dict(os.environ)
        env["CONDA_SUBDIR"] = platform
        given = {parse(v)[0]: parse(v) for v in virtual_packages}
        for vname, var in _OVERRIDES.items():
            if vname in given:
                name, version, build = given[vname]
                env[var] = build if vname == "__archspec" else version
            elif vname == "__cuda":
                env[var] = ""          # no GPU on the target: hide this host's driver from the solver
        return env

    # -- engine ---------------------------------------------------------------------------------
    def solve(self, *, channels: Sequence[str], specs: Sequence[str], platform: str,
              virtual_packages: Sequence[str], mirrors: Mapping[str, Sequence[str]]) -> list[CondaRecord]:
        with tempfile.TemporaryDirectory(prefix="torchenv-solve-") as tmp:
            args = self.solve_args(prefix=Path(tmp) / "env", channels=channels, specs=specs)
            out = self._run(args, self.environment(platform=platform, virtual_packages=virtual_packages),
                            what=_("solve {specs}").format(specs=" ".join(specs)), specs=specs)
        records = [self._record(entry, mirrors) for entry in _link_entries(out)]
        if not records:
            raise BackendError(_("{tool} reported no packages to install for {specs}").format(
                tool=self.kind, specs=", ".join(specs)),
                hint=_("run `{command}` yourself to see what it says").format(command=" ".join(args)))
        return records

    def install(self, *, records: Sequence[CondaRecord], prefix: Path,
                mirrors: Mapping[str, Sequence[str]], reinstall: bool = False) -> None:
        from ..conda.export import explicit_text

        prefix = Path(prefix)
        meta = prefix / "conda-meta"
        fresh = not any(meta.glob("*.json"))
        others = [p for p in prefix.iterdir() if p.name != "conda-meta"] if prefix.is_dir() else []
        if fresh and others and (meta / "history").is_file():
            # `up` has put its `.torchenv` marker in the prefix: `create` would wipe it (conda asks to
            # remove an existing env) or refuse a non-empty folder (micromamba). `conda-meta/history`
            # already makes it an env, so `install` fills it from the explicit list, still no solve.
            fresh = False
        elif fresh and meta.is_dir() and {p.name for p in meta.iterdir()} <= {"history"}:
            # only the backend's own claim marker: let `create` see a new prefix (no "remove existing?")
            (meta / "history").unlink(missing_ok=True)
            meta.rmdir()
            if not any(prefix.iterdir()):
                prefix.rmdir()
        with tempfile.TemporaryDirectory(prefix="torchenv-explicit-") as tmp:
            explicit = Path(tmp) / "explicit.txt"
            explicit.write_text(explicit_text(records, header=f"torchenv install into {prefix}"))
            self._run(self.install_args(prefix=prefix, explicit_file=explicit, fresh=fresh, reinstall=reinstall),
                      dict(os.environ),
                      what=_("install into {prefix}").format(prefix=prefix), specs=())

    def _run(self, args: list[str], env: dict[str, str], *, what: str, specs: Sequence[str]) -> dict[str, Any]:
        try:
            proc = subprocess.run(args, capture_output=True, text=True, env=env, timeout=_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise BackendError(_("could not run {path} ({error})").format(path=self.path, error=exc),
                               hint=_("check the executable, or set TORCHENV_CONDA_ENGINE=rattler to use the "
                                      "embedded engine")) from None
        try:
            data: dict[str, Any] = json.loads(proc.stdout or "{}")   # conda's --json report
        except json.JSONDecodeError:
            data = {}
        if proc.returncode != 0 or data.get("success") is False or "error" in data:
            raise _error(self.kind, what, data, proc, specs)
        return data

    def _record(self, entry: dict[str, Any], mirrors: Mapping[str, Sequence[str]]) -> CondaRecord:
        entry = dict(entry)
        if not entry.get("sha256") or not entry.get("url"):
            entry.update(self._from_package_cache(entry))
        url = entry.get("url")
        if not url or not (entry.get("sha256") or entry.get("md5")):
            raise BackendError(_("{tool} did not report the URL and hashes of {name} {version}, so it cannot be "
                                 "locked").format(tool=self.kind, name=entry.get("name"), version=entry.get("version")),
                               hint=_("clear its package cache (`conda clean --packages`) or set "
                                      "TORCHENV_CONDA_ENGINE=rattler"))
        return _conda_record(entry, canonical_url(url, mirrors))

    def _from_package_cache(self, entry: dict[str, Any]) -> dict[str, Any]:
        """conda's LINK entries omit hashes for packages already in its cache: read them there."""
        dist = entry.get("dist_name") or f"{entry.get('name')}-{entry.get('version')}-{entry.get('build_string')}"
        for pkgs in self._pkgs_dirs():
            record = Path(pkgs) / dist / "info" / "repodata_record.json"
            if record.is_file():
                try:
                    return cast("dict[str, Any]", json.loads(record.read_text()))
                except (OSError, json.JSONDecodeError):
                    continue
        return {}

    def _pkgs_dirs(self) -> list[str]:
        try:
            proc = subprocess.run([self.path, "info", "--json"], capture_output=True, text=True, timeout=60)
            info = json.loads(proc.stdout or "{}")
        except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError):
            return []
        return list(info.get("pkgs_dirs") or info.get("package cache") or [])


def _timestamp_ms(entry: dict[str, Any]) -> int | None:
    """The build time in milliseconds, as repodata stores it (conda reports seconds in some versions)."""
    ts = entry.get("timestamp")
    if isinstance(ts, (int, float)) and ts < 1e11:
        ts = ts * 1000
    return int(ts) if ts else None


def _conda_record(entry: dict[str, Any], url: str) -> CondaRecord:
    """A record of what conda reported for one package (with its hashes), fetched from ``url``."""
    subdir = entry.get("subdir") or entry.get("platform") or url.rsplit("/", 2)[-2]
    noarch = entry.get("noarch")
    return CondaRecord(
        name=entry["name"], version=str(entry["version"]),
        build=entry.get("build") or entry.get("build_string") or "", build_number=int(entry.get("build_number") or 0),
        subdir=subdir, url=url, channel=url.rsplit("/", 2)[0], sha256=entry.get("sha256") or "",
        md5=entry.get("md5"), size=entry.get("size"), depends=tuple(entry.get("depends") or ()),
        constrains=tuple(entry.get("constrains") or ()),
        noarch=noarch if noarch in ("generic", "python") else None,
        timestamp=_timestamp_ms(entry), license=entry.get("license"))


def _link_entries(out: dict[str, Any]) -> list[dict[str, Any]]:
    """LINK entries completed with FETCH ones (conda puts URLs and hashes only in FETCH)."""
    actions = out.get("actions") or {}
    if isinstance(actions, list):                      # old conda: a list of action dicts
        actions = actions[0] if actions else {}
    fetch = {(e.get("name"), str(e.get("version")), e.get("build") or e.get("build_string")): e
             for e in actions.get("FETCH") or []}
    entries = []
    for link in actions.get("LINK") or []:
        key = (link.get("name"), str(link.get("version")), link.get("build") or link.get("build_string"))
        entries.append({**link, **fetch.get(key, {})})
    return entries


def _error(kind: str, what: str, data: dict[str, Any], proc: subprocess.CompletedProcess[str],
           specs: Sequence[str]) -> Exception:
    message = data.get("message") or data.get("error") or (proc.stderr or proc.stdout or "").strip()[-1500:]
    exc_name = data.get("exception_name", "")
    if exc_name in ("CondaHTTPError", "UnavailableInvalidChannel") or "HTTP" in exc_name:
        url = data.get("url") or data.get("channel_url")
        return SourceError(_("{tool} could not reach a channel{url}: {message}").format(
            tool=kind, url=f" ({url})" if url else "", message=message), url=url,
            hint=_("check the channel URL, your .condarc (channel_alias, proxy) and the network"))
    missing = [s for s in specs if s.split()[0] in str(message)]
    first = missing[0] if missing else (specs[0] if specs else "")
    hint = (_("check that `{spec}` exists in the channels for this platform, or loosen its version").format(
        spec=first) if specs else _("run the command yourself to see the full output"))
    return BackendError(_("{tool} failed to {what} (exit {code}): {message}").format(
        tool=kind, what=what, code=proc.returncode, message=message), hint=hint)
