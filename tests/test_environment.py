"""The three environment descriptions agree: pyproject.toml (loose ranges for readers),
requirements-lock.txt (exact pins for CI) and environment.yml (conda users)."""

import re
import tomllib
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]


def pyproject_requirements() -> dict[str, Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for group in project.get("optional-dependencies", {}).values():
        reqs += group
    return {canonicalize_name(r.name): r for r in map(Requirement, reqs)}


def lock_pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements-lock.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            m = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^\s;]+)", line)
            assert m, f"requirements-lock.txt: not an exact pin: {line!r}"
            pins[canonicalize_name(m[1])] = m[2]
    return pins


def conda_pins() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    pins = {}
    for item in pip:
        if item.startswith("-e"):
            continue
        name, version = item.split("==")
        pins[canonicalize_name(name)] = version
    return pins


def test_the_three_files_name_the_same_direct_dependencies():
    direct = set(pyproject_requirements())
    assert direct == set(conda_pins()), "pyproject.toml and environment.yml name other packages"
    missing = direct - set(lock_pins())
    assert not missing, f"requirements-lock.txt lacks {sorted(missing)}"


def test_pins_agree_and_satisfy_the_ranges():
    reqs, lock, conda = pyproject_requirements(), lock_pins(), conda_pins()
    for name, req in reqs.items():
        assert conda[name] == lock[name], f"{name}: environment.yml {conda[name]} != lock"
        assert req.specifier.contains(Version(lock[name]), prereleases=True), (
            f"{name}=={lock[name]} (lock) is outside pyproject's range {req.specifier}"
        )


def test_torch_is_the_exact_cpu_pin():
    assert lock_pins()["torch"] == "2.13.0"
    assert conda_pins()["torch"] == "2.13.0"


def test_no_package_is_listed_twice():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = [canonicalize_name(Requirement(r).name) for r in project["dependencies"]]
    for group in project.get("optional-dependencies", {}).values():
        names += [canonicalize_name(Requirement(r).name) for r in group]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pips = next(d for d in env["dependencies"] if isinstance(d, dict))["pip"]
    pip_names = [canonicalize_name(re.split(r"[=<>!~ ]", p, maxsplit=1)[0]) for p in pips]
    assert len(pip_names) == len(set(pip_names))
