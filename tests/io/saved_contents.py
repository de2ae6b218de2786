"""Every container kind and element type with contents that do not depend
on the rank count, so a file saved by P ranks can be checked after a load
at Q: what the save/load tests (in-job, and the jobs they launch) write
and compare.

`build(big=False)` makes them all on the ranks of this job (collective);
`check(name, container)` returns None or what differs; `check_read(name,
result)` does the same for pybcl.io.read's result.  `big` adds containers
of several row groups per rank (4 MiB each): loads at another rank count
then start and end inside parts.
"""
import numpy as np

import pybcl

N = 301                                   # keys and elements of the small containers
BIG_ELEMENTS = 3_000_017                  # 24 MB of float64: 6 parts
BIG_KEYS = 700_003                        # 11 MB of keys and values: 3 groups
STRUCT = np.dtype([("a", "<i4"), ("b", "<f8")])

MAP_TYPES = {                             # name: (key_type, value_type)
    "map_i64_i64": ("int64", "int64"),
    "map_u64_f64": ("uint64", "float64"),
    "map_s16_i32": ("S16", "int32"),
    "map_struct_u8": (STRUCT, "uint8"),
    "map_str_i64": (str, "int64"),
    "map_i64_obj": ("int64", object),
    "map_bytes_str": (bytes, str),
    "map_obj_obj": (object, object),
}
# A uint64 -> int64 map whose keys crowd the last bucket of rank 0's block
# at 2, 3 and 4 ranks (4 keys each, homes chosen with the map's hash), the
# rest in the table's last third: a file saved at another rank count puts
# each crowd in rank 0's share (rows in bucket order), its owner, and the
# owner's direct apply meets probes that leave the block.
EDGE = "map_edge"
EDGE_CAPACITY = 120                       # a block of 120 / Q buckets at Q = 1..4
DARRAY_TYPES = {"darray_i64": "int64", "darray_f32": "float32", "darray_s8": "S8",
                "darray_struct": STRUCT}


def value(t, i, key=False):
    """Element i of type t (a dtype spec, or bytes / str / object); an
    object key is hashable (a tuple or a number)."""
    i = int(i)
    if t is str:
        return f"v{i}-\u00e9"
    if t is bytes:
        return b"\x00b%d" % i
    if t is object and key:
        return (i, f"t{i}") if i % 3 else i * 2
    if t is object:
        return [i, {"x": i % 5, "y": None}, f"s{i}", 1.5] if i % 3 else None
    d = np.dtype(t)
    if d == STRUCT:
        return np.array((i - 7, i / 3), dtype=d)[()]
    if d.kind == "S":
        return np.bytes_(b"k%d" % i)
    if d.kind == "u":
        return d.type(i * 2654435761 % (1 << min(63, 8 * d.itemsize)))
    if d.kind == "i":
        return d.type((i * 7 - 100) % (1 << (8 * d.itemsize - 2)))
    return d.type(i * 0.25 - 3)


def norm(x):
    """A comparable, hashable form: NumPy scalars by dtype and bytes."""
    if isinstance(x, np.generic):
        return (x.dtype.str, x.tobytes())
    if isinstance(x, list):
        return ("list", tuple(norm(v) for v in x))
    if isinstance(x, tuple):
        return ("tuple", tuple(norm(v) for v in x))
    if isinstance(x, dict):
        return ("dict", tuple((norm(k), norm(v)) for k, v in x.items()))
    return (type(x).__name__, x)


def _var(t):
    return t in (str, bytes, object)


