"""`torchenv mirror list|test|use NAME|auto`: see, measure and choose package mirrors.

Why a verb: in China the right mirror depends on the network the user is on today; this
makes the choice visible (which layer chose what), measurable (latency, speed, and whether
the exact files of the plan are there) and persistent (user config / 24 h auto choice).
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..i18n import _
from ._options import add_json, add_project, add_quiet


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("mirror", help=_("list, test and choose package mirrors (PyPI, PyTorch wheels, conda)"))
    verbs = p.add_subparsers(dest="mirror_cmd", metavar="ACTION")

    ls = verbs.add_parser("list", help=_("presets per kind of source, and which one is active (and why)"))
    add_project(ls)
    add_json(ls)

    test = verbs.add_parser("test", help=_("measure mirrors concurrently and rank them"))
    use = verbs.add_parser("use", help=_("remember a preset (or 'auto': the fastest, re-measured daily) "
                                         "in your user config"))
    use.add_argument("name", metavar="NAME|auto|official")
    add = verbs.add_parser("add", help=_("name your own mirror (a proxy such as Artifactory, Nexus or devpi, "
                                         "or any copy) in your user mirrors file"))
    add.add_argument("name", metavar="NAME")
    add.add_argument("url", metavar="URL", help=_("PyPI: the simple index; torch: the base of <base>/<tier>/; "
                                                  "conda: the URL of the channel's copy"))
    add.add_argument("--kind", required=True, choices=["torch", "pypi", "conda"])
    add.add_argument("--layout", choices=["index", "flat"], default="index",
                     help=_("torch: PEP 503 pages per project (index, default) or one page of files (flat)"))
    add.add_argument("--channel", metavar="CHANNEL",
                     help=_("conda: the channel it mirrors (default: conda-forge)"))
    add_json(add)
    add_quiet(add)
    for q in (test, use):
        add_project(q)
        add_json(q)
        add_quiet(q)
        q.add_argument("--torch", metavar="VERSION", help=_("check the files of this exact torch version"))
        q.add_argument("--cuda", metavar="TIER", help=_("tier to test torch mirrors for (cu121, cpu, 12.1, rocm6.2)"))
        q.add_argument("--python", metavar="X.Y", help=_("Python version of the files to check (default: this one)"))
        q.add_argument("--platform", metavar="OS-ARCH", help=_("platform of the files to check, e.g. linux-x86_64"))
        q.add_argument("--kind", action="append", choices=["pypi", "torch", "conda"],
                       help=_("only test this kind of source (repeatable)"))
        q.add_argument("--candidates-file", metavar="FILE",
                       help=_("mirrors to test instead of the presets (schema of recipes/mirrors.toml)"))
        q.add_argument("--timeout", type=float, default=5.0, metavar="S", help=_("per-request timeout (default 5)"))
    p.set_defaults(func=run, mirror_cmd=None)


def run(args: argparse.Namespace) -> int:
    from ..ui import Ui

    ui = Ui(quiet=getattr(args, "quiet", False), json_mode=getattr(args, "json", False))
    if args.mirror_cmd == "list":
        return _list(args, ui)
    if args.mirror_cmd == "test":
        return _test(args, ui)
    if args.mirror_cmd == "use":
        return _use(args, ui)
    if args.mirror_cmd == "add":
        return _add(args, ui)
    ui.info(_("usage: torchenv mirror list|test|use NAME|auto|add NAME URL  (see torchenv mirror -h)"))
    return 2


# --- list ------------------------------------------------------------------------------------

def _intent(args: argparse.Namespace) -> Any:
    from ..intent.load import load_project_intent

    return load_project_intent(Path(getattr(args, "project", ".") or "."))


def active(intent: Any) -> dict[str, dict[str, Any]]:
    """Per kind: the preset/URL in force and the layer that chose it."""
    from ..sources.mirrors import as_urls, config_layers, pick

    layers = config_layers(intent)
    out: dict[str, dict[str, Any]] = {}
    for kind in ("pypi", "torch", "conda"):
        p = pick(kind, layers)
        if p.layer is None:
            layer = "your pip config" if kind == "pypi" else ("your .condarc" if kind == "conda" else "default")
            out[kind] = {"name": "official" if kind == "torch" else None, "url": None, "layer": layer}
        else:
            urls = None if kind == "conda" else ", ".join(as_urls(p.explicit)) or None
            out[kind] = {"name": p.preset or "custom", "url": urls, "layer": p.layer.label}
        out[kind]["fallback"] = list(p.fallback)
    return out


_KINDS = ("pypi", "torch", "conda")


def _preset_entry(name: str, p: Any, kind: str) -> dict[str, Any]:
    """One preset's row for one kind of source, as ``mirror list --json`` prints it."""
    entry: dict[str, Any] = {"name": name, "verified": p.verified.get(kind, False), "source": p.source.get(kind, ""),
                             "user": kind in p.user}
    if kind == "pypi":
        entry["url"] = p.pypi
    elif kind == "torch":
        entry.update(url=p.torch, layout=p.torch_layout)
    else:
        entry["channels"] = dict(p.conda)
    return entry


