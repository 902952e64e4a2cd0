"""Command-line flags win over torchenv.toml and are checked the same way, naming the flag."""
from __future__ import annotations

import argparse

import pytest

from torchenv.commands import _options
from torchenv.errors import IntentError
from torchenv.intent.load import apply_overrides
from torchenv.intent.model import Intent
from torchenv.options import IntentOverrides


def parse(*argv: str) -> argparse.Namespace:
    """The real shared flag groups, as `plan`/`up` will declare them."""
    p = argparse.ArgumentParser()
    _options.add_project(p)
    _options.add_intent_overrides(p)
    _options.add_mirror_flags(p)
    return p.parse_args(list(argv))


def apply(intent: Intent, ns: argparse.Namespace) -> Intent:
    """What `init` does: the intent flags, and the mirror flags written into [mirror]."""
    return apply_overrides(intent, _options.intent_overrides(ns), _options.source_overrides(ns))


FILE = '''
[torch]
version = "2.4"
cuda = "cu121"
with = ["torchvision"]
[env]
installer = "uv"
[mirror]
use = "tuna"
'''


def test_flags_override_the_file(load_text):
    intent = load_text(FILE)
    out = apply(intent, parse("--torch", "2.5.1", "--cuda", "12.4", "--python", "3.12",
                                        "--policy", "strict", "--backend", "conda", "--installer", "pip",
                                        "--mirror", "aliyun", "--pypi-mirror", "https://p/simple",
                                        "--torch-mirror", "https://t/whl", "--torch-layout", "flat",
                                        "--experimental"))
    assert out.torch.version == "==2.5.1" and out.torch.cuda == "cu124" and out.torch.python == "3.12"
    assert out.torch.policy == "strict" and out.torch.allow_experimental
    assert out.env.backend == "conda" and out.env.installer == "pip"
    assert (out.mirror.use, out.mirror.pypi, out.mirror.torch, out.mirror.torch_layout) == \
        ("aliyun", "https://p/simple", "https://t/whl", "flat")
    assert out.file == intent.file
    assert out.hash() != intent.hash()


def test_no_flags_keep_the_file_and_its_hash(load_text):
    intent = load_text(FILE)
    assert apply(intent, parse()) is intent


def test_with_adds_to_the_file_companions(load_text):
    intent = load_text(FILE)
    out = apply(intent, parse("--with", "torchaudio", "--with", "torchvision"))
    assert out.torch.with_ == ("torchaudio", "torchvision")
    assert apply(Intent(), parse("--with", "torchvision,torchaudio")).torch.with_ == \
        ("torchaudio", "torchvision")


def test_namespace_without_override_flags():
    """Verbs without the flag groups (e.g. `verify`) still get the file's intent unchanged."""
    intent = Intent()
    assert apply(intent, argparse.Namespace(project=".")) is intent


@pytest.mark.parametrize("argv,flag,hint_part", [
    (("--cuda", "cu12.1"), "--cuda", '"cu121"'),
    (("--torch", "2.4.1+cu121"), "--torch", 'cuda = "cu121"'),
    (("--torch", "newest"), "--torch", '"2.4"'),
    (("--python", "3"), "--python", '"3.11"'),
    (("--with", "torchtext"), "--with", "torchvision"),
    (("--pypi-mirror", " "), "--pypi-mirror", "remove"),
])
def test_bad_flag_names_the_flag(argv, flag, hint_part):
    with pytest.raises(IntentError) as info:
        apply(Intent(), parse(*argv))
    err = info.value
    assert err.key == flag and err.file is None and err.exit_code == 2
    assert flag in str(err)
    assert hint_part in err.hint


def test_api_callers_get_choices_checked_too():
    """argparse checks choices for the CLI; API callers passing a request get the same rule."""
    with pytest.raises(IntentError, match="--installer") as info:
        apply_overrides(Intent(), IntentOverrides(installer="poetry"))
    assert "uv, pip" in info.value.message


def test_plan_checks_mirror_flags_like_the_file(tmp_path, capsys):
    """The mirror flags reach plan/up/lock as the top source layer, still checked and named like [mirror] keys."""
    from torchenv.cli import main

    assert main(["plan", "-C", str(tmp_path), "--assume-no-gpu", "--pypi-mirror", " "]) == 2
    assert "--pypi-mirror" in capsys.readouterr().err
