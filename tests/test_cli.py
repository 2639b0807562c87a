"""The ``sgdebug`` command line: help, version, and that both stay instant."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from typer.testing import CliRunner

import sgdebug
from sgdebug.cli import app

REPO_ROOT = Path(__file__).resolve().parents[1]

# Libraries that only the front ends and the engine need; help must load none of them.
HEAVY_FOR_HELP = (
    "textual",
    "rich",
    "prompt_toolkit",
    "langgraph",
    "langchain_core",
    "pydantic",
    "sgdebug.runtime",
    "sgdebug.debugger",
    "sgdebug.tui",
    "sgdebug.repl",
)


def _within(module: str, packages: tuple[str, ...]) -> bool:
    """Whether ``module`` is one of ``packages`` or a submodule of one."""
    return any(module == package or module.startswith(f"{package}.") for package in packages)


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )


def _run_cli_in_subprocess(*args: str) -> tuple[str, list[str]]:
    """Run ``sgdebug *args`` in a fresh interpreter: its output and the modules it loaded.

    (How fast ``--help`` is, is a goal of ``benchmarks/startup.py``, not a test.)
    """
    probe = (
        "import contextlib, io, json, sys\n"
        "from sgdebug.cli import main\n"
        f"sys.argv = ['sgdebug', *{list(args)!r}]\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    try:\n"
        "        main()\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(json.dumps([out.getvalue(), sorted(sys.modules)]))\n"
    )
    result = _run(sys.executable, "-c", probe)
    assert result.returncode == 0, result.stderr
    output, modules = json.loads(result.stdout.strip().splitlines()[-1])
    return str(output), [str(name) for name in modules]


def test_help_describes_the_program() -> None:
    result = CliRunner().invoke(app, ["--help"], prog_name="sgdebug")

    assert result.exit_code == 0
    assert "Usage: sgdebug [OPTIONS]" in result.output
    assert "StateGraph" in result.output
    assert "--version" in result.output


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_the_command_list_is_never_cut_mid_sentence(columns: int) -> None:
    result = CliRunner().invoke(app, ["--help"], prog_name="sgdebug", terminal_width=columns)

    listed = result.output.split("Commands:\n", 1)[1].splitlines()
    names = ["open", "repl", "run", "attach", "graph", "demo"]
    assert [line.split()[0] for line in listed] == names
    assert all(line.rstrip().endswith(".") for line in listed), listed
    assert not [line for line in listed if line.rstrip().endswith("...")], listed


def test_the_samples_list_shows_plain_sentences() -> None:
    result = CliRunner().invoke(app, ["demo", "--list"], prog_name="sgdebug")

    assert result.exit_code == 0 and "``" not in result.output
    assert "chatbot       A tool-calling chat agent on MessagesState" in result.output


def test_version_matches_the_installed_distribution() -> None:
    result = CliRunner().invoke(app, ["--version"], prog_name="sgdebug")

    assert result.exit_code == 0
    assert result.output == f"sgdebug {sgdebug.__version__}\n"
    assert sgdebug.__version__ == metadata.version("sgdebug")


def _installed_script() -> str:
    """Where pip installed the ``sgdebug`` console script (also for ``--user`` installs)."""
    distribution = metadata.distribution("sgdebug")
    scripts = [f for f in distribution.files or () if f.name == "sgdebug" and f.suffix == ""]
    assert len(scripts) == 1, f"expected one sgdebug script in the RECORD, found {scripts}"
    return str(Path(str(distribution.locate_file(scripts[0]))).resolve())


@pytest.mark.parametrize("entry_point", ["script", "python -m"])
def test_installed_entry_points_print_the_version(entry_point: str) -> None:
    if entry_point == "script":
        command: tuple[str, ...] = (_installed_script(),)
    else:
        command = (sys.executable, "-m", "sgdebug")

    result = _run(*command, "--version")

    assert result.returncode == 0, result.stderr
    assert result.stdout == f"sgdebug {sgdebug.__version__}\n"


def test_unknown_option_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["--no-such-option"], prog_name="sgdebug")

    assert result.exit_code == 2
    assert "No such option: --no-such-option" in result.output


def test_help_loads_no_front_end_or_engine() -> None:
    output, modules = _run_cli_in_subprocess("--help")

    loaded = sorted(name for name in modules if _within(name, HEAVY_FOR_HELP))

    assert "Usage: sgdebug" in output
    assert loaded == []


def test_a_first_argument_that_is_no_command_is_a_target() -> None:
    result = CliRunner().invoke(app, ["sgdebug.sample_graphs.linear:graph"], prog_name="sgdebug")

    assert result.exit_code == 2
    assert "the TUI is not available" in result.output
    assert "sgdebug run sgdebug.sample_graphs.linear:graph" in result.output


@pytest.mark.parametrize("command", ["open", "repl", "run", "graph", "demo"])
def test_each_command_has_its_own_help(command: str) -> None:
    result = CliRunner().invoke(app, [command, "--help"], prog_name="sgdebug")

    assert result.exit_code == 0
    assert f"Usage: sgdebug {command} [OPTIONS]" in result.output


def test_a_target_with_help_shows_the_open_commands_help() -> None:
    result = CliRunner().invoke(app, ["pkg.mod:graph", "--help"], prog_name="sgdebug")

    assert result.exit_code == 0
    assert "Usage: sgdebug open [OPTIONS] [TARGET]" in result.output
    assert "--break-before NODE" in result.output


def test_a_misspelt_command_is_not_taken_for_a_target() -> None:
    result = CliRunner().invoke(app, ["rnu", "pkg.mod:graph"], prog_name="sgdebug")

    assert result.exit_code == 2
    assert "No such command 'rnu'. Did you mean 'run'?" in result.output
