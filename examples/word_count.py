"""Word count: a distributed HashMap filled through a HashMapBuffer.

    mpiexec -n 4 python examples/word_count.py

Every rank counts its share of the lines into one `pybcl.HashMap` keyed by
`str`.  The `HashMapBuffer` combines a rank's repeated words and ships each
word to the rank that owns it at `flush()`; `grow=True` lets the flush grow
the map, so the number of distinct words need not be known in advance.
"""
from collections import Counter

import pybcl

TEXT = """\
it was the best of times it was the worst of times
it was the age of wisdom it was the age of foolishness
it was the epoch of belief it was the epoch of incredulity
it was the season of light it was the season of darkness
"""


def main(text: str = TEXT) -> dict[str, int]:
    """Collective: count the words of `text`; every rank returns all the counts."""
    me, P = pybcl.rank(), pybcl.nprocs()
    lines = text.splitlines()
    with pybcl.HashMap(64, key_type=str, value_type="int64") as counts:
        with pybcl.HashMapBuffer(counts, 1024, 64, grow=True) as buf:
            for line in lines[me::P]:                 # this rank's share of the lines
                buf.accumulate_many(line.split(), 1)
        # leaving the buffer's block flushed it: every count is in the map now
        words = sorted(set(text.split()))
        values, found = counts.find_many(words)
        assert found.all()
        result = {w: int(v) for w, v in zip(words, values)}
        assert sum(result.values()) == len(text.split())
        assert len(counts) == len(words)              # collective: every rank calls it
    return result


if __name__ == "__main__":
    counts = main()
    if pybcl.rank() == 0:
        top = Counter(counts).most_common(3)
        print(f"word_count ok on {pybcl.nprocs()} rank(s): {len(counts)} distinct words, "
              f"top {top}")
