"""A requirements file (pip's format): torch pins with their local tags, index URLs, companions, includes.

Pure: the files it includes (``-r``, ``-c``) are returned by name; the caller reads them.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..model import ANY, Record
from .specs import requirement_records, tier_from_url


@dataclass(frozen=True)
class ReqFileReading:
    records: tuple[Record, ...]
    includes: tuple[tuple[int, str, str], ...]     # (line, "include"/"constraint", name)
    editables: tuple[tuple[int, str], ...]         # (line, target)


def read_requirements(text: str, file: str, target: str = ANY) -> ReqFileReading:
    from ...requirements_file import parse_requirements_text

    records: list[Record] = []
    includes: list[tuple[int, str, str]] = []
    editables: list[tuple[int, str]] = []
    for entry in parse_requirements_text(text):
        shown = f"{entry.option} {entry.text}".strip()
        if entry.kind in ("include", "constraint"):
            includes.append((entry.line, entry.kind, entry.text))
        elif entry.kind == "index":
            tier = tier_from_url(entry.text)
            if tier:
                records.append(Record(file, entry.line, "cuda", tier, "pin", shown, target))
        elif entry.kind == "editable":
            editables.append((entry.line, entry.text))
        elif entry.kind == "requirement":
            seen = " ".join([entry.text] + [f"{k} {v}".strip() for k, v in entry.options if k != "--hash"])
            for url in entry.values("-i", "--index-url", "--extra-index-url"):
                tier = tier_from_url(url)
                if tier:
                    records.append(Record(file, entry.line, "cuda", tier, "pin", seen, target))
            for text in _one_or_several(entry.text):
                records += requirement_records(text, file, entry.line, "pin", seen, target)
    return ReqFileReading(tuple(records), tuple(includes), tuple(editables))


def _one_or_several(text: str) -> list[str]:
    """``torch==2.0.1+cu118 torchvision==0.15.2+cu118`` on one line (which some projects' own installers
    accept) as its two requirements; any other line as it is."""
    from .specs import split_requirement

    words = text.split()
    if len(words) > 1 and split_requirement(text) is None and all(split_requirement(w) for w in words):
        return words
    return [text]
