"""The executor runs a step's tasks at once, starting them in the step's order, and its
bookkeeping costs no threading object per task."""

from __future__ import annotations

import operator
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Annotated, Any, TypedDict, cast

import pytest

from sgdebug.runtime import START, StateGraph
from sgdebug.runtime.engine import _executor

WIDTH = 24
"""Parallel nodes in the graphs below."""
NAMES = [f"n{i:02d}" for i in range(WIDTH)]
"""Their names, in the step's (sorted) order."""


class S(TypedDict):
    started: Annotated[list[str], operator.add]


def _fan(node: Callable[[str], Callable[[S], dict[str, Any]]]) -> Any:
    """START -> every name of :data:`NAMES` (each made by ``node(name)``) -> END."""
    graph = StateGraph(S)
    for name in reversed(NAMES):  # (added out of order: the step sorts them)
        graph.add_node(name, node(name)).add_edge(START, name)
    return graph.compile()


class _Starts:
    """Notes the order the nodes start in, and which thread ran each one."""

    def __init__(self, body: Callable[[str], None]) -> None:
        self.order: list[str] = []
        self.threads: dict[str, threading.Thread] = {}
        self._body = body

    def node(self, name: str) -> Callable[[S], dict[str, Any]]:
        def started(state: S) -> dict[str, Any]:
            self.order.append(name)
            self.threads[name] = threading.current_thread()
            self._body(name)
            return {"started": [name]}

        return started


def _slow(name: str) -> None:
    time.sleep(0.001)  # (past FAST_NS: the node counts as slow)


def test_pooled_tasks_start_in_step_order_run_after_run() -> None:
    starts = _Starts(_slow)
    graph = _fan(starts.node)
    for _ in range(5):
        starts.order = []
        assert graph.invoke({"started": []}) == {"started": NAMES}
        assert starts.order == NAMES
    assert len(set(starts.threads.values())) > 1


@contextmanager
def _pool_of(monkeypatch: pytest.MonkeyPatch, workers: int) -> Iterator[None]:
    """The executor's pool is a fresh one of ``workers`` threads."""
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="test-pool")
    monkeypatch.setattr(_executor, "_pool", pool)
    monkeypatch.setattr(_executor, "WORKERS", workers)
    try:
        yield
    finally:
        pool.shutdown(wait=False)


