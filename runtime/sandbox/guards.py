"""Run-time guards a codeplan executes against (inside the worker process).

RestrictedPython compiles ``a.b`` into ``_getattr_(a, 'b')``, ``a[i] = v`` into
``_write_(a)[i] = v`` and so on; this module supplies those names, the step budget
(``_step_``), the import hook, and the small set of builtins a codeplan gets. A fresh
set is built for every run, so nothing a codeplan does survives into the next one.

Stops the codeplan must not be able to catch (budget, violation, host stop) derive
from ``SandboxAbort(BaseException)``: ``except Exception`` cannot name them, and the
policy re-raises them before any handler of the codeplan runs.
"""

from __future__ import annotations

import builtins
import operator
import time
import types
from collections.abc import Callable, Iterable, Iterator, Mapping

from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence
from RestrictedPython.transformer import INSPECT_ATTRIBUTES

from runtime.sandbox.policy import ABORT, STEP, STEP_ITER
from runtime.sandbox.types import Limits


class SandboxAbort(BaseException):
    """Ends a codeplan run; a BaseException so a codeplan's ``except Exception`` misses it."""


class BudgetExceeded(SandboxAbort):
    """The codeplan used up its steps, seconds or API calls."""


class SandboxViolation(SandboxAbort):
    """The codeplan tried something the sandbox forbids (a dunder, ``os``, ...)."""


class HostStop(SandboxAbort):
    """The host asked the codeplan to stop (a host callable raised a BaseException)."""


class PrimitiveError(Exception):
    """An API call (a primitive run by the host) failed; codeplans may catch this."""


ABORTS = (SandboxAbort, MemoryError)  # what ``except _abort_: raise`` lets through

_SAFE_NAMES = (
    "abs", "all", "any", "bool", "callable", "chr", "dict", "divmod", "enumerate",
    "filter", "float", "frozenset", "hash", "int", "isinstance", "iter", "len", "list",
    "map", "max", "min", "next", "ord", "pow", "range", "repr", "reversed", "round", "set",
    "slice", "sorted", "str", "sum", "tuple", "zip",
    "ArithmeticError", "AssertionError", "AttributeError", "Exception", "ImportError",
    "IndexError", "KeyError", "LookupError", "NameError", "NotImplementedError",
    "OverflowError", "RecursionError", "RuntimeError", "StopIteration", "TypeError",
    "ValueError", "ZeroDivisionError",
)
SAFE_BUILTINS: dict[str, object] = {name: getattr(builtins, name) for name in _SAFE_NAMES}
SAFE_BUILTINS["PrimitiveError"] = PrimitiveError
_BASE_CLASSES = frozenset(v for v in SAFE_BUILTINS.values() if isinstance(v, type))

_INTERNAL_TYPES = (types.FrameType, types.TracebackType, types.CodeType,
                   types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType)
_INTERNAL_PREFIXES = ("gi_", "cr_", "ag_", "f_", "tb_", "co_")
_BLOCKED_ATTRS = INSPECT_ATTRIBUTES | {"mro"}
_WRITABLE_TYPES = frozenset({dict, list, set})

_INPLACE: dict[str, Callable[[object, object], object]] = {
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow,
    "<<=": operator.ilshift, ">>=": operator.irshift, "&=": operator.iand,
    "|=": operator.ior, "^=": operator.ixor, "@=": operator.imatmul,
}


def guarded_getattr(obj: object, name: str) -> object:
    """``obj.name`` for a codeplan: no ``_`` names, frames, code, ``mro`` or ``str.format``.

    Why ``str.format``: ``'{0.__class__}'.format(x)`` walks attributes inside C code,
    past every compile-time check.
    """
    if type(name) is not str:
        raise SandboxViolation("attribute names must be str")
    if name.startswith("_"):
        raise SandboxViolation(f'attribute "{name}" is not allowed (starts with "_")')
    if name in _BLOCKED_ATTRS or (
            name.startswith(_INTERNAL_PREFIXES) and isinstance(obj, _INTERNAL_TYPES)):
        raise SandboxViolation(f'attribute "{name}" is not allowed in a codeplan')
    if name in ("format", "format_map") and (
            isinstance(obj, str) or (isinstance(obj, type) and issubclass(obj, str))):
        raise SandboxViolation(f"str.{name}() is not allowed in a codeplan; use f-strings")
    if isinstance(obj, (types.FrameType, types.TracebackType, types.CodeType)):
        raise SandboxViolation("frames, tracebacks and code objects are off limits")
    return getattr(obj, name)


def guarded_getitem(obj: object, key: object) -> object:
    return obj[key]  # type: ignore[index]


def inplace(op: str, target: object, value: object) -> object:
    """``x op= y`` for names, items and attributes (RestrictedPython's ``_inplacevar_``)."""
    return _INPLACE[op](target, value)


def apply_call(func: Callable, *args: object, **kwargs: object) -> object:
    """``f(*a, **kw)`` (RestrictedPython's ``_apply_``)."""
    return func(*args, **kwargs)


class ApiModule:
    """What ``import control_actions`` gives a codeplan: only the allowed callables."""

    def __init__(self, name: str, functions: Mapping[str, Callable]) -> None:
        self.__dict__.update(functions)
        self.__dict__["_ApiModule__name"] = name

    def __repr__(self) -> str:
        return f"<module {self.__name!r}>"


