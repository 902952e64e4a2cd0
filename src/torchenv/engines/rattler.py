"""The embedded conda engine: py-rattler (pinned 0.28) behind four plain-Python calls.

Why this shape:
* THE only module that imports ``rattler``; its API changes between releases, so every call
  site is here and takes/returns plain data (``CondaRecord``, strings, paths).
* Calls run in a worker process (``python -m torchenv.engines.rattler REQUEST RESULT``): rattler
  rarely dies with SIGSEGV at interpreter exit *after* finishing its work (conda-engine.md
  §1.1). The worker writes its result file atomically before exiting, so the parent judges
  success by that file, never by a crash at teardown; the torchenv process itself never loads
  rattler's runtime. ``TORCHENV_RATTLER_INPROCESS=1`` runs in-process (debugging).
* The installer is always fed records rebuilt from plain data, so a fresh install and an
  install from ``torchenv.lock`` take the same path (no solve, same ``conda-meta``).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from .. import i18n
from ..conda.engine import CondaEngine
from ..conda.records import CondaRecord, records_from_lock  # noqa: F401  (re-exported for callers)
from ..errors import BackendError, HashMismatch, SourceError, TorchenvError
from ..i18n import _

if TYPE_CHECKING:
    from rattler import Client, GenericVirtualPackage, NoArchLiteral, RepoDataRecord
    from rattler.platform import SubdirLiteral

USER_AGENT = "torchenv (py-rattler)"
_HTTP_TIMEOUT_S = 20


# -- public API (parent side) ----------------------------------------------------------------
def solve(channels: Sequence[str], specs: Sequence[str], platform: str, virtual_packages: Sequence[str],
          mirrors: Mapping[str, Sequence[str]] | None = None, *, cache_dir: Path,
          offline: bool = False) -> list[CondaRecord]:
    """Solve ``specs`` for conda subdir ``platform`` as a machine with ``virtual_packages`` sees it.

    ``channels``: canonical base URLs (``conda.channels.channel_url``); ``mirrors``: canonical
    URL prefix -> mirror URLs. Returned records carry canonical URLs whatever mirror served.
    """
    raw = _call("solve", {"channels": list(channels), "specs": list(specs), "platform": platform,
                          "virtual_packages": list(virtual_packages), "mirrors": _plain(mirrors),
                          "cache_dir": str(cache_dir), "offline": offline})
    return [CondaRecord.from_json(r) for r in raw]


def install(records: Sequence[CondaRecord], prefix: Path, cache_dir: Path,
            mirrors: Mapping[str, Sequence[str]] | None = None, *, reinstall: bool = False) -> None:
    """Make ``prefix`` hold exactly ``records`` (download, sha256-check, link); no solve.

    Records already in ``prefix/conda-meta`` are kept (rattler diffs the prefix), unless ``reinstall``.
    """
    verify_local(records)
    _call("install", {"records": [r.to_json() for r in records], "prefix": str(prefix),
                      "cache_dir": str(cache_dir), "mirrors": _plain(mirrors), "reinstall": reinstall})
    _share_metadata(Path(prefix))


class RattlerEngine(CondaEngine):
    """The embedded engine: no conda binary, no network beyond the channels (or their mirrors)."""

    name = "rattler"

    def __init__(self, *, cache_dir: Path, offline: bool = False) -> None:
        self.cache_dir = cache_dir
        self.offline = offline

    def solve(self, *, channels: Sequence[str], specs: Sequence[str], platform: str,
              virtual_packages: Sequence[str], mirrors: Mapping[str, Sequence[str]]) -> list[CondaRecord]:
        return solve(channels, specs, platform, virtual_packages, mirrors, cache_dir=self.cache_dir,
                     offline=self.offline)

    def install(self, *, records: Sequence[CondaRecord], prefix: Path,
                mirrors: Mapping[str, Sequence[str]], reinstall: bool = False) -> None:
        install(records, prefix, self.cache_dir, mirrors, reinstall=reinstall)


def verify_local(records: Sequence[CondaRecord]) -> None:
    """sha256 of ``file://`` packages, checked here: rattler verifies downloads but not local files."""
    import urllib.parse
    import urllib.request

    from ..sources.fetch import sha256_file

    for rec in records:
        if not rec.url.startswith("file:"):
            continue
        local = Path(urllib.request.url2pathname(urllib.parse.urlsplit(rec.url).path))
        if not local.is_file():
            raise SourceError(_("conda package {url} is missing").format(url=rec.url), url=rec.url,
                              hint=_("the local channel moved or was cleaned; re-create it or re-lock"))
        if rec.sha256 and sha256_file(local) != rec.sha256:
            raise HashMismatch(_("conda package {url} does not match the sha256 in the lock ({sha}...)").format(
                url=rec.url, sha=rec.sha256[:12]), url=rec.url,
                hint=_("the local channel holds different bytes than were locked; "
                       "re-lock with `torchenv lock` only if you trust the new file"))


