"""The package as an engine installs it: a wheel built from this checkout, and `pip install .`
of the checkout, each into a fresh venv (--system-site-packages for Debian's torch,
--no-build-isolation, --no-index: no network), then an op run from the installed copy, which
must load its own library (no TILEJIT_LIB, no checkout on sys.path). And `import tilejit`
without torch."""
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Run inside the venv, from an empty folder: the merge of two states whose LSEs are equal
# is their mean, and the library must be the venv's.
CLIENT = textwrap.dedent("""
    import os, sys, torch, tilejit, tilejit.ops
    prefix = sys.prefix
    assert tilejit.__file__.startswith(prefix), tilejit.__file__
    assert tilejit.library_path().startswith(prefix), tilejit.library_path()
    a = torch.randn(5, 2, 64).to(torch.bfloat16)
    b = torch.randn(5, 2, 64).to(torch.bfloat16)
    lse = torch.zeros(2, 5)
    out = torch.full_like(a, float("nan"))
    tilejit.ops.merge_attn_states(out, a, lse, b, lse)
    want = (a.double() + b.double()) / 2
    assert (out.double() - want).abs().max() < 1e-2, (out.double() - want).abs().max()
    print("installed tilejit ok:", tilejit.library_path())
""")


def run(*command, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def client_env(cache):
    env = {k: v for k, v in os.environ.items() if k not in ("TILEJIT_LIB", "PYTHONPATH")}
    env.update(TILEJIT_CACHE_DIR=cache, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


def build_env(cache):
    env = client_env(cache)
    if os.environ.get("TILEJIT_LIB"):  # ctest's: the library it built
        env["TILEJIT_PREBUILT_LIB"] = os.environ["TILEJIT_LIB"]
    return env


def venv(path):
    run(sys.executable, "-m", "venv", "--system-site-packages", str(path))
    return os.path.join(str(path), "bin", "python")


def check_client(python, tmp_path):
    folder = tmp_path / "client"
    folder.mkdir(exist_ok=True)
    out = run(python, "-c", CLIENT, cwd=str(folder), env=client_env(str(tmp_path / "cache")))
    assert "installed tilejit ok" in out


def test_wheel_installs_and_runs(tmp_path):
    pytest.importorskip("torch")
    wheels = tmp_path / "wheels"
    run(sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index",
        "-w", str(wheels), ROOT, env=build_env(str(tmp_path / "cache")))
    built = [w for w in os.listdir(wheels) if w.endswith(".whl")]
    assert len(built) == 1 and built[0].endswith("-py3-none-linux_x86_64.whl"), built
    python = venv(tmp_path / "venv")
    run(python, "-m", "pip", "install", "--no-index", "--no-deps", str(wheels / built[0]))
    check_client(python, tmp_path)


def test_pip_install_of_the_checkout(tmp_path):
    pytest.importorskip("torch")
    python = venv(tmp_path / "venv")
    run(python, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--no-deps", ROOT,
        env=build_env(str(tmp_path / "cache")))
    check_client(python, tmp_path)
    installed = run(python, "-c", "import tilejit, os; print(sorted(os.listdir(os.path.dirname("
                    "tilejit.library_path()))))", cwd=str(tmp_path),
                    env=client_env(str(tmp_path / "cache")))
    assert "libtilejit_c.so" in installed and "libabsl_" in installed, installed


def test_import_without_torch(tmp_path):
    """The base module (and tilejit.ops' import) need no torch."""
    code = ("import sys; sys.modules['torch'] = None\n"
            "import tilejit, tilejit.ops\n"
            "jit = tilejit.Jit(cpu=True)\n"
            "print(jit.device_target, tilejit.Op(jit, 'merge_attn_states', head_size=64).arguments)")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), TILEJIT_CACHE_DIR=str(tmp_path))
    assert "host ['output'" in run(sys.executable, "-c", code, env=env, cwd=str(tmp_path))
