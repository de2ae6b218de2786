"""The C sources' structure, read from their text: which files include or call
which, and how long each file is.

    python scripts/csrc_graph.py      the cycles and the files over the length
                                      limit (exit status 1 if there is any)

Every .c and .h file under csrc/ is a node.  File A depends on file B when A
includes B (a header) or names a function that B defines (not `static`): a
call, or a method table's entry.  What a header only declares is no use of
it: a header's inline functions and macros may call the functions it
declares (the out-of-line half of its own interface).  A cycle is a set of
files that reach themselves again through these edges; the layers (runtime
-> comm -> serial -> containers -> kernels -> binding -> apps) and the
folders need no list of allowed exceptions, since a cycle is wrong anywhere.

tests/package/test_csrc_structure.py runs the same checks as tests.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSRC = os.path.join(ROOT, "csrc")
MAX_LINES = 800

_COMMENT_OR_LITERAL = re.compile(
    r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
_IDENT = re.compile(r"[A-Za-z_]\w*")
_KEYWORDS = frozenset("""if for while switch return sizeof do else case goto typedef struct
    union enum static extern inline const volatile register unsigned signed __attribute__
    defined""".split())


def _strip(text):
    """Comments and string/char literals blanked (newlines kept)."""
    return _COMMENT_OR_LITERAL.sub(
        lambda m: '""' if m.group(0)[0] == '"' else
        ("''" if m.group(0)[0] == "'" else "\n" * m.group(0).count("\n")), text)


def _top_level(code):
    """The file's top-level declarations: (text before the body or ';', has_body,
    body text).  Preprocessor lines are left out of the declarations (their
    identifiers still count as references: Source.references reads it all)."""
    code = re.sub(r"^\s*#.*?(?<!\\)$", "", code, flags=re.M | re.S)
    out, depth, start, i, n = [], 0, 0, 0, len(code)
    head = None
    while i < n:
        c = code[i]
        if c == "{":
            if depth == 0:
                head, body_start = code[start:i], i + 1
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                # a function body ends here; an initializer or a struct goes on to ';'
                if _function_name(head) is not None:
                    out.append((head, True, code[body_start:i]))
                    start = i + 1
                    head = None
        elif c == ";" and depth == 0:
            out.append((code[start:i] if head is None else head, False, ""))
            start = i + 1
            head = None
        i += 1
    return out


def _function_name(head):
    """Name of the function a declaration head defines/declares, or None."""
    if head is None or "=" in head or re.search(r"\b(typedef|struct|union|enum)\s*\w*\s*$",
                                                head.strip()):
        return None
    m = re.search(r"([A-Za-z_]\w*)\s*\(([^()]|\([^()]*\))*\)\s*(__attribute__\s*\(\(.*\)\))?\s*$",
                  head.strip(), re.S)
    if not m or m.group(1) in _KEYWORDS or re.match(r"^\s*typedef\b", head):
        return None
    before = head.strip()[:m.start(1)]
    if not before.strip() or before.rstrip().endswith("("):   # a call or (*fp)
        return None
    return m.group(1)


def _variable_name(head):
    """Name of the variable a top-level `type name[...] (= ...)` defines, or None
    (for extern declarations, typedefs, prototypes)."""
    h = head.strip()
    if not h or re.match(r"^(extern|typedef)\b", h) or "(" in h.split("=")[0]:
        return None
    m = re.search(r"([A-Za-z_]\w*)\s*(\[[^\]]*\])*\s*$", h.split("=")[0])
    if not m or m.group(1) in _KEYWORDS or len(_IDENT.findall(h.split("=")[0])) < 2:
        return None
    return m.group(1)


class Source:
    """One file: its includes, definitions, declarations, references, length."""

    def __init__(self, path, root=CSRC):
        self.path = path
        self.rel = os.path.relpath(path, root)
        with open(path) as f:
            raw = f.read()
        self.lines = raw.count("\n") + (0 if raw.endswith("\n") else 1)
        code = _strip(raw)
        self.includes = _INCLUDE.findall(re.sub(r"/\*.*?\*/", "", raw, flags=re.S))
        self.defines, self.statics, self.declares = set(), set(), set()
        self.functions = set()        # the non-static functions among defines
        for head, has_body, _ in _top_level(code):
            # `static` opens the definition's own line: a macro invocation
            # without a ';' (a function a macro defines) may stand before it.
            static = re.search(r"^\s*static\b", head, re.M) is not None
            fn = _function_name(head)
            if fn is not None:
                if has_body:
                    (self.statics if static else self.defines).add(fn)
                    if not static:
                        self.functions.add(fn)
                elif not static:
                    self.declares.add(fn)
                continue
            if re.match(r"^\s*extern\b", head):
                decl = re.sub(r"^\s*extern\b", "", head)
                typ, _, rest = decl.partition(",")
                for part in [typ] + (rest.split(",") if rest else []):
                    var = _IDENT.findall(part)
                    if var:
                        self.declares.add(var[-1])
                continue
            var = _variable_name(head)
            if var is not None:
                (self.statics if static else self.defines).add(var)
        self.references = set(_IDENT.findall(code)) - _KEYWORDS


def sources(root=CSRC):
    out = []
    for d, _, files in os.walk(root):
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                out.append(Source(os.path.join(d, name), root))
    return sorted(out, key=lambda s: s.rel)


def definers(srcs):
    """function -> the set of files (paths under csrc/) that define it (non-static)."""
    out = {}
    for s in srcs:
        for name in s.functions:
            out.setdefault(name, set()).add(s.rel)
    return out


def _resolve(src, inc, known):
    """The csrc-relative path an #include "inc" of src names, or None (system)."""
    for cand in (os.path.normpath(os.path.join(os.path.dirname(src.rel), inc)), inc):
        if cand in known:
            return cand
    return None


