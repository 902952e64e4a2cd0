"""The English shapes of the plan's reasons and warnings, so they can be shown in the user's language.

Why here and not at each f-string: reasons are data (``plan --json``, the Python API) and stay English;
the ``plan``/``up`` renderers match each line against these templates (``i18n.translate_rendered``)
and show the catalogue's text with the same values. A placeholder's value is itself matched, so
``{tier} chosen: {why}`` translates ``why`` too. A reason no template matches is shown in English;
``tests/cli/test_i18n.py`` renders the plans users meet most and fails on an English line left over.
"""
from __future__ import annotations

from ..i18n import N_

REASONS = (
    # intent.project_requirements.kernel_reason (intent.jupyter)
    N_("ipykernel in the environment and a kernelspec registered ({why}); [env] jupyter = false leaves it out"),
    N_("a Jupyter kernel: asked for ([env] jupyter = true)"),
    N_("a Jupyter kernel: the requirements name {name}"),
    N_("a Jupyter kernel: the project has notebooks ({notebook})"),
    # machine_view.summary
    N_("machine: {platform}, {driver_text}, {count} GPU: {gpus}"),
    N_("machine: {platform}, {driver_text}, {count} GPUs: {gpus}"),
    N_("machine: {platform}, AMD ROCm GPU(s): {gfx}"),
    N_("machine: {platform} (Apple silicon: the cpu build includes MPS)"),
    N_("machine: {platform}, no usable GPU"),
    N_("NVIDIA driver {driver}"),
    N_("NVIDIA driver version unknown"),
    N_("{gpu} (compute capability unknown)"),
    N_("{gpu} (sm_{sm}, {family})"),
    N_("the assumed GPU"),
    # resolver._plan
    N_("torch {version}: the newest release matching {spec} (set by {who}) that fits this machine"),
    N_("torch {version}: the newest release that fits this machine"),
    N_("torch {version} not chosen: {why}"),
    N_("{count} more newer releases skipped ({kinds})"),
    N_("{tier} is PyPI's own build of torch {version} on {platform}: the torch family comes from PyPI, "
       "exactly pinned (no local version tag)"),
    N_("PyPI's build of torch {version} on {platform} is {pypi_tier}, so the {tier} build comes from the "
       "{tier} torch index, pinned with its local tag (+{tier})"),
    N_("no NVIDIA GPU is visible: the {tier} build installs, but torch will run on the CPU only"),
    N_("no AMD ROCm GPU was found: the {tier} build installs, but torch will run on the CPU only"),
    N_("{tier} is an experimental tier for torch {version} ({why})"),
    N_("on Apple silicon the cpu build includes MPS: verify expects the 'mps' device"),
    # resolver._tier_reasons
    N_("{tier} chosen: set by {who} (cuda = \"{asked}\"); {why}"),
    N_("{tier} chosen: runs on every GPU -- {per_gpu}"),
    N_("{tier} chosen: {why}"),
    N_("driver {driver} >= {floor}, the floor of {tier} ({policy})"),
    N_("no NVIDIA GPU is visible, so neither driver nor GPU code was checked"),
    N_("cpu chosen: set by {who} (cuda = \"cpu\"); the GPU will not be used"),
    N_("cpu build chosen: macOS wheels are CPU builds, with MPS on Apple silicon"),
    N_("cpu chosen: no usable GPU on this machine"),
    N_("note: {gpu} ({family}) needs an R{floor}+ driver [unverified]"),
    # search.check / search.search
    N_("torch {version} has no wheels for Python {python} (it has {first}-{last})"),
    N_("torch {version} wheels need glibc >= {need} (manylinux tag); this machine has {glibc}"),
    N_("{tier} skipped: needs NVIDIA driver >= {floor} ({policy}); this machine has {driver}"),
    N_("{tier} skipped: torch {series} {tier} wheels carry {archs}; {gpu} is sm_{sm} ({family}): {why} "
       "-> 'no kernel image is available'"),
    N_("{tier} skipped: the GPU code in torch {series} {tier} wheels is not in the knowledge base "
       "(recipes/archs.toml)"),
    N_("{tier} not considered: experimental for torch {version} (allow_experimental = true, or "
       "--experimental, to use it)"),
    N_("torch {version} has no wheels for {platform}"),
    N_("torch {version} has no {mode} wheels for {platform}"),
    N_("torch {version} has no {tier} wheels for {platform} (it has {tiers})"),
    N_("{gpu} runs torch {series} {tier} only through PTX JIT (compute_{code}): the first start compiles "
       "kernels and some library kernels may be missing"),
    N_("the GPU code list of torch {series} {tier} on {platform} is unverified ({source})"),
    N_("the CUDA {cuda} toolkit's own driver, policy strict"),
    N_("CUDA {major}.x minor-version compatibility"),
    N_("CUDA {cuda} has no minor-version compatibility"),
    # kb.archs explanations
    N_("carries {label}, an exact match for {cc}"),
    N_("carries {label}, which runs on {cc} (same major, minor {got} <= {have})"),
    N_("carries PTX {label}, which the driver JIT-compiles for {cc} (slow first start; some library kernels "
       "may be missing)"),
    N_("its sm_{major}x code ({labels}) is newer than {cc}, and SASS only runs on an equal or higher minor"),
    N_("no sm_{major}x code, and its PTX (compute_{ptx}) needs CC >= {need}"),
    N_("no sm_{major}x code and no PTX to JIT-compile"),
    N_("{span} without PTX"),
    N_("{span} with PTX compute_{ptx}"),
    N_("no GPU code"),
    # python_choice
    N_("Python {python}: set by {who}; {where}"),
    N_("kept within the project's requires-python {spec} ({file})"),
    N_("Python {python} is outside the project's requires-python {spec} ({file}): installing the project will fail"),
    N_("not on this machine: it will be installed"),
    N_("found at {path}"),
    N_("on the (assumed) machine"),
    N_("Python {python} is not on this machine; `up` has to install it"),
    N_("Python {python}: preferred by the caller and supported by torch {version}"),
    N_("Python {python}: the newest Python on this machine that torch {version} has wheels for "
       "(also on this machine: {others})"),
    N_("Python {python}: the newest Python on this machine that torch {version} has wheels for"),
    N_("Python {python}: the newest Python torch {version} supports ({first}-{last}); none of this machine's "
       "Pythons ({have}) fits, so it must be installed"),
    # resolver._backend
    N_("{backend}: set by {who} (env.backend)"),
    N_("{backend}: torchenv's default (env.backend is not set)"),
    # resolve.origins: who set a word of the intent
    N_("set by {who}"),
    N_("the project ({where})"),
    N_("the project ({file}, followed: no torchenv.toml)"),
    N_("the user ({flag})"),
    N_("the user (lock target {name})"),
    N_("torchenv (fallback: {why})"),
    N_("the caller"),
    N_("conda: the project lists conda packages ([conda] packages)"),
    N_("conda: the planned Python is not on this machine, and conda can provide it"),
    N_("venv: the planned Python is on this machine ({path})"),
    # the plan's extra lines: import needs, the PyPI-side rule (sources.model), the tier index check
    N_("also installed: {packages}, which torch {version}'s import needs without requiring it (unless the "
       "project's requirements name it; left out, and said, when the PyPI side cannot serve it)"),
    N_("packages besides the torch family come from one index (no choice between indexes to make)"),
    N_("packages besides the torch family: {count} indexes searched as pip does, the best version of each package "
       "from any of them (uv --index-strategy unsafe-best-match); the torch family stays pinned to the files this "
       "plan chose"),
    N_("could not check the tier index ({hosts}): the recipes answer"),
    N_("{host}: host name not found (DNS)"),
    N_("{host}: timed out"),
    N_("{host}: connection refused"),
    N_("checked the {tier} index ({url}, read {when}): it holds torch {version} for {platform}"),
    N_("just now"),
    N_("{minutes} min ago"),
    N_("the {tier} index ({url}, read {when})"),
    N_("{tier} skipped: the recipes list torch {version} {tier}, but {where} has no torch {version} wheel for "
       "{platform}"),
    N_("{tier} skipped: {where} has no Python {python} wheel of torch {version} for {platform} (it has {pythons})"),
    N_("the index's variant metadata was not used: {error}"),
    # refusals
    N_("... {count} more candidates skipped"),
    N_("no build carries code for every GPU of this machine: plan for some of them by hiding the others "
       "with CUDA_VISIBLE_DEVICES"),
    N_("known releases: {releases}"),
    N_("torchenv's recipes do not know tier {tier} for {which} (newest known release {version})"),
    N_("torchenv's recipes do not know tier {tier} for {which} (newest known release {version}); would work "
       "instead: {alternatives}"),
    N_("any torch release"),
    N_("tiers the recipes know for {which} on {platform}: {tiers}"),
    N_("if the {tier} index has this release, `torchenv recipes refresh --tier {tier}` records it "
       "(recipes/releases.toml holds the shipped facts); otherwise pick a known tier"),
    N_("if the {tier} index has this release, `torchenv recipes refresh --tier {tier}` records it "
       "(recipes/releases.toml holds the shipped facts); otherwise pick a known tier, e.g. {flags}"),
    N_("{tier} skipped: torchenv's recipes do not know tier {tier} (recipes/tiers.toml)"),
    N_("torchenv's recipes do not know a torch release matching {spec} (they know {first} to {last}); this says "
       "nothing about the machine"),
    N_("torchenv's recipes do not know a torch release matching {spec} (they know {first} to {last}); this says "
       "nothing about the machine; would work instead: {alternatives}"),
    N_("if it is released, `torchenv recipes refresh` (or `--from` a mirror or folder) teaches torchenv its builds; "
       "otherwise pin a known release"),
    N_("no torch build for {what} runs on this machine ({platform}); would work instead: {alternatives}"),
    N_("no torch build for {what} runs on this machine ({platform}); no nearby alternative passes every "
       "check either"),
    N_("no torch build for {what} runs on this machine ({platform})"),
    N_("would work instead: {alternative}"),
    N_("no nearby alternative passes every check either"),
    N_("torch {version}: {why}"),
    # alternatives: "why" and as_words
    N_("torch {version} built for {tier} fits this machine ({asked} does not)"),
    N_("torch {version} ({tier}) is the newest release that fits this machine"),
    N_("torch {version} with {tier} fits this machine"),
    N_("torch {version} has wheels for Python {first}-{last}"),
    N_("the compat policy accepts NVIDIA's minor-version compatibility floors"),
    N_("with an NVIDIA driver >= {floor}, torch {version} {tier} would run here"),
    N_("{tier} is experimental for torch {version}"),
    N_("the CPU build installs and runs here, without GPU acceleration"),
    N_("NVIDIA driver >= {driver} ({alternative})"),
    N_("Python {python} ({alternative})"),
    N_("torch {version} with {tier}"),
    N_("try {flags}"),
    N_("see the reasons above; `torchenv plan --json` lists them"),
    # reachable: the candidates a fallback skipped and why (their files cannot be had from here), and its refusals
    N_("the same build for another Python"), N_("{wheel} in {folder}"), N_("PyPI's own build of torch {version}"),
    N_("reachable builds: chose torch {version} ({tier}) for Python {python}, {why}, because {how}"),
    N_("reachable builds: chose torch {version} ({tier}) for Python {python}, {why}, because {how}; "
       "skipped {skipped}"),
    N_("reachable builds: chose torch {version} ({tier}) for Python {python}, {why}, because {how}; "
       "skipped {skipped} (and {count} more)"),
    N_("reachable builds: the resolve pulled in {name}, which the source of torch {version} ({tier}) "
       "does not serve ({message})"),
    N_("its files are on this machine"), N_("it can be fetched from here"),
    N_("skipped {what}"),
    N_("skipped: {what}"),
    N_("torch {version} ({tier}) for Python {python}: {why}"),
    N_("--{flags} ({candidate}): {why}"),
    N_("--{flags} ({candidate})"),
    N_("does not fit this machine ({why})"),
    N_("your pip configuration's constraint file allows only {requirement} ({where}), and pip/uv apply it to "
       "every install"),
    N_("no {name} {version} wheel for Python {python} on {platform} in the torch source ({tried})"),
    N_("no {name} {version} wheel for Python {python} on {platform} in the PyPI side ({tried})"),
    N_("no source configured"),
    N_("{url}: no {name} {version} wheel for Python {python} on {platform}"),
    N_("{url}: no {name} wheel for Python {python}"),
    N_("{url}: skipped ({why})"),
    N_("{url}: skipped"),
    N_("{url}: {why}"),
    N_("cannot reach index {url}: {reason}"),
    N_("index {url} answered HTTP {code}"),
    N_("{url} not contacted: torchenv is offline (TORCHENV_OFFLINE=1)"),
    N_("not on this machine; local files are tried first"),
    N_("{host}: {why} earlier in this run"),
    N_("could not get {file}: no usable source ({why})"),
    N_("could not get {file} ({why})"),
    N_("none given"),
    N_("the project's requirements name {name}, which no reachable source of this plan serves ({tried})"),
    N_("no torch build that runs here can be fetched from here; {tier} needs {why}"),
    N_("check your network/proxy, pick a working mirror (`torchenv mirror test`), or put the wheels in a folder "
       "listed in pip's find-links"),
    N_("torch {version} ({tier}), as torchenv.toml asks ({explicit}), cannot be fetched from here: {why}; "
       "reachable instead: {alternatives}"),
    N_("none found"),
    N_("the {name} mirror carries {tier}"),
    N_("change torchenv.toml (or pass the flags) to one of these, or make the source reachable (network/proxy, "
       "`torchenv mirror test`)"),
    N_("host name not found (DNS)"), N_("timed out"), N_("connection refused"), N_("connection dropped"),
)
