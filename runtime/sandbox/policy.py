"""Compile-time policy for codeplans: RestrictedPython's rules plus budgets and abort safety.

On top of RestrictedPython's ``RestrictingNodeTransformer`` (no ``_`` names, guarded
attribute/item/iteration/write access) this policy

* puts a ``_step_()`` call at the top of every loop body, function body and lambda, and
  counts comprehension items through ``_stepiter_``, so a step budget can stop any
  Python-level loop or recursion;
* prepends ``except _abort_: raise`` to every ``try`` with handlers, so neither
  ``except Exception:``, a bare ``except:`` nor a handler whose expression fails (e.g. the
  undefined ``BaseException``) can swallow a budget stop;
* forbids ``return``/``break``/``continue``/``yield`` in ``finally`` blocks and ``with``
  statements altogether, the remaining ways to cancel an in-flight exception;
* rewrites ``a.b += x`` and ``a[i] += x`` (RestrictedPython refuses them) into guarded
  reads and writes;
* flags unavailable builtins (``eval``, ``open``, ``getattr`` ...) at compile time so the
  planner gets a clear message instead of a NameError.

Python normalises identifiers (NFKC) before this runs, so fullwidth ``ｅｖａｌ`` is
checked as ``eval``.
"""

from __future__ import annotations

import ast
import types

from RestrictedPython.transformer import (
    IOPERATOR_TO_STR,
    RestrictingNodeTransformer,
    copy_locations,
)

CODEPLAN_FILENAME = "<codeplan>"
STEP = "_step_"
STEP_ITER = "_stepiter_"
ABORT = "_abort_"

UNAVAILABLE_NAMES = frozenset({
    "eval", "exec", "compile", "open", "globals", "locals", "vars", "getattr", "setattr",
    "delattr", "hasattr", "dir", "input", "breakpoint", "help", "memoryview", "exit",
    "quit", "super", "type", "object", "classmethod", "staticmethod", "property",
    "bytearray", "issubclass", "format", "license", "credits", "copyright",
})


class CodeplanSyntaxError(SyntaxError):
    """A codeplan failed to compile; ``str()`` is one ``Line N: ...`` line per problem.

    ``kind`` is ``'syntax'`` for Python syntax errors and ``'violation'`` for sandbox
    policy errors, so the planner feedback can say which it was.
    """

    def __init__(self, errors: list[str], kind: str = "syntax") -> None:
        self.errors = tuple(dict.fromkeys(errors))  # de-duplicated, order kept
        self.kind = kind
        super().__init__("\n".join(self.errors))

    def __str__(self) -> str:
        return "\n".join(self.errors)


def _call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=ast.Name(name, ast.Load()), args=list(args), keywords=[])


def _located(new: ast.AST, old: ast.AST) -> ast.AST:
    copy_locations(new, old)
    return new


