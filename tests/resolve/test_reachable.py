"""``cuda = "auto"`` plans among builds that run here *and can be fetched*; explicit choices are never switched.

The torch index is an unreachable loopback port (``--torch-mirror http://127.0.0.1:<closed>``), the
user's wheel folder and PyPI side are local folders/file indexes built here with fake wheels; the
machine is a real (not assumed) one without a GPU, with Python 3.11 and 3.13.
"""
from __future__ import annotations

import socket
import sys

import pytest
from tests.support import build_index, make_wheel
from tests.support.connects import read_log, watched

from torchenv.errors import PlanRefused
from torchenv.intent.model import Intent, TorchIntent
from torchenv.machine import Machine, PythonInstall
from torchenv.options import SourceOverrides
from torchenv.resolve.reachable import available_plan, fallback_said
from torchenv.resolve.resolver import resolve
from torchenv.sources.model import PypiSide

TAG = "cp311-cp311-manylinux_2_28_x86_64"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def Args(mirror: str) -> SourceOverrides:
    return SourceOverrides(torch_mirror=mirror)


@pytest.fixture
def here(tmp_path, monkeypatch):
    """(machine, overrides, wheel folder, PyPI-side files) with the torch index unreachable."""
    folder = tmp_path / "wheels"
    folder.mkdir()
    pypi_files = tmp_path / "pypi-files"
    index = build_index(tmp_path / "pypi", {
        "torch": [make_wheel(pypi_files, "torch", "2.14.1", tag=TAG)],
        "torchvision": [make_wheel(pypi_files, "torchvision", "0.29.1", tag=TAG)],
        "triton": [make_wheel(pypi_files, "triton", "3.6.0", tag=TAG)],
    })
    side = PypiSide(index_url=index.as_uri(), find_links=(str(folder),))
    return _gpu_less_machine(monkeypatch, side), Args(f"http://127.0.0.1:{_closed_port()}/whl"), folder


def _gpu_less_machine(monkeypatch, side: PypiSide) -> Machine:
    """A real (not assumed) machine without a GPU, Pythons 3.13 and 3.11, whose pip config is ``side``."""
    monkeypatch.setattr("torchenv.sources.select.read_pip_config", lambda *a, **k: side)
    return Machine(os="linux", arch="x86_64",
                   pythons=[PythonInstall(version="3.13.0", path=sys.executable, source="path"),
                            PythonInstall(version="3.11.7", path=sys.executable, source="path")])


def _plan(intent, machine, args):
    return available_plan(resolve(intent, machine, sources_overrides=args), intent, machine, args)


def test_auto_falls_back_to_the_users_own_wheel_and_its_python(here):
    machine, args, folder = here
    make_wheel(folder, "torch", "2.13.0+cpu", tag=TAG)
    plan = _plan(Intent(torch=TorchIntent()), machine, args)
    assert (plan.torch_version, plan.tier, plan.python) == ("2.13.0", "cpu", "3.11")
    said = " ".join(plan.reasons) + " ".join(plan.warnings)
    assert "torch-2.13.0+cpu-" in said and "its files are on this machine" in said
    assert "skipped torch " in said and "(cpu) for Python 3.13" in said and "127.0.0.1" in said


def test_auto_falls_back_to_pypis_build_when_no_local_file_fits(here):
    machine, args, _folder = here
    plan = _plan(Intent(torch=TorchIntent(with_=("torchvision",))), machine, args)
    assert (plan.torch_version, plan.python, plan.pypi_default_build) == ("2.14.1", "3.11", True)
    assert {p.name: p.version for p in plan.packages}["torchvision"] == "0.29.1"
    assert any("PyPI's own build of torch 2.14.1" in w for w in plan.warnings)
    assert fallback_said(plan) and "skipped" in fallback_said(plan)[0]


def test_a_reachable_plan_is_left_alone(here, tmp_path):
    machine, _args, _folder = here
    build_index(tmp_path / "torchidx", {"torch": [make_wheel(tmp_path / "t", "torch", "2.14.1+cpu",
                                                             tag="cp313-cp313-manylinux_2_28_x86_64")]})
    (tmp_path / "torchidx" / "cpu").symlink_to(tmp_path / "torchidx" / "simple")   # <base>/<tier>/
    args = Args((tmp_path / "torchidx").as_uri())
    intent = Intent(torch=TorchIntent(version="2.14"))
    before = resolve(intent, machine, sources_overrides=args)
    assert available_plan(before, intent, machine, args) is before