def graph(srcs):
    """file -> {file it depends on: the reason}.  A file depends on the headers it
    includes and on the .c file that defines a function it names (calls, or
    puts in a table).  Variables are state, not calls: every runtime helper
    reads bcl_rt, which bcl_runtime.c defines and which calls the helpers.
    What a header merely declares is not a use: its inline functions and macros
    may call the functions it declares (the out-of-line half of its own
    interface) without depending on the file that defines them."""
    known = {s.rel for s in srcs}
    defs = definers(srcs)
    edges = {s.rel: {} for s in srcs}
    for s in srcs:
        for inc in s.includes:
            target = _resolve(s, inc, known)
            if target and target != s.rel:
                edges[s.rel].setdefault(target, "includes " + inc)
        own = s.statics | s.defines | s.declares
        for name in sorted(s.references - own):
            for target in defs.get(name, ()):
                if target != s.rel:
                    edges[s.rel].setdefault(target, "uses " + name)
    return edges


def cycles(edges):
    """Every strongly connected set of two or more files (Tarjan), each as one
    cycle through it: [m0, m1, ..., m0] with the reason of each step."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            strong(v)
    return [_one_cycle(edges, comp) for comp in comps]


def _one_cycle(edges, comp):
    """A shortest cycle through comp's first file, inside comp, as text."""
    inside, start = set(comp), comp[0]
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(edges[v]):
                if w not in inside:
                    continue
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    path.reverse()
                    path.append(start)
                    return " -> ".join(f"{a} ({edges[a][b]})" for a, b in zip(path, path[1:])) \
                        + f" -> {start}"
                if w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return " <-> ".join(comp)


def long_files(srcs, limit=MAX_LINES):
    return [(s.rel, s.lines) for s in srcs if s.rel.endswith(".c") and s.lines > limit]


def main():
    srcs = sources()
    bad = 0
    for c in cycles(graph(srcs)):
        print("cycle:", c)
        bad += 1
    for rel, n in long_files(srcs):
        print(f"over {MAX_LINES} lines: {rel} ({n})")
        bad += 1
    print(f"{len(srcs)} files, {bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