class RunState:
    """Counters and printed text of one run; why one object: the guards share it."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.start = time.monotonic()
        self.call_s = 0.0  # seconds spent waiting on host API calls
        self.steps = 0
        self.chunks: list[str] = []
        self.printed = 0  # characters kept so far
        self.classes: set[type] = set()  # classes this codeplan defined

    def elapsed(self) -> float:
        return time.monotonic() - self.start - self.call_s

    def check(self) -> None:
        """Raise BudgetExceeded if steps or seconds are used up; sticky once exceeded."""
        if self.steps > self.limits.max_steps:
            raise BudgetExceeded(f"budget: step limit {self.limits.max_steps} exceeded")
        if self.elapsed() > self.limits.max_seconds:
            raise BudgetExceeded(f"budget: time limit {self.limits.max_seconds} s exceeded")

    def write(self, text: str) -> None:
        room = self.limits.max_print_chars - self.printed
        if room <= 0:
            return
        if len(text) > room:
            text = text[:room] + "\n[... printed output truncated]\n"
        self.printed += len(text)
        self.chunks.append(text)

    def take_prints(self) -> str:
        text = "".join(self.chunks)
        self.chunks.clear()
        return text


def make_step(state: RunState) -> Callable[[], None]:
    """The ``_step_()`` guard; kept tiny because it runs once per loop iteration."""
    max_steps = state.limits.max_steps
    max_seconds = state.limits.max_seconds
    clock = time.monotonic

    def step() -> None:
        state.steps += 1
        if state.steps > max_steps or clock() - state.start - state.call_s > max_seconds:
            state.check()

    return step


def make_step_iter(step: Callable[[], None]) -> Callable[[Iterable[object]], Iterator[object]]:
    """``_stepiter_``: counts comprehension items, which have no body to put a guard in."""

    def step_iter(iterable: Iterable[object]) -> Iterator[object]:
        for item in iterable:
            step()
            yield item

    return step_iter


class Printer:
    """``print`` for a codeplan; every function's ``_print`` shares one run-wide sink.

    Why not RestrictedPython's PrintCollector: it collects per function call, so text
    printed inside a codeplan function would be lost, and it allows ``file=``.
    """

    def __init__(self, state: RunState) -> None:
        self._state = state

    def __call__(self) -> str:  # RestrictedPython's ``printed``
        return "".join(self._state.chunks)

    def _call_print(self, *objects: object, sep: object = " ", end: object = "\n",
                    file: object = None, flush: object = False) -> None:
        if file is not None:
            raise SandboxViolation("print(file=...) is not allowed in a codeplan")
        sep = " " if sep is None else sep
        end = "\n" if end is None else end
        if type(sep) is not str or type(end) is not str:
            raise TypeError("print(): sep and end must be str")
        self._state.write(sep.join(str(obj) for obj in objects) + end)


def make_import(modules: Mapping[str, ApiModule]) -> Callable[..., ApiModule]:
    """The ``__import__`` hook: only the API modules, only their functions."""
    allowed = ", ".join(sorted(modules))

    def guarded_import(name: str, globals_: object = None, locals_: object = None,
                       fromlist: object = (), level: int = 0) -> ApiModule:
        module = modules.get(name) if level == 0 else None
        if module is None:
            raise SandboxViolation(
                f"import of '{name}' is not allowed; a codeplan may import only: {allowed}")
        for item in fromlist or ():
            if type(item) is not str or item.startswith("_") or item not in vars(module):
                names = ", ".join(sorted(k for k in vars(module) if not k.startswith("_")))
                raise SandboxViolation(f"'{name}' has no function {item!r}; it has: {names}")
        return module

    return guarded_import


def make_write(state: RunState) -> Callable[[object], object]:
    """``_write_``: a codeplan may modify only lists, dicts, sets and its own classes."""

    def guarded_write(obj: object) -> object:
        kind = type(obj)
        if kind in _WRITABLE_TYPES or kind in state.classes or (
                isinstance(obj, type) and obj in state.classes):
            return obj
        what = repr(obj) if kind is ApiModule else f"{kind.__name__} objects"
        raise SandboxViolation(f"a codeplan may not modify {what}")

    return guarded_write


def make_class_factory(state: RunState) -> Callable[..., type]:
    """``__metaclass__`` for ``class`` statements: only safe bases, and remember the class."""

    def make_class(name: str, bases: tuple, namespace: dict) -> type:
        for base in bases:
            if base not in _BASE_CLASSES and base not in state.classes:
                raise SandboxViolation(f"class {name} may not derive from {base!r}")
        cls = type(name, bases, dict(namespace))
        state.classes.add(cls)
        return cls

    return make_class


def build_globals(state: RunState, modules: Mapping[str, ApiModule]) -> dict[str, object]:
    """A fresh global namespace for one run: safe builtins plus RestrictedPython's hooks."""
    step = make_step(state)
    printer = Printer(state)
    safe_builtins = dict(SAFE_BUILTINS)
    safe_builtins["__build_class__"] = builtins.__build_class__
    safe_builtins["__import__"] = make_import(modules)
    return {
        "__builtins__": safe_builtins,
        "__name__": "codeplan",
        "__metaclass__": make_class_factory(state),
        "_getattr_": guarded_getattr,
        "_getitem_": guarded_getitem,
        "_getiter_": iter,
        "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
        "_unpack_sequence_": guarded_unpack_sequence,
        "_write_": make_write(state),
        "_inplacevar_": inplace,
        "_apply_": apply_call,
        "_print_": lambda _getattr=None: printer,
        STEP: step,
        STEP_ITER: make_step_iter(step),
        ABORT: ABORTS,
    }
