"""The locks: requirements-dev.txt (what `make` installs) and requirements.txt (what the image
installs) pin every requirement of pyproject.toml inside its range, the same versions in
both, and the image's none of the extras; the image and `make` install with one uv release.
A requirement added to pyproject.toml without `make lock` fails here."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.image import instructions, locked

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
BASE = locked(ROOT / "requirements.txt")
DEV = locked(ROOT / "requirements-dev.txt")


def requirements(*extras: str) -> list[Requirement]:
    listed = PROJECT["dependencies"] if not extras else []
    for extra in extras:
        listed = listed + PROJECT["optional-dependencies"][extra]
    return [Requirement(text) for text in listed]


def out_of_range(lock: dict[str, str], wanted: list[Requirement]) -> list[str]:
    found = [(r, lock.get(canonicalize_name(r.name))) for r in wanted]
    return [
        f"{r} (locked: {version})"
        for r, version in found
        if version is None or not r.specifier.contains(version, prereleases=True)
    ]


def test_the_image_lock_pins_every_base_requirement_in_its_range():
    assert out_of_range(BASE, requirements()) == []


def test_the_dev_lock_pins_every_requirement_and_extra_in_its_range():
    assert out_of_range(DEV, requirements() + requirements("dev", "embedded")) == []


def test_the_image_lock_is_the_dev_lock_without_the_extras():
    """The image runs the versions the tests ran; none of the test tools or embedded
    binaries the extras bring."""
    assert {name: DEV.get(name) for name in BASE} == BASE
    extras_only = {canonicalize_name(r.name) for r in requirements("dev", "embedded")}
    extras_only -= {canonicalize_name(r.name) for r in requirements()}
    assert extras_only and not extras_only & set(BASE)


def test_the_image_and_make_install_with_the_same_uv_release():
    (make_uv,) = re.findall(r"^UV_VERSION := (\S+)$", (ROOT / "Makefile").read_text(), re.M)
    image_uv = [args for name, args in instructions(ROOT / "Dockerfile") if "uv==" in args]
    assert image_uv == [f"pip install --no-cache-dir uv=={make_uv}"]
