"""A Jinja sandbox whose rendering runs under a budget: steps, sizes and time, checked while it runs.

Content placeholders and an activity's own templates come with the content, so the work they ask for is
the content's to choose: nested loops, `'x' * 300000000`, a string doubled in a loop. Jinja's sandbox keeps
them away from Python's internals, not from the machine's time and memory; this one also counts:

- steps: every loop iteration (each `{% for %}` iterable is counted as it is consumed, recursive `loop()`
  calls too) and every call of a function, method, macro or filter;
- characters: the size of every value a call, a filter, an operator, a list literal, a `~` or a `{{ }}`
  produces (lists and mappings counted through their items), and the literal text of a loop's body once
  per iteration, so text captured by `{% set %}` blocks and macros is counted too;
- time: a deadline checked at every step.

Sizes are known before the costly work where they can be: `*` and `**` from their operands, a call's
result from its arguments (their sizes times its largest whole-number argument, e.g. `center(300000000)`;
the product of the sizes for `replace` and `join`), and the widths written in a format string. Every
value is also measured after it is made, so nothing larger than the limit of one value lives long.
`lipsum` is not offered. A limit that is reached raises `BudgetExceeded` (exit 2); callers add where.

Each render has its own limits, and a `Ledger` adds renders up (one activity's placeholders, one kit's
templates), so many small renders cannot add up to unbounded work either.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, TypeGuard

import jinja2
from jinja2 import nodes
from jinja2.runtime import LoopContext
from jinja2.sandbox import SandboxedEnvironment
from jinja2.utils import Namespace

from kitgen.core.errors import UnprintableContent


class BudgetExceeded(UnprintableContent):
    """Rendering asked for more steps, characters or time than its budget allows (exit status 2)."""


@dataclass(frozen=True)
class Limits:
    """The budget of one render, and of all the renders one ledger adds up."""

    what: str  # "placeholder", "template": how a message names it
    steps: int  # loop iterations and calls in one render
    chars: int  # characters produced (every value counted as it is made) in one render
    value: int  # characters in any one value
    seconds: float  # wall time of one render
    total_steps: int  # ... of every render the ledger adds up
    total_chars: int
    total_seconds: float
    int_bits: int = 20_000  # a whole number's size (6,000 digits; Python refuses to print more than 4,300)


class Ledger:
    """What the renders of one activity (or one kit) have used so far."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.steps = 0
        self.chars = 0
        self.seconds = 0.0


class _Meter:
    """The running count of one render."""

    def __init__(self, limits: Limits, ledger: Ledger) -> None:
        self.limits = limits
        self.ledger = ledger
        self.started = time.monotonic()
        self.steps = 0
        self.chars = 0
        self.max_steps = min(limits.steps, max(limits.total_steps - ledger.steps, 0))
        self.max_chars = min(limits.chars, max(limits.total_chars - ledger.chars, 0))
        left = max(limits.total_seconds - ledger.seconds, 0.0)
        self.deadline = self.started + min(limits.seconds, left)
        self.shared = (limits.total_steps - ledger.steps < limits.steps or limits.total_chars - ledger.chars
                       < limits.chars or left < limits.seconds)

    def _over(self, what: str) -> BudgetExceeded:
        if self.shared:
            scope = "templates of this kit" if self.limits.what == "template" else "placeholders of this activity"
            return BudgetExceeded(f"the {scope} together ran over their budget: {what}")
        return BudgetExceeded(f"the {self.limits.what} ran over its budget: {what}")

    def step(self, chars: int = 0) -> None:
        self.steps += 1
        self.chars += chars
        if self.steps > self.max_steps:
            limit = self.limits.total_steps if self.shared else self.limits.steps
            raise self._over(f"more than {limit:,} loop iterations and calls")
        if self.chars > self.max_chars:
            limit = self.limits.total_chars if self.shared else self.limits.chars
            raise self._over(f"more than {limit:,} characters made")
        if time.monotonic() > self.deadline:
            seconds = self.limits.total_seconds if self.shared else self.limits.seconds
            raise self._over(f"more than {seconds:g} s")

    def close(self) -> None:
        self.ledger.steps += self.steps
        self.ledger.chars += self.chars
        self.ledger.seconds += time.monotonic() - self.started


# --------------------------------------------------------------------------- sizes

_SIZED = (str, bytes, list, tuple, dict, set, frozenset, Namespace)


def size(value: Any, cap: int) -> int:
    """Characters and items in `value`, counted through nested lists and mappings (what `str()` of it would
    write, roughly); counting stops once it passes `cap`."""
    total = 0
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, (str, bytes)):
            total += len(item)
        elif isinstance(item, bool) or item is None:
            total += 1
        elif isinstance(item, int):
            total += item.bit_length() // 3 + 1
        elif isinstance(item, (list, tuple, set, frozenset)):
            total += len(item) + 1
            if total <= cap:
                pending.extend(item)
        elif isinstance(item, dict):
            total += 2 * len(item) + 1
            if total <= cap:
                pending.extend(item.keys())
                pending.extend(item.values())
        elif isinstance(item, Namespace):
            pending.append(object.__getattribute__(item, "_Namespace__attrs"))
        else:
            total += 1
        if total > cap:
            return total
    return total


