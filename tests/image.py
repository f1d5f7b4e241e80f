"""The production image's install, built outside Docker from the Dockerfile itself.

There is no Docker engine here, so ``build`` does what ``docker build`` would with the
Dockerfile's own lines: it copies what the COPY lines copy (less what .dockerignore leaves
out) into a fresh directory standing for the WORKDIR, sets the ENV lines and runs the RUN
lines there with ``sh``, and reads the command the ENTRYPOINT gives. The RUN lines before the
first COPY install tools on the base image; here the base image's ``python3`` is this
interpreter's base Python (no packages of the dev venv) and ``uv`` the dev venv's, the same
release (tests/test_packaging.py). An instruction it does not know fails the build: extend it
rather than let the image and this copy of it part ways.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Image:
    workdir: Path
    """The image's WORKDIR, here."""
    env: dict[str, str]
    """The environment its ENV lines leave, paths mapped here."""
    entrypoint: list[str]
    tool_steps: list[str]
    """The RUN lines before the first COPY (not run: the tools are this machine's)."""

    def command(self, *args: str) -> list[str]:
        """ENTRYPOINT plus ``args``, as ``docker run IMAGE ARGS`` (or compose's ``command``)."""
        program = shutil.which(self.entrypoint[0], path=self.env["PATH"])
        assert program, f"{self.entrypoint[0]} is not on the image's PATH"
        return [program, *self.entrypoint[1:], *args]


def instructions(dockerfile: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments), continuation lines joined, comments left out."""
    text = re.sub(r"\\\n", " ", dockerfile.read_text())
    lines = [line.strip() for line in text.splitlines()]
    return [
        (parts[0].upper(), parts[1] if len(parts) > 1 else "")
        for parts in (line.split(None, 1) for line in lines if line and not line.startswith("#"))
    ]


def build(dockerfile: Path, into: Path) -> Image:
    tools = into / "base-image-bin"
    tools.mkdir(parents=True)
    (tools / "python3").symlink_to(Path(sys._base_executable).resolve())
    (tools / "python").symlink_to(tools / "python3")
    (tools / "uv").symlink_to(Path(sys.executable).parent / "uv")
    env = {"PATH": f"{tools}{os.pathsep}/usr/bin{os.pathsep}/bin", "HOME": os.environ["HOME"]}
    env |= {  # how this machine reaches the registry (uv's settings, certificates, proxies)
        name: value
        for name, value in os.environ.items()
        if name.startswith(("UV_", "SSL_CERT_")) or name.lower().endswith("_proxy")
    }
    workdir, image_workdir = into, "/"
    entrypoint: list[str] = []
    tool_steps: list[str] = []
    copied = False
    ignored = [
        line[3:]
        for line in (dockerfile.parent / ".dockerignore").read_text().splitlines()
        if line.startswith("**/")
    ]
    for instruction, args in instructions(dockerfile):
        if instruction == "FROM":
            continue
        if instruction == "WORKDIR":
            image_workdir = args
            workdir = into / args.lstrip("/")
            workdir.mkdir(parents=True, exist_ok=True)
        elif instruction == "COPY":
            copied = True
            *sources, target = shlex.split(args)
            for source in sources:
                origin, dest = dockerfile.parent / source, workdir / target
                if target.endswith("/"):  # into that directory
                    dest.mkdir(parents=True, exist_ok=True)
                    dest = dest / origin.name
                if origin.is_dir():
                    shutil.copytree(origin, dest, ignore=shutil.ignore_patterns(*ignored))
                else:
                    shutil.copy2(origin, dest)
        elif instruction == "ENV":
            for pair in shlex.split(args):
                name, _, value = pair.partition("=")
                value = re.sub(r"\$\{?(\w+)\}?", lambda m: env.get(m.group(1), ""), value)
                env[name] = value.replace(image_workdir, str(workdir))
        elif instruction == "RUN" and not copied:
            tool_steps.append(args)
        elif instruction == "RUN":
            command = re.sub(r"^(--\S+\s+)+", "", args)  # RUN's own flags (--mount=...)
            done = subprocess.run(
                ["sh", "-c", command],
                cwd=workdir,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert done.returncode == 0, f"RUN {command}\n{done.stdout}\n{done.stderr}"
        elif instruction == "ENTRYPOINT":
            entrypoint = json.loads(args)
        else:
            raise AssertionError(f"tests/image.py does not know {instruction}: teach it")
    return Image(workdir=workdir, env=env, entrypoint=entrypoint, tool_steps=tool_steps)


def locked(lock: Path) -> dict[str, str]:
    """A lock's pins that apply to this interpreter and platform: {canonical name: version}."""
    pins = {}
    for line in re.sub(r"\\\n", " ", lock.read_text()).splitlines():
        if line and not line[0].isspace() and not line.startswith("#"):
            requirement = Requirement(line.split(" --hash")[0])
            if requirement.marker is None or requirement.marker.evaluate():
                (version,) = (spec.version for spec in requirement.specifier)
                pins[canonicalize_name(requirement.name)] = version
    return pins
