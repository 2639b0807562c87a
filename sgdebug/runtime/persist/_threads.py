"""Threads with a checkpointer: starting or resuming runs, snapshots, history, update_state."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sgdebug.runtime._constants import COPY, END, INPUT, INTERRUPT, ROOT, START
from sgdebug.runtime.checkpoint._tuples import select_records
from sgdebug.runtime.checkpoint.base import (
    SPECIAL_WRITES,
    BaseCheckpointSaver,
    CheckpointRecord,
    PendingWrite,
    split_thread_key,
    thread_key,
)
from sgdebug.runtime.engine._run import Run, RunOptions, Task
from sgdebug.runtime.engine._step_failure import StepFailure, commit_failure, plan_failure
from sgdebug.runtime.errors import EmptyInputError, InvalidUpdateError
from sgdebug.runtime.graph._node import Write, return_writes, task_result
from sgdebug.runtime.persist._langgraph_reads import listed_records, read_record
from sgdebug.runtime.persist._payloads import subgraph_config
from sgdebug.runtime.persist._persist import ERROR, NULL_TASK, RESUME, Persistence, pending_by_task
from sgdebug.runtime.persist._sync_face import describe_run
from sgdebug.runtime.persist._update import apply_node_updates, check_several, updates_of_copy
from sgdebug.runtime.types import Command, Interrupt, PregelTask, StateSnapshot, StateUpdate

if TYPE_CHECKING:
    from sgdebug.runtime.graph._plan import GraphPlan

CONFIG_KEYS_ERROR = (
    "Checkpointer requires one or more of the following 'configurable' keys: "
    "thread_id, checkpoint_ns, checkpoint_id"
)


def thread_of(config: Mapping[str, Any] | None) -> tuple[str, str | None]:
    """The saver key (thread id, and the checkpoint namespace if it names a subgraph's)
    and the optional checkpoint id a config names."""
    configurable = (config or {}).get("configurable") or {}
    thread_id = configurable.get("thread_id")
    if thread_id is None:
        raise ValueError(CONFIG_KEYS_ERROR)
    key = thread_key(str(thread_id), configurable.get("checkpoint_ns") or "")
    return key, configurable.get("checkpoint_id")


def config_of(record: CheckpointRecord, parents: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The config that names ``record``. As LangGraph's, a checkpoint with ``parents`` in
    its metadata (a subgraph's, or a root's fork made by time travel into a subgraph)
    also maps each level to its checkpoint, ``checkpoint_map``; ``parents``: those of
    the checkpoint ``record`` is the parent of (LangGraph shows a parent config so)."""
    thread_id, ns = split_thread_key(record.thread_id)
    configurable: dict[str, Any] = {
        "thread_id": thread_id,
        "checkpoint_ns": ns,
        "checkpoint_id": record.id,
    }
    if parents is None:
        parents = record.user_metadata.get("parents")
    if ns or parents:
        configurable["checkpoint_map"] = {**(parents or {}), ns: record.id}
    return {"configurable": configurable}


def _parent_config(record: CheckpointRecord, parent: CheckpointRecord | None) -> Any:
    if parent is None:
        return None
    return config_of(parent, record.user_metadata.get("parents") or {})


def start_run(graph: GraphPlan, run: Run, input: Any, config: Mapping[str, Any]) -> None:
    """Prepare ``run`` on its thread: fresh input, new input on old state, or a resume."""
    saver: BaseCheckpointSaver = graph.checkpointer
    thread_id, checkpoint_id = thread_of(config)
    persist = Persistence(saver, thread_id)
    describe_run(persist.saver, graph.channel_specs, config)
    record = read_record(saver, thread_id, checkpoint_id, config)
    resuming = input is None or (isinstance(input, Command) and record is not None)
    if record is None:
        if input is None:
            raise EmptyInputError("Received no input for __start__")
        run.persist = persist
        run.write_input(input)
        return
    run.restore(persist, persist.load(record))
    if not resuming:
        run.write_input(input)
        return
    latest = saver.get_record(thread_id)
    if checkpoint_id is not None and latest is not None and latest.id != record.id:
        # (time travel into a subgraph: LangGraph keeps the levels it named in the fork)
        persist.nest(config.get("configurable", {}).get("checkpoint_map"))
        persist.save(run, "fork", step=record.step + 1)
        persist.nest(None)
        run.step = record.step + 2
    if run.options.durability == "exit":
        persist.begin_staging()
    at_latest = checkpoint_id is None or latest is None or latest.id == record.id
    continue_from(run, persist, record, input, at_latest=at_latest)


def continue_from(
    run: Run,
    persist: Persistence,
    record: CheckpointRecord,
    input: Any,
    *,
    at_latest: bool = True,
) -> None:
    """Resume ``run``, restored at ``record``: ``at_latest`` (the thread's latest
    checkpoint), the writes recorded for the step after it (finished tasks, answers,
    errors) prefill that step; ``input`` is the resuming ``Command`` (or ``None``)."""
    saver = persist.saver
    if at_latest:
        pending = saver.get_writes(record.thread_id, record.id)
        run.prefill = {k: list(v) for k, v in pending_by_task(pending).items()}
        nulls = run.prefill.pop(NULL_TASK, [])
        run.null_resume = [w.value for w in nulls if w.channel == RESUME][:1]
        # Updates given with earlier resumes of this checkpoint (each resume adds its own).
        updates = [(w.channel, w.value) for w in nulls if w.channel != RESUME]
        if updates:
            run.apply_writes(updates)
        if isinstance(input, Command):
            _apply_command(run, persist, input, pending)
    # A resumed step does not stop again at the breakpoint it was paused at.
    run.versions_seen[INTERRUPT] = dict(run.versions)
    run.watched_changed = True
    if run.options.emit is not None:
        run.options.emit.resumed(run)
        persist.emit_resumed(run)


def _apply_command(
    run: Run, persist: Persistence, cmd: Command[Any], pending: Sequence[PendingWrite]
) -> None:
    if cmd.graph == Command.PARENT:
        raise InvalidUpdateError("There is no parent graph")
    null: list[Write] = []
    if cmd.resume is not None:
        null.extend(_resume(run, cmd.resume, pending))
    routes: list[Write] = []
    writes: list[Write] = []
    if cmd.update is not None:
        writes = return_writes(Command(update=cmd.update), run.graph.target, routes)
    if cmd.goto:
        return_writes(Command(goto=cmd.goto), run.graph.target, routes)
    if writes or routes:
        run.apply_writes(writes + routes)
    # Kept with the checkpoint like LangGraph's null writes: its snapshot shows them applied.
    null.extend(writes + routes)
    _keep_null_writes(persist, null, pending)


def _keep_null_writes(
    persist: Persistence, null: Sequence[Write], pending: Sequence[PendingWrite]
) -> None:
    """Store a resume's answer and updates with its checkpoint, after the updates earlier
    resumes of it gave (the answer replaces theirs). With ``durability="exit"`` the answer
    is not kept, and the updates only if the run ends at this checkpoint."""
    record = persist.record
    if not null or record is None:
        return
    earlier = [w for w in pending if w.task_id == NULL_TASK and w.channel != RESUME]
    stored = earlier + [PendingWrite(NULL_TASK, NULL_TASK, (), k, v) for k, v in null]
    staged = persist.staged
    if staged is None:
        persist.saver.put_writes(record.thread_id, record.id, stored)
        return
    stored = [w for w in stored if w.channel != RESUME]
    if stored:
        staged.hold(record.id, stored)


def _resume(run: Run, value: Any, pending: Sequence[PendingWrite]) -> list[Write]:
    """Give resume answers to the interrupted tasks; returns a run-wide answer to store."""
    by_task = pending_by_task(pending)
    waiting: dict[str, tuple[str, Interrupt]] = {}
    for task_id, writes in by_task.items():
        if any(w.channel not in SPECIAL_WRITES for w in writes):
            continue  # finished: its interrupts were answered
        for write in writes:
            if write.channel == INTERRUPT:
                for interrupt in write.value:
                    waiting[interrupt.id] = (task_id, interrupt)
    if isinstance(value, dict) and value and all(k in waiting for k in value):
        answers = {waiting[k][0]: v for k, v in value.items()}
    elif len(waiting) > 1:
        raise RuntimeError(
            "When there are multiple pending interrupts, you must specify the interrupt id "
            "when resuming. Docs: https://docs.langchain.com/oss/python/langgraph/interrupts"
            "#handling-multiple-interrupts."
        )
    else:
        # A bare answer is a run-wide resume value, kept with the checkpoint: each run
        # from it hands it to the first interrupt() that has no answer of its own.
        run.null_resume = [value]
        return [(RESUME, value)]
    run.resume_map.update(value)  # (a subgraph's interrupt finds its answer by its id)
    for task_id, answer in answers.items():
        recorded = run.prefill.setdefault(task_id, [])
        previous = [v for w in recorded if w.channel == RESUME for v in w.value]
        first = by_task[task_id][0]
        recorded[:] = [w for w in recorded if w.channel != RESUME]
        recorded.append(
            PendingWrite(task_id, first.task_name, first.path, RESUME, [*previous, answer])
        )
    return []


# -- snapshots -----------------------------------------------------------------------------


def snapshot(graph: GraphPlan, record: CheckpointRecord, *, latest: bool) -> StateSnapshot:
    """The ``StateSnapshot`` of a stored checkpoint."""
    saver: BaseCheckpointSaver = graph.checkpointer
    persist = Persistence(saver, record.thread_id)
    run = Run(graph, RunOptions({}, 10007))
    run.restore(persist, persist.load(record))
    tasks = run.next_tasks(add_order=True)
    by_task = pending_by_task(saver.get_writes(record.thread_id, record.id))
    # Writes of a resuming Command show in the snapshot's values (not in its tasks).
    null = [(w.channel, w.value) for w in by_task.pop(NULL_TASK, [])]
    null = [(k, v) for k, v in null if k in graph.state_keys]
    if null:
        run.apply_writes(null)
    pregel: list[PregelTask] = []
    names: list[str] = []
    finished: list[Task] = []
    interrupts: list[Interrupt] = []
    for task in tasks:
        writes = by_task.get(task.id, [])
        error = next((w.value for w in writes if w.channel == ERROR), None)
        raised = tuple(i for w in writes if w.channel == INTERRUPT for i in w.value)
        regular = [w for w in writes if w.channel not in SPECIAL_WRITES]
        ok = bool(regular)
        if latest and ok:
            raised = ()  # answered: only still-pending interrupts show on the latest state
        result = None
        if ok:
            task.writes = [(w.channel, w.value) for w in regular if w.channel != "__no_writes__"]
            result = task_result(task.writes, graph.state_keys)
            if graph.root:  # a snapshot shows a root state's result bare
                result = result.get(ROOT)
            finished.append(task)
        if not (latest and ok):
            names.append(task.name)
        interrupts.extend(raised)
        state = subgraph_config(record, task)
        pregel.append(PregelTask(task.id, task.name, task.path, error, raised, state, result))
    if latest and finished:
        grouped: defaultdict[str, list[Any]] = defaultdict(list)
        for task in finished:
            for key, value in task.writes:
                if key in graph.state_keys:
                    grouped[key].append(value)
        run.apply_writes([(k, v) for k, vs in grouped.items() for v in vs])
    parent = saver.get_record(record.thread_id, record.parent_id) if record.parent_id else None
    return StateSnapshot(
        values=run.read_values(graph.stream_keys),
        next=tuple(names),
        config=config_of(record),
        metadata=record.metadata,
        created_at=record.created_at,
        parent_config=_parent_config(record, parent),
        tasks=tuple(pregel),
        interrupts=tuple(interrupts),
    )


def get_state(graph: GraphPlan, config: Mapping[str, Any]) -> StateSnapshot:
    """The snapshot a config names (the thread's latest unless it names a checkpoint)."""
    thread_id, checkpoint_id = thread_of(config)
    record = read_record(graph.checkpointer, thread_id, checkpoint_id, config)
    if record is None:
        return StateSnapshot({}, (), dict(config), None, None, None, (), ())
    return snapshot(graph, record, latest=checkpoint_id is None)


def inspect_state(
    graph: GraphPlan, config: Mapping[str, Any]
) -> tuple[StateSnapshot, StepFailure | None]:
    """``get_state`` for a debugger, which must show a thread whatever it holds.

    Where ``get_state`` raises (as LangGraph's does) because the step pending at the
    checkpoint fails outside its tasks (the writes recorded for it are rejected at commit,
    or its tasks' inputs cannot be built), this returns the snapshot as far as it can be
    built (the values the step started from) and why the step fails.
    """
    thread_id, checkpoint_id = thread_of(config)
    record = graph.checkpointer.get_record(thread_id, checkpoint_id)
    if record is None:
        return get_state(graph, config), None
    try:
        return snapshot(graph, record, latest=checkpoint_id is None), None
    except Exception as exc:
        error = exc
    if checkpoint_id is None:
        try:
            before = snapshot(graph, record, latest=False)
        except Exception:
            pass
        else:
            return before, _rejected_writes(graph, record, before, error)
    return _unplanned(graph, record), plan_failure(record.step + 1, error)


def _rejected_writes(
    graph: GraphPlan, record: CheckpointRecord, before: StateSnapshot, error: Exception
) -> StepFailure:
    """Which channel rejects the writes recorded for the finished tasks of ``record``."""
    saver: BaseCheckpointSaver = graph.checkpointer
    finished = {t.id for t in before.tasks if t.result is not None}
    by_task = pending_by_task(saver.get_writes(record.thread_id, record.id))
    tasks = sorted((ws for tid, ws in by_task.items() if tid in finished), key=_path_order)
    writes = [(w.task_name, w.channel, w.value) for ws in tasks for w in ws
              if w.channel not in SPECIAL_WRITES]  # fmt: skip
    values = Persistence(saver, record.thread_id).load(record)
    channels = {k: c.from_checkpoint(values[k]) if k in values else c.copy()
                for k, c in graph.channel_specs.items()}  # fmt: skip
    return commit_failure(channels, writes, record.step + 1, error)


def _path_order(writes: Sequence[PendingWrite]) -> tuple[int, Any]:
    """The order a commit applies tasks in: pulled nodes by name, then Sends in order."""
    path = tuple(writes[0].path)
    if path and path[0] == "__pregel_pull":
        return (0, str(path[1]) if len(path) > 1 else "")
    return (1, path[1] if len(path) > 1 else 0)


def _unplanned(graph: GraphPlan, record: CheckpointRecord) -> StateSnapshot:
    """The snapshot of a checkpoint whose next tasks cannot be planned: its values only."""
    saver: BaseCheckpointSaver = graph.checkpointer
    persist = Persistence(saver, record.thread_id)
    run = Run(graph, RunOptions({}, 10007))
    run.restore(persist, persist.load(record))
    parent = saver.get_record(record.thread_id, record.parent_id) if record.parent_id else None
    return StateSnapshot(
        values=run.read_values(graph.stream_keys),
        next=(),
        config=config_of(record),
        metadata=record.metadata,
        created_at=record.created_at,
        parent_config=_parent_config(record, parent),
        tasks=(),
        interrupts=(),
    )


def get_state_history(
    graph: GraphPlan,
    config: Mapping[str, Any],
    *,
    filter: Mapping[str, Any] | None = None,
    before: Mapping[str, Any] | None = None,
    limit: int | None = None,
) -> Iterator[StateSnapshot]:
    """Every snapshot of the thread, newest first, across all branches."""
    thread_id, only_id = thread_of(config)
    selection = {"filter": filter, "before": before, "limit": limit}
    listed = listed_records(graph.checkpointer, thread_id, config, selection)
    if listed is None:
        before_id = ((before or {}).get("configurable") or {}).get("checkpoint_id")
        records = graph.checkpointer.list_records(thread_id)
        listed = select_records(records, only_id, before_id, filter, limit)
    for record in listed:
        yield snapshot(graph, record, latest=False)


# -- update_state --------------------------------------------------------------------------


def update_state(
    graph: GraphPlan,
    config: Mapping[str, Any],
    values: Any,
    as_node: str | None,
    task_id: str | None = None,
) -> dict[str, Any]:
    """Apply ``values`` as if ``as_node`` had returned them (as task ``task_id`` when given);
    store an ``update`` checkpoint."""
    return update_superstep(graph, config, [StateUpdate(values, as_node, task_id)])


def update_superstep(
    graph: GraphPlan, config: Mapping[str, Any], updates: Sequence[StateUpdate]
) -> dict[str, Any]:
    """Apply ``updates`` together, as one superstep of their nodes; store one checkpoint."""
    values, as_node = updates[0].values, updates[0].as_node
    if len(updates) > 1:
        check_several(updates)
    saver: BaseCheckpointSaver = graph.checkpointer
    thread_id, checkpoint_id = thread_of(config)
    record = read_record(saver, thread_id, checkpoint_id, config)
    persist = Persistence(saver, thread_id)
    describe_run(persist.saver, graph.channel_specs, config)
    run = Run(graph, RunOptions(dict(config), 10007))
    if record is not None:
        parents = record.user_metadata.get("parents")
        if parents:  # a subgraph's checkpoint: the update is one of that subgraph's
            persist.nest(parents)
        run.restore(persist, persist.load(record))
    else:
        run.persist, run.step = persist, 0
    step = run.step
    if as_node == COPY:
        parent = record.parent_id if record is not None else None
        copied = config_of(persist.save_record(run, "fork", step=step, parent=parent))
        if isinstance(values, list) and values:  # copy, then update the copy
            return update_superstep(graph, copied, updates_of_copy(values))
        return copied
    if as_node == INPUT:  # the first checkpoint of a thread is its input, at step -1
        run.apply_writes([(START, values)])
        step = step if record is not None else -1
        return config_of(persist.save_record(run, "input", step=step))
    if values is None and as_node == END:
        run._apply({}, "step")
        return config_of(persist.save_record(run, "update", step=step))
    if as_node is None:
        updates = [updates[0]._replace(as_node=_infer_as_node(graph, record))]
    # As LangGraph, the update's writes are kept on its checkpoint (the tasks' results its
    # snapshot shows) only while that is the thread's latest: an older one keeps its own.
    latest = saver.get_record(thread_id, None) if checkpoint_id and record is not None else None
    superseded = latest is not None and record is not None and latest.id != record.id
    return config_of(apply_node_updates(run, persist, record, updates, keep=not superseded))


def _infer_as_node(graph: GraphPlan, record: CheckpointRecord | None) -> str:
    """The node an update without ``as_node`` is applied as: the one that ran last, as
    LangGraph infers it (a node interrupted before it finished has not run: a one-node
    graph stopped at its node's ``interrupt()`` is updated as ``__start__``, and the node
    stays next)."""
    if record is None:
        return START
    last = sorted(
        (max(seen.values()), node)
        for node, seen in record.versions_seen.items()
        if node in graph.nodes and seen
    )
    if not last:
        return START
    if len(last) > 1 and last[-1][0] == last[-2][0]:
        raise InvalidUpdateError("Ambiguous update, specify as_node")
    return last[-1][1]
