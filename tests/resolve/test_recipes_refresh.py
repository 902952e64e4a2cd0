"""`torchenv recipes refresh` against a loopback copy of an index holding a torch release the recipes do not know:
afterwards `plan` picks it, with the companion its PEP 658 metadata pins, and says what it inferred."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.support.cputime import cpu_time

from support.server import serve_dir
from torchenv.cli import main
from torchenv.kb import load

PYS = ("cp311-cp311", "cp312-cp312", "cp313-cp313", "cp314-cp314", "cp314-cp314t")
ASSUMED = ["--assume-os", "linux", "--assume-arch", "x86_64", "--assume-python", "3.12"]


@pytest.fixture(autouse=True)
def _forget_overlay():
    load.clear_cache()
    yield
    load.clear_cache()


def _wheel(folder: Path, name: str, metadata: str | None = None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(b"")                 # refresh never downloads a wheel: names are enough
    if metadata is not None:
        (folder / f"{name}.metadata").write_text(metadata)


def make_index(root: Path) -> Path:
    """``<root>/whl/<tier>/<project>/`` like download.pytorch.org: 2.16.0 for cu132/cu134/cpu, a known 2.15.0,
    and two torchvision releases (0.29.2 `torch>=2.14.0`, 0.30.0 `torch==2.16.0`)."""
    whl = root / "whl"
    for py in PYS:
        for tier in ("cu132", "cu134"):
            _wheel(whl / tier / "torch", f"torch-2.16.0+{tier}-{py}-manylinux_2_28_x86_64.whl")
            _wheel(whl / tier / "torch", f"torch-2.16.0+{tier}-{py}-manylinux_2_28_aarch64.whl")
        _wheel(whl / "cpu" / "torch", f"torch-2.16.0+cpu-{py}-manylinux_2_28_x86_64.whl")
        _wheel(whl / "cpu" / "torch", f"torch-2.16.0-{py}-macosx_14_0_arm64.whl")
        _wheel(whl / "cu132" / "torch", f"torch-2.15.0+cu132-{py}-manylinux_2_28_x86_64.whl")
    _wheel(whl / "cu132" / "torch", "torch-2.16.0+cu132-cp310-cp310-manylinux_2_28_aarch64.whl")  # aarch64 only
    _wheel(whl / "cu132" / "torchvision", "torchvision-0.30.0-cp312-cp312-manylinux_2_28_aarch64.whl",
           "Metadata-Version: 2.1\nName: torchvision\nVersion: 0.30.0\nRequires-Dist: torch==2.16.0\n")
    for tier in ("cu132", "cu134", "cpu"):
        _wheel(whl / tier / "torchvision", f"torchvision-0.29.2+{tier}-py3-none-any.whl",
               "Metadata-Version: 2.1\nName: torchvision\nVersion: 0.29.2\nRequires-Dist: numpy\n"
               "Requires-Dist: torch>=2.14.0\n")
        _wheel(whl / tier / "torchvision", f"torchvision-0.30.0+{tier}-cp312-cp312-manylinux_2_28_x86_64.whl",
               "Metadata-Version: 2.1\nName: torchvision\nVersion: 0.30.0\nRequires-Dist: torch==2.16.0\n"
               "Requires-Dist: scipy; extra == \"scipy\"\n")
    return whl


def cli(capsys, *argv: str) -> tuple[int, dict]:
    code = main(list(argv))
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_plan_refuses_an_unknown_release_before_refresh(capsys, tmp_path):
    code, data = cli(capsys, "plan", "-C", str(tmp_path), "--json", *ASSUMED, "--assume-driver", "580.65.06",
                     "--assume-gpu", "9.0", "--torch", "2.16")
    assert code == 2 and "recipes do not know a torch release" in data["error"]
    assert "torchenv recipes refresh" in data["hint"]


def test_refresh_over_http_then_plan_picks_the_new_release(capsys, tmp_path):
    with serve_dir(tmp_path / "mirror") as url:
        make_index(tmp_path / "mirror")
        code, data = cli(capsys, "recipes", "refresh", "--from", f"{url}/whl", "--tier", "cu134", "--json")
        assert code == 0, data
        assert data["added"] == ["2.16.0"] and data["already_known"] == ["2.15.0"] and data["new_tiers"] == ["cu134"]
        assert not any(h.endswith(".whl") for h in url.hits)            # metadata only, no wheel download
        assert any(h.endswith(".whl.metadata") for h in url.hits)
    overlay = Path(data["overlay"]).read_text()
    assert url in overlay and "torchvision = [\"0.30.0\"]" in overlay

    code, plan = cli(capsys, "plan", "-C", str(tmp_path), "--json", *ASSUMED, "--assume-driver", "580.65.06",
                     "--assume-gpu", "9.0", "--with", "torchvision")
    assert code == 0, plan
    assert (plan["torch"], plan["tier"]) == ("2.16.0", "cu132")       # known floors beat inferred cu134
    pins = {p["name"]: (p["version"], p["source"]) for p in plan["packages"]}
    assert pins == {"torch": ("2.16.0+cu132", "torch-index"), "torchvision": ("0.30.0+cu132", "torch-index")}
    assert any("inferred from torch 2.15 cu132" in w and "unverified" in w for w in plan["warnings"])
    assert any("known from `torchenv recipes refresh`" in r and url in r for r in plan["reasons"])


def test_refresh_from_a_folder_and_per_platform_pythons(capsys, tmp_path):
    root = make_index(tmp_path)
    code, data = cli(capsys, "recipes", "refresh", "--from", str(root), "--json")
    assert code == 0 and data["added"] == ["2.16.0"] and data["new_tiers"] == []
    from torchenv import kb

    rel = kb.release("2.16.0")
    assert rel.origin == "overlay" and rel.tiers("linux-x86_64") == ("cu132", "cpu")
    assert rel.pythons("linux-x86_64") == ("3.11", "3.12", "3.13", "3.14")
    assert rel.pythons("linux-aarch64")[0] == "3.10" and rel.freethreaded == ("3.14t",)
    assert kb.pypi_default_tier(rel, "macos-arm64") == "cpu"          # the macOS file carries no local tag
    assert kb.release("2.15.0").origin == "recipes"                     # shipped facts win
    assert not rel.tagged("torchvision", "linux-aarch64", "cu132") and rel.tagged("torchvision", "linux-x86_64", "cu132")


def test_a_new_tier_is_found_on_the_combined_torch_page(capsys, tmp_path):
    """download.pytorch.org/whl/torch/ lists every tier's files: a tier newer than the recipes is found there."""
    root = make_index(tmp_path)
    _wheel(root / "torch", "torch-2.16.0+cu134-cp312-cp312-manylinux_2_28_x86_64.whl")
    code, data = cli(capsys, "recipes", "refresh", "--from", str(root), "--json")
    assert code == 0 and data["new_tiers"] == ["cu134"]
    from torchenv import kb

    assert kb.release("2.16.0").tiers("linux-x86_64") == ("cu134", "cu132", "cpu")
    assert kb.tier_info("cu134").cuda == "13.4" and kb.driver_floor("cu134", "linux") == "580.65.06"


