"""Every public callable has a signature and a docstring, and the type stubs
(pybcl/_core.pyi, pybcl/apps/_kernels.pyi) agree with the C signatures.

inspect.signature() of a C function reads the text signature at the head of
its docstring (generated, with the stubs, from csrc/binding/spec/ and
csrc/apps/spec/); without one, IDEs and help() show no parameters.  The stubs are what mypy and IDEs check user code against, so
a parameter renamed or added in C and not in the stub fails here.
"""
import ast
import importlib.metadata
import inspect
import os
import subprocess
import sys

import pytest

import pybcl
from pybcl import _core
from pybcl.apps import _kernels

from launch import ROOT, load_script
CONTAINERS = [pybcl.HashMap, pybcl.HashMapBuffer, pybcl.FastQueue, pybcl.CircularQueue,
              pybcl.BloomFilter, pybcl.DArray, pybcl.Array, pybcl.GlobalPtr]
MIN_DOC = 40          # characters: more than a one-word placeholder
# The C extensions and their stubs: the library, and the apps' kernels.
EXTENSIONS = [(_core, "pybcl._core", os.path.join("pybcl", "_core.pyi")),
              (_kernels, "pybcl.apps._kernels", os.path.join("pybcl", "apps", "_kernels.pyi"))]


def public_callables():
    for name in pybcl.__all__:
        obj = getattr(pybcl, name)
        if callable(obj) and not (isinstance(obj, type) and issubclass(obj, BaseException)):
            yield f"pybcl.{name}", obj
    for cls in CONTAINERS:
        for name in dir(cls):
            if not name.startswith("_"):
                attr = getattr(cls, name)
                if callable(attr):
                    yield f"pybcl.{cls.__name__}.{name}", attr
    for module, qualname, _ in EXTENSIONS:
        for name in dir(module):
            obj = getattr(module, name)
            if callable(obj) and not name.startswith("_") and not (
                    isinstance(obj, type) and issubclass(obj, BaseException)):
                yield f"{qualname}.{name}", obj


@pytest.mark.parametrize("name,obj", list(public_callables()), ids=lambda v: v
                         if isinstance(v, str) else "")
def test_signature_and_docstring(name, obj):
    inspect.signature(obj)                       # raises ValueError without one
    doc = inspect.getdoc(obj) or ""
    assert len(doc) >= MIN_DOC, f"{name}: docstring missing or too short: {doc!r}"


def test_collective_calls_say_so():
    for obj in (pybcl.init, pybcl.finalize, pybcl.barrier, pybcl.broadcast, pybcl.allreduce,
                pybcl.HashMap, pybcl.HashMap.size, pybcl.HashMap.resize, pybcl.FastQueue,
                pybcl.CircularQueue.resize, pybcl.CircularQueue.migrate, pybcl.BloomFilter,
                pybcl.DArray, pybcl.Array, pybcl.HashMapBuffer.flush, pybcl.DArrayBuffer,
                pybcl.DArrayBuffer.flush):
        assert "ollective" in inspect.getdoc(obj), obj


# ---- the stubs ------------------------------------------------------------------

def _stub_params(fn):
    """[(name, kind, has_default)] of an ast.FunctionDef, as inspect reports them."""
    a = fn.args
    out = []
    pos = a.posonlyargs + a.args
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    for i, (arg, d) in enumerate(zip(pos, defaults)):
        kind = "POSITIONAL_ONLY" if i < len(a.posonlyargs) else "POSITIONAL_OR_KEYWORD"
        out.append((arg.arg, kind, d is not None))
    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append((arg.arg, "KEYWORD_ONLY", d is not None))
    return out


def _runtime_params(obj):
    params = list(inspect.signature(obj).parameters.values())
    return [(p.name, p.kind.name, p.default is not p.empty) for p in params]


def _self_any_kind(params):
    """A C method's self is positional-only; a stub writes it plainly."""
    return [(n, "SELF", d) if n == "self" and i == 0 else (n, k, d)
            for i, (n, k, d) in enumerate(params)]


def _stub_defs(module, stub_path):
    tree = ast.parse(open(os.path.join(ROOT, stub_path)).read())
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield node.name, getattr(module, node.name), node
    for cname, cls in classes.items():
        if cname.startswith("_") or issubclass(getattr(module, cname), BaseException):
            continue
        runtime_cls = getattr(module, cname)
        methods = {}
        for klass in [cls] + [classes[b.id] for b in cls.bases if isinstance(b, ast.Name)
                              and b.id in classes]:
            for n in klass.body:
                if isinstance(n, ast.FunctionDef) and n.name not in methods:
                    methods[n.name] = n
        for mname, fn in methods.items():
            if mname == "__init__":
                yield cname, runtime_cls, fn
            elif not mname.startswith("__") and not any(
                    isinstance(d, ast.Name) and d.id == "property" for d in fn.decorator_list):
                # every stubbed method exists (AttributeError names one that does not)
                yield f"{cname}.{mname}", getattr(runtime_cls, mname), fn


@pytest.mark.parametrize("module,qualname,stub_path", EXTENSIONS,
                         ids=[q for _, q, _ in EXTENSIONS])
def test_stubs_match_the_c_signatures(module, qualname, stub_path):
    problems = []
    for name, obj, fn in _stub_defs(module, stub_path):
        stub = _stub_params(fn)
        if isinstance(obj, type):
            stub = stub[1:]                      # __init__'s self
        stub, runtime = _self_any_kind(stub), _self_any_kind(_runtime_params(obj))
        if stub != runtime:
            problems.append(f"{name}: stub {stub} != C {runtime}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("module,qualname,stub_path", EXTENSIONS,
                         ids=[q for _, q, _ in EXTENSIONS])
