"""Index pages say which files have a ``.metadata`` file (PEP 658/714) and how big a file is (PEP 700)."""
from __future__ import annotations

from torchenv.sources.index import parse_html, parse_json

BASE = "https://mirror.example/simple/torch/"


def test_html_pages_carry_the_core_metadata_attribute_in_both_spellings():
    page = ('<a href="../../f/a-1-py3-none-any.whl#sha256=aa" data-core-metadata="sha256=BEEF">a</a>'
            '<a href="../../f/b-1-py3-none-any.whl" data-dist-info-metadata="true">b</a>'
            '<a href="../../f/c-1-py3-none-any.whl">c</a>')
    a, b, c = parse_html(page, BASE)
    assert (a.core_metadata, b.core_metadata, c.core_metadata) == ("beef", "", None)
    assert a.sha256 == "aa"


def test_json_pages_carry_core_metadata_and_size():
    data = {"files": [
        {"filename": "a-1-py3-none-any.whl", "url": "a.whl", "hashes": {"sha256": "AA"},
         "core-metadata": {"sha256": "BEEF"}, "size": 1234},
        {"filename": "b-1-py3-none-any.whl", "url": "b.whl", "hashes": {}, "dist-info-metadata": True},
        {"filename": "c-1-py3-none-any.whl", "url": "c.whl", "core-metadata": False, "size": "big"},
    ]}
    a, b, c = parse_json(data, BASE)
    assert (a.core_metadata, a.size, a.sha256) == ("beef", 1234, "aa")
    assert (b.core_metadata, b.size) == ("", None)
    assert (c.core_metadata, c.size) == (None, None)
