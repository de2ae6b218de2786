"""HashMap and HashMapBuffer: BCL's distributed hash table (paper 5.1, 5.3).

The classes live in C (pybcl._core); this module only documents them and
adds the pieces that are naturally Python (context manager of the buffer).
Every hot method -- insert, find, m[k], k in m, accumulate, the *_many
batches -- is the C method itself, with no Python frame in between.
"""
from . import _core

HashMap = _core.HashMap
