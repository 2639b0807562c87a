"""Python typed at the prompt, run in the session's namespace.

Expressions give a value to print; statements run. The namespace holds the session's names
(``state``, ``snapshot``, ``tasks``, ``graph``, ``interrupts``, ``error``, ``session``), the
user's module globals and the REPL's own variables. The REPL's variables sit on top of the
module globals for every expression the session evaluates while the REPL runs, so
``limit = 3`` then ``break before node if state["n"] > limit`` works.

``state`` is a copy, so looking never changes the run; a line that changes it
(``state["count"] = 5``, ``state["items"].append(x)``) becomes a real edit of the session
through the session's ``set_value`` (``set_values`` for several keys): one new snapshot,
refused with the reason when the key or value does not fit, as ``set`` would refuse it.
"""

from __future__ import annotations

import traceback
import weakref
from collections import ChainMap
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import CodeType
from typing import Any, Final

from sgdebug.debugger import Outcome, Session
from sgdebug.debugger.evaluation import Provider

__all__ = ["SESSION_NAMES", "PythonResult", "PythonRunner", "TrackedState"]

SESSION_NAMES: Final = frozenset(
    {"state", "snapshot", "tasks", "graph", "interrupts", "error", "session"}
)
"""Names the session provides (computed for each line, never stored as variables)."""
_OBJECT_EQ: Final = vars(object)["__eq__"]
_VARIABLES: weakref.WeakKeyDictionary[Session, dict[str, Any]] = weakref.WeakKeyDictionary()


