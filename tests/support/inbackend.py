"""A project with an in-tree PEP 517/660 build backend, so editable installs need no index.

Why in-tree: the fake PyPI sides of the tests serve no setuptools; a backend that the project
carries (``backend-path = ["."]``, ``requires = []``) lets uv and pip build the editable
wheel offline, exactly as they would with setuptools.
"""
from __future__ import annotations

from pathlib import Path

BACKEND = '''
import base64, hashlib, os, zipfile

NAME, VERSION = "{name}", "0.1"


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{{path}},sha256={{digest}},{{len(data)}}"


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    if os.environ.get("DEMO_BUILD_FAILS") or os.path.exists(os.path.join(os.path.dirname(__file__), "FAIL")):
        raise RuntimeError("this build needs a compiler that is not here")
    info = f"{{NAME}}-{{VERSION}}.dist-info"
    files = {{
        f"_{{NAME}}_editable.pth": (os.path.abspath(os.path.dirname(__file__)) + "\\n").encode(),
        f"{{info}}/METADATA": f"Metadata-Version: 2.1\\nName: {{NAME}}\\nVersion: {{VERSION}}\\n".encode(),
        f"{{info}}/WHEEL": b"Wheel-Version: 1.0\\nGenerator: demo\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
        f"{{info}}/entry_points.txt": b"[console_scripts]\\n{script} = {name}.cli:main\\n",
    }}
    wheel = f"{{NAME}}-{{VERSION}}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w") as zf:
        lines = []
        for path, data in files.items():
            zf.writestr(path, data)
            lines.append(_record_line(path, data))
        lines.append(f"{{info}}/RECORD,,")
        zf.writestr(f"{{info}}/RECORD", "\\n".join(lines) + "\\n")
    return wheel


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return build_editable(wheel_directory, config_settings, metadata_directory)


def get_requires_for_build_wheel(config_settings=None):
    return []
'''

PYPROJECT = '''[build-system]
requires = []
build-backend = "demo_backend"
backend-path = ["."]

[project]
name = "{name}"
version = "0.1"
dependencies = {deps}

[project.scripts]
{script} = "{name}.cli:main"
'''


def write_package_project(project: Path, *, name: str = "demo", script: str = "demo-hello",
                          deps: tuple[str, ...] = (), main_body: str = 'print("hello from demo")') -> None:
    """A pyproject project named ``name`` whose console script ``script`` runs ``main_body``."""
    (project / "demo_backend.py").write_text(BACKEND.format(name=name, script=script))
    (project / "pyproject.toml").write_text(PYPROJECT.format(name=name, script=script,
                                                             deps="[" + ", ".join(f'"{d}"' for d in deps) + "]"))
    pkg = project / name
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "cli.py").write_text(f"def main():\n    {main_body}\n")
