"""The pybcl tutorial (docs/tutorial.md): word counting with a distributed
hash map, a work queue, and a global pointer.

    mpiexec -n 4 python examples/tutorial.py

Every rank runs this whole file (SPMD).  It checks its own results and exits
non-zero if anything is wrong, so the test suite runs it as written.
"""
import sys

import numpy as np

import pybcl

# 1. Start up.  Optional: any pybcl call would initialise with the defaults.
pybcl.init(segment_size="64M")
me, P = pybcl.rank(), pybcl.nprocs()

# 2. A distributed hash map (collective constructor: every rank calls it).
counts = pybcl.HashMap(1024, key_type=str, value_type="int64")
text = "the quick brown fox jumps over the lazy dog the end"
words = text.split()
for word in words[me::P]:                  # each rank counts its share of the words
    counts.accumulate(word, 1)             # atomic: no update is lost
pybcl.barrier()                            # everybody's inserts are now visible

assert counts["the"] == 3 and counts.get("cat", 0) == 0
distinct = counts.size()                   # collective: every rank calls it
assert distinct == len(set(words))

# 3. Batches: NumPy arrays in, NumPy arrays out.  `with` closes the map at
#    the end of the block: close() is collective and frees it on every rank.
with pybcl.HashMap(4 * P * 100, key_type="int64", value_type="int64") as squares:
    keys = np.arange(me * 100, (me + 1) * 100, dtype=np.int64)
    squares.insert_many(keys, keys * keys)
    pybcl.barrier()
    everyone = np.arange(P * 100, dtype=np.int64)
    values, found = squares.find_many(everyone)
    assert found.all() and (values == everyone * everyone).all()

# 4. A queue hosted on rank 0: every rank pushes, rank 0 drains.
queue = pybcl.CircularQueue(0, 16 * P, dtype="int64")
assert queue.push(me)
pybcl.barrier()
if me == 0:
    got = sorted(int(queue.pop()) for _ in range(P))
    assert got == list(range(P)), got

# 5. Global pointers and atomics: a counter on rank 0, shared by broadcast.
counter = pybcl.alloc(1, "int64") if me == 0 else pybcl.NULL
if me == 0:
    counter[0] = 0                         # a remote-style put (here to local memory)
counter = pybcl.broadcast(counter, root=0)
pybcl.barrier()
pybcl.fetch_and_add(counter, me + 1)
pybcl.barrier()
assert pybcl.atomic_load(counter) == P * (P + 1) // 2

# 6. Collectives on plain values.
total = pybcl.allreduce(me, "sum")
assert total == P * (P - 1) // 2

# 7. The end.  A container a rank drops (`del`, leaving a function) is not
#    freed while any other rank may still use it: its storage comes back once
#    every rank has dropped it.  close() (or `with`) frees it at once.
queue.close()
if me == 0:
    print(f"tutorial ok on {P} rank(s), transport {pybcl.transport()}: "
          f"'the' x{counts['the']}, {distinct} distinct words")
sys.stdout.flush()
pybcl.barrier()
