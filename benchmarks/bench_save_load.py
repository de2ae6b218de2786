"""Saving and loading throughput: c.save(path) / pybcl.load(path) against
the raw MPI-IO floor and np.save / np.load per rank.

    python benchmarks/bench_save_load.py [--ranks 1 2 | --ranks] [--darray-mib 1024]
        [--map-entries 10000000] [--reps 3] [--hosts H] [--out FILE]

Two containers, each timed `reps` times (the median is reported; a time is
the slowest rank's, between barriers):

- a DArray of --darray-mib MiB of int64 a rank;
- a HashMap(uint64 -> int64) of --map-entries entries in all (random keys).

Against the same bytes (the DArray's blocks; the map's keys and values as
two arrays a rank):

- floor: mpi4py, MPI_File_open + MPI_File_write_at_all (every rank its
  bytes, at its offset; pieces of at most 1 GiB) + MPI_File_sync +
  MPI_File_close -- what a durable collective write costs, which save also
  does (its temporary file, checksums and rename are on top).  Also without
  the sync ("floor_nosync"), which is what lands in the page cache only.
  Reading: MPI_File_open + MPI_File_read_at_all into new NumPy arrays +
  close.
- np.save per rank (one .npy file each; np.savez of keys and values for
  the map), then os.fsync; np.load of it.

save and the floor write the file fresh (the old one removed first, outside
the timing); reads follow the writes, so they read the page cache on this
machine.  pybcl.load builds the container (a map inserts every entry under
the new rank count, through a HashMapBuffer), so the map's "rebuild" line
also gives a HashMapBuffer insert of the same entries into a new map, the
part of a map's load that is not I/O; and save gathers the entries from the
buckets first, so "extract" gives local_arrays(), the same scan, the part
of a map's save that is not I/O.
Jobs: each --ranks count on one host (the default transport), and with
--hosts H (root) H network-namespace hosts of one rank each (rma over TCP,
benchmarks/_netns.py; one file system).  One JSON object on stdout (and in
--out), with the 1-minute load average before each job.
"""
import os
import shutil
import statistics
import sys
import tempfile
import time

import _mpi  # noqa: E402  (benchmarks/, the script's own folder)
from _netns import netns_hosts  # noqa: E402
from _report import driver_parser, emit, worker_result  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CHUNK = 1 << 30                    # bytes per MPI-IO call (MPI counts are ints)


def _timed(fn, comm):
    """Seconds of fn() on the slowest rank, between barriers."""
    comm.Barrier()
    t = time.perf_counter()
    fn()
    return comm.allreduce(time.perf_counter() - t, op=_max())


def _max():
    from mpi4py import MPI
    return MPI.MAX