def test_every_extension_callable_has_a_stub(module, qualname, stub_path):
    text = open(os.path.join(ROOT, stub_path)).read()
    tree = ast.parse(text)
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    names |= {t.id for n in tree.body if isinstance(n, ast.AnnAssign)
              for t in [n.target] if isinstance(t, ast.Name)}
    missing = [n for n in dir(module) if not n.startswith("_") and n not in names]
    assert not missing, missing


def test_py_typed_is_shipped():
    assert os.path.exists(os.path.join(ROOT, "pybcl", "py.typed"))
    assert "py.typed" in open(os.path.join(ROOT, "pyproject.toml")).read()


@pytest.mark.serial_only
def test_mypy_strict_on_examples_and_apps():
    pytest.importorskip("mypy")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                           os.path.join(ROOT, "examples"), os.path.join(ROOT, "pybcl", "apps")],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.serial_only
def test_type_checkers_find_the_installed_package(tmp_path):
    """Installed (`pip install .`, or `pip install -e .` as
    scripts/setup_env.sh does), pybcl is found with its stubs by mypy run on
    a script anywhere: an editable install puts the checkout on sys.path
    with a plain .pth line (pyproject.toml, package-dir), which mypy reads."""
    pytest.importorskip("mypy")
    try:
        importlib.metadata.distribution("pybcl-mpi")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("pybcl is not installed in this Python (run from a build in place)")
    script = tmp_path / "use_pybcl.py"
    script.write_text("import pybcl\n\nn: int = pybcl.DArray(4).shape[0]\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                           str(script)], capture_output=True, text=True, cwd=tmp_path,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _docs_checker():
    """scripts/check_docs_html.py (what scripts/build_docs.sh runs on the site)."""
    return load_script("check_docs_html")


def test_reference_check_lists_every_stub_member(tmp_path):
    """The ids the built reference must carry come from the stubs: a member
    added to _core.pyi is required there at once, and a page without it fails."""
    check = _docs_checker()
    ids = set(check.expected_ids())
    for want in ("pybcl.HashMap.insert", "pybcl.HashMap.resize", "pybcl.HashMap.capacity",
                 "pybcl.FastQueue.push_many", "pybcl.FastQueue.__len__",
                 "pybcl.CircularQueue.migrate", "pybcl.DArray.__array__",
                 "pybcl.Array.__iter__", "pybcl.BloomFilter.insert_many",
                 "pybcl.GlobalPtr.local", "pybcl.Empty", "pybcl.ContainerFull", "pybcl.alloc"):
        assert want in ids, want
    assert not any(i.startswith("pybcl.KmerReader") for i in ids)    # internal to the apps
    page = "".join(f'<dt id="{i}"></dt>' for i in ids if i != "pybcl.HashMap.insert_many")
    (tmp_path / "reference.html").write_text(page)
    (tmp_path / "transports.html").write_text("<h1>Transports (issue 13)</h1>")
    absent, internal = check.missing(str(tmp_path))
    assert absent == ["pybcl.HashMap.insert_many"]
    assert internal == ["transports.html: 'issue 13'"]


@pytest.mark.serial_only
def test_built_reference_has_every_public_member(tmp_path):
    """Build the site (warnings are errors, offline: intersphinx reads the
    shipped inventories) and read its HTML: every public class, function,
    method, property and exception of the stubs has an entry."""
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_parser")
    html = tmp_path / "html"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q",
                           "-b", "html", os.path.join(ROOT, "docs"), str(html)],
                          capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    absent, internal = _docs_checker().missing(str(html))
    assert not absent, f"not in the API reference: {absent}"
    assert not internal, f"internal words in the site: {internal}"


def _public_documented():
    """pybcl's public callables (not the extensions' own functions, wrapped by
    pybcl and its apps), its exceptions, and the protocols users call
    (np.asarray)."""
    for name, obj in public_callables():
        if not name.startswith(tuple(q + "." for _, q, _ in EXTENSIONS)):
            yield name, obj
    for name in ("Error", "SegmentFull", "ContainerFull", "Empty"):
        yield f"pybcl.{name}", getattr(pybcl, name)
    for cls in (pybcl.DArray, pybcl.Array):
        yield f"pybcl.{cls.__name__}.__array__", cls.__array__
    for cls in CONTAINERS:                   # read-only properties (getset)
        for name in dir(cls):
            attr = getattr(cls, name)
            if not name.startswith("_") and inspect.isgetsetdescriptor(attr):
                yield f"pybcl.{cls.__name__}.{name}", attr


@pytest.mark.parametrize("name,obj", list(_public_documented()), ids=lambda v: v
                         if isinstance(v, str) else "")
def test_numpydoc_sections(name, obj):
    """The reference renders numpydoc sections: every public callable says
    what it takes (Parameters, when it takes any) and shows an example."""
    doc = inspect.getdoc(obj) or ""
    assert "\nExamples\n--------\n>>> " in doc, f"{name}: no Examples section"
    try:
        params = [p for p in inspect.signature(obj).parameters.values()
                  if p.name != "self"]
    except (TypeError, ValueError):      # exceptions: no signature to document
        params = []
    if params:
        assert "\nParameters\n----------\n" in doc, f"{name}: no Parameters section"
        for p in params:
            assert p.name in doc, f"{name}: parameter {p.name} not described"
