"""pybcl.packb / pybcl.unpackb: byte-identical to msgpack-python, strict on
malformed input.  Serial (no MPI needed)."""
import math

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pybcl

# These tests need no MPI: every rank would run the same work.  The ranks
# share it instead: each draws its own random examples (Hypothesis seeds
# them per process), so P ranks together still try about as many as one.
P = pybcl.nprocs()


def examples(total):
    return max(25, -(-total // P))


def ref_packb(x):
    return msgpack.packb(x, use_bin_type=True)


def as_lists(x):
    """What a round trip returns: tuples become lists."""
    if isinstance(x, (list, tuple)):
        return [as_lists(v) for v in x]
    if isinstance(x, dict):
        return {k: as_lists(v) for k, v in x.items()}
    return x


def same(a, b):
    """Equality that treats NaN as equal to NaN and checks exact types."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, list):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return (list(a) == list(b)
                and all(same(a[k], b[k]) for k in a))
    return a == b


ints = st.integers(min_value=-2**63, max_value=2**64 - 1)
scalars = (st.none() | st.booleans() | ints | st.floats()
           | st.text() | st.binary())
keys = st.none() | st.booleans() | ints | st.text() | st.binary()
objects = st.recursive(
    scalars,
    lambda kids: (st.lists(kids, max_size=8)
                  | st.tuples(kids, kids)
                  | st.dictionaries(keys, kids, max_size=8)),
    max_leaves=40,
)


@settings(max_examples=examples(400), deadline=None)
@given(objects)
def test_packb_matches_msgpack(x):
    assert pybcl.packb(x) == ref_packb(x)


@settings(max_examples=examples(400), deadline=None)
@given(objects)
def test_round_trip(x):
    assert same(pybcl.unpackb(pybcl.packb(x)), as_lists(x))


@settings(max_examples=examples(200), deadline=None)
@given(objects)
def test_unpackb_reads_msgpack_output(x):
    data = ref_packb(x)
    assert same(pybcl.unpackb(data),
                msgpack.unpackb(data, strict_map_key=False))


EDGE_INTS = [0, 1, 127, 128, 255, 256, 65535, 65536, 2**32 - 1, 2**32,
             2**63 - 1, 2**63, 2**64 - 1, -1, -32, -33, -128, -129, -32768,
             -32769, -2**31, -2**31 - 1, -2**63]


@pytest.mark.parametrize("v", EDGE_INTS)
def test_edge_ints(v):
    data = pybcl.packb(v)
    assert data == ref_packb(v)
    out = pybcl.unpackb(data)
    assert out == v and type(out) is int


def test_bool_is_not_int():
    assert pybcl.packb(True) == b"\xc3"
    assert pybcl.packb(False) == b"\xc2"
    assert pybcl.unpackb(b"\xc3") is True
    assert pybcl.packb([1, True]) == b"\x92\x01\xc3"


@pytest.mark.parametrize("n", [0, 31, 32, 255, 256, 65535, 65536])
def test_length_boundaries(n):
    for x in ("a" * n, b"b" * n, [0] * n, {i: None for i in range(n)}):
        data = pybcl.packb(x)
        assert data == ref_packb(x)
        assert pybcl.unpackb(data) == x


def test_float_always_double():
    assert pybcl.packb(1.5) == b"\xcb" + bytes.fromhex("3ff8000000000000")
    assert pybcl.unpackb(b"\xca\x3f\xc0\x00\x00") == 1.5   # float32 read
    assert math.isnan(pybcl.unpackb(pybcl.packb(float("nan"))))


def test_bytes_like_and_subclasses():
    class S(str):
        pass

    class I(int):
        pass

    class D(dict):
        pass

    assert pybcl.packb(bytearray(b"ab")) == ref_packb(b"ab")
    assert pybcl.packb(memoryview(b"ab")) == ref_packb(b"ab")
    assert pybcl.packb(S("x")) == ref_packb("x")
    assert pybcl.packb(I(300)) == ref_packb(300)
    assert pybcl.packb(D(a=1)) == ref_packb({"a": 1})
    assert pybcl.unpackb(bytearray(b"\x01")) == 1
    assert pybcl.unpackb(memoryview(b"\x90")) == []


def test_numpy_scalars():
    np = pytest.importorskip("numpy")
    assert pybcl.packb(np.int64(-5)) == ref_packb(-5)
    assert pybcl.packb(np.uint64(2**64 - 1)) == ref_packb(2**64 - 1)
    assert pybcl.packb(np.bool_(True)) == ref_packb(True)
    assert pybcl.packb(np.float32(1.5)) == ref_packb(1.5)


def test_dict_insertion_order_and_int_keys():
    d = {3: "c", 1: "a", "k": [1, 2], b"b": None, None: 0.5}
    data = pybcl.packb(d)
    assert data == ref_packb(d)
    out = pybcl.unpackb(data)
    assert list(out) == [3, 1, "k", b"b", None]
    assert out == d
    # a tuple key packs (as an array) but cannot come back as a dict key
    data = pybcl.packb({(1, 2): 0})
    assert data == ref_packb({(1, 2): 0})
    with pytest.raises(ValueError, match="unhashable"):
        pybcl.unpackb(data)


@pytest.mark.parametrize("v", [2**64, -2**63 - 1, 10**30, -10**30])
def test_int_out_of_range(v):
    with pytest.raises(OverflowError, match="out of range"):
        pybcl.packb(v)
    with pytest.raises(OverflowError):
        pybcl.packb([1, {"k": v}])


def test_huge_int_message_does_not_print_it():
    with pytest.raises(OverflowError, match="bits"):
        pybcl.packb(10**100000)


@pytest.mark.parametrize("obj, name", [
    ({1, 2}, "set"), (object(), "object"), (1j, "complex"),
    (frozenset(), "frozenset"), ([1, {2: {3}}], "set"),
])
def test_unsupported_types(obj, name):
    with pytest.raises(TypeError,
                       match=f"cannot serialize object of type '{name}'"):
        pybcl.packb(obj)


def test_surrogates_rejected():
    with pytest.raises(UnicodeEncodeError):
        pybcl.packb("\ud800")


def nested(depth):
    x = []
    for _ in range(depth - 1):
        x = [x]
    return x


def test_deep_nesting_limits():
    ok = nested(512)
    data = pybcl.packb(ok)
    assert pybcl.unpackb(data) == ok
    with pytest.raises(ValueError, match="nesting"):
        pybcl.packb(nested(513))
    with pytest.raises(ValueError, match="nesting"):
        pybcl.unpackb(b"\x91" * 512 + b"\x90")
    with pytest.raises(ValueError, match="nesting"):
        pybcl.unpackb(b"\x81\xc0" * 100000 + b"\xc0")


def test_reference_cycle():
    a = []
    a.append(a)
    with pytest.raises(ValueError, match="nesting"):
        pybcl.packb(a)


def test_unhashable_key():
    with pytest.raises(ValueError, match="unhashable"):
        pybcl.unpackb(b"\x81\x90\x01")
    with pytest.raises(ValueError, match="unhashable"):
        pybcl.unpackb(b"\x81\x80\x01")


def test_invalid_utf8():
    with pytest.raises(ValueError):       # UnicodeDecodeError
        pybcl.unpackb(b"\xa2\xff\xfe")


VALID = [ref_packb(x) for x in (
    None, 300, -300, 2**64 - 1, 1.5, "héllo", "x" * 40, b"\x00" * 300,
    [1, [2, [3]]], {"a": {"b": [b"c", 1.25]}}, list(range(20)),
    {i: i for i in range(20)},
)]

NASTY = [
    b"",                                # empty
    b"\xc1",                            # reserved
    b"\xdb\xff\xff\xff\xff",            # str32 claiming 4 GiB
    b"\xc6\xff\xff\xff\xff",            # bin32 claiming 4 GiB
    b"\xdd\xff\xff\xff\xff",            # array32 claiming 4G items
    b"\xdf\xff\xff\xff\xff",            # map32 claiming 4G pairs
    b"\xdc\xff\xff" + b"\xc0" * 100,    # array16 short of items
    b"\x92\x01",                        # fixarray missing an item
    b"\x81\x01",                        # map missing a value
    b"\xd4\x01\x00",                    # fixext1
    b"\xd8\x01" + b"\x00" * 16,         # fixext16
    b"\xc7\x01\x01\x00",                # ext8
    b"\xc8\x00\x01\x01\x00",            # ext16
    b"\xc9\x00\x00\x00\x01\x01\x00",    # ext32
    b"\x91\xc1",                        # reserved, nested
    b"\x01\x02",                        # trailing byte
    b"\x90\x00",                        # trailing after a container
    b"\xcb\x00\x00",                    # truncated float
]


@pytest.mark.parametrize("data", NASTY)
def test_nasty_inputs(data):
    with pytest.raises(ValueError):
        pybcl.unpackb(data)


@pytest.mark.parametrize("data", VALID)
def test_every_truncation_fails(data):
    assert pybcl.unpackb(data) == msgpack.unpackb(data, strict_map_key=False)
    for i in range(len(data)):
        with pytest.raises(ValueError):
            pybcl.unpackb(data[:i])
    with pytest.raises(ValueError, match="trailing"):
        pybcl.unpackb(data + b"\xc0")


def test_error_messages_name_offset():
    with pytest.raises(ValueError, match="offset"):
        pybcl.unpackb(b"\xdb\xff\xff\xff\xff")
    with pytest.raises(ValueError, match="ext type"):
        pybcl.unpackb(b"\xd4\x01\x00")
    with pytest.raises(ValueError, match="0xc1"):
        pybcl.unpackb(b"\xc1")


@settings(max_examples=examples(500), deadline=None)
@given(st.binary(max_size=64))
def test_random_bytes_never_crash(data):
    try:
        ours = pybcl.unpackb(data)
    except ValueError:
        ours = ValueError
    try:
        theirs = msgpack.unpackb(data, strict_map_key=False)
    except Exception:
        theirs = ValueError
    if theirs is not ValueError and ours is not ValueError:
        assert same(ours, theirs)


def test_unpackb_type_errors():
    with pytest.raises(TypeError):
        pybcl.unpackb("not bytes")
    with pytest.raises(TypeError):
        pybcl.unpackb(None)
