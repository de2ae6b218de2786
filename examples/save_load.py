"""Save and load: keep a container in a file, load it in a later job.

    mpiexec -n 4 python examples/save_load.py

`c.save(path)` (collective) writes a container's contents, every rank's part,
to one file; `pybcl.load(path)` (collective) reads it back at any number of
ranks, and `pybcl.io.read(path)` reads it in any Python process, without MPI.
The example saves into a temporary folder and removes it at the end.
"""
import os
import shutil
import tempfile

import numpy as np

import pybcl
import pybcl.io


def main(folder: str) -> dict[str, int]:
    """Collective: save a map and an array into `folder` (the same path on every
    rank), load them back, and read the map without MPI on rank 0."""
    me, P = pybcl.rank(), pybcl.nprocs()
    keys = np.arange(me * 100, (me + 1) * 100, dtype=np.int64)
    squares = pybcl.HashMap(4 * 100 * P, key_type="int64", value_type="int64")
    squares.insert_many(keys, keys * keys)
    cubes = pybcl.DArray(100 * P, dtype="int64")
    cubes[me * 100:(me + 1) * 100] = keys ** 3
    pybcl.barrier()

    map_path = os.path.join(folder, "squares.pybcl")
    squares.save(map_path, meta={"what": "n -> n*n"})
    cubes.save(os.path.join(folder, "cubes.pybcl"))
    squares.close()
    cubes.close()

    loaded = pybcl.load(map_path)                    # a new HashMap over this job's ranks
    everyone = np.arange(100 * P, dtype=np.int64)
    values, found = loaded.find_many(everyone)
    assert found.all() and (values == everyone ** 2).all()
    array = np.asarray(pybcl.load(os.path.join(folder, "cubes.pybcl")))
    assert (array == everyone ** 3).all()

    entries = 0
    if me == 0:                                      # plain NumPy, no MPI needed
        k, v = pybcl.io.read(map_path)
        assert (np.sort(k) == everyone).all() and (v == k * k).all()
        info = pybcl.io.info(map_path)
        assert info["kind"] == "HashMap" and info["meta"] == {"what": "n -> n*n"}
        entries = int(info["entries"])
    return {"entries": pybcl.broadcast(entries, root=0), "array": len(array)}


if __name__ == "__main__":
    folder = pybcl.broadcast(tempfile.mkdtemp() if pybcl.rank() == 0 else "", root=0)
    try:
        result = main(folder)
    finally:
        pybcl.barrier()
        if pybcl.rank() == 0:
            shutil.rmtree(folder)
    if pybcl.rank() == 0:
        print(f"save_load ok on {pybcl.nprocs()} rank(s): {result['entries']} entries "
              f"saved, loaded and read back")