def _where(kind: str, row: dict[str, Any]) -> str:
    where = row.get("url") or ", ".join(sorted({v.split('/anaconda')[0] for v in row["channels"].values()}))
    return f"{where} ({row['layout']})" if kind == "torch" else where


def _kind_table(kind: str, rows: list[dict[str, Any]], active_one: dict[str, Any]) -> Any:
    from rich.table import Table

    t = Table(title=_("{kind} mirrors (active: {name} — from {layer})").format(
        kind=kind, name=active_one["name"] or _("not set"), layer=active_one["layer"]))
    for col in ("", _("name"), _("where"), _("verified"), _("from")):
        t.add_column(col)
    for r in rows:
        mark = "*" if r["name"] == active_one["name"] else ""
        t.add_row(mark, r["name"], _where(kind, r), _("yes") if r["verified"] else _("no"),
                  _("your mirrors file") if r["user"] else _("preset"))
    return t


def _list(args: argparse.Namespace, ui: Any) -> int:
    from ..sources.mirrors import presets, user_mirrors_file

    now = active(_intent(args))
    listed: dict[str, list[dict[str, Any]]] = {
        kind: [_preset_entry(name, p, kind) for name, p in sorted(presets().items()) if p.has(kind)]
        for kind in _KINDS}
    if ui.json_mode:
        ui.emit_json({"presets": listed, "active": now})
        return 0
    for kind, rows in listed.items():
        ui.console.print(_kind_table(kind, rows, now[kind]))
    if any(r["user"] for rows in listed.values() for r in rows):
        ui.info(_("your mirrors: {file}").format(file=user_mirrors_file()), markup=False)
    return 0


# --- test --------------------------------------------------------------------------------------

def _tier(args: argparse.Namespace) -> str:
    cuda = (getattr(args, "cuda", None) or "").strip().lower()
    if not cuda:
        return "cpu"
    if cuda[0].isdigit():
        return "cu" + cuda.replace(".", "")
    return cuda


def _lock_needs(lock_path: Path, tier: str) -> tuple[list[Any], str | None]:
    """The lock's files for ``tier``: every torch-index file, then at most ten PyPI-side files."""
    from ..sources.mirrortest import Need

    if not lock_path.is_file():
        return [], None
    try:
        from ..lockfile.io import read_lock

        lock = read_lock(lock_path)
    except Exception as exc:
        return [], f"not checking files: cannot read {lock_path} ({exc})"
    needs = [Need("torch" if w.source == "torch-index" else "pypi", w.name, filename=w.filename)
             for target in lock.targets if target.tier == tier for w in target.wheels]
    pypi = [n for n in needs if n.kind == "pypi"][:10]
    return [n for n in needs if n.kind == "torch"] + pypi, None


def _needs(args: argparse.Namespace, tier: str) -> tuple[list[Any], str | None]:
    """Files to look for: from --torch, else the project's lock. (needs, note)."""
    import platform as _platform
    import sys

    from ..sources.mirrortest import Need

    if not getattr(args, "torch", None):
        return _lock_needs(Path(getattr(args, "project", ".") or ".") / "torchenv.lock", tier)
    python = getattr(args, "python", None) or f"{sys.version_info.major}.{sys.version_info.minor}"
    plat = getattr(args, "platform", None) or _this_platform(_platform)
    version = args.torch.lstrip("=")
    if "+" not in version and tier:
        version = f"{version}+{tier}"
    return [Need("torch", "torch", version=version, python=python, platform=plat)], None


def _this_platform(_platform: Any) -> str:
    import sys

    os_ = "linux" if sys.platform.startswith("linux") else "macos" if sys.platform == "darwin" else "windows"
    arch = _platform.machine().lower()
    arch = {"amd64": "x86_64", "aarch64": "aarch64" if os_ == "linux" else "arm64"}.get(arch, arch)
    return f"{os_}-{arch}"


def _measure(args: argparse.Namespace, ui: Any) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    from ..sources.mirrors import KINDS, load_candidates, presets
    from ..sources.mirrortest import measure_mirrors, rank

    table = load_candidates(Path(args.candidates_file)) if args.candidates_file else presets()
    tier = _tier(args)
    needs, note = _needs(args, tier)
    kinds = tuple(args.kind) if args.kind else KINDS
    if note:
        ui.warn(note)
    ui.step(_("testing {count} mirror(s) for {kinds} (tier {tier}, timeout {seconds} s)").format(
        count=len(table), kinds=", ".join(kinds), tier=tier, seconds=f"{args.timeout:g}"))
    results = measure_mirrors(table, tier=tier, needs=needs, kinds=kinds, timeout=args.timeout)
    ranked = rank(results)
    best = {k: next((r.name for r in rows if r.ok and not r.files_missing), None) for k, rows in ranked.items()}
    data = {
        "tier": tier,
        "needs": [n.label() for n in needs],
        "results": [r.to_json() for k in KINDS for r in ranked[k]],
        "ranking": {k: [r.name for r in rows] for k, rows in ranked.items()},
        "best": best,
    }
    return data, ranked


