"""``torchenv`` command line: parse, dispatch, turn TorchenvError into a clear message + exit code.

Why so thin: every verb lives in ``commands/<verb>.py`` as ``register(subparsers)`` and
``run(args) -> int`` over the Python API; ``commands/__init__.py`` puts them together (``completion``
reads the same parser). Command modules import nothing heavy at module level, so building the
parser stays cheap.
"""
from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from .i18n import _

if TYPE_CHECKING:
    from .errors import TorchenvError


def main(argv: list[str] | None = None) -> int:
    """Run one command; whatever happens, end with a message (never a raw traceback) and an exit code."""
    from . import streams

    if streams.stdout_closed():
        return streams.refuse_closed_stdout()
    streams.ascii_safe_streams()
    streams.guard_stdout()
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["up"]:          # the no-op `up` answers before the parser imports every verb
        from .flows import noop

        code = noop.answer(argv)
        if code is not None:
            return streams.flush_stdout() or code
        noop.watch(argv)
    from . import i18n

    i18n.activate()                     # --help and usage errors in the user's language too
    argparse._ = _  # type: ignore[attr-defined]   # argparse's own words ("usage: ", "options", its errors) too
    from .commands import build_parser  # after the stamp: a stamped no-op up builds no parser

    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    i18n.activate({} if getattr(args, "json", False) else None)   # --json output stays English
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    code = _dispatch(args)
    if code == 0 and args.command == "up":
        from .flows import noop

        noop.record(argv, args.project)
    failed_output = streams.flush_stdout()
    return code if failed_output is None else failed_output


def _dispatch(args: argparse.Namespace) -> int:
    from . import streams
    from .errors import TorchenvError

    try:
        _locate_project(args)
        return int(args.func(args) or 0)
    except TorchenvError as exc:
        return _report(args, exc, cause=exc)
    except KeyboardInterrupt:
        from .i18n import _

        streams.say(_("torchenv: interrupted; nothing half-written was left in place "
                      "(run the same command again to finish)"))
        return 130
    except OSError as exc:
        if streams.stdout_failure(exc):
            return streams.report_stdout_failure(exc)
        from .oserrors import explain

        return _report(args, explain(exc), cause=exc)
    except Exception as exc:  # the last line of defence: one line, not a stack
        return _unexpected(args, exc)


def _locate_project(args: argparse.Namespace) -> None:
    """Point ``args.project`` at the project root found by walking up (``init`` writes where it is told)."""
    if not hasattr(args, "project") or args.command == "init":
        return
    from .project import find_project

    located = find_project(args.project or ".")
    args.project = str(located.root)
    args.located = located
    if located.found_above and args.command != "run" and not getattr(args, "quiet", False):
        from . import streams

        streams.say(f"torchenv: {located.describe()}")
        for lock in located.stray_locks:
            streams.say(_("torchenv: not using {lock} (no torchenv.toml beside it)").format(lock=lock))


def _report(args: argparse.Namespace, exc: TorchenvError, *, cause: BaseException | None = None) -> int:
    """Print a TorchenvError as the user sees it (JSON with --json); the stack only with TORCHENV_DEBUG=1."""
    from . import streams
    from .errors import PlanRefused
    from .ui import Ui

    _debug_traceback(cause)
    try:
        if getattr(args, "json", False):
            Ui(json_mode=True).emit_json(exc.to_json())
        elif isinstance(exc, PlanRefused):      # up/lock refuse like plan does: why, and what would work
            from .commands.plan import show_refusal

            show_refusal(Ui(), exc)
        else:
            Ui().error(exc.message, exc.hint)
    except OSError as out_exc:                  # the error itself could not be printed (stdout/stderr gone)
        streams.discard_stdout()
        streams.say(f"torchenv: {exc.message} ({out_exc.strerror or out_exc})")
    return exc.exit_code


def _unexpected(args: argparse.Namespace, exc: Exception) -> int:
    """A bug or an unforeseen condition: name what failed and where, in one line."""
    import traceback

    from . import streams

    _debug_traceback(exc)
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "/torchenv/" in f.filename.replace("\\", "/")]
    where = f" at {_short(ours[-1].filename)}:{ours[-1].lineno}" if ours else ""
    detail = str(exc).splitlines()[0] if str(exc) else ""
    from .i18n import _

    streams.say(_("torchenv {command}: unexpected {error}{where} (set TORCHENV_DEBUG=1 for the traceback)").format(
        command=args.command, error=type(exc).__name__ + (": " + detail if detail else ""), where=where))
    return 1


def _short(filename: str) -> str:
    norm = filename.replace("\\", "/")
    return norm[norm.rindex("/torchenv/") + 1:] if "/torchenv/" in norm else norm


def _debug_traceback(exc: BaseException | None) -> None:
    import os

    if exc is not None and os.environ.get("TORCHENV_DEBUG") not in (None, "", "0"):
        import traceback

        from .ui import safe_text  # a stack can quote a URL with a login in it

        sys.stderr.write(safe_text("".join(traceback.format_exception(type(exc), exc, exc.__traceback__))))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
