"""An index's `{name}-{version}-variants.json` (PEP 825 draft), read where a project page links it, and matched
to the machine's variant properties by the installer rule (any value within a feature, all features)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.server import serve_dir
from torchenv.errors import SourceError
from torchenv.machine import Gpu, Machine, NvidiaInfo
from torchenv.probing.variants import supported_properties
from torchenv.sources.variants import find_variants_link, fits_ranked, page_links, parse_variants, read_variants

VARIANTS = {
    "$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
    "default-priorities": {"namespace": ["nvidia"]},
    "providers": {"nvidia": {"requires": ["nvidia-variant-provider>=0.0.1,<1.0.0"]}},
    "variants": {
        "cu126": {"nvidia": {"cuda_version_lower_bound": ["12.6"], "sm_arch": ["50_real", "60_real", "70_real",
                                                                               "80_real", "86_real", "90_real"]}},
        "cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"], "sm_arch": ["75_real", "80_real", "86_real",
                                                                               "90_real", "120_real"]}},
        "cu130": {"nvidia": {"cuda_version_lower_bound": ["13.0"], "sm_arch": ["75_real", "80_real", "120_real"]}},
        "null": {},
    },
}


def _machine(cuda: str, cc: str) -> Machine:
    return Machine(os="linux", arch="x86_64", nvidia=NvidiaInfo(driver="575.51.03", cuda_driver_version=cuda,
                                                                source="nvml", gpus=[Gpu("gpu", cc)]))


def make_page(root: Path) -> Path:
    page = root / "simple" / "torch"
    page.mkdir(parents=True)
    (page / "torch-2.9.1-variants.json").write_text(json.dumps(VARIANTS))
    wheel = "torch-2.9.1-cp312-cp312-manylinux_2_28_x86_64-cu128.whl"
    (page / "index.html").write_text(f'<a href="{wheel}">{wheel}</a>\n'
                                     '<a href="torch-2.9.1-variants.json">torch-2.9.1-variants.json</a>\n')
    return root / "simple"


def test_variants_json_next_to_the_files_is_read_over_http_and_matched(tmp_path):
    make_page(tmp_path / "idx")
    with serve_dir(tmp_path / "idx") as url:
        links = page_links(f"{url}/simple", "torch")
        link = find_variants_link(links, "torch", "2.9.1")
        assert link is not None and link.url == f"{url}/simple/torch/torch-2.9.1-variants.json"
        variants = read_variants(link)
    ranked = fits_ranked(variants, supported_properties(_machine("12.9", "8.6")))
    assert [(v.label, v.fits) for v in ranked] == [("cu128", True), ("cu126", True), ("null", True),
                                                   ("cu130", False)]
    assert ranked[-1].missing == "nvidia :: cuda_version_lower_bound :: 13.0"


def test_an_old_gpu_fits_only_the_variant_with_its_code(tmp_path):
    variants = parse_variants(VARIANTS, "x")
    ranked = fits_ranked(variants, supported_properties(_machine("13.0", "6.1")))
    assert [v.label for v in ranked if v.fits] == ["cu126", "null"]
    assert next(v for v in ranked if v.label == "cu128").missing.startswith("nvidia :: sm_arch :: 75_real")


def test_no_gpu_fits_only_null_and_a_local_folder_works(tmp_path):
    simple = make_page(tmp_path)
    (simple / "torch" / "index.html").unlink()                    # a bare folder: the JSON file is still found
    link = find_variants_link(page_links(str(simple), "torch"), "torch", "2.9.1")
    ranked = fits_ranked(read_variants(link), supported_properties(Machine(os="linux", arch="x86_64")))
    assert [v.label for v in ranked if v.fits] == ["null"]


def test_a_broken_variants_file_is_a_named_source_error(tmp_path):
    bad = tmp_path / "torch-2.9.1-variants.json"
    bad.write_text('{"variants": {"cu128": {"nvidia": "12.8"}}}')
    from torchenv.sources.index import IndexFile

    with pytest.raises(SourceError, match="cu128"):
        read_variants(IndexFile(bad.name, bad.as_uri(), None))
    bad.write_text("{not json")
    with pytest.raises(SourceError, match="not valid JSON"):
        read_variants(IndexFile(bad.name, bad.as_uri(), None))