def _print_results(ui: Any, data: dict[str, Any]) -> None:
    from rich.table import Table

    if ui.quiet:
        return
    t = Table(title=_("mirror test (tier {tier})").format(tier=data["tier"]))
    for col in (_("kind"), _("rank"), _("mirror"), "url", _("latency"), _("speed"), _("files"), _("status")):
        t.add_column(col, overflow="fold")
    rank_in_kind: dict[str, int] = {}
    for r in data["results"]:
        rank_in_kind[r["kind"]] = rank_in_kind.get(r["kind"], 0) + 1
        files = "-" if r["files_needed"] is None else \
            f"{len(r['files_needed']) - len(r['files_missing'] or [])}/{len(r['files_needed'])}"
        status = "ok" if r["ok"] and not r["files_missing"] else (
            _("missing {files}").format(files=", ".join(r["files_missing"])) if r["ok"] else r["error"])
        t.add_row(r["kind"], str(rank_in_kind[r["kind"]]), r["name"], r["url"],
                  f"{r['latency_ms']:.0f} ms" if r["latency_ms"] is not None else "-",
                  f"{r['throughput_kibps']:.0f} KiB/s" if r["throughput_kibps"] is not None else "-",
                  files, status)
    ui.console.print(t)
    best = ", ".join(f"{k}: {v}" for k, v in data["best"].items() if v) or _("none reachable")
    ui.info(_("best: {best}").format(best=best))


def _test(args: argparse.Namespace, ui: Any) -> int:
    data, _ranked = _measure(args, ui)
    if ui.json_mode:
        ui.emit_json(data)
    else:
        _print_results(ui, data)
    return 0 if any(data["best"].values()) else 1


# --- use ---------------------------------------------------------------------------------------

def write_user_choice(name: str) -> Path:
    """Set ``[mirror] use = NAME`` in the user's config.toml, keeping everything else (comments too)."""
    import tomlkit

    from ..errors import IntentError
    from ..sources.mirrors import user_config_file

    path = user_config_file()
    text = path.read_text(encoding="utf-8") if path.exists() else ""   # OSError: cli names path and owner
    try:
        doc = tomlkit.parse(text)
    except Exception as exc:
        raise IntentError(_("not valid TOML, not rewriting it: {error}").format(error=exc), file=str(path),
                          hint=_("fix the file by hand (nothing was changed)")) from None
    if "mirror" not in doc:
        doc["mirror"] = tomlkit.table()
    doc["mirror"]["use"] = name
    from ..fileio import write_atomic

    return write_atomic(path, tomlkit.dumps(doc))


def _use(args: argparse.Namespace, ui: Any) -> int:
    from ..sources.mirrors import Layer, check_name, save_choice

    name = args.name.strip()
    out: dict[str, Any] = {"use": name}
    if name == "auto":
        data, ranked = _measure(args, ui)
        from ..sources.mirrortest import choice_from

        out["choice_file"] = str(save_choice(choice_from(ranked)))
        out["best"] = data["best"]
        out["results"] = data["results"]
        if not ui.json_mode:
            _print_results(ui, data)
    else:
        check_name(name, Layer(label="torchenv mirror use", keys={"use": "NAME"}))
    out["config_file"] = str(write_user_choice(name))
    if ui.json_mode:
        ui.emit_json(out)
    else:
        line = _("[mirror] use = \"{name}\" written to {file}").format(name=name, file=out["config_file"])
        ui.info(line + (_(" (re-measured when older than 24 h: `torchenv mirror use auto`)") if name == "auto"
                        else ""), markup=False)
    return 0


# --- add ---------------------------------------------------------------------------------------

def _add(args: argparse.Namespace, ui: Any) -> int:
    from ..redaction import redact
    from ..sources.usermirrors import MirrorEntry, add_user_mirror

    entry = MirrorEntry(name=args.name.strip(), kind=args.kind, url=args.url.strip(), layout=args.layout,
                        channel=args.channel)
    added = add_user_mirror(entry)
    out = {"name": entry.name, "kind": entry.kind, "url": added.url, "file": str(added.file),
           "login_stored_in": added.login_in}
    if ui.json_mode:
        ui.emit_json(out)
        return 0
    ui.info(_("[{kind}.{name}] {url} written to {file}").format(
        kind=entry.kind, name=entry.name, url=redact(added.url), file=added.file), markup=False)
    if added.login_in:
        ui.info(_("its login is kept in {where}, not in the mirrors file").format(where=added.login_in),
                markup=False)
    if added.login_note:
        ui.warn(added.login_note)
    ui.info(_("use it: `torchenv mirror use {name}`, or [mirror] use/fallback = \"{name}\" in torchenv.toml").format(
        name=entry.name), markup=False)
    return 0
