"""Installing the package: pip install ./python leaves git nothing
untracked in the repository, and make wheel's wheel works in a fresh venv
without the repository."""

import os
import pathlib
import platform
import shutil
import subprocess
import sys
import zipfile

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_pip_install_leaves_no_untracked_files(tmp_path):
    """The package and the repository's .gitignore, copied into a fresh git
    repository, installed with pip as README says (without network: the
    system's setuptools, no dependencies): git status shows nothing new."""
    tree = tmp_path / "repo"
    shutil.copytree(REPO / "python", tree / "python",
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "librhgd.so"))
    shutil.copy(REPO / ".gitignore", tree / ".gitignore")
    git = ["git", "-C", str(tree)]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps", "--no-index",
                    "--target", str(tmp_path / "site"), "./python"], cwd=tree, check=True, timeout=300,
                   capture_output=True)
    assert (tmp_path / "site" / "rhgd" / "__init__.py").is_file()
    status = subprocess.run(git + ["status", "--porcelain", "--untracked-files=all"], check=True,
                            capture_output=True, text=True).stdout
    untracked = [line for line in status.splitlines() if line.startswith("??")]
    assert not untracked, untracked


# The smoke test the wheel runs in its venv: a built-in problem and, when
# torch imports (the venv sees the system's packages), a PyTorch one, with
# the library from inside the installed package.
SMOKE = r'''
import os, pathlib, sys
import numpy as np
import rhgd
assert "RHGD_LIBRARY" not in os.environ
pkg = pathlib.Path(rhgd.__file__).resolve().parent
assert pathlib.Path(rhgd.library_path()).resolve() == pkg / "librhgd.so", rhgd.library_path()
assert pathlib.Path(sys.prefix).resolve() in pkg.parents, (sys.prefix, pkg)
assert rhgd.version() == rhgd.__version__
r = rhgd.minimize(rhgd.builtin("synthetic", n=30, d=8, r=3), estimator="hinv", epochs=5)
assert r.success and r.nit == 5 and np.isfinite(r.fun) and r.x.shape == (8, 3)
print("builtin", r.status_name, r.fun)
try:
    import torch
except ImportError:
    print("torch missing")
    sys.exit(0)
import rhgd.torch
c = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
f = lambda x, y: 0.5 * torch.sum((y - c) ** 2) + 0.05 * torch.sum(x ** 2)
g = lambda x, y: 0.5 * torch.sum(y ** 2) - torch.sum(y * x)
r = rhgd.torch.minimize(f, g, rhgd.Euclidean(3), rhgd.Euclidean(3), np.zeros(3), np.zeros(3), estimator="cg",
                        eta_x=0.5, epochs=300, grad_tol=1e-9)
assert r.success and np.max(np.abs(r.x - c.numpy() / 1.1)) < 1e-7, r.x  # y*(x) = x: min ½|x - c|² + 0.05|x|²
print("torch", r.status_name, r.fun)
'''


def readme_pip_flags():
    """The flags of python/README.md's command that installs the wheel (its
    Install section's pip line), which the test below runs as written (with
    -q and --no-index, offline)."""
    text = (REPO / "python" / "README.md").read_text()
    block = text.split("## Install", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    line = next(ln for ln in block.splitlines() if ln.strip().startswith("pip install"))
    return [a for a in line.split("#")[0].split()[2:] if a.startswith("-")]


def test_readme_install_says_what_it_runs():
    """README's text after the install command ("pip install --no-deps ...
    as above") matches the command above it (issue 27: it did not)."""
    flags = readme_pip_flags()
    text = (REPO / "python" / "README.md").read_text()
    assert "--no-deps" in flags, flags
    assert "`pip install --no-deps`" in text


def test_wheel_in_a_fresh_venv(tmp_path):
    """make wheel's wheel (RHGD_WHEEL) installs with pip, offline, into a
    fresh venv with the system's site packages, and there, from a directory
    outside the repository and without RHGD_LIBRARY or PYTHONPATH, imports
    rhgd with its bundled librhgd.so and solves a built-in problem and a
    PyTorch one."""
    wheel = os.environ.get("RHGD_WHEEL")
    if not wheel:
        pytest.skip("RHGD_WHEEL is not set: make test-install builds the wheel and runs this test")
    wheel = pathlib.Path(wheel)
    version = (REPO / "VERSION").read_text().strip()
    assert wheel.name == f"rhgd-{version}-py3-none-linux_{platform.machine()}.whl", wheel.name
    with zipfile.ZipFile(wheel) as z:
        assert "rhgd/librhgd.so" in z.namelist()
    venv = tmp_path / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-index", *readme_pip_flags(), str(wheel)],
                   check=True, timeout=300, capture_output=True)
    env = {k: v for k, v in os.environ.items() if k not in ("RHGD_LIBRARY", "PYTHONPATH")}
    work = tmp_path / "elsewhere"
    work.mkdir()
    assert REPO not in work.resolve().parents
    out = subprocess.run([str(py), "-c", SMOKE], cwd=work, env=env, check=True, timeout=600, capture_output=True,
                         text=True).stdout
    assert "builtin IterationLimit" in out, out
    try:
        import torch  # noqa: F401
    except ImportError:
        return
    assert "torch GradientThreshold" in out, out