def _bound_names(tree: ast.AST) -> frozenset[str]:
    """Every name the codeplan binds anywhere; a bound ``type`` is a variable, not a builtin."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return frozenset(names)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_LOOPS = (ast.For, ast.While, ast.AsyncFor)


def _exception_cancellers(stmts: list[ast.stmt]) -> list[tuple[ast.AST, str]]:
    """Statements in a ``finally`` that would cancel an in-flight exception."""
    found: list[tuple[ast.AST, str]] = []

    def walk(node: ast.AST, in_loop: bool) -> None:
        if isinstance(node, _SCOPES):
            return
        if isinstance(node, ast.Return):
            found.append((node, "return"))
        elif isinstance(node, (ast.Yield, ast.YieldFrom)):
            found.append((node, "yield"))
        elif isinstance(node, (ast.Break, ast.Continue)) and not in_loop:
            found.append((node, "break" if isinstance(node, ast.Break) else "continue"))
        if isinstance(node, _LOOPS):
            for child in node.body:
                walk(child, True)
            for child in node.orelse:
                walk(child, in_loop)
            return
        for child in ast.iter_child_nodes(node):
            walk(child, in_loop)

    for stmt in stmts:
        walk(stmt, False)
    return found


class CodeplanPolicy(RestrictingNodeTransformer):
    """RestrictedPython's policy plus step guards, abort-safe handlers and ``+=``."""

    def __init__(self, errors=None, warnings=None, used_names=None) -> None:
        super().__init__(errors, warnings, used_names)
        self._bound: frozenset[str] = frozenset()

    def _guard_body(self, node: ast.For | ast.While | ast.FunctionDef) -> None:
        """Put ``_step_()`` first in the body (which a refused statement may have emptied)."""
        at = node.body[0] if node.body else node
        node.body.insert(0, _located(ast.Expr(_call(STEP)), at))

    def visit_Module(self, node: ast.Module) -> ast.AST:
        self._bound = _bound_names(node)
        return super().visit_Module(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if (isinstance(node.ctx, ast.Load) and node.id in UNAVAILABLE_NAMES
                and node.id not in self._bound):
            self.error(node, f'"{node.id}" is not available in a codeplan.')
        return super().visit_Name(node)

    def visit_For(self, node: ast.For) -> ast.AST:
        node = super().visit_For(node)
        self._guard_body(node)
        return node

    def visit_While(self, node: ast.While) -> ast.AST:
        node = super().visit_While(node)
        self._guard_body(node)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node = super().visit_FunctionDef(node)
        self._guard_body(node)
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        node = super().visit_Lambda(node)
        node.body = _located(ast.BoolOp(ast.Or(), [_call(STEP), node.body]), node.body)
        return node

    def visit_comprehension(self, node: ast.comprehension) -> ast.AST:
        node = super().visit_comprehension(node)
        guarded = node.iter  # _getiter_(it) or _iter_unpack_sequence_(it, spec, _getiter_)
        if guarded.func.id == "_getiter_":
            guarded.func.id = STEP_ITER
        else:
            guarded.args[0] = _located(_call(STEP_ITER, guarded.args[0]), guarded.args[0])
        return node

    def visit_Try(self, node: ast.Try) -> ast.AST:
        node = super().visit_Try(node)
        for bad, what in _exception_cancellers(node.finalbody):
            self.error(bad, f"'{what}' inside 'finally' is not allowed in a codeplan.")
        if node.handlers:
            first = node.handlers[0]
            reraise = ast.ExceptHandler(type=ast.Name(ABORT, ast.Load()), name=None,
                                        body=[_located(ast.Raise(exc=None, cause=None), first)])
            node.handlers.insert(0, _located(reraise, first))
        return node

    def visit_With(self, node: ast.With) -> ast.AST:
        self.error(node, "'with' statements are not allowed in a codeplan.")
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST | list[ast.stmt]:
        if isinstance(node.target, ast.Name):
            return super().visit_AugAssign(node)
        if isinstance(node.target, ast.Subscript) and isinstance(node.target.slice, ast.Slice):
            self.error(node, "Augmented assignment of slices is not allowed.")
            return node
        node = self.node_contents_visit(node)  # guards names, values; wraps target in _write_
        return [_located(stmt, node) for stmt in self._aug_statements(node)]

    def _aug_statements(self, node: ast.AugAssign) -> list[ast.stmt]:
        """``o.a += v`` -> ``t = o; _write_(t).a = _inplacevar_('+=', _getattr_(t, 'a'), v)``.

        The object (and key) are evaluated once, as Python does.
        """
        target = node.target
        obj_tmp = self.gen_tmp_name()
        stmts: list[ast.stmt] = [
            ast.Assign([ast.Name(obj_tmp, ast.Store())], target.value.args[0]),  # strip _write_
        ]
        def obj() -> ast.Name:
            return ast.Name(obj_tmp, ast.Load())

        if isinstance(target, ast.Attribute):
            current = _call("_getattr_", obj(), ast.Constant(target.attr))
            new_target = ast.Attribute(_call("_write_", obj()), target.attr, ast.Store())
        else:
            key_tmp = self.gen_tmp_name()
            stmts.append(ast.Assign([ast.Name(key_tmp, ast.Store())], target.slice))
            current = _call("_getitem_", obj(), ast.Name(key_tmp, ast.Load()))
            new_target = ast.Subscript(_call("_write_", obj()), ast.Name(key_tmp, ast.Load()),
                                       ast.Store())
        op = ast.Constant(IOPERATOR_TO_STR[type(node.op)])
        stmts.append(ast.Assign([new_target], _call("_inplacevar_", op, current, node.value)))
        return stmts


def _syntax_line(exc: SyntaxError) -> str:
    text = (exc.text or "").strip()
    where = f" at statement: {text!r}" if text else ""
    return f"Line {exc.lineno or 1}: {type(exc).__name__}: {exc.msg}{where}"


def _parse(source: str) -> ast.Module:
    try:
        return ast.parse(source, CODEPLAN_FILENAME, "exec")
    except SyntaxError as exc:
        raise CodeplanSyntaxError([_syntax_line(exc)]) from None
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, absurd nesting
        raise CodeplanSyntaxError([_unparsable(exc)]) from None


def _unparsable(exc: BaseException) -> str:
    if isinstance(exc, ValueError):
        return f"Line 1: SyntaxError: {exc}"
    return f"Line 1: SyntaxError: codeplan is nested too deeply ({type(exc).__name__})"


def compile_codeplan(source: str) -> types.CodeType:
    """Compile a codeplan under the sandbox policy, or raise CodeplanSyntaxError.

    Why a separate entry point: planners can validate an LLM's code (and feed the
    ``Line N: ...`` messages back) without running it.
    """
    if not isinstance(source, str):
        raise TypeError("codeplan source must be str")
    tree = _parse(source)
    errors: list[str] = []
    try:
        tree = CodeplanPolicy(errors, [], {}).visit(tree)
    except (RecursionError, MemoryError) as exc:
        raise CodeplanSyntaxError([_unparsable(exc)]) from None
    except Exception as exc:  # a construct the policy cannot handle is refused, never run
        errors.append(f"Line 1: codeplan could not be checked ({type(exc).__name__})")
    if errors:
        raise CodeplanSyntaxError(errors, kind="violation")
    try:
        return compile(tree, CODEPLAN_FILENAME, "exec", dont_inherit=True)
    except SyntaxError as exc:  # e.g. 'return' outside function: found by the compiler
        raise CodeplanSyntaxError([_syntax_line(exc)]) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise CodeplanSyntaxError([_unparsable(exc)]) from None
