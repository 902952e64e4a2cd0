"""Property tests: written intents read back equal; no input makes the parser fail other than clearly."""
from __future__ import annotations

import os

import tomlkit
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from torchenv.errors import IntentError
from torchenv.intent.init_writer import display_spec, render_intent
from torchenv.intent.load import intent_from_text
from torchenv.intent.model import CondaIntent, EnvIntent, Intent, MirrorIntent, TorchIntent
from torchenv.intent.schema import SCHEMA
from torchenv.intent.versions import InvalidValue, normalise_tier, normalise_torch_spec, torch_spec

# TORCHENV_HYPOTHESIS_EXAMPLES=2000 for a deeper run than the default quick one.
SETTINGS = settings(max_examples=int(os.environ.get("TORCHENV_HYPOTHESIS_EXAMPLES", "150")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

release = st.lists(st.integers(0, 30), min_size=1, max_size=4).map(lambda p: ".".join(map(str, p)))
clause = st.tuples(st.sampled_from(["==", "!=", ">=", "<=", ">", "<", "~="]), release,
                   st.booleans()).map(lambda t: f"{t[0]}{t[1]}{'.*' if t[2] else ''}")
spec_text = st.one_of(release, release.map(lambda r: r + ".*"),
                      st.lists(clause, min_size=1, max_size=3).map(lambda cs: ", ".join(cs)))


def _valid_spec(text: str) -> str | None:
    try:
        return normalise_torch_spec(text)
    except InvalidValue:
        return None


tier = st.one_of(st.sampled_from(["auto", "cpu"]),
                 st.tuples(st.integers(10, 19), st.integers(0, 9)).map(lambda t: f"cu{t[0]}{t[1]}"),
                 st.tuples(st.integers(5, 7), st.integers(0, 9)).map(lambda t: f"rocm{t[0]}.{t[1]}"))
text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20).filter(lambda s: s.strip())
clean = text.map(str.strip)
names = st.lists(clean, max_size=3, unique=True).map(tuple)

torch_intents = st.builds(
    TorchIntent,
    version=st.one_of(st.none(), spec_text.map(_valid_spec)),
    cuda=tier,
    python=st.one_of(st.none(), st.integers(8, 15).map(lambda m: f"3.{m}")),
    with_=st.sets(st.sampled_from(["torchvision", "torchaudio"])).map(lambda s: tuple(sorted(s))),
    policy=st.sampled_from(["compat", "strict"]),
    allow_experimental=st.booleans(),
)
intents = st.builds(
    Intent,
    torch=torch_intents,
    env=st.builds(EnvIntent, path=clean, backend=st.sampled_from(["venv", "conda", "auto"]),
                  installer=st.sampled_from(["uv", "pip"]), requirements=names),
    mirror=st.builds(MirrorIntent, use=st.one_of(st.none(), clean), pypi=st.one_of(st.none(), clean),
                     torch=st.one_of(st.none(), clean), torch_layout=st.sampled_from([None, "index", "flat"]),
                     conda=st.dictionaries(text, clean, max_size=2), fallback=names),
    conda=st.builds(CondaIntent, channels=names, packages=names, torch_source=st.sampled_from(["wheels", "conda"])),
)


@SETTINGS
@given(intents)
def test_rendered_intent_parses_back_equal(intent):
    assert intent_from_text(render_intent(intent)) == intent


@SETTINGS
@given(intents)
def test_plain_toml_of_an_intent_parses_back_equal(intent):
    """Any TOML writer (not only ours) of the documented keys gives the same intent."""
    data = intent.to_json()
    doc = {}
    for table, fields in SCHEMA.items():
        values = {k: data[table][f.attr if f.attr != "with_" else "with"] for k, f in fields.items()}
        doc[table] = {k: list(v) if isinstance(v, (tuple, list)) else v for k, v in values.items() if v is not None}
    assert intent_from_text(tomlkit.dumps(doc)) == intent


@SETTINGS
@given(st.text(max_size=300))
def test_junk_text_raises_only_intent_error(junk):
    try:
        intent_from_text(junk)
    except IntentError as exc:
        assert exc.hint and exc.message


toml_value = st.recursive(
    st.one_of(st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False, allow_infinity=False), text,
              st.sampled_from(["2.4", "cu121", "12.1", "3.11", "torchvision", "compat", "venv", "uv", "index"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(text, inner, max_size=3)),
    max_leaves=6)
known_key = st.sampled_from(sorted({k for fields in SCHEMA.values() for k in fields}))
tables = st.dictionaries(st.one_of(st.sampled_from(sorted(SCHEMA)), text),
                         st.dictionaries(st.one_of(known_key, text), toml_value, max_size=4), max_size=4)


@SETTINGS
@given(tables)
def test_junk_documents_raise_only_intent_error_with_a_line(doc):
    body = tomlkit.dumps(doc)
    try:
        intent_from_text(body, "torchenv.toml")
    except IntentError as exc:
        assert exc.file == "torchenv.toml" and exc.hint
        assert exc.line is not None and 1 <= exc.line <= body.count("\n") + 1


@SETTINGS
@given(st.one_of(tier, text, st.tuples(st.integers(0, 99), st.integers(0, 99)).map(lambda t: f"{t[0]}.{t[1]}")))
def test_normalise_tier_is_idempotent(word):
    try:
        once = normalise_tier(word)
    except InvalidValue as exc:
        assert exc.hint
        return
    assert normalise_tier(once) == once
    assert once in ("auto", "cpu") or once.startswith(("cu", "rocm"))


@SETTINGS
@given(st.integers(1, 30), st.integers(0, 30), st.integers(0, 30), st.integers(1, 5))
def test_bare_minor_means_every_patch_of_that_minor(major, minor, patch, step):
    spec = torch_spec(f"{major}.{minor}")
    assert Version(f"{major}.{minor}.{patch}") in spec
    assert Version(f"{major}.{minor}") in spec
    assert Version(f"{major}.{minor + step}.0") not in spec
    assert Version(f"{major + step}.{minor}.{patch}") not in spec
    assert Version(f"{major}.{minor}.{patch}rc1") not in spec
    exact = torch_spec(f"{major}.{minor}.{patch}")
    assert Version(f"{major}.{minor}.{patch}") in exact
    assert Version(f"{major}.{minor}.{patch + step}") not in exact


@SETTINGS
@given(spec_text)
def test_fast_path_agrees_with_packaging(spec):
    """The regex fast path (no packaging import) accepts and means exactly what packaging does."""
    ours = _valid_spec(spec)
    with_op = spec if spec[:1] in "=!<>~" else None
    if with_op is None:
        assume(ours is not None)
        return
    try:
        theirs = SpecifierSet(with_op)
    except Exception:
        assert ours is None
        return
    assert ours is not None and SpecifierSet(ours) == theirs
    assert normalise_torch_spec(ours) == ours


@SETTINGS
@given(spec_text)
def test_written_short_form_reads_back_the_same(spec):
    normal = _valid_spec(spec)
    assume(normal is not None)
    assert normalise_torch_spec(display_spec(normal)) == normal