def test_plan_with_an_overlay_stays_fast(capsys, tmp_path):
    cli(capsys, "recipes", "refresh", "--from", str(make_index(tmp_path)), "--json")
    best = float("inf")
    for _ in range(3):
        load.clear_cache()
        with cpu_time() as spent:
            assert main(["plan", "-C", str(tmp_path), "--json", *ASSUMED, "--assume-driver", "580.65.06",
                         "--assume-gpu", "9.0"]) == 0
        best = min(best, spent.seconds)
    capsys.readouterr()
    assert best < 0.15, f"{best:.3f} CPU s"   # in-process resolve with the overlay; the CLI start-up budget is 0.3 s


@pytest.mark.parametrize("text", ["[[series]\nminor = 2.16\n", "[[series]\nminor = \"2.16\"\n"])
def test_broken_overlay_is_named_not_a_traceback(capsys, tmp_path, text):
    from torchenv.kb.load import overlay_path

    overlay_path().parent.mkdir(parents=True, exist_ok=True)
    overlay_path().write_text(text)
    code = main(["plan", "-C", str(tmp_path), "--json", *ASSUMED])
    out = capsys.readouterr()
    assert code != 0 and "overlay.toml" in out.out + out.err and "Traceback" not in out.out + out.err


def test_unreachable_index_is_a_source_error(capsys, tmp_path):
    from support.server import closed_port_url

    code = main(["recipes", "refresh", "--from", f"{closed_port_url()}/whl"])
    out = capsys.readouterr()
    assert code != 0 and "cannot reach index" in out.out + out.err


