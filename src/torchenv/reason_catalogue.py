"""Every sentence a reason or warning can be: ``id`` -> English template (the gettext msgid).

Why one table: a ``reasons.Reason`` names its sentence by ``id``; English and every translation
render from the template found here, values substituted after translation, so no copy of a
sentence is kept anywhere else. ``tests/cli/test_i18n.py`` walks this table and fails on an id
without a zh_CN entry or whose translation names other placeholders. Ids are stable names for
tools reading ``--json``; the English may be reworded (the catalogue entry follows).
"""
from __future__ import annotations

from .i18n import N_

CATALOGUE: dict[str, str] = {
    # who set a word of the intent (resolve.origins, intent.load, export.follow, flows.lockcmd)
    "who.project": N_("the project ({where})"),
    "who.project_bare": N_("the project"),
    "who.project_followed": N_("the project ({file}, followed: no torchenv.toml)"),
    "who.user": N_("the user ({flag})"),
    "who.lock_target": N_("the user (lock target {name})"),
    "who.fallback": N_("torchenv (fallback: {why})"),
    "who.caller": N_("the caller"),
    "who.recorded": N_("{text}"),
    "set_by": N_("set by {who}"),
    # the machine (resolve.machine_view)
    "machine.gpu": N_("machine: {platform}, {driver_text}, {count} GPU: {gpus}"),
    "machine.gpus": N_("machine: {platform}, {driver_text}, {count} GPUs: {gpus}"),
    "machine.rocm": N_("machine: {platform}, AMD ROCm GPU(s): {gfx}"),
    "machine.mps": N_("machine: {platform} (Apple silicon: the cpu build includes MPS)"),
    "machine.no_gpu": N_("machine: {platform}, no usable GPU"),
    "machine.driver": N_("NVIDIA driver {driver}"),
    "machine.driver_unknown": N_("NVIDIA driver version unknown"),
    "machine.hidden_by_cvd": N_("CUDA_VISIBLE_DEVICES={value} hides {count} GPU(s)"),
    "machine.no_gpu_visible": N_("no GPU is visible"),
    "gpu.cc_unknown": N_("{gpu} (compute capability unknown)"),
    "gpu.described": N_("{gpu} (sm_{sm}, {family})"),
    "gpu.assumed": N_("the assumed GPU"),
    "gpu.assumed_n": N_("assumed GPU {number}"),
    "gpu.sm": N_("{gpu} (sm_{sm})"),
    "warn.cc_from_table": N_("{gpu}: compute capability not reported; {cc} taken from the GPU table "
                             "(recipes/gpus.toml)"),
    "warn.cc_unknown": N_("{gpu}: compute capability unknown, so its compiled-code check is skipped; give it with "
                          "--assume-gpu X.Y"),
    "warn.driver_but_hidden": N_("an NVIDIA driver ({driver}) is installed but {why}: planning a CPU build; unset "
                                 "CUDA_VISIBLE_DEVICES (or pass --cuda) to plan for the GPUs"),
    "warn.driver_unknown": N_("NVIDIA driver version unknown: the driver floor of the tier could not be checked"),
    # the release (resolve.resolver)
    "release.newest_matching": N_("torch {version}: the newest release matching {spec} (set by {who}) that fits "
                                  "this machine"),
    "release.newest": N_("torch {version}: the newest release that fits this machine"),
    "release.refreshed": N_("torch {version} is known from `torchenv recipes refresh` ({source}): index facts "
                            "only, arch lists and experimental status are inferred"),
    "release.not_chosen": N_("torch {version} not chosen: {why}"),
    "release.more_skipped": N_("{count} more newer releases skipped ({kinds})"),
    "release.same_reasons": N_("same reasons"),
    "release.fact": N_("torch {version}: {why}"),
    # where the torch family comes from
    "source.pypi_build": N_("{tier} is PyPI's own build of torch {version} on {platform}: the torch family comes "
                            "from PyPI, exactly pinned (no local version tag)"),
    "source.tier_index": N_("PyPI's build of torch {version} on {platform} is {pypi_tier}, so the {tier} build "
                            "comes from the {tier} torch index, pinned with its local tag (+{tier})"),
    # the tier
    "tier.chosen_asked": N_("{tier} chosen: set by {who} (cuda = \"{asked}\"); {why}"),
    "tier.chosen": N_("{tier} chosen: {why}"),
    "tier.every_gpu": N_("runs on every GPU -- {per_gpu}"),
    "tier.gpu_match": N_("{label}: {how}"),
    "tier.no_gpu_checked": N_("no NVIDIA GPU is visible, so neither driver nor GPU code was checked"),
    "tier.rocm_newest": N_("the newest ROCm build of this release"),
    "tier.rocm_newest_carrying": N_("the newest ROCm build of this release carrying {gfx}"),
    "tier.cpu_asked": N_("cpu chosen: set by {who} (cuda = \"cpu\"); the GPU will not be used"),
    "tier.cpu_macos": N_("cpu build chosen: macOS wheels are CPU builds, with MPS on Apple silicon"),
    "tier.cpu_no_gpu": N_("cpu chosen: no usable GPU on this machine"),
    "tier.driver_floor": N_("driver {driver} >= {floor}, the floor of {tier} ({policy})"),
    "tier.gpu_driver_note": N_("note: {gpu} ({family}) needs an R{floor}+ driver [unverified]"),
    "policy.strict": N_("the CUDA {cuda} toolkit's own driver, policy strict"),
    "policy.minor_compat": N_("CUDA {major}.x minor-version compatibility"),
    "policy.no_minor_compat": N_("CUDA {cuda} has no minor-version compatibility"),
    "warn.no_cuda_gpu": N_("no NVIDIA GPU is visible: the {tier} build installs, but torch will run on the CPU "
                           "only"),
    "warn.no_rocm_gpu": N_("no AMD ROCm GPU was found: the {tier} build installs, but torch will run on the CPU "
                           "only"),
    "warn.experimental_tier": N_("{tier} is an experimental tier for torch {version} ({why})"),
    "experimental.allowed": N_("allowed by allow_experimental"),
    "experimental.no_stable": N_("no stable tier fits"),
    # how a GPU runs a build (kb.archs)
    "arch.exact": N_("carries {label}, an exact match for {cc}"),
    "arch.same_major": N_("carries {label}, which runs on {cc} (same major, minor {got} <= {have})"),
    "arch.ptx": N_("carries PTX {label}, which the driver JIT-compiles for {cc} (slow first start; some library "
                   "kernels may be missing)"),
    "arch.newer_minor": N_("its sm_{major}x code ({labels}) is newer than {cc}, and SASS only runs on an equal or "
                           "higher minor"),
    "arch.ptx_too_new": N_("no sm_{major}x code, and its PTX (compute_{ptx}) needs CC >= {need}"),
    "arch.no_major": N_("no sm_{major}x code and no PTX to JIT-compile"),
    "arch.span": N_("{span} without PTX"),
    "arch.span_ptx": N_("{span} with PTX compute_{ptx}"),
    "arch.no_code": N_("no GPU code"),
    # why a candidate was skipped (resolve.search)
    "skip.glibc": N_("torch {version} wheels need glibc >= {need} (manylinux tag); this machine has {glibc}"),
    "skip.driver": N_("{tier} skipped: needs NVIDIA driver >= {floor} ({policy}); this machine has {driver}{also}"),
    "skip.driver_no_help": N_("; a newer driver would not help: its wheels carry {archs}, no code for {gpus}"),
    "skip.arch": N_("{tier} skipped: torch {series} {tier} wheels carry {archs}; {gpu} is sm_{sm} ({family}): "
                    "{why} -> 'no kernel image is available'"),
    "skip.unknown_archs": N_("{tier} skipped: the GPU code in torch {series} {tier} wheels is not in the knowledge "
                             "base (recipes/archs.toml)"),
    "skip.unknown_tier": N_("{tier} skipped: torchenv's recipes do not know tier {tier} (recipes/tiers.toml)"),
    "skip.jetson": N_("{tier} skipped: {gpu} is a Jetson (integrated) GPU; the aarch64 torch wheels on PyPI and "
                      "download.pytorch.org are SBSA (server) builds, and Jetson boards need NVIDIA's JetPack "
                      "builds of torch"),
    "skip.rocm_gfx": N_("{tier} skipped: its wheels carry {gfx}; this GPU is {missing}"),
    "skip.experimental": N_("{tier} not considered: experimental for torch {version} (allow_experimental = true, "
                            "or --experimental, to use it)"),
    "skip.no_platform_wheels": N_("torch {version} has no wheels for {platform}"),
    "skip.no_mode_wheels": N_("torch {version} has no {mode} wheels for {platform}"),
    "skip.no_tier_wheels": N_("torch {version} has no {tier} wheels for {platform} (it has {tiers})"),
    "skip.unknown_kind": N_("torchenv's recipes do not know which {kind} builds torch {version} has (no source "
                            "lists them; recipes/releases.toml)"),
    "note.tier_learnt": N_("tier {tier} was learnt by `torchenv recipes refresh`; its driver floors are inferred "
                           "({source})"),
    "note.seen_on_index": N_("torch {version} {tier} is on the {tier} index although the recipes do not list it: "
                             "its GPU code list and floors are inferred"),
    "note.learnt": N_("torch {version} {tier} was seen on the index by `torchenv recipes refresh`; the shipped "
                      "recipes do not list it"),
    "note.unlisted": N_("torch {version} {tier} is on the {tier} index but not in RELEASE.md's table (a limited "
                        "release; compat.md §8b)"),
    "note.rocm_unverified": N_("the GPU architecture list of {tier} is unverified ({source})"),
    "note.rocm_unknown": N_("the GPU architectures of {tier} are not in the knowledge base: not checked"),
    "note.ptx_only": N_("{gpu} runs torch {series} {tier} only through PTX JIT (compute_{code}): the first start "
                        "compiles kernels and some library kernels may be missing"),
    "note.archs_unverified": N_("the GPU code list of torch {series} {tier} on {platform} is unverified ({source})"),
    # Python (resolve.python_choice, resolve.search)
    "python.set": N_("Python {python}: set by {who}; {where}"),
    "python.bound": N_("; kept within the project's requires-python {spec} ({file})"),
    "python.not_here": N_("not on this machine: it will be installed"),
    "python.found_at": N_("found at {path}"),
    "python.assumed": N_("on the (assumed) machine"),
    "python.preferred": N_("Python {python}: preferred by the caller and supported by torch {version}{bound}"),
    "python.newest_here": N_("Python {python}: the newest Python on this machine that torch {version} has wheels "
                             "for{bound}"),
    "python.newest_here_others": N_("Python {python}: the newest Python on this machine that torch {version} has "
                                    "wheels for (also on this machine: {others}){bound}"),
    "python.install": N_("Python {python}: the newest Python torch {version} supports ({first}-{last}); none of "
                         "this machine's Pythons ({have}) fits, so it must be installed{bound}"),
    "python.no_wheels_here": N_("torch {version} has no Python {python} wheels for {platform} (only for {where})"),
    "python.no_free_threaded": N_("torch {version} has no free-threaded Python {python} wheels (free-threaded "
                                  "builds: {have})"),
    "python.no_wheels": N_("torch {version} has no wheels for Python {python} (it has {first}-{last})"),
    "warn.python_missing": N_("Python {python} is not on this machine; `up` has to install it"),
    "warn.python_install": N_("Python {python} is not on this machine; `up` has to install it (conda backend, or "
                              "`uv python install {python}`)"),
    "warn.python_outside": N_("Python {python} is outside the project's requires-python {spec} ({file}): "
                              "installing the project will fail"),
    "warn.free_threaded": N_("Python {python} is a free-threaded build (cp{abi} wheels), which RELEASE.md calls "
                             "experimental; extensions without free-threaded wheels will not install"),
    # the environment backend (resolve.resolver)
    "backend.set": N_("{backend}: set by {who} (env.backend)"),
    "backend.default": N_("{backend}: torchenv's default (env.backend is not set)"),
    "backend.conda_packages": N_("conda: the project lists conda packages ([conda] packages)"),
    "backend.conda_python": N_("conda: the planned Python is not on this machine, and conda can provide it"),
    "backend.venv_python": N_("venv: the planned Python is on this machine ({path})"),
    "backend.assumed": N_("assumed"),
    # what the build brings along
    "build.mps": N_("on Apple silicon the cpu build includes MPS: verify expects the 'mps' device"),
    "build.import_needs": N_("also installed: {packages}, which torch {version}'s import needs without requiring "
                             "it (unless the project's requirements name it; left out, and said, when the PyPI side "
                             "cannot serve it)"),
    "warn.import_need_left_out": N_("{packages} could not be resolved from the PyPI side, so it is left out: "
                                    "{why}"),
    "build.import_warns": N_("`import torch` will warn that it is missing"),
    # the tier index check (resolve.index_check)
    "index.unchecked": N_("could not check the tier index ({hosts}): the recipes answer"),
    "index.host_failed": N_("{host}: {why}"),
    "index.checked": N_("checked the {tier} index ({url}, read {when}): it holds torch {version} for {platform}"),
    "index.just_now": N_("just now"),
    "index.minutes_ago": N_("{minutes} min ago"),
    "index.where": N_("the {tier} index ({url}, read {when})"),
    "index.no_wheel": N_("{tier} skipped: the recipes list torch {version} {tier}, but {where} has no torch "
                         "{version} wheel for {platform}"),
    "index.no_python_wheel": N_("{tier} skipped: {where} has no Python {python} wheel of torch {version} for "
                                "{platform} (it has {pythons})"),
    "index.python_gap": N_("{tier}: {where} has no Python {python} wheel of torch {version} for {platform} (it has "
                           "{pythons}); `up` will fail unless Python {python}'s wheel appears there (pick another "
                           "with --python)"),
    "index.variants_unused": N_("the index's variant metadata was not used: {error}"),
    "index.variants": N_("the index's {file} (wheel variants, PEP 825 draft): variants that fit this machine, best "
                         "first: {good}"),
    "index.variant_needs": N_("the index's {file} says its {tier} variant needs {missing}, which this machine's "
                              "probe does not report; torchenv's own checks chose {tier}"),
    # refusals (resolve.resolver)
    "ask.torch": N_("torch {spec}"),
    "ask.any_torch": N_("any torch release"),
    "ask.tier": N_("tier {tier}"),
    "ask.python": N_("Python {python}"),
    "ask.strict": N_("driver policy strict"),
    "refused.no_build": N_("no torch build for {what} runs on this machine ({platform}); {instead}"),
    "refused.recipes_lack": N_("torchenv's recipes do not know the builds of {what} that a {mode} machine needs "
                               "({platform}), so they cannot be checked against this machine; {instead}"),
    "refused.instead": N_("would work instead: {alternatives}"),
    "refused.no_alternative": N_("no nearby alternative passes every check either"),
    "refused.more_reasons": N_("... {count} more reasons of kind {kinds} (narrow the search with --torch or --cuda "
                               "to see them)"),
    "refused.no_build_for_all_gpus": N_("no build carries code for every GPU of this machine: plan for some of "
                                        "them by hiding the others with CUDA_VISIBLE_DEVICES"),
    "refused.jetson": N_("{gpu} is a Jetson (integrated) GPU: the aarch64 torch wheels on PyPI and "
                         "download.pytorch.org are SBSA (server) builds, and Jetson boards need NVIDIA's JetPack "
                         "builds of torch"),
    "refused.unknown_tier": N_("torchenv's recipes do not know tier {tier} for {which} (newest known release "
                               "{version})"),
    "refused.unknown_tier_instead": N_("torchenv's recipes do not know tier {tier} for {which} (newest known "
                                       "release {version}); {instead}"),
    "refused.known_tiers": N_("tiers the recipes know for {which} on {platform}: {tiers}"),
    "refused.unknown_version": N_("torchenv's recipes do not know a torch release matching {spec} (they know "
                                  "{first} to {last}); this says nothing about the machine"),
    "refused.unknown_version_instead": N_("torchenv's recipes do not know a torch release matching {spec} (they "
                                          "know {first} to {last}); this says nothing about the machine; {instead}"),
    "refused.known_releases": N_("known releases: {releases}"),
    "hint.try": N_("try {flags}"),
    "hint.see_reasons": N_("see the reasons above; `torchenv plan --json` lists them"),
    "hint.jetson": N_("on Jetson install NVIDIA's JetPack build of torch for your JetPack version; torchenv can "
                      "still plan the cpu build (--cuda cpu)"),
    "hint.refresh_tier": N_("if the {tier} index has this release, `torchenv recipes refresh --tier {tier}` records "
                            "it (recipes/releases.toml holds the shipped facts); otherwise pick a known tier"),
    "hint.refresh_tier_or": N_("if the {tier} index has this release, `torchenv recipes refresh --tier {tier}` "
                               "records it (recipes/releases.toml holds the shipped facts); otherwise pick a known "
                               "tier, e.g. {flags}"),
    "hint.refresh_release": N_("if it is released, `torchenv recipes refresh` (or `--from` a mirror or folder) "
                               "teaches torchenv its builds; otherwise pin a known release"),
    # alternatives (resolve.alternatives)
    "alt.tier": N_("torch {version} built for {tier} fits this machine ({asked} does not)"),
    "alt.newest": N_("torch {version} ({tier}) is the newest release that fits this machine"),
    "alt.torch_tier": N_("torch {version} with {tier} fits this machine"),
    "alt.python": N_("torch {version} has wheels for Python {first}-{last}"),
    "alt.policy": N_("the compat policy accepts NVIDIA's minor-version compatibility floors"),
    "alt.driver": N_("with an NVIDIA driver >= {floor}, torch {version} {tier} would run here"),
    "alt.experimental": N_("{tier} is experimental for torch {version}"),
    "alt.cpu": N_("the CPU build installs and runs here, without GPU acceleration"),
    "words.alt_base": N_("torch {torch} with {tier}"),
    "words.alt_python": N_("Python {value} ({alternative})"),
    "words.alt_driver": N_("NVIDIA driver >= {value} ({alternative})"),
    "words.alt_policy": N_("policy = \"compat\" ({alternative})"),
    "words.alt_experimental": N_("allow_experimental = true ({alternative})"),
    "words.none": N_("none"),
    "words.none_found": N_("none found"),
    "words.all": N_("all"),
    "words.other_platforms": N_("other platforms"),
    # builds that run here and can be fetched from here (resolve.reachable)
    "fallback.same_build": N_("the same build for another Python"),
    "fallback.local_wheel": N_("{wheel} in {folder}"),
    "fallback.pypi_build": N_("PyPI's own build of torch {version}"),
    "fallback.local": N_("its files are on this machine"),
    "fallback.fetchable": N_("it can be fetched from here"),
    "fallback.chose": N_("reachable builds: chose torch {version} ({tier}) for Python {python}, {why}, because "
                         "{how}"),
    "fallback.chose_skipped": N_("reachable builds: chose torch {version} ({tier}) for Python {python}, {why}, "
                                 "because {how}; skipped {skipped}"),
    "fallback.chose_skipped_more": N_("reachable builds: chose torch {version} ({tier}) for Python {python}, {why}, "
                                      "because {how}; skipped {skipped} (and {count} more)"),
    "fallback.pulled_in": N_("reachable builds: the resolve pulled in {name}, which the source of torch {version} "
                             "({tier}) does not serve ({message})"),
    "fallback.skipped": N_("skipped {what}"),
    "fallback.skipped_colon": N_("skipped: {what}"),
    "fallback.planned_missing": N_("torch {version} ({tier}) for Python {python}: {why}"),
    "fallback.candidate_failed": N_("{flags} ({candidate}): {why}"),
    "fallback.does_not_fit": N_("does not fit this machine ({why})"),
    "fallback.none_fetchable": N_("no torch build that runs here can be fetched from here; {tier} needs {why}"),
    "fallback.explicit_unfetchable": N_("torch {version} ({tier}), as torchenv.toml asks ({explicit}), cannot be "
                                        "fetched from here: {why}; reachable instead: {alternatives}"),
    "fallback.alternative": N_("{flags} ({why})"),
    "fallback.mirror_carries": N_("the {name} mirror carries {tier}"),
    "hint.fetch": N_("check your network/proxy, pick a working mirror (`torchenv mirror test`), or put the wheels "
                     "in a folder listed in pip's find-links"),
    "hint.explicit_unfetchable": N_("change torchenv.toml (or pass the flags) to one of these, or make the source "
                                    "reachable (network/proxy, `torchenv mirror test`)"),
    "fetch.url_no_wheel": N_("{url}: no {name} wheel for Python {python}"),
    "fetch.url_skipped": N_("{url}: skipped"),
    "fetch.url_why": N_("{url}: {why}"),
    "fetch.requirement_unserved": N_("the project's requirements name {name}, which no reachable source of this "
                                     "plan serves ({tried})"),
    "sources.one_index": N_("packages besides the torch family come from one index (no choice between indexes to "
                            "make)"),
    "sources.best_match": N_("packages besides the torch family: {count} indexes searched as pip does, the best "
                             "version of each package from any of them (uv --index-strategy unsafe-best-match); the "
                             "torch family stays pinned to the files this plan chose"),
    # the project's requirement files and its Jupyter kernel (intent.project_requirements, intent.jupyter)
    "req.sources_from": N_("torchenv takes package sources from torchenv.toml [mirror] and your pip config"),
    "req.option_of_ignored": N_("{where}: option `{option}` of {requirement} ignored: {why}"),
    "req.option_ignored": N_("{where}: option `{option}` ignored: {why}"),
    "req.hashes_not_compared": N_("{where}: the --hash values of {count} requirements are not compared; torchenv "
                                  "locks and checks its own sha256 for every file it installs (torchenv.lock)"),
    "req.editable_self": N_("{where}: `-e {target}` is this project itself, not a dependency: it is not locked"),
    "req.editable_left_out": N_("{where}: editable install `-e {target}` is not locked by torchenv and is left out "
                                "of the environment"),
    "req.pin_agrees_requirement": N_("{where}: requirement `{text}` agrees with {name} {version}"),
    "req.pin_agrees_constraint": N_("{where}: constraint `{text}` agrees with {name} {version}"),
    "kernel.planned": N_("ipykernel in the environment and a kernelspec registered ({why}); [env] jupyter = false "
                         "leaves it out"),
    "kernel.asked": N_("a Jupyter kernel: asked for ([env] jupyter = true)"),
    "kernel.named": N_("a Jupyter kernel: the requirements name {name}"),
    "kernel.notebooks": N_("a Jupyter kernel: the project has notebooks ({notebook})"),
    # as a source fails while files are found or fetched (sources.locate, sources.getfile, sources.deadhosts)
    "fetch.url_failed": N_("{url} failed while looking for {name} {version}; trying the next source"),
    "fetch.url_failed_file": N_("{url} failed while looking for {file}: {why}; trying the next source"),
    "fetch.host_failed": N_("{host} failed ({why}); not asking it again during this run"),
    "fetch.host_failed_before": N_("{host} failed a moment ago ({why}); not asking it again during this run"),
    # why a host failed (sources.http), remembered as words and shown in the user's language
    "words.dns": N_("host name not found (DNS)"),
    "words.timed_out": N_("timed out"),
    "words.refused": N_("connection refused"),
    "words.dropped": N_("connection dropped"),
    "fetch.url_skipped_why": N_("{url}: skipped ({why})"),
    "fetch.url_no_version_wheel": N_("{url}: no {name} {version} wheel for Python {python} on {platform}"),
    "fetch.no_wheel_torch": N_("no {name} {version} wheel for Python {python} on {platform} in the torch source "
                               "({tried})"),
    "fetch.no_wheel_pypi": N_("no {name} {version} wheel for Python {python} on {platform} in the PyPI side "
                              "({tried})"),
    "fetch.no_source": N_("no source configured"),
    "fetch.host_failed_earlier": N_("{host}: {why} earlier in this run"),
    "fetch.http_status": N_("index {url} answered HTTP {code}"),
    "fetch.unreachable": N_("cannot reach index {url}: {reason}"),
    "fetch.offline": N_("{url} not contacted: torchenv is offline (TORCHENV_OFFLINE=1)"),
    "fetch.hosts_failed_earlier": N_("{hosts}"),
    "fetch.no_usable_source": N_("could not get {file}: no usable source ({why})"),
    "words.none_given": N_("none given"),
    "fetch.local_first": N_("not on this machine; local files are tried first"),
    "fetch.pip_constraint": N_("your pip configuration's constraint file allows only {requirement} ({where}), and "
                               "pip/uv apply it to every install"),
    # a companion the knowledge base has no build of (resolve.packages)
    "refuse.no_torchaudio": N_("no torchaudio build for tier {tier}: torch {version} has no torchaudio of its own and "
                               "the stable-ABI torchaudio 2.11.x has no build for this tier"),
    "refuse.torchaudio_maintenance": N_("torchaudio is in maintenance mode; no torchaudio >= 2.12 exists (compat.md "
                                        "§1c)"),
    "refuse.without_torchaudio": N_("plan without torchaudio (torchcodec now holds its I/O)"),
    "hint.drop_torchaudio": N_("remove torchaudio from `with`, or pick another CUDA tier"),
    "refuse.no_companion": N_("the knowledge base has no {name} paired with torch {version}"),
    "hint.drop_companion": N_("remove {name} from `with`, or correct recipes/releases.toml"),
    "alt.drop_companion": N_("remove {name} from `with` in torchenv.toml"),
    # where each kind of package comes from and who said so (sources.select; plan's "sources:" lines)
    "sources.torch_explicit": N_("torch wheels ({tier}): {urls} ({layout}), set by {chooser}{more}"),
    "sources.shared_chunks": N_("; {count} mirrors of the same files, a big file's chunks fetched from all of them"),
    "sources.pinned": N_("; pinned without fallback, so the official index is not tried"),
    "sources.torch_auto": N_("torch wheels ({tier}): mirror 'auto' ({chooser}): {how}"),
    "sources.auto_ranked": N_("ranked {names} by the last `torchenv mirror test`"),
    "sources.auto_unmeasured": N_("no recent measurement (run `torchenv mirror use auto`); official index"),
    "sources.preset_no_torch": N_("torch wheels ({tier}): mirror {name} (chosen by {chooser}) has no PyTorch wheel "
                                  "mirror; using the fallbacks and the official index"),
    "sources.torch_preset": N_("torch wheels ({tier}): mirror {name} {url} ({layout}), chosen by {chooser}"),
    "sources.torch_official": N_("torch wheels ({tier}): official index, chosen by {chooser}"),
    "sources.torch_default": N_("torch wheels ({tier}): official index {url} (no mirror configured)"),
    "sources.torch_order": N_("torch sources tried in order: {order}"),
    "sources.pypi_auto_unmeasured": N_("PyPI side: mirror 'auto' has no recent measurement; using your pip config "
                                       "(run `torchenv mirror use auto`)"),
    "sources.pypi_preset_none": N_("PyPI side: mirror {name} has no PyPI mirror; using your pip config"),
    "sources.pypi_dropped": N_("PyPI side: ignoring torch wheel indexes in your pip config's extra-index-url ({urls}); "
                               "torch-family packages come from the torch sources"),
    "sources.pypi_from_config": N_("other packages from the PyPI side: {url} ({origin})"),
    "sources.pypi_chosen": N_("other packages from the PyPI side: {url}, {origin}{kept}"),
    "sources.pypi_kept": N_(" (keeping extra-index-url/find-links/constraints of your pip config)"),
    "sources.uv_explicit": N_("PyPI side: explicit uv indexes left to the packages pinned to them ({indexes}); "
                              "torch-family packages come from the torch sources"),
    "sources.uv_over_pip": N_("PyPI side: uv's settings name the indexes, so the indexes of your {origin} are not "
                              "used"),
    "sources.wheelhouses": N_("local wheel folders searched first for exact files, torch family included (your own "
                              "files, hash-checked): {folders}"),
    "sources.conda_from_files": N_("conda mirrors from {files}"),
    "sources.conda_explicit": N_("conda mirrors set by {chooser}"),
    "sources.conda_auto": N_("conda mirrors: 'auto' ({chooser})"),
    "sources.conda_official": N_("conda channels: official ({chooser})"),
    "sources.conda_preset": N_("conda mirrors: {name} ({chooser}){more}"),
    "sources.conda_preset_none": N_("; {name} mirrors no conda channel"),
    # what init read in a project and what it made of it (intent.evidence; init shows them, init --json carries them)
    "init.kind_ignored": N_("not counted"),
    "init.kind_lock": N_("lock file"),
    "init.kind_tag": N_("local tag"),
    "init.kind_pin": N_("exact pin"),
    "init.kind_command": N_("install command"),
    "init.kind_range": N_("a range"),
    "init.kind_image": N_("Dockerfile base"),
    "init.kind_import": N_("an import"),
    "init.setting_by": N_("{setting} ({kind})"),
    "init.agrees": N_("agrees: {setting}"),
    "init.set_aside": N_("set aside: {why}"),
    "init.ignored_why": N_("ignored: {reason}"),
    "init.skipped": N_("skipped: {why}"),
    "init.meant_for": N_("meant for {target}, not this target"),
    "init.meant_for_host": N_("meant for {target}, not {host}"),
    "init.conflicts": N_("conflicts with {where} ({value}); the first one read wins"),
    "init.stronger": N_("{where} ({kind}) is stronger evidence than this ({other})"),
    "init.tier_candidate": N_("one of the project's tiers ({tiers}): the machine picks"),
    "init.outside": N_("outside {where} ({spec})"),
    "init.explicit_index": N_("an explicit index, and no torch source entry names it"),
    "init.auto_tiers": N_('cuda = "auto": the project names several tiers ({tiers}); each machine gets the one that '
                          'fits it'),
    "init.route": N_("the {target} route, an alternative to the PyTorch one"),
    "init.other_accelerator": N_("meant for another accelerator ({target})"),
    "init.readme_optional": N_("the README gives it as optional or as an example"),
    "init.extras_build": N_("{extras} names a torch build (version, tier): torchenv picks it per machine"),
    "init.extras_taken": N_("{setting}: the project's own optional dependencies, locked and installed with it"),
    "init.driver": N_("the driver the machine needs, not the build torch comes in"),
    "init.extra_no_torch": N_("the extra {group} does not install torch"),
    "init.per_os_file": N_("a per-OS or per-accelerator requirement file"),
    "init.requirement_file": N_("requirement file"),
    "init.names_it": N_("{where} names it"),
    "init.the_project": N_("(the project)"),
    "init.read": N_("read"),
    "init.read_constraints": N_("read: its torch pins count like requirements"),
    "init.ignored": N_("ignored"),
    "init.ignored_python": N_("ignored: outside the Python versions torch supports"),
    "init.itself": N_("the project itself, not a dependency"),
    "init.editable": N_("editable install: not locked by torchenv"),
    "init.pip_list": N_("{setting} (its pip: list)"),
    "init.imported": N_("{setting} (the code imports it; no dependency file names it)"),
    "init.optional_import": N_("optional: {name} not added to with (the code runs without it: the import is guarded "
                               "by except ImportError or if TYPE_CHECKING)"),
    "init.conda_not_installed": N_("conda packages not installed: add the ones the code needs to a requirements file "
                                   "(torchenv installs the pip: list and wheels)"),
    "init.unparsable": N_("could not be parsed"),
    "init.unparsable_yaml": N_("could not be parsed as YAML"),
    "init.conda_file": N_("conda environment file"),
    "init.file_exists": N_("file exists"),
    "init.doc_says": N_("{doc} says `{command}`"),
    "init.install_requires": N_("install_requires reads {text}"),
    "init.runtime_file": N_("runtime file of requirements/ (docs, tests, dev and other accelerators' files left out)"),
    # what the probe found wrong (Machine.findings; probe --save keeps them as data, doctor and probe show them)
    "probe.crashed": N_("probing {what} failed unexpectedly ({error}); please report this with `torchenv probe --json`"),
    "probe.wsl_no_gpu": N_("WSL2 without a usable NVIDIA GPU: install or update the NVIDIA driver on Windows (never a "
                           "Linux driver inside WSL); WSL exposes it under /usr/lib/wsl/lib"),
    "probe.tool_timed_out": N_("{tool} timed out after {seconds} s"),
    "probe.tool_denied": N_("{tool} could not be run (permission denied)"),
    "probe.tool_not_started": N_("{tool} was found but could not be started ({error})"),
    "probe.tool_failed": N_("{tool} failed to run: {error}"),
    "probe.apple_chip_unknown": N_("{failure}; Apple chip name unknown"),
    "probe.hsa_override": N_("HSA_OVERRIDE_GFX_VERSION={override} is set: ROCm will run these GPUs ({gfx}) as that "
                             "target instead"),
    "probe.rocm_no_gpu": N_("ROCm {version} is installed but the kernel lists no AMD GPU (is the amdgpu driver "
                            "loaded?)"),
    "probe.reboot_pending": N_("the loaded kernel module is {version} but NVML reports driver {driver}; a driver "
                               "update may be waiting for a reboot"),
    "probe.nvml_then_smi": N_("NVML failed ({error}); GPUs were read with nvidia-smi instead"),
    "probe.module_without_tools": N_("NVIDIA kernel module loaded ({version}) but {why}; GPUs and their compute "
                                     "capability are unknown (reinstall the driver's user-space libraries, or reboot "
                                     "after a driver update)"),
    "probe.no_tool_listed": N_("no tool could list the GPUs"),
    "probe.nvml_failed": N_("NVML failed: {error}"),
    "probe.no_smi": N_("nvidia-smi was not found"),
    "probe.no_driver": N_("no usable NVIDIA driver: {why}"),
    "probe.pci_without_driver": N_("{count} NVIDIA GPU(s) on the PCI bus but no NVIDIA driver is loaded: install the "
                                   "NVIDIA driver (torch's wheels bring CUDA themselves, not the driver)"),
    "probe.driver_no_gpu": N_("NVIDIA driver {installed} is installed but reports no GPU"),
    "probe.unknown_version": N_("(unknown version)"),
    "probe.cc_unknown": N_("compute capability of GPU {index} ({name}) is unknown: {reason}; pass --assume-gpu CC "
                           "to plan for it"),
    "probe.nvml_no_cc": N_("NVML did not report it"),
    "probe.smi_no_cc": N_("nvidia-smi did not report it"),
    "probe.smi_old": N_("this nvidia-smi (driver {driver}) cannot report compute_cap"),
    "probe.smi_crashed": N_("nvidia-smi crashed (signal {code}): {output}"),
    "probe.smi_status": N_("nvidia-smi exited with status {code}: {output}"),
    "probe.no_output": N_("no output"),
    "probe.assumed_driver_only": N_("assumed driver {driver} with no --assume-gpu: the plan checks the driver only, "
                                    "not whether the build carries kernels for the GPU"),
    "probe.nvml_no_cuda": N_("NVML could not report the CUDA version driver {driver} supports: {error}"),
    "probe.nvml_no_gpu": N_("NVML could not open GPU {index}: {error}"),
    "probe.nvml_no_field": N_("NVML could not read the {what} of GPU {index}: {error}"),
    "probe.smi_bad_line": N_("nvidia-smi printed a line torchenv could not read: {line}"),
    "probe.smi_bad_cc": N_("nvidia-smi reported compute capability {cc} for GPU {index}; ignored"),
    "probe.mig": N_("{shown} selects MIG instances; torchenv plans for their GPUs ({count} in all) without mapping "
                    "each instance"),
    "probe.cvd_bad_entry": N_("{shown}: entry {entry} names no GPU here; CUDA ignores it and every entry after it"),
    "probe.cvd_hides_all": N_("{shown} hides all {count} GPU(s): torch in this shell will see no GPU (unset it to use "
                              "them)"),
    "probe.cvd_hides_some": N_("{shown} hides {hidden} of {count} GPUs ({names}); planning for the visible ones"),
    "probe.sysfs_no_version": N_("{path} exists but does not hold a driver version ({raw})"),
    "probe.procfs_unreadable": N_("{path} exists but its version line could not be read ({raw})"),
    "probe.no_toolkit": N_("{var}={value} holds no CUDA toolkit (no bin/nvcc): extension builds that read it will "
                           "fail"),
}