_NUMBER = re.compile(r"\d+")
_FORMATTING = {"format", "format_map", "do_format"}
# calls whose result grows with a whole-number argument (a width, a count), and calls whose result grows
# with the product of their arguments' sizes; any other call's result is judged by the sum of its arguments
_TIMES_NUMBER = {"center", "ljust", "rjust", "zfill", "expandtabs", "do_center", "do_indent", "do_batch",
                 "do_slice", "do_tojson", *_FORMATTING}
_MULTIPLYING = {"replace", "join", "translate", "do_replace", "do_join", "sync_do_join", "do_wordwrap"}


def _name(function: Any) -> str:
    return getattr(function, "__name__", "") or ""


# --------------------------------------------------------------------------- the sandbox


class BoundedSandbox(SandboxedEnvironment):
    """Jinja's sandbox with a budget: see the module's description."""

    intercepted_binops = frozenset({"+", "-", "*", "/", "//", "%", "**"})

    def __init__(self, limits: Limits, **options: Any) -> None:
        super().__init__(**options)
        self.limits = limits
        self.ledger = Ledger()
        self._meter = _Meter(limits, self.ledger)
        self.globals.pop("lipsum", None)
        self.filters = {name: self._bounded_filter(function) for name, function in self.filters.items()}
        self.finalize = self._kitgen_output

    # ----------------------------------------------------------------- running

    def run(self, template: jinja2.Template, context: dict[str, Any]) -> str:
        """Render `template` under a fresh meter charged to the ledger; BudgetExceeded when it runs over."""
        meter = self._meter = _Meter(self.limits, self.ledger)
        parts: list[str] = []
        written = 0
        try:
            for chunk in template.generate(**context):
                written += len(chunk)
                if written > self.limits.value:
                    raise meter._over(f"more than {self.limits.value:,} characters of output")
                parts.append(chunk)
        finally:
            meter.close()
        return "".join(parts)

    def add_filters(self, filters: dict[str, Any]) -> None:
        """Filters added after the sandbox was made are bounded too."""
        self.filters.update({name: self._bounded_filter(function) for name, function in filters.items()})

    # ----------------------------------------------------------------- checks

    def _check_value(self, value: Any) -> int:
        """The value's size; BudgetExceeded when it is too large to keep."""
        if isinstance(value, int) and not isinstance(value, bool):
            if value.bit_length() > self.limits.int_bits:
                raise self._meter._over(f"a whole number of more than {self.limits.int_bits:,} bits")
            return 1
        if not isinstance(value, _SIZED):
            return 1
        measured = size(value, self.limits.value)
        if measured > self.limits.value:
            raise self._meter._over(f"a value of more than {self.limits.value:,} characters")
        return measured

    def _too_large(self, estimate: int) -> None:
        if estimate > self.limits.value:
            raise self._meter._over(f"a value of about {estimate:,} characters, more than {self.limits.value:,}")

    def _format_string(self, text: Any) -> None:
        """A width or precision in a format string (`'%0300000000d'`, `'{:>300000000}'`) is a size too."""
        if isinstance(text, str):
            for number in _NUMBER.findall(text):
                if len(number) > 7 or int(number) > self.limits.value:
                    self._too_large(int(number) if len(number) < 20 else 10 ** 20)

    def _before_call(self, function: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """Refuse a call whose result would be too large, judged from its arguments."""
        values = list(args) + [v for k, v in kwargs.items() if k not in ("_loop_vars", "_block_vars")]
        owner = getattr(getattr(function, "__wrapped__", function), "__self__", None)  # (str.format is wrapped)
        if owner is not None and not isinstance(owner, type):
            values.append(owner)
        sizes = []
        largest = 1
        for value in values:
            if isinstance(value, int) and not isinstance(value, bool):
                self._check_value(value)
                largest = max(largest, abs(value))
            elif isinstance(value, _SIZED):
                sizes.append(self._check_value(value))
        name = _name(function)
        if name in _FORMATTING:
            self._format_string(owner if isinstance(owner, str) else next(iter(args), None))
        if name in _MULTIPLYING:
            estimate = 1
            for measured in sizes:
                estimate *= max(measured, 1)
        elif name in _TIMES_NUMBER:
            estimate = max(sum(sizes), 1) * largest
        else:
            estimate = sum(sizes)
        self._too_large(estimate)

    def _after(self, result: Any) -> Any:
        self._meter.step(self._check_value(result) if isinstance(result, (int, *_SIZED)) else 1)
        return result

    # ----------------------------------------------------------------- hooks Jinja calls

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 (Jinja's names)
        internal = getattr(__obj, "__func__", None)
        if internal is BoundedSandbox._kitgen_iter or internal is BoundedSandbox._kitgen_value:
            return __obj(*args)
        __self._meter.step()
        if isinstance(__obj, LoopContext) and args:  # a recursive loop's next level is counted as it runs
            args = (__self._kitgen_iter(args[0], 0),) + args[1:]
        else:
            __self._before_call(__obj, args, kwargs)
        return __self._after(SandboxedEnvironment.call(__self, __context, __obj, *args, **kwargs))

    def call_binop(self, context: Any, operator_: str, left: Any, right: Any) -> Any:
        self._meter.step()
        self._check_value(left)
        self._check_value(right)
        integers = [isinstance(v, int) and not isinstance(v, bool) for v in (left, right)]
        if operator_ == "*":
            if all(integers):
                self._bits(left.bit_length() + right.bit_length())
            elif integers[1] and isinstance(left, _SIZED):
                self._too_large(size(left, self.limits.value) * max(right, 0))
            elif integers[0] and isinstance(right, _SIZED):
                self._too_large(size(right, self.limits.value) * max(left, 0))
        elif operator_ == "**" and all(integers) and right > 0 and abs(left) > 1:
            self._bits(left.bit_length() * right)
        elif operator_ == "%" and isinstance(left, str):
            self._format_string(left)  # and a `*` width from the values: '%*d' % (300000000, 1)
            values = right if isinstance(right, tuple) else (right,)
            widths = [abs(v) for v in values if isinstance(v, int) and not isinstance(v, bool)]
            if "*" in left and widths:
                self._too_large(max(widths) * max(size(right, self.limits.value), 1))
        return self._after(super().call_binop(context, operator_, left, right))

    def _bits(self, bits: int) -> None:
        if bits > self.limits.int_bits:
            raise self._meter._over(f"a whole number of about {bits:,} bits, more than {self.limits.int_bits:,}")

    def _kitgen_iter(self, iterable: Iterable[Any], cost: int) -> Iterator[Any]:
        """A loop's iterable, one step (and the loop body's literal text) charged per item."""
        step = self._meter.step
        for item in iterable:
            step(cost)
            yield item

    def _kitgen_value(self, value: Any) -> Any:
        """A value made without a call (a list literal, a `~`), measured."""
        self._meter.step(self._check_value(value))
        return value

    def _kitgen_output(self, value: Any) -> Any:
        """Every `{{ }}` value, measured before it is turned into text."""
        self._meter.step(self._check_value(value))
        return value

    def _bounded_filter(self, function: Any) -> Any:
        sandbox = self

        def bounded(*args: Any, **kwargs: Any) -> Any:
            sandbox._meter.step()
            values = [a for a in args if not isinstance(a, (jinja2.runtime.Context, jinja2.nodes.EvalContext,
                                                            jinja2.Environment))]
            sandbox._before_call(function, tuple(values), kwargs)
            return sandbox._after(function(*args, **kwargs))

        bounded.__name__ = _name(function)
        if hasattr(function, "jinja_pass_arg"):  # Jinja marks a filter that takes the context so
            bounded.jinja_pass_arg = function.jinja_pass_arg  # type: ignore[attr-defined]
        return bounded

    # ----------------------------------------------------------------- compiling

    def _generate(self, source: nodes.Template, name: str | None, filename: str | None,
                  defer_init: bool = False) -> str:
        _instrument(source, name, filename)
        return super()._generate(source, name, filename, defer_init)


def _hook(name: str, *args: nodes.Expr, lineno: int) -> nodes.Call:
    return nodes.Call(nodes.EnvironmentAttribute(name, lineno=lineno), list(args), [], None, None, lineno=lineno)


def _instrument(template: nodes.Template, name: str | None, filename: str | None) -> None:
    """Count the template's work: loops over a counting iterable, `~` and literals through a measure."""
    for extends in template.find_all(nodes.Extends):
        if isinstance(extends.template, nodes.Const) and extends.template.value == name:
            raise jinja2.TemplateSyntaxError("the template extends itself, expected another template's name",
                                             extends.lineno, name, filename)
    for loop in list(template.find_all(nodes.For)):
        literal = sum(len(data.data) for data in loop.find_all(nodes.TemplateData))
        assert isinstance(loop.iter, nodes.Expr)  # Jinja's parser makes a loop's iterable an expression
        loop.iter = _hook("_kitgen_iter", loop.iter, nodes.Const(literal + 1), lineno=loop.lineno)
    _measure_made_values(template)


def _measure_made_values(node: nodes.Node) -> None:
    for field in node.fields:
        child = getattr(node, field, None)
        if isinstance(child, list):
            for index, item in enumerate(child):
                if isinstance(item, nodes.Node):
                    _measure_made_values(item)
                    if _measurable(item):
                        child[index] = _hook("_kitgen_value", item, lineno=item.lineno)
        elif isinstance(child, nodes.Node):
            _measure_made_values(child)
            if _measurable(child):
                setattr(node, field, _hook("_kitgen_value", child, lineno=child.lineno))


def _measurable(node: nodes.Node) -> TypeGuard[nodes.Expr]:
    """A `~` or a list, tuple or mapping literal that makes a value (not the names of a `{% for a, b in %}`
    or `{% set a, b = %}` target)."""
    return isinstance(node, (nodes.Concat, nodes.List, nodes.Tuple, nodes.Dict)) and \
        getattr(node, "ctx", "load") != "store"