def test_credentials_in_the_url_are_refused_and_never_shown(capsys):
    code = main(["recipes", "refresh", "--from", "http://alice:s3cret@127.0.0.1:9/whl"])
    out = capsys.readouterr()
    assert code != 0 and "user:password@" in out.out + out.err and "s3cret" not in out.out + out.err


def test_builds_of_a_known_release_that_the_recipes_lack_are_learnt(capsys, tmp_path):
    """2.15's ROCm builds are unknown to the shipped recipes: an index holding 2.15.0+rocm7.14 teaches them,
    and a second refresh keeps what the index still has."""
    root = make_index(tmp_path)
    _wheel(root / "rocm7.14" / "torch", "torch-2.15.0+rocm7.14-cp312-cp312-manylinux_2_28_x86_64.whl")
    for _ in range(2):
        code, data = cli(capsys, "recipes", "refresh", "--from", str(root), "--json")
        assert code == 0 and data["learnt_builds"] == ["2.15.0 rocm7.14"]
    code, plan = cli(capsys, "plan", "-C", str(tmp_path), "--json", *ASSUMED, "--assume-gfx", "gfx942",
                     "--torch", "2.15")
    assert code == 0 and (plan["torch"], plan["tier"]) == ("2.15.0", "rocm7.14")
    assert any("seen on the index by `torchenv recipes refresh`" in w for w in plan["warnings"])


def test_a_new_tiers_cuda_comes_from_the_cuda_toolkit_pin_on_another_host(capsys, tmp_path):
    """Newer torch pins NVIDIA's cuda-toolkit metapackage, and the index page links the wheel (and its PEP 658
    metadata) on a second host."""
    name = "torch-2.16.0+cu135-cp312-cp312-manylinux_2_28_x86_64.whl"
    files = tmp_path / "files" / "whl" / "cu135"
    _wheel(files, name, "Metadata-Version: 2.1\nName: torch\nVersion: 2.16.0+cu135\nRequires-Dist: filelock\n"
                        "Requires-Dist: cuda-toolkit[cublas,cudart,cudnn]==13.5.1; platform_system == \"Linux\"\n")
    page = tmp_path / "pages" / "whl" / "cu135" / "torch"
    page.mkdir(parents=True)
    with serve_dir(tmp_path / "pages") as index, serve_dir(tmp_path / "files") as host:
        (page / "index.html").write_text(f'<a href="{host}/whl/cu135/{name.replace("+", "%2B")}">{name}</a>\n')
        code, data = cli(capsys, "recipes", "refresh", "--from", f"{index}/whl", "--tier", "cu135", "--json")
        assert code == 0 and data["new_tiers"] == ["cu135"], data
        assert f"/whl/cu135/{name.replace('+', '%2B')}.metadata" in host.hits and not any(h.endswith(".whl") for h in host.hits)
    from torchenv import kb

    info = kb.tier_info("cu135")
    assert info.cuda == "13.5" and "cuda-toolkit[cublas,cudart,cudnn]==13.5.1" in info.source
