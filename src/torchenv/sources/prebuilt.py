"""Prebuilt first: wheels of torch-ABI packages from their projects' own pages, before compiling them.

Why: mmcv, the PyG libraries or detectron2 compile for many minutes (CUDA kernels: an hour) against the
installed torch, and their projects publish wheels built against each torch version and CUDA tier on a
find-links page of their own (the ``prebuilt`` recipe, each source cited). Before a lock would leave such
a package to a compile, the page for the plan's torch, tier and Python is read; its newest wheel that the
requirement allows is pinned and the page given to the resolver as a find-links source, so the wheel is
locked with its sha256 like every other file. A page without a fitting wheel, or no answer, leaves the
package to the build, said. The page serves only the packages its row names.
"""
from __future__ import annotations

import html
import re
import urllib.parse
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..envlayout import dist_name
from ..i18n import _

if TYPE_CHECKING:
    from ..resolve.plan import Plan


@dataclass(frozen=True)
class PrebuiltSource:
    name: str                      # "OpenMMLab"
    packages: frozenset[str]       # normalised names the page serves
    urls: tuple[str, ...]          # the page's template, then its mirrors' templates


@dataclass(frozen=True)
class PrebuiltMatch:
    """A prebuilt wheel to lock instead of a compile: the pin, and the page that lists it."""
    package: str
    version: str
    filename: str
    page: str
    source: str

    @property
    def pin(self) -> str:
        return f"{self.package}=={self.version}"


def sources() -> list[PrebuiltSource]:
    """The user's overlay rows first (their mirrors), then the shipped recipe's."""
    from ..kb.load import overlay, recipe

    rows = [*overlay().get("prebuilt", {}).get("source", []), *recipe("prebuilt").get("source", [])]
    return [PrebuiltSource(str(r["name"]), frozenset(dist_name(p) for p in r.get("packages", [])),
                           (str(r["url"]), *map(str, r.get("mirrors", [])))) for r in rows if r.get("url")]


def page_values(plan: Plan) -> dict[str, str]:
    """What a page template is filled with: the tier and the torch version in the forms the projects use."""
    public = plan.torch_version.partition("+")[0]
    parts = (public.split(".") + ["0", "0"])[:3]
    return {"tier": plan.tier, "torch": public, "torch_minor": ".".join(parts[:2]),
            "torch_minor0": f"{parts[0]}.{parts[1]}.0"}


def listed_files(page_html: str, page_url: str) -> dict[str, str]:
    """File name -> absolute URL of each link on a find-links page."""
    out = {}
    for href in re.findall(r"""href\s*=\s*["']([^"']+)["']""", page_html, re.I):
        url = urllib.parse.urljoin(page_url, html.unescape(href)).partition("#")[0]
        out[urllib.parse.unquote(url.rsplit("/", 1)[-1])] = url
    return out


def best_wheel(files: list[str], requirement: str, plan: Plan) -> tuple[str, str] | None:
    """``(filename, version)`` of the newest wheel in ``files`` that is ``requirement``'s package, allowed by its
    specifier and fits the plan's Python and platform; ``None`` when none does."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.version import InvalidVersion, Version

    from .wheelfit import read_or_none, tag_fits, target_glibc

    try:
        req = Requirement(requirement)
    except InvalidRequirement:
        return None
    glibc = target_glibc(plan.machine, plan.platform)
    fitting = []
    for filename in files:
        wheel = read_or_none(filename)
        if wheel is None or wheel.name != dist_name(req.name):
            continue
        if not req.specifier.contains(wheel.version, prereleases=True):
            continue
        if any(tag_fits(t, python=plan.python, platform=plan.platform, glibc=glibc) for t in wheel.tags):
            try:
                fitting.append((Version(wheel.version), filename, wheel.version))
            except InvalidVersion:
                continue
    if not fitting:
        return None
    _v, filename, version = max(fitting)
    return filename, version


def _requirement_names(requirements: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in requirements:
        m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", line)
        if m and "@" not in line:
            out.setdefault(dist_name(m.group(1)), line.split(";")[0].strip())
    return out


def _read_page(url: str) -> tuple[str | None, str]:
    """The page's text, or ``None`` and why it could not be read."""
    from .http import describe, open_url

    try:
        with open_url(url, timeout=15, limit="page") as resp:
            return bytes(resp.read()).decode("utf-8", errors="replace"), ""
    except (OSError, ValueError) as exc:
        return None, describe(exc)


def _first_page(source: PrebuiltSource, values: dict[str, str]) -> tuple[str, str | None, str]:
    """``(url, text, why not)`` of the first of the source's pages (then its mirrors) that answers."""
    why, page = "", ""
    for template in source.urls:
        page = template.format(**values)
        text, why = _read_page(page)
        if text is not None:
            return page, text, ""
    return page, None, why


def find_prebuilt(plan: Plan, requirements: list[str], ui: Any) -> list[PrebuiltMatch]:
    """The prebuilt wheels to lock for the requirements that name a package of a known page (network: one
    page per source); each package left to a build is said, with why."""
    wanted = _requirement_names(requirements)
    values = page_values(plan)
    found: dict[str, PrebuiltMatch] = {}
    for source in sources():
        names = sorted(n for n in source.packages & set(wanted) if n not in found)
        if not names:
            continue
        page, text, why = _first_page(source, values)
        files = listed_files(text, page) if text is not None else {}
        for name in names:
            best = best_wheel(list(files), wanted[name], plan)
            if best is not None:
                found[name] = PrebuiltMatch(name, best[1], best[0], page, source.name)
            else:
                ui.step(_("no prebuilt wheel of {name} for torch {torch} ({tier}, Python {python}) on {source}'s "
                          "page{why}: it is built from source").format(
                              name=name, torch=values["torch"], tier=plan.tier, python=plan.python,
                              source=source.name, why=f" ({page}: {why})" if text is None else ""))
    return list(found.values())


def with_prebuilt(plan: Plan, matches: list[PrebuiltMatch]) -> Plan:
    """The plan with the pages as find-links sources of its PyPI side, and a reason naming each wheel used."""
    import dataclasses

    if not matches or plan.sources is None:
        return plan
    pypi = plan.sources.pypi
    pages = tuple(dict.fromkeys(m.page for m in matches if m.page not in pypi.find_links))
    reasons = tuple(_("{name} {version}: prebuilt wheel {file} from {source} ({page}), not compiled").format(
        name=m.package, version=m.version, file=m.filename, source=m.source, page=m.page) for m in matches)
    sources = dataclasses.replace(plan.sources, pypi=dataclasses.replace(pypi, find_links=(*pypi.find_links,
                                                                                            *pages)))
    return dataclasses.replace(plan, sources=sources, reasons=plan.reasons + reasons)


def is_prebuilt_host(url: str) -> bool:
    """Is ``url`` on the host of a known prebuilt page (the lock's URL of such a wheel may be fetched)?"""
    host = urllib.parse.urlsplit(url).netloc
    return bool(host) and any(urllib.parse.urlsplit(t.split("{", 1)[0]).netloc == host
                              for s in sources() for t in s.urls)
