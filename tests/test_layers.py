"""The imports follow the pipeline: every import in kitgen (inside functions too) goes to its own layer or one
below it, and no two modules import each other, directly or round a loop.

Layers, bottom first, are read off the folders: `kitgen/core/` (and the package's `__init__`) at the bottom,
`kitgen/cli.py` on top.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "kitgen"
LAYERS = ["core", "locale", "jinja", "fonts", "pictures", "load", "check", "plan", "render", "export", "write",
          "app", "cli"]
MAX_LINES = 650
MAX_CLI_LINES = 400
# the seams where an import inside a function keeps start-up fast (each named in docs/architecture.md)
MAX_IN_FUNCTION_SHARE = 0.40


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def layer(module: str) -> int:
    parts = module.split(".")
    if len(parts) == 1:
        return LAYERS.index("core")  # kitgen/__init__.py: the version, nothing else
    top = parts[1]
    if top in ("cli", "__main__"):
        return LAYERS.index("cli")
    return LAYERS.index(top)


def imported(module: str, path: Path) -> list[tuple[str, int, bool]]:
    """(kitgen module imported, line, inside a function) for every import statement of `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((a.name, child.lineno, in_function) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - child.level + 1] + ([base] if base else []))
                for alias in child.names:
                    candidate = f"{base}.{alias.name}"
                    found.append((candidate if candidate in MODULES else base, child.lineno, in_function))
            visit(child, inner)

    visit(tree, False)
    return [(name, line, fn) for name, line, fn in found if name.split(".")[0] == "kitgen"]


def graph() -> dict[str, list[tuple[str, int, bool]]]:
    edges = {}
    for module, path in MODULES.items():
        targets = []
        for name, line, fn in imported(module, path):
            while name not in MODULES and "." in name:
                name = name.rpartition(".")[0]
            if name != module:
                targets.append((name, line, fn))
        edges[module] = targets
    return edges


def test_every_module_sits_in_a_known_layer() -> None:
    for module in MODULES:
        assert layer(module) >= 0, module


def test_no_import_runs_up_the_pipeline() -> None:
    upward = [f"{MODULES[m].relative_to(PACKAGE.parent)}:{line}: {m} ({LAYERS[layer(m)]}) imports {t} "
              f"({LAYERS[layer(t)]})" for m, targets in graph().items() for t, line, _ in targets
              if layer(t) > layer(m)]
    assert not upward, "\n".join(upward)


def test_no_import_cycle_between_modules() -> None:
    edges = {m: {t for t, _, _ in targets} for m, targets in graph().items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def connect(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(edges):
        if module not in index:
            connect(module)
    assert not cycles, cycles


def test_imports_inside_functions_stay_at_the_start_up_seams() -> None:
    every = [fn for targets in graph().values() for _, _, fn in targets]
    share = sum(every) / len(every)
    assert share <= MAX_IN_FUNCTION_SHARE, f"{sum(every)} of {len(every)} kitgen imports inside functions"


def test_no_module_is_longer_than_the_limit() -> None:
    long = {m: n for m, p in MODULES.items() if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, long


def test_the_command_line_is_a_thin_layer() -> None:
    """Each module of the CLI stays under MAX_CLI_LINES: behaviour lives in the library API it calls."""
    long = {m: n for m, p in MODULES.items() if m.split(".")[:2] == ["kitgen", "cli"]
            and (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_CLI_LINES}
    assert len([m for m in MODULES if m.startswith("kitgen.cli")]) >= 4 and not long, long


def test_the_layer_test_sees_an_upward_import(tmp_path: Path) -> None:
    """The walk finds imports inside functions, where a careless upward import would hide."""
    source = tmp_path / "probe.py"
    source.write_text("def f():\n    from kitgen.app.build import build\n")
    assert imported("kitgen.core.probe", source) == [("kitgen.app.build", 2, True)]


def test_the_drawing_cache_key_covers_the_drawing_code_and_not_the_commands(tmp_path: Path) -> None:
    from kitgen.core.cache import digest_of_code

    for name in ("__init__.py", "render/cards.py", "app/build.py", "cli.py", "fonts/registry.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(f"# {name}\n")
    before = digest_of_code(tmp_path)
    for unrelated in ("app/build.py", "cli.py"):
        (tmp_path / unrelated).write_text("# edited\n")
        assert digest_of_code(tmp_path) == before, f"editing {unrelated} threw the drawings away"
    (tmp_path / "render/cards.py").write_text("# drawn differently\n")
    assert digest_of_code(tmp_path) != before