def test_a_manylinux_2_34_wheel_is_reachable_on_this_machines_newer_glibc(here, tmp_path):
    """The tags come from the probed glibc: on 2.35 the index's only file, ``manylinux_2_34``, fits (on an
    unknown glibc, or 2.31, it does not, and the plan falls back)."""
    import dataclasses

    machine, _args, _folder = here
    build_index(tmp_path / "torchidx", {"torch": [make_wheel(tmp_path / "t", "torch", "2.14.1+cpu",
                                                             tag="cp313-cp313-manylinux_2_34_x86_64")]})
    (tmp_path / "torchidx" / "cpu").symlink_to(tmp_path / "torchidx" / "simple")
    args = Args((tmp_path / "torchidx").as_uri())
    intent = Intent(torch=TorchIntent(version="2.14"))
    for glibc, fits in (("2.35", True), ("2.31", False), (None, False)):
        probed = dataclasses.replace(machine, glibc=glibc)
        before = resolve(intent, probed, sources_overrides=args)
        after = available_plan(before, intent, probed, args)
        assert (after is before) is fits, (glibc, after.reasons)


def test_an_explicit_tier_is_refused_listing_what_is_reachable(here, tmp_path):
    machine, args, folder = here
    make_wheel(folder, "torch", "2.13.0+cpu", tag=TAG)
    intent = Intent(torch=TorchIntent(cuda="cpu", version="2.14"))
    closed = args.torch_mirror.removeprefix("http://").split("/")[0]
    with watched(tmp_path / "connects.log") as log, pytest.raises(PlanRefused) as exc:
        _plan(intent, machine, args)
    text = exc.value.message
    assert "cannot be fetched from here" in text and 'cuda = "cpu"' in text
    flags = [a["flags"] for a in exc.value.alternatives]
    assert any("--torch 2.13.0 --cuda cpu --python 3.11" in f for f in flags), flags
    assert any("--cuda cu130" in f for f in flags), flags
    refused = ("2.14.1", "cpu", "3.13")                       # what torchenv.toml asks, on this machine's Python
    offered = [(a["torch"], a["tier"], a["python"]) for a in exc.value.alternatives if a["kind"] == "reachable"]
    assert refused not in offered and len(set(flags)) == len(flags), exc.value.alternatives
    assert len(read_log(log, closed)) == 1, "the refused index was asked once: no alternative asked it again"


def test_an_explicit_tier_may_still_use_another_python_of_the_same_build(here):
    machine, args, folder = here
    make_wheel(folder, "torch", "2.14.1+cpu", tag=TAG)
    plan = _plan(Intent(torch=TorchIntent(cuda="cpu")), machine, args)
    assert (plan.torch_version, plan.tier, plan.python) == ("2.14.1", "cpu", "3.11")


def test_a_torch_family_requirement_of_the_project_must_be_fetchable_too(here, tmp_path):
    machine, args, folder = here
    make_wheel(folder, "torch", "2.13.0+cpu", tag=TAG)
    project = tmp_path / "proj"
    project.mkdir()
    (project / "requirements.txt").write_text("triton>=2.0.0\n")      # as openai/whisper asks
    intent = Intent(torch=TorchIntent(), project=project)
    plan = _plan(intent, machine, args)
    assert plan.pypi_default_build, "the local +cpu torch needs triton from the unreachable torch index"
    said = " ".join(plan.reasons)
    assert "the project's requirements name triton" in said


def test_a_torch_family_package_the_resolve_pulled_in_is_planned_for(here):
    """litgpt[extra]: a PyPI dependency pulls in torchvision, which the local +cpu torch's source lacks."""
    from torchenv.errors import PulledInFamily
    from torchenv.flows.planning import PlanRequest, plan_reachable, replan_pulled_in

    machine, args, folder = here
    make_wheel(folder, "torch", "2.13.0+cpu", tag=TAG)
    intent = Intent(torch=TorchIntent())
    first = _plan(intent, machine, args)
    assert (first.torch_version, first.tier) == ("2.13.0", "cpu")
    pulled = PulledInFamily("no torchvision 0.28.0 wheel in the torch source", name="torchvision")
    again = replan_pulled_in(plan_reachable, PlanRequest(intent, machine, args), first, pulled)
    assert again.pypi_default_build and again.torch_version == "2.14.1"
    assert any("pulled in torchvision" in w for w in fallback_said(again))


def test_a_pulled_in_package_no_other_build_serves_leaves_the_error_as_it_is(here):
    from torchenv.errors import PulledInFamily
    from torchenv.flows.planning import PlanRequest, plan_reachable, replan_pulled_in

    machine, args, folder = here
    make_wheel(folder, "torch", "2.13.0+cpu", tag=TAG)
    intent = Intent(torch=TorchIntent())
    first = _plan(intent, machine, args)
    pulled = PulledInFamily("no such wheel", name="torchrec")
    with pytest.raises(PulledInFamily) as exc:
        replan_pulled_in(plan_reachable, PlanRequest(intent, machine, args), first, pulled)
    assert exc.value is pulled