def floor_write(comm, path, arrays, sync=True):
    """Every rank's arrays at its offsets (rank order, array after array)."""
    from mpi4py import MPI
    sizes = [a.nbytes for a in arrays]
    every = comm.allgather(sizes)
    f = MPI.File.Open(comm, path, MPI.MODE_CREATE | MPI.MODE_WRONLY)
    base = 0
    for i, a in enumerate(arrays):
        mine = base + sum(s[i] for s in every[:comm.rank])
        raw = a.reshape(-1).view("u1")
        rounds = max((s[i] + CHUNK - 1) // CHUNK for s in every)
        for k in range(rounds):
            f.Write_at_all(mine + k * CHUNK, raw[k * CHUNK:(k + 1) * CHUNK])
        base += sum(s[i] for s in every)
    if sync:
        f.Sync()
    f.Close()


def floor_read(comm, path, like):
    """The arrays floor_write wrote, read back into new arrays."""
    import numpy as np
    from mpi4py import MPI
    every = comm.allgather([a.nbytes for a in like])
    f = MPI.File.Open(comm, path, MPI.MODE_RDONLY)
    base, out = 0, []
    for i, a in enumerate(like):
        mine = base + sum(s[i] for s in every[:comm.rank])
        new = np.empty_like(a)
        raw = new.reshape(-1).view("u1")
        rounds = max((s[i] + CHUNK - 1) // CHUNK for s in every)
        for k in range(rounds):
            f.Read_at_all(mine + k * CHUNK, raw[k * CHUNK:(k + 1) * CHUNK])
        base += sum(s[i] for s in every)
        out.append(new)
    f.Close()
    return out


def np_save(path, arrays):
    import numpy as np
    with open(path, "wb") as fh:
        if len(arrays) == 1:
            np.save(fh, arrays[0])
        else:
            np.savez(fh, *arrays)
        fh.flush()
        os.fsync(fh.fileno())


def np_load(path, n):
    import numpy as np
    got = np.load(path)
    return [got] if n == 1 else [got[f"arr_{i}"] for i in range(n)]


def _remove(comm, *paths):
    comm.Barrier()
    for p in paths:
        if comm.rank == 0 and os.path.exists(p):
            os.unlink(p)
    comm.Barrier()


def measure(comm, folder, name, container, arrays, reps, rebuild=None, extract=None):
    """The median seconds of each way of writing and reading `arrays` (this
    rank's bytes of `container`)."""
    import numpy as np
    import pybcl
    path, fpath = os.path.join(folder, name), os.path.join(folder, name + ".floor")
    npath = os.path.join(folder, f"{name}.rank{comm.rank}")
    t = {k: [] for k in ("save", "floor_write", "floor_write_nosync", "np_save",
                         "load", "floor_read", "np_load", "extract", "rebuild")}
    same = True
    for _ in range(reps):
        _remove(comm, path)
        t["save"].append(_timed(lambda: container.save(path), comm))
        _remove(comm, fpath)
        t["floor_write"].append(_timed(lambda: floor_write(comm, fpath, arrays), comm))
        _remove(comm, fpath)
        t["floor_write_nosync"].append(
            _timed(lambda: floor_write(comm, fpath, arrays, sync=False), comm))
        if os.path.exists(npath):
            os.unlink(npath)
        t["np_save"].append(_timed(lambda: np_save(npath, arrays), comm))
        got = {}
        t["load"].append(_timed(lambda: got.update(c=pybcl.load(path)), comm))
        t["floor_read"].append(_timed(lambda: got.update(f=floor_read(comm, fpath, arrays)),
                                      comm))
        t["np_load"].append(_timed(lambda: got.update(n=np_load(npath, len(arrays))), comm))
        same = same and all(np.array_equal(x, y) for x, y in zip(got["f"], arrays)) and \
            all(np.array_equal(x, y) for x, y in zip(got["n"], arrays))
        if rebuild is not None:
            t["rebuild"].append(_timed(lambda: got.update(r=rebuild()), comm))
            got["r"].close()
        if extract is not None:
            t["extract"].append(_timed(extract, comm))
        got["c"].close()
    nbytes = comm.allreduce(sum(a.nbytes for a in arrays))
    med = {k: statistics.median(v) for k, v in t.items() if v}
    file_bytes = os.path.getsize(path)
    _remove(comm, path, fpath)
    os.unlink(npath)
    return {"bytes": nbytes, "seconds": {k: round(v, 4) for k, v in med.items()},
            "GB_per_s": {k: round(nbytes / v / 1e9, 3) for k, v in med.items()
                         if k not in ("rebuild", "extract")},
            "save_vs_floor": round(med["save"] / med["floor_write"], 3),
            "save_vs_floor_nosync": round(med["save"] / med["floor_write_nosync"], 3),
            "load_vs_floor": round(med["load"] / med["floor_read"], 3),
            "file_bytes": file_bytes,
            "floor_and_np_read_back_equal": bool(comm.allreduce(int(same), op=_min()))}


def _min():
    from mpi4py import MPI
    return MPI.MIN


def worker(a):
    import json
    import numpy as np
    import pybcl
    n = a.darray_mib << 17                               # int64 elements a rank
    pybcl.init(segment_size=2 * n * 8 + 96 * a.map_entries // max(1, a.nprocs) + (512 << 20))
    comm, P, r = pybcl.comm(), pybcl.nprocs(), pybcl.rank()
    out = {"transport": pybcl.transport(), "ranks": P}
    folder = a.folder
    d = pybcl.DArray(n * P, dtype="int64")
    d.local()[:] = np.arange(*d.local_range())
    out["darray"] = measure(comm, folder, "darray", d, [d.local()], a.reps)
    out["darray"]["mib_per_rank"] = a.darray_mib
    d.close()
    mine = a.map_entries // P + (r < a.map_entries % P)
    keys = np.random.default_rng(r).integers(0, 1 << 63, mine, dtype=np.uint64)
    m = pybcl.HashMap(2 * a.map_entries, key_type="uint64", value_type="int64")
    with pybcl.HashMapBuffer(m, 1 << 20, 1 << 14) as buf:
        buf.insert_many(keys, keys.astype(np.int64))
    k, v = m.local_arrays()

    def rebuild():
        fresh = pybcl.HashMap(2 * a.map_entries, key_type="uint64", value_type="int64")
        with pybcl.HashMapBuffer(fresh, 1 << 20, 1 << 14) as buf:
            buf.insert_many(k, v)
        return fresh
    out["map"] = measure(comm, folder, "map", m, [k, v], a.reps, rebuild, m.local_arrays)
    out["map"]["entries"] = int(comm.allreduce(len(k)))
    if r == 0:
        print("RESULT " + json.dumps(out), flush=True)


def main():
    ap = driver_parser(reps=3, hosts=True)
    ap.add_argument("--folder")
    ap.add_argument("--nprocs", type=int, default=1)
    ap.add_argument("--ranks", type=int, nargs="*", default=[1, 2])
    ap.add_argument("--darray-mib", type=int, default=1024)
    ap.add_argument("--map-entries", type=int, default=10_000_000)
    a = ap.parse_args()
    if a.worker:
        return worker(a)
    folder = tempfile.mkdtemp(prefix="pybcl-bench-save-", dir=os.environ.get("TMPDIR"))
    args = ["--darray-mib", str(a.darray_mib), "--map-entries", str(a.map_entries),
            "--reps", str(a.reps), "--folder", folder]
    me = [sys.executable, os.path.abspath(__file__), "--worker"]
    env = dict(os.environ, PYTHONPATH=ROOT)
    runs = []
    try:
        for p in a.ranks:
            load = os.getloadavg()[0]
            res = worker_result([_mpi.mpiexec(), "-n", str(p)] + me + args +
                                ["--nprocs", str(p)], env, timeout=3600)
            runs.append(res | {"load_before": load})
        if a.hosts:
            with netns_hosts(a.hosts) as launch:
                load = os.getloadavg()[0]
                res = worker_result(launch(per_host=1) + me + args +
                                    ["--nprocs", str(a.hosts)], env, timeout=3600)
                runs.append(res | {"hosts": a.hosts, "load_before": load})
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    emit({"benchmark": "save_load", "machine_cores": os.cpu_count(),
          "file_system": _fs_type(os.path.dirname(folder)), "runs": runs}, a.out)


def _fs_type(path):
    """The file system type of the folder the files went to (/proc/mounts)."""
    best, kind = "", "?"
    real = os.path.realpath(path)
    with open("/proc/mounts") as fh:
        for line in fh:
            fields = line.split()
            if real.startswith(fields[1]) and len(fields[1]) > len(best):
                best, kind = fields[1], fields[2]
    return kind


if __name__ == "__main__":
    main()
