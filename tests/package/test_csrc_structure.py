"""The C sources keep the shape a newcomer can change: no files that include or
call each other in a loop, and no C file over 800 lines.  The graph is derived
from the sources' text by scripts/csrc_graph.py (run it by hand to see the
cycles and long files); the same check on every rank."""
from launch import load_script

graph = load_script("csrc_graph")


def test_no_files_include_or_call_each_other_in_a_loop():
    srcs = graph.sources()
    edges = graph.graph(srcs)
    assert len(srcs) > 100 and sum(map(len, edges.values())) > 300   # the scan saw them
    assert graph.cycles(edges) == []


def test_no_c_file_is_over_800_lines():
    assert graph.long_files(graph.sources()) == []


def test_the_scan_finds_a_call_loop_and_a_header_loop(tmp_path):
    """The check can fail: two files calling each other, and a header whose
    inline code calls back into a file that includes it."""
    (tmp_path / "a.c").write_text('#include "a.h"\nint a_fn(int x) { return b_fn(x) + 1; }\n')
    (tmp_path / "a.h").write_text("int a_fn(int x);\n")
    (tmp_path / "b.c").write_text('/* a_fn( in a comment is no call */\n'
                                  'static int helper(void) { return 0; }\n'
                                  'int b_fn(int x) { return x ? a_fn(x - 1) : helper(); }\n')
    (tmp_path / "c.h").write_text('static inline int c_twice(int x) { return d_fn(x) * 2; }\n')
    (tmp_path / "d.c").write_text('#include "c.h"\nint d_fn(int x) { return x; }\n'
                                  "int d_other(void) { return c_twice(1); }\n")
    (tmp_path / "e.c").write_text('#include "a.h"\nint e_fn(void) { return a_fn(2); }\n')
    srcs = graph.sources(str(tmp_path))
    edges = graph.graph(srcs)
    found = sorted(graph.cycles(edges))
    assert len(found) == 2, found
    assert found[0].startswith("a.c (uses b_fn) -> b.c (uses a_fn) -> a.c"), found
    assert "c.h (uses d_fn) -> d.c (includes c.h) -> c.h" in found[1], found
    assert "e.c" not in " ".join(found)       # e.c only calls into the loop


def test_the_length_check_counts_lines(tmp_path):
    (tmp_path / "long.c").write_text("int x;\n" * 801)
    (tmp_path / "ok.c").write_text("int y;\n" * 800)
    assert graph.long_files(graph.sources(str(tmp_path))) == [("long.c", 801)]