def _map(kt, vt, n):
    """Collective: a map of keys 0..n-1 (value(kt, i) -> value(vt, i), or
    i -> i for the big one), each rank inserting every P-th, through a
    HashMapBuffer (a few messages, not one round trip per key)."""
    m = pybcl.HashMap(4 * n, key_type=kt, value_type=vt)
    idx = np.arange(pybcl.rank(), n, pybcl.nprocs())
    if n != N:
        keys, vals = idx.astype(kt), idx.astype(vt)
    else:
        keys = [value(kt, i, key=True) for i in idx]
        vals = [value(vt, i) for i in idx]
        keys = keys if _var(kt) else np.array(keys, dtype=kt)
        vals = vals if _var(vt) else np.array(vals, dtype=vt)
    with pybcl.HashMapBuffer(m, 1 << 16, 1 << 12) as buf:
        buf.insert_many(keys, vals)
    return m


def _edge_keys():
    """The edge map's keys (the same in every job): 4 homed at bucket
    EDGE_CAPACITY / Q - 1 for Q = 2, 3, 4, then 20 homed in the last third."""
    want = {EDGE_CAPACITY // q - 1: 4 for q in (2, 3, 4)}
    want["tail"] = 20
    keys, k = [], 0
    while any(want.values()):
        k += 1
        home = pybcl.hash_u64(k) * EDGE_CAPACITY >> 64
        slot = "tail" if home >= EDGE_CAPACITY * 2 // 3 else home
        if want.get(slot, 0):
            want[slot] -= 1
            keys.append(k)
    return np.array(keys, dtype=np.uint64)


def _edge_map():
    m = pybcl.HashMap(EDGE_CAPACITY, key_type="uint64", value_type="int64")
    keys = _edge_keys()[pybcl.rank()::pybcl.nprocs()]
    m.insert_many(keys, keys.astype(np.int64) * 3)
    return m


def _darray(dtype, n):
    a = pybcl.DArray(n, dtype=dtype)
    lo, hi = a.local_range()
    if n == N:
        a.local()[:] = np.array([value(dtype, i) for i in range(lo, hi)], dtype=dtype)
    else:
        a.local()[:] = np.arange(lo, hi) * 0.5
    return a


def build(big=False):
    """Collective: name -> container, every one filled."""
    P, me = pybcl.nprocs(), pybcl.rank()
    out = {name: _map(kt, vt, N) for name, (kt, vt) in MAP_TYPES.items()}
    out[EDGE] = _edge_map()
    out.update({name: _darray(dt, N) for name, dt in DARRAY_TYPES.items()})
    host = P - 1
    arr = pybcl.Array(host, N, dtype="uint16")
    fq = pybcl.FastQueue(host, 2 * N, dtype="int64")
    cq = pybcl.CircularQueue(0, N, dtype=str)
    oq = pybcl.FastQueue(host, N, dtype=object)
    if me == host:
        arr.local()[:] = [value("uint16", i) for i in range(N)]
        fq.push_many(np.array([value("int64", i) for i in range(N)]))
        oq.push_many([value(object, i) for i in range(N // 2)])
    if me == 0:
        cq.push_many([value(str, i) for i in range(N // 3)])
    out.update(array_u16=arr, fastqueue_i64=fq, circularqueue_str=cq, fastqueue_obj=oq)
    bf = pybcl.BloomFilter(50 * N, fpr=0.01, key_type="uint64")
    bf.insert_many(np.arange(me, 20 * N, P, dtype=np.uint64))
    sbf = pybcl.BloomFilter(N, fpr=0.05, key_type=str)
    sbf.insert_many([value(str, i) for i in range(me, N, P)])
    out.update(bloom_u64=bf, bloom_str=sbf)
    if big:
        out["big_darray"] = _darray("float64", BIG_ELEMENTS)
        out["big_map"] = _map("uint64", "int64", BIG_KEYS)
    pybcl.barrier()
    return out


def _expected_map(name):
    if name == EDGE:
        return "uint64", "int64", {norm(k): norm(np.int64(k) * 3) for k in _edge_keys()}
    kt, vt = MAP_TYPES.get(name, ("uint64", "int64"))
    n = N if name in MAP_TYPES else BIG_KEYS
    if n == N:
        return kt, vt, {norm(value(kt, i, key=True)): norm(value(vt, i)) for i in range(n)}
    return kt, vt, None


def _expected_elements(name):
    if name in DARRAY_TYPES:
        dt = DARRAY_TYPES[name]
        return dt, [value(dt, i) for i in range(N)]
    if name == "array_u16":
        return "uint16", [value("uint16", i) for i in range(N)]
    if name == "fastqueue_i64":
        return "int64", [value("int64", i) for i in range(N)]
    if name == "circularqueue_str":
        return str, [value(str, i) for i in range(N // 3)]
    if name == "fastqueue_obj":
        return object, [value(object, i) for i in range(N // 2)]
    return "float64", None


def _same_elements(got, want, t):
    if _var(t):
        return [norm(x) for x in got] == [norm(x) for x in want]
    return np.array_equal(np.asarray(got), np.array(want, dtype=t))


def check(name, c):
    """Collective: None when the loaded container `c` holds what build()
    put in `name`, else a description of the difference (same on every rank)."""
    if name.startswith("map") or name == "big_map":
        kt, vt, want = _expected_map(name)
        if name == "big_map":
            k, v = c.local_arrays()
            ok = bool(np.array_equal(v, k.astype(np.int64)))
            total = int(pybcl.allreduce(np.array([len(k)]), "sum")[0])
            ok = bool(pybcl.allreduce(np.array([ok], dtype=np.int64), "min")[0])
            return None if ok and total == BIG_KEYS else f"{name}: {total} keys, values ok {ok}"
        got = {norm(k): norm(v) for k, v in c.items()}
        if got != want or c.key_type != (kt if _var(kt) else np.dtype(kt)):
            return f"{name}: {len(got)} entries, {len(want)} expected; types {c.key_type}"
        if c.capacity < (EDGE_CAPACITY if name == EDGE else 2 * N):
            return f"{name}: capacity {c.capacity}"
        return None
    if name.startswith("bloom"):
        keys = (np.arange(20 * N, dtype=np.uint64) if name == "bloom_u64"
                else [value(str, i) for i in range(N)])
        missing = int(pybcl.allreduce(np.array([int((~c.find_many(keys)).sum())]), "sum")[0])
        return None if missing == 0 else f"{name}: {missing} false negatives"
    t, want = _expected_elements(name)
    if name == "big_darray":
        lo, hi = c.local_range()
        ok = np.array_equal(c.local(), np.arange(lo, hi) * 0.5) and len(c) == BIG_ELEMENTS
        ok = bool(pybcl.allreduce(np.array([ok], dtype=np.int64), "min")[0])
        return None if ok else f"{name}: differs"
    if "queue" in name:
        got = pybcl.broadcast(c.pop_many(len(want) + 1) if pybcl.rank() == c.host else None,
                              root=c.host)
        return None if _same_elements(got, want, t) else f"{name}: {got!r:.200}"
    ok = _same_elements(np.asarray(c), want, t)
    return None if ok else f"{name}: {np.asarray(c)!r:.200}"


def check_read(name, r):
    """Not collective: None when pybcl.io.read's result `r` is what build()
    put in `name`."""
    if name.startswith("map") or name == "big_map":
        kt, vt, want = _expected_map(name)
        keys, vals = r
        if want is None:
            return None if np.array_equal(vals, keys.astype(np.int64)) and \
                len(keys) == BIG_KEYS else f"{name}: read differs"
        got = {norm(k): norm(v) for k, v in zip(keys, vals)}
        return None if got == want else f"{name}: read {len(got)} entries"
    if name.startswith("bloom"):
        return None if r["bits"].dtype == np.uint64 and r["nwords"] == len(r["bits"]) \
            else f"{name}: read {r!r:.200}"
    t, want = _expected_elements(name)
    if want is None:
        return None if np.array_equal(r, np.arange(BIG_ELEMENTS) * 0.5) else f"{name}: differs"
    return None if _same_elements(r, want, t) else f"{name}: read {r!r:.200}"
