"""Managed values: keys computed by the engine for each task instead of stored in a channel."""

from __future__ import annotations

from typing import Annotated, Any, get_args, get_origin

__all__ = ["IsLastStep", "ManagedValue", "RemainingSteps", "is_managed", "managed_kind"]


class ManagedValue:
    """Base of the markers that make a state key managed; subclasses compute the value."""

    @staticmethod
    def compute(step: int, stop: int) -> Any:
        """The value a task at ``step`` of a run that stops at ``stop`` sees."""
        raise NotImplementedError


class RemainingStepsManager(ManagedValue):
    """How many supersteps the run may still take before its recursion limit."""

    @staticmethod
    def compute(step: int, stop: int) -> int:
        return stop - step


class IsLastStepManager(ManagedValue):
    """Whether this superstep is the last one the recursion limit allows."""

    @staticmethod
    def compute(step: int, stop: int) -> bool:
        return step == stop - 1


RemainingSteps = Annotated[int, RemainingStepsManager]
"""Annotate a state key with this to receive the number of supersteps left."""
IsLastStep = Annotated[bool, IsLastStepManager]
"""Annotate a state key with this to learn whether this is the last allowed superstep."""


def managed_kind(annotation: Any) -> type[ManagedValue] | None:
    """The manager class of a managed annotation, or ``None`` for a channel annotation."""
    from typing import NotRequired, Required

    while get_origin(annotation) in (Required, NotRequired):
        annotation = get_args(annotation)[0]
    if get_origin(annotation) is Annotated:
        last = annotation.__metadata__[-1]
        if isinstance(last, type) and issubclass(last, ManagedValue):
            return last
        # LangGraph's own managed markers, so a program may mix imports.
        if isinstance(last, type) and last.__name__ in _FOREIGN_MANAGERS:
            return _FOREIGN_MANAGERS[last.__name__]
    return None


def is_managed(annotation: Any) -> bool:
    """Whether ``annotation`` declares a managed value."""
    return managed_kind(annotation) is not None


_FOREIGN_MANAGERS: dict[str, type[ManagedValue]] = {
    "RemainingStepsManager": RemainingStepsManager,
    "IsLastStepManager": IsLastStepManager,
}
