"""The words users write for a torch version, a tier and a Python version, and what they mean."""
from __future__ import annotations

import pytest
from packaging.version import Version

from torchenv.intent.versions import InvalidValue, normalise_python, normalise_tier, normalise_torch_spec, torch_spec


@pytest.mark.parametrize("text,spec", [
    ("2.4", "==2.4.*"), ("2.4.1", "==2.4.1"), ("2", "==2.*"), ("v2.4", "==2.4.*"), ("2.4.*", "==2.4.*"),
    (" >= 2.3 , < 2.5 ", ">=2.3,<2.5"), ("~=2.4.0", "~=2.4.0"), ("==2.4.*", "==2.4.*"), ("!=2.4.0", "!=2.4.0"),
    ("2.5.0rc1", "==2.5.0rc1"), (">=2.4.0rc1", ">=2.4.0rc1"), ("===2.4.1", "===2.4.1"),
])
def test_torch_spec_forms(text, spec):
    assert normalise_torch_spec(text) == spec


@pytest.mark.parametrize("text", ["", "latest", ">=2.*", "~=2", "2.4,", "=>2.4", "2.4.1+cu121", "torch==2.4"])
def test_torch_spec_refusals_say_what_to_write(text):
    with pytest.raises(InvalidValue) as info:
        normalise_torch_spec(text)
    assert info.value.hint


@pytest.mark.parametrize("spec,inside,outside", [
    ("2.4", ["2.4.0", "2.4.1", "2.4.10"], ["2.3.1", "2.5.0", "2.4.0rc1", "2.40.0"]),
    ("2.4.1", ["2.4.1"], ["2.4.0", "2.4.2", "2.4.1.1"]),
    (">=2.3,<2.5", ["2.3.0", "2.4.1"], ["2.2.2", "2.5.0"]),
    (None, ["1.13.1", "2.4.1"], ["2.6.0rc1"]),
    (">=2.5.0rc1", ["2.5.0rc1", "2.5.0", "2.6.0"], ["2.4.1"]),
])
def test_torch_spec_selects_releases(spec, inside, outside):
    s = torch_spec(spec)
    for v in inside:
        assert Version(v) in s, v
    for v in outside:
        assert Version(v) not in s, v


@pytest.mark.parametrize("text,tier", [
    ("auto", "auto"), ("AUTO", "auto"), ("cpu", "cpu"), ("12.1", "cu121"), ("cu121", "cu121"), ("CU118", "cu118"),
    (" 12.8 ", "cu128"), ("13.0", "cu130"), ("rocm6.2", "rocm6.2"), ("ROCm6.2.4", "rocm6.2.4"), ("rocm06.2", "rocm6.2"),
])
def test_tier_forms(text, tier):
    assert normalise_tier(text) == tier


@pytest.mark.parametrize("text,hint_part", [
    ("cu12.1", '"cu121"'), ("cuda12.1", '"cu121"'), ("cu-118", '"cu118"'), ("cuda", '"auto"'), ("mps", '"cpu"'),
    ("rocm62", '"rocm6.2"'), ("12", "cu121"), ("9.2", "cu121"), ("", "auto"),
])
def test_tier_refusals(text, hint_part):
    with pytest.raises(InvalidValue) as info:
        normalise_tier(text)
    assert hint_part in info.value.hint


@pytest.mark.parametrize("text,ok", [("3.11", "3.11"), (" 3.8 ", "3.8"), ("3.15", "3.15"), ("3.14t", "3.14t"),
                                     ("3.13T", "3.13t")])
def test_python_forms(text, ok):
    assert normalise_python(text) == ok


@pytest.mark.parametrize("text,hint_part", [
    ("3", '"3.11"'), ("python3.11", '"3.11"'), ("py311", '"3.11"'), ("cp312", '"3.12"'), ("3.11.4", '"3.11"'),
    ("3.7", '"3.11"'), ("4.0", '"3.11"'), ("eleven", '"3.11"'), ("3.12t", '"3.13t"'),
])
def test_python_refusals(text, hint_part):
    with pytest.raises(InvalidValue) as info:
        normalise_python(text)
    assert hint_part in info.value.hint
