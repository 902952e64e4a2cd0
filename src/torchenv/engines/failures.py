"""What kind of failure an installer's output shows, and the hint that fits that kind.

Why a table: uv and pip fail for a handful of reasons a user can act on (a read-only
cache, no DNS, a refused connection, a corrupt local wheel, a folder they may not write,
a package no index has, no wheel for this Python/platform, pins that contradict each
other), and each needs a different next step. One generic "your requirements contradict
each other" sent people hunting for a conflict behind a dead network. The first rule
whose pattern occurs in the output wins, so more specific rules come first (a corrupt
wheel also ends in "requirements are unsatisfiable"). Patterns are written against the
real output of uv (``uv pip compile`` / ``sync`` / ``venv``) and pip; the tests feed them
live output of the installer torchenv ships with.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..i18n import N_, _

if TYPE_CHECKING:
    from ..errors import BuildFailed

_PATH = (r"(?:at path \"(?P<path>[^\"]+)\"|`(?P<path2>[^`]+)`: (?:Permission denied|Read-only)"
         r"|(?:Permission denied|Read-only file system): '(?P<path3>[^']+)')")


@dataclass(frozen=True)
class FailureRule:
    kind: str            # short name, shown next to the exit code and in --json
    pattern: str         # regex searched in the installer's output (case-insensitive)
    hint: str            # what to do; ``{path}`` is the file or folder the output names, when it names one


@dataclass(frozen=True)
class EngineFailure:
    kind: str
    hint: str


RULES: tuple[FailureRule, ...] = (
    FailureRule(N_("read-only filesystem"), r"Read-only file system|os error 30|\[Errno 30\]",
                N_("{path_or} is on a read-only filesystem; point the cache at a writable folder "
                   "(TORCHENV_CACHE_DIR or UV_CACHE_DIR, e.g. `export TORCHENV_CACHE_DIR=$HOME/.cache/torchenv`), "
                   "or set [env] path to a writable place")),
    FailureRule(N_("permission denied"), r"Permission denied|os error 13|\[Errno 13\]",
                N_("you may not write {path_or}; run as the user who owns it, fix its ownership "
                   "(`ls -ld` shows the owner), or set [env] path / TORCHENV_CACHE_DIR to a folder you own")),
    FailureRule(N_("host name not found"),
                r"dns error|failed to lookup address|Name or service not known|Temporary failure in name "
                r"resolution|nodename nor servname|getaddrinfo failed|No address associated with hostname",
                N_("the index's host name does not resolve: check the URL in your pip config / [mirror] "
                   "(`torchenv mirror test`), your DNS and proxy settings (HTTPS_PROXY), or work offline with "
                   "`torchenv up --offline --from BUNDLE`")),
    FailureRule(N_("connection refused"), r"Connection refused|os error 111|\[Errno 111\]",
                N_("nothing answers at the index's address: is the mirror or proxy running and the port right? "
                   "Check the URL in your pip config / [mirror] (`torchenv mirror test`) and HTTPS_PROXY")),
    FailureRule(N_("network unreachable"),
                r"timed out|Network is unreachable|os error 101|Connection reset|error sending request",
                N_("the index could not be reached: check the network, proxy (HTTPS_PROXY) and the index URL "
                   "(`torchenv mirror test`), or work offline with `torchenv up --offline --from BUNDLE`")),
    FailureRule(N_("corrupt wheel"),
                r"invalid package format|Failed to read from zip|Invalid zip file|Failed to extract archive|"
                r"end of central directory|BadZipFile|"
                r"is not a zip file|is not a valid wheel|Wheel '.*' located at .* is invalid",
                N_("a wheel file is damaged (partly downloaded or overwritten): delete it from your local wheel "
                   "folder (find-links) or clear the cache (`uv cache clean`), fetch it again and re-run")),
    FailureRule(N_("package not found"),
                r"was not found in the (?:provided package locations|package registry)",
                N_("no configured index has that package: check its spelling in your requirements, and that your "
                   "index (pip config, [mirror]) carries it")),
    FailureRule(N_("no matching wheel"),
                r"has no wheels with a matching|no wheels (?:are )?available|only has wheels for",
                N_("the package has no wheel for this Python version or platform: pick another Python with "
                   "`--python X.Y` / [torch] python, or another version of the package")),
    FailureRule(N_("no matching distribution"),     # pip says this both for a missing package and for no wheel
                r"No matching distribution found|Could not find a version that satisfies",
                N_("no configured index has a file of that package for this Python/platform: check the name in "
                   "your requirements, that your index (pip config, [mirror]) carries it, and that it ships a "
                   "wheel for this Python (`--python X.Y` picks another); pip says the same when the index could "
                   "not be reached at all: `torchenv mirror test` checks that")),
    FailureRule(N_("conflicting requirements"),
                r"requirements are unsatisfiable|ResolutionImpossible|conflicting dependencies|"
                r"No solution found when resolving",
                N_("your requirements contradict each other (the lines above name the packages and pins): relax "
                   "one of the pins named there")),
)


def _path_in(match_text: str) -> str | None:
    m = re.search(_PATH, match_text)
    if m is None:
        return None
    path = m.group("path") or m.group("path2") or m.group("path3")
    head, _slash, name = path.rpartition("/")
    return head if name.startswith(".tmp") and head else path   # uv names the temp file it could not create


def classify(output: str) -> EngineFailure | None:
    """The first rule whose pattern occurs in ``output``; ``None`` when no rule knows the failure."""
    for rule in RULES:
        if re.search(rule.pattern, output, re.IGNORECASE):
            return EngineFailure(rule.kind, _(rule.hint).format(path_or=_named_path(output, rule)))
    return None


def _named_path(output: str, rule: FailureRule) -> str:
    """The path on the line that matched (uv: ``at path "..."``, ``\\`...\\`: Permission denied``)."""
    lines = output.splitlines()
    for no, line in enumerate(lines):
        if re.search(rule.pattern, line, re.IGNORECASE):
            # uv wraps a long message: the path may sit on the indented lines that follow
            before = [lines[no - 1].strip()] if no and line[:1].isspace() else []
            after = [nxt.strip() for nxt in lines[no + 1:no + 3] if nxt[:1].isspace()]
            joined = " ".join(before + [line.strip()] + after)
            path = _path_in(joined)
            if path:
                return path
    return _("a folder the installer writes to (named above)")


# -- builds ---------------------------------------------------------------------------------------------------
# What a failed build's own log says, and the fix for it. A build's output is long and its last line is often
# a wrapper's ("subprocess-exited-with-error", a traceback's tail from a download inside setup.py), so the
# first real error lines are shown, and the rules below are matched against those lines first.

@dataclass(frozen=True)
class BuildRule:
    kind: str
    pattern: str         # regex searched in the build's error lines, then in its whole log (case-insensitive)
    hint: str            # ``{module}``: the module a ``No module named`` line names; ``{package}``: what was built


BUILD_RULES: tuple[BuildRule, ...] = (
    BuildRule(N_("build requirement not locked"),
              r"Because (?P<module>[\w.-]+) was not found in the provided package locations|"
              r"No matching distribution found for (?P<pip_module>[\w.-]+)",
              N_("{package}'s build needs {module}, which is not among the locked files (installs use only "
                 "locked, hash-checked files): add {module} to the project's requirements so it is locked, then "
                 "run `torchenv up` again")),
    BuildRule(N_("build needs torch"), r"No module named '?torch'?(?![\w.])",
              N_("{package}'s build imports torch but was built in isolation: add \"torch\" to [build-system] "
                 "requires in its pyproject.toml (torchenv then builds it against the env's torch, without "
                 "isolation), then run `torchenv up` again")),
    BuildRule(N_("C++ compiler missing"),
              r"command '?[\w./+-]*(?:g\+\+|c\+\+|gcc|cc|clang\+\+)'? failed: No such file|"
              r"(?:g\+\+|c\+\+|gcc|cc): (?:command )?not "
              r"found|No such file or directory: '(?:[\w./-]*/)?(?:g\+\+|c\+\+|gcc|cc)'|"
              r"Could not find a C\+\+ compiler|no acceptable C compiler",
              N_("{package} compiles C++ and no working C++ compiler was found: install one "
                 "(Debian/Ubuntu: `sudo apt-get install g++`; Fedora/RHEL: `sudo dnf install gcc-c++`; "
                 "conda: `conda install -c conda-forge gxx_linux-64`), then run `torchenv up` again")),
    BuildRule(N_("host compiler too new for CUDA"),
              r"unsupported GNU version! gcc versions later than (?P<module>\d+) are not supported",
              N_("{package}'s CUDA code needs a GCC no newer than {module} (nvcc's limit for this CUDA): install "
                 "g++-{module} (Debian/Ubuntu: `sudo apt-get install g++-{module}`; conda: `conda install -c "
                 "conda-forge gxx_linux-64={module}`), select it with `export CC=gcc-{module} CXX=g++-{module}`, "
                 "then run `torchenv up` again")),
    BuildRule(N_("CUDA compiler missing"), r"nvcc: not found|No such file or directory: '[^']*nvcc'|CUDA_HOME "
              r"environment variable is not set|Could not find nvcc",
              N_("{package} compiles CUDA code and no nvcc was found: install the CUDA toolkit of the env's "
                 "tier and set CUDA_HOME to it, or use a prebuilt wheel of {package} for this torch")),
    BuildRule(N_("build requirement missing"), r"No module named '?(?P<module>[\w.]+)'?",
              N_("{package}'s build needs the module {module}, which its build does not declare: add its "
                 "package to [build-system] requires in pyproject.toml (torchenv locks it and installs it "
                 "before the build), then run `torchenv up` again")),
)

# wrapper lines every failed build prints around the real error: never the error itself
_WRAPPERS = re.compile(r"subprocess-exited-with-error|metadata-generation-failed|legacy-install-failure|"
                       r"Failed to build|Failed to prepare distributions|Build backend failed|"
                       r"Call to `.*` failed|Failed building (?:wheel|editable)|ERROR: Could not build|"
                       r"See above for output|exited with|note: This error originates", re.IGNORECASE)
_ERROR_LINE = re.compile(r"(?:^|[\s:])(?:fatal )?error(?:\[\w+\])?:|^\s*\w*(?:Error|Exception):|"
                         r"^\s*E\d{4}:|undefined reference to", re.IGNORECASE)


@dataclass(frozen=True)
class BuildFailure:
    kind: str | None       # a ``BUILD_RULES`` kind, ``None`` when no rule knows it
    errors: tuple[str, ...]
    hint: str


def error_lines(log: str, limit: int = 6) -> tuple[str, ...]:
    """The first real ``error:`` lines of a build log (compiler errors, a raised exception), wrappers left out."""
    picked: list[str] = []
    for raw in log.splitlines():
        line = raw.strip().lstrip("│|").strip()
        if line and _ERROR_LINE.search(line) and not _WRAPPERS.search(line) and line not in picked:
            picked.append(line[:300])
            if len(picked) == limit:
                break
    return tuple(picked)


def explain_build(log: str, package: str, log_path: str) -> BuildFailure:
    """The kind, first error lines and fix of a failed build of ``package`` whose log is at ``log_path``."""
    errors = error_lines(log)
    for text in ("\n".join(errors), log):
        for rule in BUILD_RULES:
            m = re.search(rule.pattern, text, re.IGNORECASE)
            if m is not None:
                module = next((v for v in m.groupdict().values() if v), "")
                return BuildFailure(rule.kind, errors, _(rule.hint).format(package=package, module=module))
    return BuildFailure(None, errors, _("the lines above are the build's first errors; the whole log is {log}. "
                                        "Fix what they name, then run `torchenv up` again").format(log=log_path))


def built_package(output: str) -> str | None:
    """The package an installer says it failed to build (uv: ``Failed to build `NAME @ ...```, pip:
    ``Failed building wheel for NAME`` / ``Failed to build NAME``); ``None`` when it names none."""
    m = re.search(r"Failed to (?:build|download and build) `(?P<a>[^`@= ]+)|Failed building (?:wheel|editable) "
                  r"for (?P<b>[\w.-]+)|ERROR: Failed to build (?:installable wheels for some pyproject\.toml based "
                  r"projects \()?(?P<c>[\w.-]+)|Getting requirements to build wheel for (?P<d>[\w.-]+)", output)
    if m is None:
        return None
    return next(g for g in m.groups() if g)


def build_failed(package: str, output: str, *, what: str, log: str | None = None) -> BuildFailed:
    """The error for a failed build: its first real errors (else the log's last lines), the log's path, a fix."""
    from ..errors import BuildFailed

    failure = explain_build(output, package, log or _("(not saved)"))
    shown = failure.errors or tuple(line.strip() for line in output.strip().splitlines()[-5:])
    message = (_("{what} failed: {package} did not build ({kind}); its first errors:").format(
                   what=what, package=package, kind=_(failure.kind) if failure.kind else _("build failed"))
               + "".join(f"\n    {line}" for line in shown))
    if log:
        message += "\n" + _("the whole build log: {log}").format(log=log)
    return BuildFailed(message, package=package, output=output, what=what, hint=failure.hint, log=log)
