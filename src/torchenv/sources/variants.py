"""Read an index's ``{name}-{version}-variants.json`` (PEP 825 draft) and match it to this machine.

Why: an index that publishes variant wheels links, next to the files of a project page, one
JSON file per release mapping each *variant label* (``cu128``) to the properties a machine must
support (``nvidia :: cuda_version_lower_bound :: 12.8``). torchenv cannot install variant wheels
itself (no installer it drives does yet), but it can read the file where one is offered and say
which of the index's variants fit the machine by the same rule a variant-aware installer uses:
within one feature any listed value will do, across features and namespaces all must hold, and
the ``null`` label (no properties) fits everywhere.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import SourceError
from ..i18n import _

if TYPE_CHECKING:
    from .index import IndexFile

Properties = dict[str, dict[str, list[str]]]      # namespace -> feature -> values


@dataclass(frozen=True)
class VariantsFile:
    url: str
    labels: dict[str, Properties]                 # label -> properties it needs ("null": none)


@dataclass(frozen=True)
class LabelFit:
    label: str
    fits: bool
    missing: str = ""                             # "nvidia :: sm_arch :: 120_real" when it does not fit


def variants_filename(project: str, version: str) -> str:
    """``torch-2.9.1-variants.json``: name and version normalised as in wheel file names."""
    return f"{re.sub(r'[-_.]+', '_', project).lower()}-{version}-variants.json"


def find_variants_link(links: list[IndexFile], project: str, version: str) -> IndexFile | None:
    want = variants_filename(project, version)
    return next((f for f in links if f.filename.lower() == want.lower()), None)


def parse_variants(data: Any, url: str) -> VariantsFile:
    """The ``variants`` table of a variants.json; ``SourceError`` naming ``url`` when it is not one."""
    table = data.get("variants") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        raise SourceError(_("{url}: not a variants.json (no \"variants\" table)").format(url=url), url=url,
                          hint=_("the index's variant metadata is ignored; report it to the index's maintainers"))
    labels: dict[str, Properties] = {}
    for label, namespaces in table.items():
        if not isinstance(namespaces, dict) or not all(
                isinstance(features, dict) and all(isinstance(v, list) for v in features.values())
                for features in namespaces.values()):
            raise SourceError(_("{url}: variant {label} is not namespace -> feature -> [values]").format(
                url=url, label=repr(label)), url=url,
                              hint=_("the index's variant metadata is ignored; report it to the index's maintainers"))
        labels[str(label)] = {ns: {f: [str(v) for v in vals] for f, vals in feats.items()}
                              for ns, feats in namespaces.items()}
    return VariantsFile(url=url, labels=labels)


def read_variants(link: IndexFile, timeout: float = 5.0) -> VariantsFile:
    from .http import describe, open_url
    from .index import local_path

    path = local_path(link.url)
    try:
        if path is not None:
            text = path.read_text(encoding="utf-8")
        else:
            with open_url(link.url, timeout=timeout, limit="json") as resp:
                text = resp.read().decode("utf-8", errors="replace")
    except OSError as exc:
        raise SourceError(_("cannot read {url}: {reason}").format(url=link.url, reason=describe(exc)), url=link.url,
                          hint=_("the index's variant metadata is ignored this time")) from None
    try:
        return parse_variants(json.loads(text), link.url)
    except ValueError:
        raise SourceError(_("{url}: not valid JSON").format(url=link.url), url=link.url,
                          hint=_("the index's variant metadata is ignored; report it to the index's maintainers")) from None


def fit(label: str, needs: Properties, supported: Properties) -> LabelFit:
    """Does a machine that supports ``supported`` satisfy every feature ``needs`` names?"""
    for ns, features in needs.items():
        for feature, values in features.items():
            have = supported.get(ns, {}).get(feature, [])
            if not set(values) & set(have):
                return LabelFit(label, False, f"{ns} :: {feature} :: {' | '.join(values)}")
    return LabelFit(label, True)


def _preference(needs: Properties, supported: Properties) -> tuple[int, ...]:
    """Lower is better: the machine's priority of each matched value, in namespace/feature order."""
    ranks = []
    for ns, features in supported.items():
        for feature, order in features.items():
            wanted = needs.get(ns, {}).get(feature)
            ranks.append(min((order.index(v) for v in wanted if v in order), default=len(order)) if wanted
                         else len(order) + 1)
    return tuple(ranks)


def fits_ranked(variants: VariantsFile, supported: Properties) -> list[LabelFit]:
    """Every label with its verdict; fitting ones first, best first (by the machine's value priorities)."""
    verdicts = [fit(label, needs, supported) for label, needs in variants.labels.items()]
    good = sorted((v for v in verdicts if v.fits), key=lambda v: _preference(variants.labels[v.label], supported))
    return good + [v for v in verdicts if not v.fits]


def page_links(url: str, project: str, *, layout: str = "index", timeout: float = 10.0) -> list[IndexFile]:
    """Every link of ``project``'s page (not only package files: a variants.json is not one)."""
    from .index import fetch_page, local_path, normalize, read_local, with_slash

    want = normalize(project)
    local = local_path(url)
    if local is not None:
        folder = local / want if layout == "index" else local
        files = read_local(folder)
        if folder.is_dir() and not (folder / "index.html").is_file():     # a bare folder: list the JSON files too
            from .index import IndexFile

            files += [IndexFile(p.name, p.resolve().as_uri(), None) for p in sorted(folder.glob("*-variants.json"))]
        return files
    page = f"{url.rstrip('/')}/{want}/" if layout == "index" else with_slash(url)
    return fetch_page(page, timeout)
