"""``doctor --explain``: match a pasted error to the catalogue (recipes/errors.toml), then prove or rule out
each cause with doctor's own checks on this machine and env.

Why checked rather than looked up: the same message has several causes ("is_available() is False":
CPU build, driver, CUDA_VISIBLE_DEVICES, WSL). Answering with the cause the checks confirm, and the fix
computed for *this* env, is what a search engine cannot do.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..i18n import _
from .model import Context, EnvFacts, Finding

if TYPE_CHECKING:
    from ..machine import Machine

_BUILD = re.compile(r"\b(\d+\.\d+\.\d+)\+(cu\d{3}|cpu|rocm[\d.]+)\b")
_TIER = re.compile(r"\b(cu1[0-3]\d)\b")
_SM = re.compile(r"capability (sm_(\d+?)(\d))\b")
_SUPPORTS = re.compile(r"supports CUDA capabilities ((?:(?:sm|compute)_\d+\w? ?)+)")


@dataclass(frozen=True)
class Entry:
    id: str
    pattern: re.Pattern[str]
    cause: str
    fix: str
    confirm: tuple[str, ...]
    config: bool
    source: str


@lru_cache(maxsize=1)
def catalogue() -> tuple[Entry, ...]:
    from importlib import resources

    from ..fileio import tomllib_module

    data = tomllib_module().loads((resources.files("torchenv.recipes") / "errors.toml").read_text())
    return tuple(Entry(e["id"], re.compile(e["pattern"], re.I | re.M), e["cause"], e["fix"],
                       tuple(e.get("confirm", ())), bool(e.get("config", True)), e.get("source", ""))
                 for e in data["error"])


def match(text: str) -> list[tuple[Entry, dict[str, str]]]:
    out = []
    for entry in catalogue():
        m = entry.pattern.search(text)
        if m:
            groups = {k: v for k, v in m.groupdict().items() if v}
            groups["message"] = m.group(0).strip()
            out.append((entry, groups))
    return out


class _Blank(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return f"<{key}>"


def _machine_from_text(machine: Machine, text: str) -> Machine:
    """A GPU named by the message (``capability sm_61``) stands in when the machine shows none."""
    m = _SM.search(text)
    if not m or machine.gpus:
        return machine
    from ..machine import Gpu, NvidiaInfo

    gpu = Gpu(name=_("GPU from the message"), compute_capability=f"{int(m.group(2))}.{m.group(3)}")
    nv = machine.nvidia or NvidiaInfo(driver=None, cuda_driver_version=None, source="assumed")
    return dataclasses.replace(machine, nvidia=dataclasses.replace(nv, gpus=[gpu]))


def _build_from_text(text: str, machine: Machine) -> EnvFacts | None:
    """The torch build the message names (``2.8.0+cu128``), else what ``pip install torch`` gives today."""
    from . import knowledge

    m = _BUILD.search(text)
    if m:
        version, tier, how = m.group(1), m.group(2), _("named in the pasted text")
    else:
        version = knowledge.latest_torch()
        if not version:
            return None
        t = _TIER.search(text)
        tier = t.group(1) if t else knowledge.pypi_default(version, machine.platform_key) or "cpu"
        how = _("named in the pasted text") if t else _("assumed: what `pip install torch` gives ({version}, {tier})"
                                                         ).format(version=version, tier=tier)
    archs: tuple[str, ...] = ()
    s = _SUPPORTS.search(text)
    if s:
        archs = tuple(s.group(1).split())
    elif tier.startswith("cu"):
        archs = knowledge.compiled_archs(version, tier, machine.platform_key)
    return EnvFacts(prefix=_("(no env: build {how})").format(how=how), kind="text", python=None, interpreter=None,
                    torch_version=f"{version}+{tier}", torch_cuda=knowledge.tier_cuda(tier), archs=archs,
                    archs_source=how)


def _placeholders(groups: dict[str, str], env: EnvFacts | None, machine: Machine, ctx: Context) -> _Blank:
    from . import fixes

    vals = _Blank(groups)
    if "found" in groups and groups["found"].isdigit() and len(groups["found"]) >= 4:
        n = int(groups["found"])
        vals["found_cuda"] = f"{n // 1000}.{(n % 1000) // 10}"
    version = env.torch_public if env and env.torch_version else None
    found = fixes.working_tier(machine, version, env.python if env else None) if version else None
    vals["env_install"] = fixes.install_build(env, found[0], found[1], ctx.torch_mirror)[0] if found else "torchenv up"
    vals["env_install_cpu"] = fixes.pip_install(env, [f"torch=={version}+cpu"], fixes.index_url("cpu", ctx.torch_mirror)) \
        if version else "torchenv up --cuda cpu"
    if "pkg2" in groups and "pkg" not in groups:
        vals["pkg"] = groups["pkg2"]
    return vals


_BUILD_IDS = frozenset({"cpu-build", "driver-too-old", "arch-missing", "companion-mismatch", "no-driver", "no-torch"})


def _findings_for_text(text: str, machine: Machine, env: EnvFacts | None, findings: list[Finding], ctx: Context
                       ) -> tuple[list[Finding], EnvFacts | None]:
    """The findings to match the text against: without an env, the build checks of the build the text names;
    with an ``sm_XX`` in the text, the build checks rerun for the machine the text describes."""
    from . import checks_build

    others = [f for f in findings if f.id not in _BUILD_IDS]
    if env is None or not env.torch_version:
        env = _build_from_text(text, machine)
        built = checks_build.run_all(machine, env, ctx) if env else []
        return [f for f in built if f.id != "no-driver" or machine.gpus] + others, env
    if _SM.search(text):
        return checks_build.run_all(machine, env, ctx) + others, env
    return findings, env


def _confirmed(entry: Entry, message: str, cause: str, confirming: list[tuple[int, Finding]]) -> Finding:
    """A catalogue entry a check found here: the first such finding's fix, the others' fixes as alternatives."""
    first = confirming[0][1]
    detail = _("{cause} Confirmed here: {findings}").format(
        cause=cause, findings=" | ".join(f"{f.title}: {f.detail}" for _i, f in confirming))
    alts = tuple(a for _i, f in confirming for a in ((f.fix,) if f is not first and f.fix else ())
                 + f.alternatives)
    return Finding("error", f"'{message}': {first.title}", detail, first.fix, entry.id, alts)


def _not_confirmed(entry: Entry, message: str, cause: str, fix: str) -> Finding:
    checked = ", ".join(entry.confirm) or _("none")
    return Finding("warning", _("'{message}': cause not confirmed on this machine/env").format(message=message),
                   _("{cause} Checks that found nothing here: {checked} (the error may come from "
                     "another machine or env; rerun with --env/--assume-*).").format(cause=cause, checked=checked),
                   fix, entry.id)


def _answer(entry: Entry, groups: dict[str, str], findings: list[Finding], vals: _Blank, used: set[int]) -> Finding:
    """One matched catalogue entry as a finding; the findings that confirm it are added to ``used``."""
    cause = _(entry.cause).format_map(vals)
    message = groups["message"]
    if not entry.config:
        return Finding("info", _("'{message}' is not a configuration problem").format(message=message),
                       cause, _(entry.fix).format_map(vals), entry.id)
    confirming = [(i, f) for i, f in enumerate(findings) if f.id in entry.confirm]
    if not confirming:
        return _not_confirmed(entry, message, cause, _(entry.fix).format_map(vals))
    used.update(i for i, _f in confirming)
    return _confirmed(entry, message, cause, confirming)


def explain(text: str, machine: Machine, env: EnvFacts | None, findings: list[Finding], ctx: Context
            ) -> tuple[list[Finding], Machine, EnvFacts | None]:
    """Findings answering ``text``: one per matched catalogue entry (confirmed or not), then the rest."""
    matches = match(text)
    machine = _machine_from_text(machine, text)
    findings, env = _findings_for_text(text, machine, env, findings, ctx)
    used: set[int] = set()
    out = [_answer(entry, groups, findings, _placeholders(groups, env, machine, ctx), used)
           for entry, groups in matches]
    if not matches:
        out.append(Finding("info", _("No known error message matched"),
                           _("the catalogue ({count} entries, recipes/errors.toml) has no pattern for this "
                             "text; the findings below come from checking this machine and env.").format(
                               count=len(catalogue())), None, "no-match"))
    out += [f for i, f in enumerate(findings) if i not in used]
    return out, machine, env


def runtime_findings(texts: list[str], findings: list[Finding]) -> list[Finding]:
    """Errors the in-env import check produced that no static check explained yet."""
    have = {f.id for f in findings}
    out = []
    for text in texts:
        for entry, groups in match(text):
            if entry.config and not (set(entry.confirm) & have):
                out.append(Finding("error", _("import check: {message}").format(message=groups["message"]),
                    _("{cause} (seen when the env's interpreter imported it; no static check explains it)").format(
                        cause=_(entry.cause).format_map(_Blank(groups))),
                    _(entry.fix).format_map(_Blank(groups, env_install="torchenv up",
                                                   env_install_cpu="torchenv up --cuda cpu")),
                    f"runtime-{entry.id}"))
                have.add(f"runtime-{entry.id}")
    return out


def evidence(data: dict[str, Any], package: str | None = None) -> str:
    """One line summarising the import check: about ``package`` (a companion) or about torch itself."""
    if data.get("timeout"):
        return f"import torch did not finish within {data['timeout']:.0f}s"
    if data.get("crashed") is not None:
        return f"import torch crashed (exit {data['crashed']}{', ' + data['signal'] if data.get('signal') else ''})"
    if data.get("torch_error"):
        return f"import torch failed: {data['torch_error']}"
    imports = data.get("imports") or {}
    if package is not None:
        res = imports.get(package)
        return f"import {package}: " + ("ok" if res == "ok" else (res or "not tried").splitlines()[-1])
    bad = {k: v for k, v in imports.items() if v != "ok"}
    line = f"import torch ok, cuda available: {data.get('cuda_available')}"
    return line + "".join(f"; import {k} failed: {v.splitlines()[-1]}" for k, v in bad.items())
