"""pip install ./python leaves git nothing untracked in the repository."""

import pathlib
import shutil
import subprocess
import sys

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