class TrackedState(dict[str, Any]):
    """A copy of the state that remembers which keys a line read (and may have mutated)."""

    __slots__ = ("everything", "originals", "touched")

    def __init__(self, values: Mapping[str, Any]) -> None:
        super().__init__(values)
        self.originals = dict(values)
        """The values as given (a key bound to another object was assigned)."""
        self.touched: set[str] = set()
        """Keys the line read: their values may have been changed in place."""
        self.everything = False
        """The line iterated over values (any of them may have changed)."""

    def changed_keys(self) -> set[str]:
        """Keys that may hold a changed value (compare them with the state to know)."""
        if self.everything:
            return set(self)
        originals = self.originals
        assigned = {k for k, v in dict.items(self) if k not in originals or originals[k] is not v}
        return self.touched | assigned

    def __getitem__(self, key: str) -> Any:
        self.touched.add(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.touched.add(key)
        return super().get(key, default)

    def setdefault(self, key: str, default: Any = None) -> Any:
        self.touched.add(key)
        return super().setdefault(key, default)

    def values(self) -> Any:
        self.everything = True
        return super().values()

    def items(self) -> Any:
        self.everything = True
        return super().items()


@dataclass(frozen=True, slots=True)
class PythonResult:
    """What running one line of Python did."""

    value: Any = None
    """An expression's value (``None`` for statements)."""
    shown: bool = False
    """There is a value to print (an expression whose value is not ``None``)."""
    error: str | None = None
    """The traceback (or syntax error) to print, when the line failed."""
    edit: Outcome | None = None
    """The session's answer to the state edit the line made, if it made one."""
    notes: tuple[str, ...] = ()
    quit: bool = False
    """The line called ``exit()`` / ``quit()``."""


def compile_line(source: str) -> tuple[CodeType, bool]:
    """``source`` compiled as an expression (``True``) or else as statements (``False``)."""
    try:
        return compile(source, "<sgdebug>", "eval"), True
    except SyntaxError:
        return compile(source, "<sgdebug>", "exec"), False


class PythonRunner:
    """Runs Python lines for one session; keeps the REPL's variables between lines."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.variables: dict[str, Any] = _VARIABLES.setdefault(session, {})
        """The REPL's own names (kept for the session, across suspends of a TUI)."""

    @contextmanager
    def installed(self) -> Iterator[None]:
        """While the REPL runs, the session's expressions also see the REPL's variables."""
        evaluator = self.session.evaluator
        original = evaluator.module_globals
        evaluator.module_globals = ChainMap(self.variables, original)  # type: ignore[arg-type]
        try:
            yield
        finally:
            evaluator.module_globals = original

    def names(self) -> list[str]:
        """Every name a line may use (for completion)."""
        import builtins

        found = set(dir(builtins)) | set(self.session.evaluator.module_globals)
        found |= set(self.variables) | SESSION_NAMES | set(self.session.providers())
        found |= {"Overwrite", "Send", "Command", "START", "END"}
        return sorted(n for n in found if not n.startswith("__"))

    def lookup(self, name: str) -> Any:
        """The value of a plain name, for completion (``KeyError`` when unknown).

        ``state`` is the live state, not a copy: look at it, never change it.
        """
        import builtins

        if name in self.variables:
            return self.variables[name]
        module = self.session.evaluator.module_globals
        if name in module:
            return module[name]
        if name == "state":
            return self.session.view().values
        if name == "graph":
            return self.session.engine.graph
        if name == "session":
            return self.session
        return vars(builtins)[name]

    def run(self, source: str) -> PythonResult:
        """Run one line (or block) of Python; never raises for the user's errors."""
        try:
            code, is_expression = compile_line(source)
        except (SyntaxError, ValueError, OverflowError) as exc:
            return PythonResult(error="".join(traceback.format_exception_only(exc)).rstrip())
        namespace = self._namespace(code)
        state = namespace.get("state")
        before = dict(namespace)
        try:
            if is_expression:
                value = eval(code, namespace)
            else:
                exec(code, namespace)
                value = None
        except SystemExit:
            return PythonResult(quit=True)
        except BaseException as exc:  # KeyboardInterrupt included: back to the prompt
            notes = (*self._keep_variables(before, namespace), *_unchanged(state))
            return PythonResult(error=_traceback(exc), notes=notes)
        notes = self._keep_variables(before, namespace)
        if value is not None:
            self.variables["_"] = value
        edit = None
        if isinstance(state, TrackedState):
            edit = self._apply_edits(state, namespace)
        return PythonResult(value, value is not None, None, edit, notes)

    def _namespace(self, code: CodeType) -> dict[str, Any]:
        session = self.session
        providers: dict[str, Provider] = dict(session.providers())
        providers["session"] = lambda: session
        namespace = session.evaluator.namespace(code, providers)
        namespace.update(self.variables)  # also when not installed (never session names)
        state = namespace.get("state")
        if isinstance(state, dict):
            tracked = namespace["state"] = TrackedState(state)
            # a channel used by its bare name (``messages.append(m)``) may change in place
            tracked.touched |= {k for k, v in state.items() if namespace.get(k) is v}
        return namespace

    def _keep_variables(self, before: dict[str, Any], after: dict[str, Any]) -> tuple[str, ...]:
        notes: list[str] = []
        for name, value in after.items():
            if name == "__builtins__" or (name in before and before[name] is value):
                continue
            if name in SESSION_NAMES:
                notes.append(
                    f"note: {name!r} is the session's; it is computed again for every line "
                    f"(edit the state with state[KEY] = ..., set or update)"
                )
                continue
            self.variables[name] = value
        for name in before:
            if name not in after:
                self.variables.pop(name, None)
        return tuple(notes)

    def _apply_edits(self, state: TrackedState, namespace: Mapping[str, Any]) -> Outcome | None:
        if namespace.get("state") is not state:
            return None  # ``state`` was rebound: noted, not an edit
        live = self.session.providers()["state"]()  # the shown frame's (a subgraph's)
        if not isinstance(live, Mapping):
            return None
        removed = [k for k in live if k not in state]
        if removed:
            keys = ", ".join(map(repr, removed))
            message = f"state not changed: state keys cannot be deleted ({keys})"
            return Outcome("set", False, self.session.status, message)
        candidates = state.changed_keys()
        changed = {
            key: value
            for key, value in dict.items(state)
            if key in candidates and (key not in live or not same(live[key], value))
        }
        if not changed:
            return None
        return self.edit(changed)

    def edit(self, values: Mapping[str, Any]) -> Outcome:
        """Replace state keys by ``values`` through the session: one edit, one snapshot."""
        if len(values) == 1:
            [(key, value)] = values.items()
            return self.session.set_value(key, value)
        return self.session.set_values(values)


def same(old: Any, new: Any) -> bool:
    """Whether two values are equal, also for objects that compare by identity."""
    if old is new:
        return True
    try:
        equal = old == new
        if isinstance(equal, bool):
            if equal:
                return True
            if type(old) is type(new) and getattr(type(old), "__eq__", None) is _OBJECT_EQ:
                return repr(old) == repr(new)
            return False
        return bool(equal)
    except Exception:
        try:
            return repr(old) == repr(new)
        except Exception:
            return False


def _traceback(exc: BaseException) -> str:
    """The traceback without the REPL's own frame."""
    tb = exc.__traceback__
    tb = tb.tb_next if tb is not None else None
    return "".join(traceback.format_exception(type(exc), exc, tb)).rstrip()


def _unchanged(state: Any) -> tuple[str, ...]:
    if isinstance(state, TrackedState) and (state.touched or state.everything):
        return ("the line failed, so the state was not changed",)
    return ()
