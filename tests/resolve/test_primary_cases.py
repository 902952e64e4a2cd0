"""Machine x intent cases settled from primary sources (``primary_cases.csv``; every row names its `source`).

Columns: os, arch, wsl (1 = WSL2), driver, gpus ("+"-joined keys of GPUS), rocm (gfx targets), pythons
(";"-joined, default 3.11), torch / cuda / python / policy / experimental (the intent), and `expect`:
"<torch> <tier>" for a plan, or "refuse <alternative kind that must be offered>".
"""
from __future__ import annotations

import csv
from pathlib import Path

import pytest
from resolve_machines import intent, machine

from torchenv.errors import PlanRefused
from torchenv.resolve.resolver import resolve

GPUS = {
    "GH200": ("NVIDIA GH200 480GB", "9.0"), "GB200": ("NVIDIA GB200", "10.0"), "GB10": ("NVIDIA GB10", "12.1"),
    "THOR": ("NVIDIA Jetson T5000 (Thor)", "11.0"), "RTX5090": ("NVIDIA GeForce RTX 5090", "12.0"),
    "RTX5080": ("NVIDIA GeForce RTX 5080", "12.0"), "RTX5070": ("NVIDIA GeForce RTX 5070", "12.0"),
    "RTX4090": ("NVIDIA GeForce RTX 4090", "8.9"), "RTX3090": ("NVIDIA GeForce RTX 3090", "8.6"),
    "RTX3080": ("NVIDIA GeForce RTX 3080", "8.6"), "GTX1080TI": ("NVIDIA GeForce GTX 1080 Ti", "6.1"),
    "T4": ("Tesla T4", "7.5"), "V100": ("Tesla V100-SXM2-16GB", "7.0"), "A100": ("NVIDIA A100-SXM4-80GB", "8.0"),
    "H100": ("NVIDIA H100 80GB HBM3", "9.0"), "K80": ("Tesla K80", "3.7"),
}
ROWS = list(csv.DictReader((Path(__file__).parent / "primary_cases.csv").open(encoding="utf-8")))


def machine_of(row: dict[str, str]):
    gpus = [GPUS[k] for k in row["gpus"].split("+") if k]
    return machine(os=row["os"], arch=row["arch"], wsl=row["wsl"] == "1", driver=row["driver"] or None, gpus=gpus,
                   rocm=tuple(row["rocm"].split("+")) if row["rocm"] else None,
                   pythons=tuple(row["pythons"].split(";")) if row["pythons"] else ("3.11.7",))


def intent_of(row: dict[str, str]):
    return intent(version=row["torch"] or None, cuda=row["cuda"] or "auto", python=row["python"] or None,
                  policy=row["policy"] or "compat", experimental=row["experimental"] == "1")


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_primary_case(row):
    expect = row["expect"].split()
    if expect[0] == "refuse":
        with pytest.raises(PlanRefused) as info:
            resolve(intent_of(row), machine_of(row))
        kinds = [a["kind"] for a in info.value.alternatives]
        assert expect[1] in kinds, (row["source"], info.value.message, info.value.alternatives)
        return
    plan = resolve(intent_of(row), machine_of(row))
    assert [plan.torch_version, plan.tier] == expect, (row["source"], plan.reasons)


def test_every_row_cites_a_source_and_the_table_covers_the_classes():
    assert len(ROWS) >= 60 and len({r["id"] for r in ROWS}) == len(ROWS)
    assert all(r["source"].strip() for r in ROWS)
    ids = " ".join(r["id"] for r in ROWS)
    for word in ("gh200", "gb200", "gb10", "thor", "rocm", "win-5090-r58", "wsl", "ft-", "torch1.9", "torch1.13"):
        assert word in ids, word