def test_the_names_a_resolve_pulled_in_are_an_argument_of_the_check(here):
    """What a reachability check asks for travels in its arguments (no module state): the local +cpu torch's
    folder serves torch, not torchvision, so a check told that torchvision is needed names it, and the same
    check without it finds nothing missing."""
    from torchenv.resolve.reachable import LocalOnly, missing_file

    machine, args, folder = here
    make_wheel(folder, "torch", "2.13.0+cpu", tag=TAG)
    plan = _plan(Intent(torch=TorchIntent()), machine, args)
    assert missing_file(plan, LocalOnly()) is None
    why = missing_file(plan, LocalOnly(), frozenset({"torchvision"}))
    assert why is not None and "torchvision" in str(why)


def test_the_replan_after_a_pulled_in_package_asks_the_planner_it_is_handed(here):
    """``up`` re-plans through the same planner it planned with, the pulled-in name added to the request."""
    import dataclasses

    from torchenv.errors import PulledInFamily
    from torchenv.flows.planning import PlanRequest, replan_pulled_in

    machine, args, folder = here
    make_wheel(folder, "torch", "2.13.0+cpu", tag=TAG)
    intent = Intent(torch=TorchIntent())
    first = _plan(intent, machine, args)
    asked: list[PlanRequest] = []

    def planner(request: PlanRequest):
        asked.append(request)
        return dataclasses.replace(first, python="3.13")

    again = replan_pulled_in(planner, PlanRequest(intent, machine, args), first,
                             PulledInFamily("no torchvision wheel", name="torchvision"))
    assert [r.also_needed for r in asked] == [frozenset({"torchvision"})]
    assert asked[0].machine is first.machine and asked[0].sources == args
    assert again.python == "3.13" and fallback_said(again)


def test_the_public_plan_is_the_plan_up_acts_on(here):
    """``torchenv.plan()`` asks ``up``'s planner: the reachable fallback, and the same refusal of an explicit tier
    whose files cannot be fetched (it once resolved from the recipes alone and named the unreachable build)."""
    import torchenv
    from torchenv.flows.planning import PlanRequest, plan_reachable

    machine, args, folder = here
    make_wheel(folder, "torch", "2.13.0+cpu", tag=TAG)
    intent = Intent(torch=TorchIntent())
    shown = torchenv.plan(intent, machine, sources=args)
    planned = plan_reachable(PlanRequest(intent, machine, args))
    assert (shown.torch_version, shown.tier, shown.python) == \
        (planned.torch_version, planned.tier, planned.python) == ("2.13.0", "cpu", "3.11")
    explicit = Intent(torch=TorchIntent(cuda="cpu", version="2.14"))
    with pytest.raises(PlanRefused) as public:
        torchenv.plan(explicit, machine, sources=args)
    with pytest.raises(PlanRefused) as up:
        plan_reachable(PlanRequest(explicit, machine, args))
    assert public.value.message == up.value.message and "cannot be fetched from here" in up.value.message


def _in_chinese(show, capsys) -> str:
    from torchenv import i18n

    capsys.readouterr()
    i18n.activate({"TORCHENV_LANG": "zh_CN"})
    try:
        show()
    finally:
        i18n.deactivate()
    return capsys.readouterr().err


@pytest.mark.parametrize("requirements", ["", "triton>=2.0.0\n"], ids=["own wheel", "torch-family requirement"])
def test_what_a_fallback_skipped_reads_in_chinese_and_stays_english_data(here, tmp_path, capsys, monkeypatch,
                                                                         requirements):
    """The skipped candidates (an unreachable index, a missing wheel, a requirement no source serves) read
    in Chinese in ``up``'s warning and in the plan's reasons; the plan itself keeps them in English."""
    from tests.support.english import english_left

    from torchenv.commands.plan import reason_text
    from torchenv.ui import Ui

    monkeypatch.setenv("COLUMNS", "1000")
    machine, args, folder = here
    make_wheel(folder, "torch", "2.13.0+cpu", tag=TAG)
    project = tmp_path / "proj"
    project.mkdir()
    (project / "requirements.txt").write_text(requirements)
    plan = _plan(Intent(torch=TorchIntent(), project=project), machine, args)
    (warning,) = fallback_said(plan)
    assert "(cpu) for Python 3.13: no torch " in warning and "in the torch source" in warning, warning
    err = _in_chinese(lambda: Ui().warn(warning), capsys)
    assert "跳过了 Python 3.13 的 torch " in err and "：torch 来源中没有" in err and "连接被拒绝" in err, err
    assert not english_left(err), err
    shown_by_plan = _in_chinese(lambda: Ui().warn(reason_text(warning)), capsys)   # `plan` warns the same way
    assert shown_by_plan == err and not english_left(shown_by_plan), shown_by_plan
    reasons = _in_chinese(lambda: [Ui().err.print(reason_text(r), markup=False) for r in plan.reasons], capsys)
    assert not english_left(reasons), reasons


