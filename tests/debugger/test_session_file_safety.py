"""A session file is untrusted input: its rows are checked before use, its target is never
called unless it is a graph (or a function of the user's own module), its conditions stay
disabled until enabled, and one process at a time may have it open.

Crafted files are built here with ``sqlite3``; a marker file written by the would-be
payload proves that nothing ran.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sgdebug.debugger import Session, Target, run_line, start_notes
from sgdebug.debugger.breakpoints import Breakpoint, BreakpointTable, held_notes, restore
from sgdebug.debugger.loading import TargetError, load_target
from sgdebug.debugger.session_file import SessionFile, SessionFileError, SessionRecord
from sgdebug.sample_graphs import loop

ROOT = Path(__file__).resolve().parents[2]
TARGET = "sgdebug.sample_graphs.loop:graph"


def payload(marker: Path) -> str:
    """A condition that writes ``marker`` when it is evaluated."""
    return f"__import__('pathlib').Path({str(marker)!r}).touch() or True"


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "debug.sgdb"


@pytest.fixture
def saved(path: Path) -> Path:
    """A session file holding a run of ``loop`` (history rows of every table) and a record."""
    with SessionFile.open(path) as store:
        graph = loop.build(iterations=2).compile(checkpointer=store.saver)
        graph.invoke({"count": 0}, {"configurable": {"thread_id": "run-1"}})
        breaks = ({"number": 1, "kind": "before", "target": "attempt"},)
        store.save(SessionRecord(TARGET, str(path.parent), {"count": 0}, breaks, "run-1", 50))
    return path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tamper(path: Path, sql: str, *args: Any) -> None:
    """Run one statement on the file, as someone crafting it would (then fold in the WAL)."""
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(sql, args)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def set_row(path: Path, key: str, value: Any) -> None:
    text = value if isinstance(value, str) and key == "input" else json.dumps(value)
    tamper(path, "INSERT OR REPLACE INTO session VALUES (?, ?)", key, text)


# -- every row is checked before use ---------------------------------------------------------

BAD_SESSION_ROWS = [
    ("target", 5, "row 'target'"),
    ("target", "", "row 'target'"),
    ("target", "app:graph\x1b[2J", "row 'target'"),
    ("cwd", "relative/folder", "row 'cwd'"),
    ("cwd", ["/"], "row 'cwd'"),
    ("thread_id", 7, "row 'thread_id'"),
    ("recursion_limit", -3, "row 'recursion_limit'"),
    ("recursion_limit", True, "row 'recursion_limit'"),
    ("recursion_limit", "25", "row 'recursion_limit'"),
    ("created_at", 12, "row 'created_at'"),
    ("schema_version", 0, "row 'schema_version'"),
    ("evil", "x", "row 'evil'"),
    ("input", '{"__sgdebug__": "nonsense"', "row 'input'"),
    ("breakpoints", {"number": 1}, "row 'breakpoints'"),
    ("breakpoints", ["before a"], r"row 'breakpoints'.*item 1: a breakpoint is a JSON object"),
    ("breakpoints", [{"number": 1, "kind": "sideways", "target": "a"}], r"item 1: 'kind'"),
    ("breakpoints", [{"number": -1, "kind": "before", "target": "a"}], r"item 1: 'number'"),
    ("breakpoints", [{"number": "1", "kind": "before", "target": "a"}], r"item 1: 'number'"),
    ("breakpoints", [{"number": 1, "kind": "before"}], "names no node"),
    ("breakpoints", [{"number": 1, "kind": "before", "target": "a", "hits": -2}], "'hits'"),
    ("breakpoints", [{"number": 1, "kind": "after", "target": "a", "enabled": "yes"}], "enabled"),
    ("breakpoints", [{"number": 1, "kind": "after", "target": "a", "condition": 5}], "condition"),
    ("breakpoints", [{"number": 1, "kind": "after", "target": "a", "code": "x"}], "'code'"),
    ("breakpoints", [{"number": 1, "kind": "watch", "target": "a\x07"}], "control characters"),
    ("breakpoints", [{"number": 3, "kind": "exception"}], "only #0"),
    ("breakpoints", [{"number": 1, "kind": "before", "target": "a", "origin": "file"}], "origin"),
    (
        "breakpoints",
        [{"number": 1, "kind": "before", "target": "a"}, {"number": 1, "kind": "after",
                                                          "target": "b"}],
        "item 2: breakpoint number 1 is used twice",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("key", "value", "named"), BAD_SESSION_ROWS)
def test_a_bad_session_row_is_damage_named_and_nothing_is_written(
    saved: Path, key: str, value: Any, named: str
) -> None:
    set_row(saved, key, value)
    before = digest(saved)

    with pytest.raises(SessionFileError, match=f"is damaged.*{named}"):
        SessionFile.open(saved)
    assert digest(saved) == before


BAD_HISTORY_ROWS = [
    ("UPDATE blobs SET data=x'00ff' WHERE rowid=1", r"blob '.*' of thread 'run-1'.*decoded"),
    ("UPDATE blobs SET kind='pickle' WHERE rowid=1", r"blob .* kind 'pickle'"),
    ("UPDATE blobs SET depth=-1 WHERE rowid=1", r"blob .* depth -1"),
    ("UPDATE blobs SET data='text' WHERE rowid=1", r"blob .* a str, not bytes"),
    ("UPDATE checkpoints SET step='x' WHERE rowid=1", r"checkpoint '.*' of thread 'run-1'.*step"),
    ("UPDATE checkpoints SET versions='{' WHERE rowid=1", r"checkpoint .*versions is not JSON"),
    ('UPDATE checkpoints SET blobs=\'{"count": "gone"}\' WHERE rowid=2', r"blob 'gone'.*missing"),
    ("UPDATE checkpoints SET metadata='[1]' WHERE rowid=1", r"metadata is \[1\], not a JSON"),
    ("UPDATE writes SET value=x'8081' WHERE rowid=1", r"write 0 of task .*decoded"),
    ("UPDATE writes SET path='\"a\"' WHERE rowid=1", r"write .* path .* not a JSON list"),
    ("UPDATE writes SET idx='first' WHERE rowid=1", r"write 'first' .*idx"),
]


@pytest.mark.parametrize(("sql", "named"), BAD_HISTORY_ROWS)
def test_a_bad_history_row_is_damage_named_and_nothing_is_written(
    saved: Path, sql: str, named: str
) -> None:
    tamper(saved, sql)
    before = digest(saved)

    with pytest.raises(SessionFileError, match=f"is damaged.*{named}"):
        SessionFile.open(saved)
    assert digest(saved) == before


def test_an_intact_file_still_reopens(saved: Path) -> None:
    with SessionFile.open(saved) as store:
        assert store.record is not None
        assert store.record.thread_id == "run-1"


# -- stored conditions stay disabled until enabled -------------------------------------------


def conditional(marker: Path, *, kind: str = "before", target: str = "attempt") -> dict[str, Any]:
    return {"number": 2, "kind": kind, "target": target, "condition": payload(marker)}


def test_untrusted_conditions_are_held_disabled_and_plain_breakpoints_stay(tmp_path: Path) -> None:
    stored = [
        {"number": 1, "kind": "before", "target": "attempt"},
        conditional(tmp_path / "m"),
        {"number": 3, "kind": "watch", "target": "count", "condition": "new > 1"},
        {"number": 4, "kind": "after", "target": "report", "condition": "x", "enabled": False},
    ]

    restored = {bp.number: bp for bp in restore(stored, trusted=False)}

    assert restored[1].enabled and not restored[1].held
    assert not restored[2].enabled and restored[2].held
    assert not restored[3].enabled and restored[3].held  # a watch's condition too
    assert not restored[4].enabled and not restored[4].held  # disabled by its user: left so
    assert held_notes(restored.values()) == (
        f"breakpoint 2 (before attempt if {payload(tmp_path / 'm')}) from the session file is "
        f"disabled: `enable 2` to use it",
        "breakpoint 3 (watch count if new > 1) from the session file is disabled: "
        "`enable 3` to use it",
    )


def test_trust_enables_what_an_earlier_untrusted_open_held(tmp_path: Path) -> None:
    held = restore([conditional(tmp_path / "m")], trusted=False)
    saved = [bp.to_dict() for bp in held]  # what the session writes back to the file

    again = restore(saved, trusted=False)
    trusted = restore(saved, trusted=True)

    assert not again[0].enabled and again[0].held
    assert trusted[0].enabled and not trusted[0].held


def test_enabling_a_held_breakpoint_clears_it() -> None:
    table = BreakpointTable(restore([conditional(Path("m"))], trusted=False))

    bp = table.set_enabled(2, True)

    assert bp.enabled and not bp.held
    assert held_notes(table.all) == ()


def loop_session(breakpoints: list[Breakpoint]) -> Session:
    graph = loop.build(iterations=3).compile()
    return Session(Target(graph, {}, "loop"), input={"count": 0}, breakpoints=breakpoints)


def test_a_stored_condition_never_runs_until_the_user_enables_it(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    watch = conditional(marker, kind="watch", target="count") | {"number": 3}
    session = loop_session(restore([conditional(marker), watch], trusted=False))

    assert any("`enable 2` to use it" in note for note in start_notes(session.view()))
    session.restart({"count": 0})
    finished = session.continue_()
    assert finished.stop is not None and finished.stop.kind == "done"
    assert not marker.exists()

    session.restart({"count": 0})
    assert run_line(session, "enable 2") is not None
    stopped = session.continue_()
    assert stopped.stop is not None and stopped.stop.kind == "breakpoint"
    assert marker.exists()


def test_trusted_conditions_run_as_saved(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    session = loop_session(restore([conditional(marker)], trusted=True))

    session.restart({"count": 0})
    session.continue_()

    assert marker.exists()


# -- the target: only graphs, builders and the user's own functions ---------------------------


@pytest.fixture
def program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with a graph module, a factory, and callables that write a marker."""
    (tmp_path / "payloads.py").write_text(textwrap.dedent("""\
        from pathlib import Path

        def touch():
            Path(__file__).with_name("ran").touch()
        """))  # fmt: skip
    (tmp_path / "tools.py").write_text(textwrap.dedent("""\
        import functools
        from payloads import touch
        from sgdebug.sample_graphs import loop

        def make():
            return loop.build(iterations=2)

        class Maker:
            def __call__(self):
                touch()

        later = functools.partial(touch)
        maker = Maker()
        NUMBER = 5
        """))  # fmt: skip
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("tools", "payloads"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    return tmp_path


@pytest.mark.parametrize("spec", ["os:abort", "builtins:exit", "subprocess:call", "os.path:join"])
def test_a_standard_library_target_from_a_file_is_not_even_imported(spec: str) -> None:
    with pytest.raises(TargetError, match=r"standard library.*it was not imported") as caught:
        load_target(spec, from_file=True)
    assert caught.value.kind == "refused"


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ("tools.py:touch", "defined in payloads, not in tools"),
        ("tools.py:maker", "a Maker object, not a plain function"),
        ("tools.py:later", "a partial object, not a plain function"),
        ("sgdebug.sample_graphs.loop:build", "a function of sgdebug itself"),
    ],
)
def test_a_callable_from_a_file_that_is_not_the_programs_factory_is_not_called(
    program: Path, spec: str, why: str
) -> None:
    with pytest.raises(TargetError, match=f"{why}; it was not called") as caught:
        load_target(spec, from_file=True)
    assert caught.value.kind == "refused"
    assert not (program / "ran").exists()


