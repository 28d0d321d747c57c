"""The package layout: no import cycles, no benchmark code in model packages."""

from __future__ import annotations

import ast
from pathlib import Path

import bayeswe

PACKAGE_DIR = Path(bayeswe.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE_DIR.rglob("*.py")}


def _import_graph() -> dict[str, set[str]]:
    """Edges A -> B for every ``import`` of a bayeswe module in A, at any depth of A.

    Function-level imports count too: an import deferred to break a cycle is still
    a cycle of the design. Imports under ``if TYPE_CHECKING:`` do not run and are left
    out.
    """
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                skip.update(id(child) for stmt in node.body for child in ast.walk(stmt))
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    targets.append(sub if sub in modules else node.module)
            for target in targets:
                if target in modules and target != name:
                    graph[name].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
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
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _without_package_inits(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Drop edges *into* a package ``__init__`` from its own subpackages' modules.

    Importing ``bayeswe.lda.data`` runs ``bayeswe/lda/__init__.py`` first; that is
    Python's package mechanism, not a design cycle, so an ``__init__`` re-exporting
    its submodules is allowed. Every other edge counts.
    """
    return {
        a: {b for b in targets if not (a.startswith(b + ".") and b != "bayeswe")}
        for a, targets in graph.items()
    }


def test_no_import_cycles():
    cycles = _cycles(_without_package_inits(_import_graph()))
    assert cycles == [], f"import cycles among bayeswe modules: {cycles}"


def test_cycle_detector_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_model_packages_hold_no_benchmarks():
    for package in ("sgns", "lda", "glda", "corpus", "evaluation", "samplers", "datasets"):
        names = {p.name for p in (PACKAGE_DIR / package).glob("*.py")}
        assert not {n for n in names if "bench" in n}, package


def test_every_benchmark_module_exists():
    import importlib

    from bayeswe.bench import BENCHMARKS

    for module_name, _help in BENCHMARKS.values():
        module = importlib.import_module(module_name)
        assert callable(module.main) and callable(module.build_parser), module_name