def test_an_explicit_choice_nothing_can_fetch_is_refused_in_chinese(here, capsys, monkeypatch):
    from tests.support.english import english_left

    from torchenv.commands.plan import show_refusal
    from torchenv.ui import Ui

    monkeypatch.setenv("COLUMNS", "1000")
    machine, args, folder = here
    make_wheel(folder, "torch", "2.13.0+cpu", tag=TAG)
    with pytest.raises(PlanRefused) as exc:
        _plan(Intent(torch=TorchIntent(cuda="cpu", version="2.14")), machine, args)
    err = _in_chinese(lambda: show_refusal(Ui(), exc.value), capsys)
    assert "torchenv.toml 要求的 torch 2.14.1（cpu）" in err and "PyPI 自己的 torch 2.14.1 构建" in err, err
    assert not english_left(err), err


def test_auto_with_nothing_reachable_is_refused_in_chinese(tmp_path, capsys, monkeypatch):
    from tests.support.english import english_left

    from torchenv.commands.plan import show_refusal
    from torchenv.ui import Ui

    monkeypatch.setenv("COLUMNS", "1000")
    empty = build_index(tmp_path / "pypi", {"six": [make_wheel(tmp_path / "files", "six", "1.16.0")]})
    machine = _gpu_less_machine(monkeypatch, PypiSide(index_url=empty.as_uri()))
    with pytest.raises(PlanRefused) as exc:
        _plan(Intent(torch=TorchIntent()), machine, Args(f"http://127.0.0.1:{_closed_port()}/whl"))
    assert exc.value.message.startswith("no torch build that runs here can be fetched from here")
    err = _in_chinese(lambda: show_refusal(Ui(), exc.value), capsys)
    assert "能在这里运行的 torch 构建都无法从这里获取" in err, err
    assert not english_left(err), err


def test_plan_shows_the_build_up_will_install(here, tmp_path, monkeypatch, capsys):
    """``torchenv plan`` answers as ``up`` plans: the reachable build, not the newest one it cannot fetch."""
    import importlib
    import json

    from torchenv.cli import main
    from torchenv.flows.planning import PlanRequest, plan_reachable

    machine, args, folder = here
    make_wheel(folder, "torch", "2.13.0+cpu", tag=TAG)
    monkeypatch.setattr(importlib.import_module("torchenv.probing.assume"), "machine_for", lambda spec, **_kw: machine)
    project = tmp_path / "proj"
    project.mkdir()
    (project / "torchenv.toml").write_text('[torch]\ncuda = "auto"\n')
    assert main(["plan", "--json", "-C", str(project), "--torch-mirror", args.torch_mirror]) == 0
    shown = json.loads(capsys.readouterr().out)
    planned = plan_reachable(PlanRequest(Intent(torch=TorchIntent()), sources=args))
    assert (shown["torch"], shown["tier"], shown["python"]) == \
        (planned.torch_version, planned.tier, planned.python) == ("2.13.0", "cpu", "3.11")


def test_a_refused_plan_json_carries_the_tier_that_fits_and_what_could_not_be_fetched(tmp_path, monkeypatch,
                                                                                      capsys):
    """What fits (the machine, the recipes) reads apart from what can be fetched (the sources)."""
    import importlib
    import json

    from torchenv.cli import main

    empty = build_index(tmp_path / "pypi", {"six": [make_wheel(tmp_path / "files", "six", "1.16.0")]})
    machine = _gpu_less_machine(monkeypatch, PypiSide(index_url=empty.as_uri()))
    monkeypatch.setattr(importlib.import_module("torchenv.probing.assume"), "machine_for", lambda spec, **_kw: machine)
    project = tmp_path / "proj"
    project.mkdir()
    (project / "torchenv.toml").write_text('[torch]\ncuda = "auto"\n')
    assert main(["plan", "--json", "-C", str(project), "--torch-mirror",
                 f"http://127.0.0.1:{_closed_port()}/whl"]) == 2
    shown = json.loads(capsys.readouterr().out)
    assert shown["error"].startswith("no torch build that runs here can be fetched from here")
    fits = shown["fits"]
    assert fits["tier"] == "cpu" and fits["torch"] and fits["python"] and fits["fetchable"] is False
    assert fits["not_fetchable"] and fits["not_fetchable"] in shown["error"]
    chosen = [r for r in shown["reasons_data"] if r["id"].startswith("tier.")]   # the reasons name that tier too
    assert chosen and chosen[0]["text"].startswith(f"{fits['tier']} chosen"), chosen
    assert shown["error_data"]["id"] == "fallback.none_fetchable"
    assert shown["error_data"]["decided_by"] == "sources"
    assert {r["decided_by"] for r in shown["reasons_data"]} >= {"machine"}