def _share_metadata(prefix: Path) -> None:
    """rattler writes ``conda-meta/*.json`` as 0600; conda writes them readable, which shared envs need."""
    mask = os.umask(0)
    os.umask(mask)
    for meta in (prefix / "conda-meta").glob("*.json"):
        try:
            meta.chmod(0o666 & ~mask)
        except OSError:
            pass


def index_channel(directory: Path) -> None:
    """Write ``<subdir>/repodata.json`` for a local channel directory (bundles, tests)."""
    _call("index", {"directory": str(directory)})


def _plain(mirrors: Mapping[str, Sequence[str]] | None) -> dict[str, list[str]]:
    from ..conda.channels import normalise_mirrors

    return normalise_mirrors({k: list(v) for k, v in (mirrors or {}).items()})


_ERRORS: dict[str, type[TorchenvError]] = {"SourceError": SourceError, "HashMismatch": HashMismatch,
                                            "BackendError": BackendError}


def _call(op: str, args: dict[str, Any]) -> Any:
    if os.environ.get("TORCHENV_RATTLER_INPROCESS") == "1":
        return _OPS[op](**args)
    with tempfile.TemporaryDirectory(prefix="torchenv-rattler-") as tmp:
        request, result = Path(tmp) / "request.json", Path(tmp) / "result.json"
        request.write_text(json.dumps({"op": op, "args": args, "languages": list(i18n.languages())}))
        proc = subprocess.run([sys.executable, "-m", "torchenv.engines.rattler", str(request), str(result)],
                              capture_output=True, text=True)
        if not result.exists():
            tail = (proc.stderr or proc.stdout or "").strip()[-2000:]
            raise BackendError(_("the conda engine (py-rattler) died during {op} (exit {code})").format(
                op=op, code=proc.returncode),
                hint=tail or _("run again; if it repeats, report it with `torchenv doctor` output"))
        data = json.loads(result.read_text())
    if "error" in data:
        err = data["error"]
        cls = _ERRORS.get(err.get("type", ""), BackendError)
        kwargs = {"hint": err.get("hint")}
        if issubclass(cls, SourceError):
            kwargs["url"] = err.get("url")
        raise cls(err["message"], **kwargs)
    return data["result"]


# -- worker side (imports rattler) ------------------------------------------------------------
def _client(mirrors: dict[str, list[str]]) -> Client:
    from rattler.networking import AuthenticationMiddleware, Client, MirrorMiddleware

    middlewares: list[Any] = [MirrorMiddleware(mirrors)] if mirrors else []
    # No RetryMiddleware: an unreachable channel must fail in seconds, with its URL.
    middlewares.append(AuthenticationMiddleware())
    return Client(middlewares, user_agent=USER_AGENT, timeout=_HTTP_TIMEOUT_S)


def _virtual(entries: list[str]) -> list[GenericVirtualPackage]:
    from rattler import GenericVirtualPackage, PackageName, Version
    from rattler.package import BuildString

    from ..conda.virtual import parse

    out = []
    for entry in entries:
        name, version, build = parse(entry)
        out.append(GenericVirtualPackage(PackageName(name), Version(version), BuildString(build)))
    return out