def test_a_plain_value_from_a_file_is_not_a_graph(program: Path) -> None:
    with pytest.raises(TargetError, match=r"'tools\.py:NUMBER' is an int, not a graph"):
        load_target("tools.py:NUMBER", from_file=True)


def test_graphs_and_the_programs_own_factories_load_from_a_file(program: Path) -> None:
    assert load_target(TARGET, from_file=True).graph is not None
    assert load_target("tools.py:make", from_file=True).graph is not None


@pytest.mark.parametrize("spec", ["builtins:exit", "subprocess:call", "json:dumps", "os:getpid"])
def test_a_typed_target_naming_pythons_own_callable_is_not_called(spec: str) -> None:
    with pytest.raises(TargetError, match=r"from Python itself.*it was not called") as caught:
        load_target(spec)
    assert caught.value.kind == "refused"


def test_a_typed_target_may_still_name_any_factory_of_the_program(program: Path) -> None:
    assert load_target("sgdebug.sample_graphs.loop:build").graph is not None
    with pytest.raises(TargetError, match="not a graph"):
        load_target("tools.py:later")  # called, as before: it is the user's own choice
    assert (program / "ran").exists()


# -- the file itself: read-only, empty, open twice --------------------------------------------


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[None]:
    """Make ``path`` read-only for this process: by its mode, or (as root, whom modes do not
    stop) by the immutable attribute."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    if subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False).returncode:
        pytest.skip("running as root on a file system without the immutable attribute")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_a_read_only_file_is_reported_as_read_only_not_damaged(saved: Path) -> None:
    with read_only(saved), pytest.raises(SessionFileError) as caught:
        SessionFile.open(saved)

    assert "cannot be written (the file is read-only)" in str(caught.value)
    assert "damaged" not in str(caught.value)


def test_a_file_in_a_read_only_folder_is_reported_as_read_only(saved: Path) -> None:
    with read_only(saved.parent), pytest.raises(SessionFileError) as caught:
        SessionFile.open(saved)

    assert f"its folder {saved.parent} is read-only" in str(caught.value)
    assert "damaged" not in str(caught.value)


def test_an_empty_file_becomes_a_new_session_file(path: Path) -> None:
    path.write_bytes(b"")

    with SessionFile.open(path) as store:
        assert store.record is None
        store.save(SessionRecord(TARGET, str(path.parent)))

    with SessionFile.open(path) as again:
        assert again.record is not None and again.record.target == TARGET


def test_a_file_open_twice_in_one_process_is_refused(saved: Path) -> None:
    with SessionFile.open(saved), pytest.raises(SessionFileError, match="open in this sgdebug"):
        SessionFile.open(saved)
    with SessionFile.open(saved) as again:  # closed: free again
        assert again.record is not None


HOLDER = """\
import sys, time
from sgdebug.debugger.session_file import SessionFile

store = SessionFile.open(sys.argv[1])
print("holding", flush=True)
time.sleep(120)
"""


def test_a_second_process_is_refused_until_the_first_is_killed(saved: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(saved)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "holding\n"
        with pytest.raises(SessionFileError) as caught:
            SessionFile.open(saved)
        assert f"is open in another sgdebug (pid {holder.pid})" in str(caught.value)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)

    with SessionFile.open(saved) as reopened:  # the kernel dropped the dead process's lock
        assert reopened.record is not None
