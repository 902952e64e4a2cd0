"""Probe findings are data (a catalogue id, its values, who decided), English as text, and read in Chinese where
they are shown (probe, doctor), also after ``probe --save`` and ``--machine FILE``."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from probe_fakes import SMI_FIELDS_NO_CC, Recorded, smi_key, smi_out

from torchenv import i18n
from torchenv.reasons import shown as translate_finding

CJK = re.compile(r"[\u4e00-\u9fff]")
ENGLISH_PHRASE = re.compile(r"\b[A-Za-z]+ [A-Za-z]+ [A-Za-z]+\b")
PROC_550 = (Path(__file__).parent / "data" / "proc" / "open-550.txt").read_text()


def _machines(probe, tree):
    """Probes that each leave a different kind of finding (the failure modes of test_nvidia_smi.py)."""
    tree.exe("/usr/bin/nvidia-smi")
    yield probe(run=Recorded({smi_key(): (9, smi_out("no-driver.out"))}))
    yield probe(run=Recorded({smi_key(): subprocess.TimeoutExpired("nvidia-smi", 5)}))
    yield probe(run=Recorded({smi_key(): (-11, "")}))
    yield probe(run=Recorded({smi_key(): (0, smi_out("535-mixed-1080ti-3090.out"))}),
                env={"CUDA_VISIBLE_DEVICES": "1"})
    yield probe(run=Recorded({smi_key(): (0, smi_out("550-rtx4090.out"))}), env={"CUDA_VISIBLE_DEVICES": "7"})
    yield probe(run=Recorded({smi_key(): (0, smi_out("550-rtx4090.out"))}), env={"CUDA_HOME": "/nowhere"})
    tree.write("/proc/driver/nvidia/version", PROC_550)
    yield probe(run=Recorded({smi_key(): (18, smi_out("mismatch.out"))}))
    tree.write("/sys/module/nvidia/version", "550.144.03\n")
    yield probe(run=Recorded({smi_key(): (6, smi_out("no-devices.out"))}))
    (tree.root / "usr/bin/nvidia-smi").unlink()
    (tree.root / "proc/driver/nvidia/version").unlink()
    (tree.root / "sys/module/nvidia/version").unlink()
    tree.write("/sys/bus/pci/devices/0000:01:00.0/vendor", "0x10de\n")
    tree.write("/sys/bus/pci/devices/0000:01:00.0/class", "0x030000\n")
    yield probe()


def _left_in_english(text: str) -> str | None:
    """An English phrase left after translation; quoted texts and tool output after ': ' aside."""
    bare = re.sub(r"'[^']*'|`[^`]*`|\"[^\"]*\"|（[^）]*）", "", text)
    bare = re.sub(r"[：:] ?[A-Z][^；;]*", "", bare)          # what the tool printed, as it printed it
    m = ENGLISH_PHRASE.search(bare)
    return m.group(0) if m else None


def test_every_probe_finding_reads_in_chinese(probe, tree):
    findings = [f for m in _machines(probe, tree) for f in m.findings]
    assert len(set(findings)) >= 8, findings
    assert not any(CJK.search(f) for f in findings), "findings are data: made in English"
    i18n.activate({"LANG": "zh_CN.UTF-8"})
    try:
        shown = {f: translate_finding(f) for f in findings}
    finally:
        i18n.deactivate()
    untranslated = {f: s for f, s in shown.items() if not CJK.search(s) or _left_in_english(s)}
    assert not untranslated
    print("\n".join(shown.values()))
    assert any("nvidia-smi 在 5 秒后超时" in s for s in shown.values())


def test_a_finding_is_unchanged_in_english(probe, tree):
    tree.exe("/usr/bin/nvidia-smi")
    m = probe(run=Recorded({smi_key(): subprocess.TimeoutExpired("nvidia-smi", 5)}))
    assert [translate_finding(f) for f in m.findings] == m.findings


@pytest.mark.parametrize("fields", [SMI_FIELDS_NO_CC])
def test_an_unknown_compute_capability_reads_in_chinese(probe, tree, fields):
    tree.exe("/usr/bin/nvidia-smi")
    old = smi_out("470-no-compute-cap.out")
    m = probe(run=Recorded({smi_key(): (2, "Field \"compute_cap\" is not a valid field to query."),
                            smi_key(fields): (0, old)}))
    unknown = [f for f in m.findings if "unknown" in f]
    i18n.activate({"LANG": "zh_CN.UTF-8"})
    try:
        shown = [translate_finding(f) for f in unknown]
    finally:
        i18n.deactivate()
    assert all(CJK.search(s) and not _left_in_english(s) for s in shown), shown


def test_a_saved_probe_keeps_its_findings_as_data(probe, tree):
    """``probe --save`` writes each finding's id and values beside its text; ``--machine FILE`` reads them back,
    so a machine file made in English reads in Chinese (before, only the English text was kept and matched back
    against copies of the templates)."""
    import json

    from torchenv.machine import Machine

    tree.exe("/usr/bin/nvidia-smi")
    m = probe(run=Recorded({smi_key(): subprocess.TimeoutExpired("nvidia-smi", 5)}))
    saved = json.loads(m.dumps())
    ids = [d["id"] for d in saved["findings_data"]]
    assert "probe.no_driver" in ids and saved["findings_data"][0]["decided_by"] == "machine", saved
    again = Machine.from_json(saved)
    assert again.findings == m.findings
    i18n.activate({"LANG": "zh_CN.UTF-8"})
    try:
        shown = [translate_finding(f) for f in again.findings]
    finally:
        i18n.deactivate()
    assert shown and all(CJK.search(s) for s in shown), shown
    saved["findings"][0] = "edited by hand"
    assert Machine.from_json(saved).findings[0] == "edited by hand", "a text that no longer matches its data wins"