def _to_plain(rec: Any, mirrors: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    from ..conda.channels import canonical_url

    ts = rec.timestamp
    noarch = rec.noarch
    return CondaRecord(
        name=rec.name.normalized, version=str(rec.version), build=str(rec.build), build_number=int(rec.build_number),
        subdir=str(rec.subdir), url=canonical_url(rec.url, mirrors),
        channel=canonical_url((rec.channel or "").rstrip("/"), mirrors).rstrip("/"),
        sha256=rec.sha256.hex() if rec.sha256 else "", md5=rec.md5.hex() if rec.md5 else None,
        size=rec.size, depends=tuple(str(d) for d in rec.depends), constrains=tuple(str(c) for c in rec.constrains),
        noarch=(None if noarch is None or noarch.none else ("python" if noarch.python else "generic")),
        timestamp=int(ts.timestamp() * 1000) if ts is not None else None,
        license=str(rec.license) if rec.license else None,
    ).to_json()


def _from_plain(data: dict[str, Any]) -> RepoDataRecord:
    import datetime

    from rattler import NoArchType, PackageRecord, RepoDataRecord
    from rattler.package import BuildString

    rec = CondaRecord.from_json(data)
    # the lock holds "python" or "generic"; NoArchType itself rejects any other string (ValueError)
    noarch = NoArchType(cast("NoArchLiteral", rec.noarch)) if rec.noarch else None
    pkg = PackageRecord(rec.name, rec.version, BuildString(rec.build), rec.build_number, rec.subdir,
                        noarch=noarch, depends=list(rec.depends), constrains=list(rec.constrains),
                        sha256=bytes.fromhex(rec.sha256) if rec.sha256 else None,
                        md5=bytes.fromhex(rec.md5) if rec.md5 else None, size=rec.size, license=rec.license)
    if rec.timestamp is not None:
        pkg.timestamp = datetime.datetime.fromtimestamp(rec.timestamp / 1000, tz=datetime.timezone.utc)
    return RepoDataRecord(pkg, rec.file_name, rec.url, rec.channel + "/")


def _source_error(exc: Exception, channels: list[str]) -> SourceError | None:
    """A fetch failure, reworded with the channel URL the user can check."""
    name = type(exc).__name__
    text = str(exc)
    if name not in ("FetchRepoDataError", "GatewayError", "IoError", "TransactionError") and \
            "error sending request" not in text and "failed to fetch" not in text.lower():
        return None
    url = next((c for c in channels if c in text or c.rstrip("/") in text), channels[0] if channels else None)
    return SourceError(_("could not fetch conda repodata from {url}: {error}").format(
        url=url, error=text.strip().splitlines()[0]), url=url,
        hint=_("check the channel URL and your network or proxy; a mirror can be set with "
               "[mirror] conda = {{ \"conda-forge\" = \"https://mirror/...\" }} in torchenv.toml").format())


def _solve_error(exc: Exception, specs: list[str], channels: list[str], vpkgs: list[str]) -> BackendError:
    from ..conda.channels import channel_name
    from ..conda.virtual import describe

    text = str(exc).strip()
    # the root cause comes first in rattler's tree ("Cannot solve the request because of: X ...")
    found = [(text.find(s.split()[0].split("=")[0] + " "), s) for s in specs]
    named = sorted((pos, s) for pos, s in found if pos >= 0)
    first = named[0][1] if named else specs[0]
    hint = _("check that `{spec}` exists in channels {channels} for this platform, loosen its version, or add "
             "the channel that has it to [conda] channels").format(
        spec=first, channels=", ".join(channel_name(c) for c in channels))
    if "__cuda" in text:
        cuda = [v for v in vpkgs if v.startswith("__cuda")]
        hint = _("`{spec}` needs a CUDA driver (`__cuda`), and the target machine has {cuda}: plan for a GPU with "
                 "--assume-driver VERSION, or ask for the CPU build with --cuda cpu").format(
            spec=first, cuda=describe(cuda) if cuda else _("none"))
    return BackendError(_("the conda solver found no set of packages satisfying `{spec}` (asked for: {specs}; "
                          "machine: {machine}):\n{error}").format(
        spec=first, specs=", ".join(specs), machine=describe(vpkgs) or _("no virtual packages"), error=text),
        hint=hint)


async def _solve(channels: list[str], specs: list[str], platform: str, virtual_packages: list[str],
                 mirrors: dict[str, list[str]], cache_dir: str | Path, offline: bool) -> list[dict[str, Any]]:
    from rattler import Channel, Gateway, SourceConfig
    from rattler import solve as rsolve

    cache_dir = Path(cache_dir)
    # Sharded repodata fetches only what the solve touches (conda-forge's full repodata is huge);
    # mirrors often lack shards and may answer 403 rather than 404, so mirrored solves skip them.
    config = SourceConfig(sharded_enabled=not mirrors,
                          cache_action="force-cache-only" if offline else "cache-or-fetch")
    gateway = Gateway(cache_dir=cache_dir / "repodata", default_config=config, client=_client(mirrors))
    try:
        recs = await rsolve(sources=[Channel(c) for c in channels], specs=specs, gateway=gateway,
                            platforms=[cast("SubdirLiteral", platform), "noarch"], virtual_packages=_virtual(virtual_packages))
    except Exception as exc:  # rattler raises its own exception classes
        source = _source_error(exc, channels)
        if source is not None:
            raise source from None
        if type(exc).__name__ == "SolverError":
            raise _solve_error(exc, specs, channels, virtual_packages) from None
        raise BackendError(_("the conda engine failed to solve {specs}: {error}").format(
            specs=", ".join(specs), error=exc)) from None
    return [_to_plain(r, mirrors) for r in recs]


async def _install(records: list[dict[str, Any]], prefix: str, cache_dir: str, mirrors: dict[str, list[str]],
                   reinstall: bool = False) -> None:
    from rattler import install as rinstall

    recs = [_from_plain(r) for r in records]
    again = {r.name.normalized for r in recs} if reinstall else None
    try:
        await rinstall(recs, target_prefix=prefix, cache_dir=Path(cache_dir) / "pkgs", show_progress=False,
                       client=_client(mirrors), reinstall_packages=again)
    except Exception as exc:
        text = str(exc).strip()
        bad = next((r for r in records if r["url"].rsplit("/", 1)[-1] in text), None)
        if "hash" in text.lower() or "sha256" in text.lower() or "mismatch" in text.lower():
            raise HashMismatch(_("conda package {url} does not match the sha256 in the lock: {error}").format(
                url=bad["url"] if bad else "", error=text.splitlines()[0]), url=bad["url"] if bad else None,
                hint=_("the channel or mirror serves different bytes; re-lock with "
                       "`torchenv lock` only if you trust the new file")) from None
        if bad is not None:
            raise SourceError(_("could not install conda package {url}: {error}").format(
                url=bad["url"], error=text.splitlines()[0]), url=bad["url"],
                hint=_("check the channel/mirror is reachable")) from None
        raise BackendError(_("the conda engine failed to install into {prefix}: {error}").format(
            prefix=prefix, error=text)) from None


def _worker_ops() -> dict[str, Any]:
    import asyncio

    def index(directory: str) -> None:
        from rattler.index import index_fs

        (Path(directory) / "noarch").mkdir(parents=True, exist_ok=True)
        asyncio.run(index_fs(Path(directory), write_zst=False, write_shards=False, force=True))

    return {"solve": lambda **a: asyncio.run(_solve(**a)), "install": lambda **a: asyncio.run(_install(**a)),
            "index": index}


class _LazyOps(dict[str, Any]):   # op name -> function of the worker
    def __missing__(self, key: str) -> Any:
        self.update(_worker_ops())
        return dict.__getitem__(self, key)


_OPS: dict[str, Any] = _LazyOps()


def _main(request: str, result: str) -> int:
    req = json.loads(Path(request).read_text())
    i18n.use(req.get("languages") or ())        # its messages in the language of the torchenv that asked
    try:
        out: dict[str, Any] = {"result": _OPS[req["op"]](**req["args"])}
    except TorchenvError as exc:
        kind = type(exc).__name__ if type(exc).__name__ in _ERRORS else "BackendError"
        out = {"error": {"type": kind, "message": exc.message, "hint": exc.hint,
                         "url": getattr(exc, "url", None)}}
    except Exception as exc:
        out = {"error": {"type": "BackendError", "message": _("the conda engine failed: {kind}: {error}").format(
            kind=type(exc).__name__, error=exc)}}
    tmp = Path(result + ".part")
    tmp.write_text(json.dumps(out))
    os.replace(tmp, result)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1], sys.argv[2]))