def test_a_steps_tasks_all_run_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every task is running before any finishes (a barrier of all of them): handing a
    task to the pool only once the one before has started does not make them wait for
    each other to finish (the pool has enough threads for them)."""
    barrier = threading.Barrier(WIDTH, timeout=10)

    def body(name: str) -> None:
        _slow(name)
        barrier.wait()

    starts = _Starts(body)
    with _pool_of(monkeypatch, WIDTH):
        assert _fan(starts.node).invoke({"started": []}) == {"started": NAMES}
    assert starts.order == NAMES and not barrier.broken


class _Counting:
    """A node body running ``inner`` that counts how many run at once; :attr:`most` holds
    the highest count (a one-item list, as the tests read it)."""

    def __init__(self, inner: Callable[[str], None]) -> None:
        self.inner = inner
        self.running = 0
        self.most = [0]
        self.lock = threading.Lock()

    def __call__(self, name: str) -> None:
        with self.lock:
            self.running += 1
            self.most[0] = max(self.most[0], self.running)
        try:
            self.inner(name)
        finally:
            with self.lock:
                self.running -= 1


def test_start_order_holds_under_max_concurrency() -> None:
    body = _Counting(_slow)
    most = body.most
    starts = _Starts(body)
    graph = _fan(starts.node)
    for _ in range(3):
        starts.order = []
        assert graph.invoke({"started": []}, {"max_concurrency": 3}) == {"started": NAMES}
        assert starts.order == NAMES
    assert most[0] <= 3


def test_a_step_of_proven_fast_nodes_runs_in_the_calling_thread() -> None:
    starts = _Starts(lambda name: None)
    graph = _fan(starts.node)
    for name in NAMES:  # (as a few runs would leave them, whatever the machine's load)
        graph.nodes[name].speed = 3
    assert graph.invoke({"started": []}) == {"started": NAMES}
    assert set(starts.threads.values()) == {threading.current_thread()}


def _timed_node(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Callable[[int], None]]:
    """A node the executor times, and ``run(ns)``: one run of it taking ``ns`` on a fake
    clock (each reading of ``time.perf_counter_ns`` is the last run's length after the one
    before)."""
    clock = {"now": 0, "step": 0}

    def fake_ns() -> int:
        clock["now"] += clock["step"]
        return clock["now"]

    monkeypatch.setattr(time, "perf_counter_ns", fake_ns)  # (the executor reads time.)
    node = SimpleNamespace(speed=0)
    task = cast("Any", SimpleNamespace(node=node))

    def run(ns: int) -> None:
        clock["step"] = ns  # its two readings are ``ns`` apart
        _executor._timed(lambda t: None, task)

    return node, run


def test_a_node_slow_once_counts_as_fast_again_after_a_run_of_fast_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One preempted run of a trivial node must not send its steps to the pool for good;
    a node that keeps waiting stays slow."""
    node, run = _timed_node(monkeypatch)
    run(1_000)
    assert node.speed > 0  # fast at its first run
    run(_executor.FAST_NS * 10)
    assert node.speed <= 0  # slow: its steps get threads
    for _ in range(_executor.FAST_AGAIN):
        assert node.speed <= 0
        run(1_000)
    assert node.speed > 0  # fast again
    for _ in range(3):  # one that keeps waiting never gets there
        run(_executor.FAST_NS * 10)
        for _ in range(_executor.FAST_AGAIN - 1):
            run(1_000)
        assert node.speed <= 0


