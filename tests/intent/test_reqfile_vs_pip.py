"""torchenv's requirements-file reader against pip's own parser (pip's behaviour is the spec)."""
from __future__ import annotations

from pip._internal.network.session import PipSession
from pip._internal.req.req_file import parse_requirements

from torchenv.intent.requirements_file import parse_requirements_text

SAMPLE = """\
# pip-compile output and hand-written lines, as found in the wild
torch==2.2.2 \\
    --hash=sha256:aaaa \\
    --hash=sha256:bbbb
    # via -r requirements.in
torchvision==0.17.2+cu121 --index-url https://download.pytorch.org/whl/cu121
numpy>=1.26 ; python_version >= "3.10"  # a comment
--extra-index-url https://download.pytorch.org/whl/cu121
-c constraints.txt
-e .
requests[socks] @ https://example.org/requests-2.0.tar.gz
"""


def test_requirements_and_hashes_match_pip(tmp_path):
    (tmp_path / "constraints.txt").write_text("six==1.16.0\n")
    req = tmp_path / "requirements.txt"
    req.write_text(SAMPLE)
    theirs = [(r.requirement, sorted((r.options or {}).get("hashes", {}).get("sha256", [])), r.constraint)
              for r in parse_requirements(str(req), session=PipSession())]
    ours = []
    for e in parse_requirements_text(SAMPLE):
        if e.kind == "requirement":
            ours.append((e.text, sorted(v.split(":", 1)[1] for v in e.values("--hash")), False))
        elif e.kind == "editable":
            ours.append((e.text, [], False))
        elif e.kind == "constraint":
            ours += [(c.text, [], True) for c in parse_requirements_text((tmp_path / e.text).read_text())]
    assert [(t.replace(" ", ""), h, c) for t, h, c in ours] == [(t.replace(" ", ""), h, c) for t, h, c in theirs]