def test_a_node_long_fast_stays_fast_after_one_slow_run_and_not_after_two(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a busy machine a trivial node is now and then preempted mid-run: one slow run
    after a long record of fast ones keeps its steps in the calling thread; a second
    before it has proven itself again counts (it waits now), as does one slow run of a
    node not proven yet."""
    node, run = _timed_node(monkeypatch)
    slow, fast = _executor.FAST_NS * 10, 1_000
    for _ in range(_executor.FAST_AGAIN):
        run(fast)
    run(slow)  # FAST_AGAIN fast runs are not a long record yet
    assert node.speed <= 0
    for _ in range(2 * _executor.FAST_AGAIN + 1):
        run(fast)
    run(slow)  # a long record: one slow run is forgiven
    assert node.speed > 0
    for _ in range(_executor.FAST_AGAIN - 1):
        run(fast)
    run(slow)  # but not a second one so soon
    assert node.speed <= 0


def test_nodes_once_fast_that_wait_for_their_siblings_run_beside_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The last node to reach a barrier passes it at once and counts as fast; in the next
    run it is among those waiting. Every task still gets a thread: none is queued behind a
    sibling that waits for it (two slow and the rest fast hung at the barrier)."""
    barrier = threading.Barrier(WIDTH, timeout=10)

    def body(name: str) -> None:
        barrier.wait()

    starts = _Starts(body)
    graph = _fan(starts.node)
    with _pool_of(monkeypatch, WIDTH):
        for name in NAMES:
            graph.nodes[name].speed = -1 if name in {"n05", "n17"} else 3
        assert graph.invoke({"started": []}) == {"started": NAMES}
    assert starts.order == NAMES and not barrier.broken
    assert len(set(starts.threads.values())) == WIDTH


def test_a_nested_parallel_step_does_not_wait_for_a_full_pool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Parallel subgraph nodes each running a parallel step, with every pool thread taken by
    the outer step: the calling threads run the inner tasks (this waited forever)."""
    inner = _fan(_Starts(_slow).node)
    outer = StateGraph(S)
    for i in range(6):
        outer.add_node(f"sub{i}", inner).add_edge(START, f"sub{i}")
    graph = outer.compile()
    got: list[Any] = []

    def run() -> None:
        got.append(graph.invoke({"started": []}))

    with _pool_of(monkeypatch, 2):
        runner = threading.Thread(target=run, daemon=True)
        runner.start()
        runner.join(60)  # (a deadlock guard, not a time limit)
        assert not runner.is_alive()
    assert sorted(got[0]["started"]) == sorted(NAMES * 6)


@pytest.fixture
def made_conditions(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[object]]:
    """Every ``threading.Condition`` made while the test runs (Events, Futures and
    semaphores each make one: the per-task cost of thread bookkeeping)."""
    made: list[object] = []
    original = threading.Condition.__init__

    def counted(self: threading.Condition, lock: Any = None) -> None:
        made.append(self)
        original(self, lock)

    monkeypatch.setattr(threading.Condition, "__init__", counted)
    yield made


def test_a_pooled_step_makes_no_threading_object_per_task(
    made_conditions: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pooled step makes a Future per pool thread it uses and nothing per task (start
    gates made of Events and a Future per task made two Conditions a task: 30% of a wide
    step's cost)."""
    starts = _Starts(_slow)
    graph = _fan(starts.node)
    with _pool_of(monkeypatch, 4):
        graph.invoke({"started": []})  # (the pool's 4 threads are made in the first run)
        made_conditions.clear()
        assert graph.invoke({"started": []}) == {"started": NAMES}
    assert starts.order[-WIDTH:] == NAMES
    # a Future per pool thread, and wait()'s own when one is still running
    assert 4 <= len(made_conditions) <= 4 + 1


class _Refusing(ThreadPoolExecutor):
    """A pool that takes ``accepts`` jobs, then refuses as a pool shutting down does."""

    def __init__(self, accepts: int) -> None:
        super().__init__(max_workers=4, thread_name_prefix="test-refusing")
        self.accepts = accepts

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if self.accepts == 0:
            raise RuntimeError("cannot schedule new futures after shutdown")
        self.accepts -= 1
        return super().submit(fn, *args, **kwargs)


@pytest.mark.parametrize("accepts", [0, 1])
def test_a_pool_refusing_work_raises_in_the_caller_without_hanging(
    accepts: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Work the pool refuses (interpreter shutdown) raises in the run's thread."""
    graph = _fan(_Starts(_slow).node)
    refusing = _Refusing(accepts)
    monkeypatch.setattr(_executor, "_pool", refusing)
    monkeypatch.setattr(_executor, "WORKERS", 4)
    with pytest.raises(RuntimeError, match="cannot schedule new futures"):
        graph.invoke({"started": []})
    refusing.shutdown()


class _Escaping(BaseException):
    """Let through by the task runner below (``Run.run_task`` keeps a node's own errors)."""


def test_what_a_pooled_task_lets_through_raises_in_the_caller_once_all_ran() -> None:
    ran: list[int] = []
    here = threading.current_thread()

    def run_task(task: Any) -> None:
        ran.append(task.index)
        time.sleep(0.001)  # (so that the pool threads take some)
        if threading.current_thread() is not here and not escaped.is_set():
            escaped.set()
            raise _Escaping("from a pool thread")

    escaped = threading.Event()

    tasks = [SimpleNamespace(index=i, node=SimpleNamespace(speed=-1)) for i in range(WIDTH)]
    with pytest.raises(_Escaping, match="from a pool thread"):
        _executor.run_tasks(run_task, cast(Any, tasks))
    assert sorted(ran) == list(range(WIDTH))  # (every other task still ran)


def test_what_a_task_lets_through_in_the_calling_thread_raises_at_once() -> None:
    ran: list[int] = []
    here = threading.current_thread()
    escaped = threading.Event()

    def run_task(task: Any) -> None:
        ran.append(task.index)
        if threading.current_thread() is here and not escaped.is_set():
            escaped.set()
            raise _Escaping("from the calling thread")

    tasks = [SimpleNamespace(index=i, node=SimpleNamespace(speed=-1)) for i in range(WIDTH)]
    with pytest.raises(_Escaping, match="from the calling thread"):
        _executor.run_tasks(run_task, cast(Any, tasks))
    assert escaped.is_set()


def test_a_streamed_step_ending_out_of_order_starts_one_timer_and_waits_for_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Tasks that end before the first one wait for it (at most a grace each) sharing one
    timer thread (there was one per task); once the first ends they are all reported, in
    step order, without waiting for any grace (here an hour)."""
    from sgdebug.runtime.engine import _finish_order

    monkeypatch.setattr(_finish_order, "GRACE_S", 3600.0)
    timers: list[object] = []
    original = threading.Timer.__init__

    def counted(self: threading.Timer, *args: Any, **kwargs: Any) -> None:
        timers.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(threading.Timer, "__init__", counted)
    last_started = threading.Event()

    def body(name: str) -> None:
        if name == NAMES[0]:
            assert last_started.wait(10)
        elif name == NAMES[-1]:
            last_started.set()

    graph = _fan(_Starts(body).node)
    for name in NAMES:
        graph.nodes[name].speed = -1  # (every one in the pool but the last)
    updates = list(graph.stream({"started": []}, stream_mode="updates"))
    assert [next(iter(update)) for update in updates] == NAMES
    assert len(timers) == 1


def _proven_fast(graph: Any) -> None:
    """Every node of ``graph`` counts as proven fast (as a few quick runs would leave it,
    whatever the machine's load): its step runs in the calling thread."""
    for name in NAMES:
        graph.nodes[name].speed = 3


def _guarded(call: Callable[[], Any]) -> Any:
    """``call()`` in a thread of its own, given a minute: a hang fails the test (a deadlock
    guard, not a time limit) instead of the suite."""
    got: list[Any] = []
    runner = threading.Thread(target=lambda: got.append(call()), daemon=True)
    runner.start()
    runner.join(60)
    assert not runner.is_alive(), "the step hung"
    return got[0]


class _FirstWaits:
    """A node body: the first of :data:`NAMES` waits (10 s at most) for the second to run;
    :attr:`saw` says, for each wait, whether it came."""

    def __init__(self) -> None:
        self.second_ran = threading.Event()
        self.saw: list[bool] = []

    def __call__(self, name: str) -> None:
        if name == NAMES[0]:
            self.saw.append(self.second_ran.wait(10))
        elif name == NAMES[1]:
            self.second_ran.set()


def test_a_fast_node_that_waits_for_a_later_sibling_does_not_hang() -> None:
    """The first of a step of proven-fast nodes waits, this time, for the second to set an
    Event (LangGraph runs each task in a thread of its own). The rest of the step is handed
    to the pool, still in the step's order, and the waiting node counts as slow (it
    waited 10 s in vain, then the second ran, one after the other)."""
    body = _FirstWaits()
    saw = body.saw

    starts = _Starts(body)
    graph = _fan(starts.node)
    _proven_fast(graph)
    assert _guarded(lambda: graph.invoke({"started": []})) == {"started": NAMES}
    assert saw == [True] and starts.order == NAMES
    assert graph.nodes[NAMES[0]].speed <= 0
    here = starts.threads[NAMES[0]]
    assert any(starts.threads[name] is not here for name in NAMES[1:])


def test_fast_nodes_waiting_for_siblings_under_max_concurrency() -> None:
    """The handed-off tasks keep ``max_concurrency``: the waiting task holds one slot, so
    with two its sibling still runs beside it, and no more than two run at once."""
    waits = _FirstWaits()
    saw = waits.saw
    body = _Counting(waits)
    most = body.most
    starts = _Starts(body)
    graph = _fan(starts.node)
    _proven_fast(graph)
    got = _guarded(lambda: graph.invoke({"started": []}, {"max_concurrency": 2}))
    assert got == {"started": NAMES}
    assert saw == [True] and starts.order == NAMES and most[0] <= 2


def test_a_fast_node_failing_after_its_wait_fails_the_step_once_all_ran() -> None:
    second_ran = threading.Event()

    def body(name: str) -> None:
        if name == NAMES[0]:
            assert second_ran.wait(10)
            raise ValueError("after the wait")
        if name == NAMES[1]:
            second_ran.set()

    starts = _Starts(body)
    graph = _fan(starts.node)
    _proven_fast(graph)

    def invoke() -> Any:
        with pytest.raises(ValueError, match="after the wait"):
            graph.invoke({"started": []})
        return True

    assert _guarded(invoke)
    assert sorted(starts.order) == NAMES


class _Keyed(TypedDict):
    key: str
    started: Annotated[list[str], operator.add]


def test_fast_nodes_of_nested_steps_waiting_for_siblings_in_a_full_pool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Parallel subgraph nodes take every pool thread; in each subgraph's step of fast
    nodes the first waits for the second. The handed-off tasks cannot wait for a pool
    thread (none would ever be free): a thread of their own stands in for it."""
    events = {f"sub{i}": threading.Event() for i in range(6)}
    saw: list[bool] = []

    def node(name: str) -> Callable[[_Keyed], dict[str, Any]]:
        def run(state: _Keyed) -> dict[str, Any]:
            if name == NAMES[0]:
                saw.append(events[state["key"]].wait(10))
            elif name == NAMES[1]:
                events[state["key"]].set()
            return {"started": [name]}

        return run

    inner_graph = StateGraph(_Keyed)
    for name in NAMES:
        inner_graph.add_node(name, node(name)).add_edge(START, name)
    inner = inner_graph.compile()
    _proven_fast(inner)

    graph = _running_each(inner, list(events), slow=True)
    with _pool_of(monkeypatch, 2):
        got = _guarded(lambda: graph.invoke({"started": []}))
    assert sorted(got["started"]) == sorted(NAMES * 6)
    assert saw == [True] * 6


def test_a_step_timeout_nested_in_a_full_pool_does_not_wait_for_pool_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Parallel subgraph nodes take every pool thread; each subgraph, under a
    ``step_timeout``, runs a parallel step of quick nodes. Its tasks do not wait in the
    pool's queue (they did, one Future each, until the time was up: TimeoutError)."""
    inner = _fan(_Starts(_slow).node)
    inner.step_timeout = 3
    outer = StateGraph(S)
    for i in range(6):
        outer.add_node(f"sub{i}", inner).add_edge(START, f"sub{i}")
    graph = outer.compile()
    with _pool_of(monkeypatch, 2):
        got = _guarded(lambda: graph.invoke({"started": []}))
    assert sorted(got["started"]) == sorted(NAMES * 6)


def test_past_the_step_timeout_running_tasks_end_and_queued_ones_do_not_start() -> None:
    """As LangGraph: a sync task cannot be stopped, so the step waits for those running at
    the limit (they count as late); those still waiting for a ``max_concurrency`` slot do
    not start. Every task that ends in time is not late."""
    ran: list[int] = []
    release = threading.Event()

    def run_task(task: Any) -> None:
        ran.append(task.index)
        if task.index < 2:
            release.wait(10)  # (the two running at the limit end once it is past)

    tasks = [SimpleNamespace(index=i, node=SimpleNamespace(speed=-1)) for i in range(6)]
    timer = threading.Timer(0.3, release.set)
    timer.start()
    late = _executor.run_tasks(run_task, cast(Any, tasks), limit=2, timeout=0.1)
    timer.join()
    assert sorted(ran) == [0, 1]
    assert [cast(Any, task).index for task in late] == list(range(6))


def test_slow_nodes_of_nested_steps_meeting_at_a_barrier_in_a_full_pool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Parallel subgraph nodes take every pool thread; each subgraph's step has three
    nodes that wait for each other (a barrier per subgraph run). The calling thread takes
    one, the pool will never take the others: threads stand in for the step's pool jobs
    (it waited forever)."""
    barriers = {f"sub{i}": threading.Barrier(3, timeout=10) for i in range(6)}
    broken: list[str] = []

    def node(name: str) -> Callable[[_Keyed], dict[str, Any]]:
        def meet(state: _Keyed) -> dict[str, Any]:
            try:
                barriers[state["key"]].wait()
            except threading.BrokenBarrierError:
                broken.append(state["key"])
            return {"started": [name]}

        return meet

    inner_graph = StateGraph(_Keyed)
    for name in NAMES[:3]:
        inner_graph.add_node(name, node(name)).add_edge(START, name)
    inner = inner_graph.compile()

    graph = _running_each(inner, list(barriers))
    with _pool_of(monkeypatch, 2):
        got = _guarded(lambda: graph.invoke({"started": []}))
    assert sorted(got["started"]) == sorted(NAMES[:3] * 6)
    assert broken == []


def test_the_watchdog_sleeps_once_no_step_runs() -> None:
    """It looks at running steps only: once they are over it goes to sleep on its lock
    (no wake-up while a debugger sits at a prompt), and the next step wakes it."""
    from sgdebug.runtime.engine._watchdog import running_watchdog

    graph = _fan(_Starts(lambda name: None).node)
    _proven_fast(graph)
    graph.invoke({"started": []})
    watchdog = running_watchdog()
    asleep = threading.Event()

    def wait_for_sleep() -> None:
        while not (watchdog.idle and not watchdog.watched):
            time.sleep(0.005)
        asleep.set()

    threading.Thread(target=wait_for_sleep, daemon=True).start()
    assert asleep.wait(10)  # (a guard: it goes to sleep within a look or two)
    body = _FirstWaits()
    saw = body.saw

    waiting = _fan(_Starts(body).node)
    _proven_fast(waiting)
    assert _guarded(lambda: waiting.invoke({"started": []})) == {"started": NAMES}
    assert saw == [True]


def test_the_watchdog_stays_awake_between_steps_run_back_to_back() -> None:
    """A step woke it; for LINGER_LOOKS looks after the last step it looks on instead of
    going to sleep, so the next step (an agent's loop, a server's runs) need not wake it."""
    from sgdebug.runtime.engine._watchdog import HANDOFF_S, LINGER_LOOKS, running_watchdog

    graph = _fan(_Starts(lambda name: None).node)
    _proven_fast(graph)
    graph.invoke({"started": []})
    time.sleep(HANDOFF_S * 3)  # (going to sleep takes LINGER_LOOKS naps of HANDOFF_S at least)
    assert LINGER_LOOKS > 3
    assert not running_watchdog().idle


def test_a_program_patching_time_sleep_never_sees_the_watchdogs_naps() -> None:
    """The watchdog naps with ``time.sleep`` as it was at import: a test of the user's that
    mocks ``time.sleep`` finds only its own calls, and the watchdog does not spin."""
    from unittest.mock import patch

    graph = _fan(_Starts(lambda name: None).node)
    _proven_fast(graph)
    pause = threading.Event()
    with patch("time.sleep") as sleep:
        graph.invoke({"started": []})  # (a fast step: it arms the watchdog)
        pause.wait(0.05)  # (a few of its looks)
    assert sleep.call_args_list == []


def _running_each(inner: Any, keys: list[str], *, slow: bool = False) -> Any:
    """START -> a node per key, each running ``inner`` on its own key (``slow``: after a
    millisecond's sleep, so the outer step is pooled)."""

    def sub(key: str) -> Callable[[S], dict[str, Any]]:
        def run(state: S) -> dict[str, Any]:
            if slow:
                time.sleep(0.001)
            return {"started": inner.invoke({"key": key, "started": []})["started"]}

        return run

    outer = StateGraph(S)
    for key in keys:
        outer.add_node(key, sub(key)).add_edge(START, key)
    return outer.compile()
