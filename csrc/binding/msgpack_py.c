/*
 * msgpack_py.c -- pybcl.packb / pybcl.unpackb / pybcl.hash64.
 *
 * packb output is byte-identical to msgpack.packb(obj, use_bin_type=True)
 * for the supported types, so keys encode the same on every rank and in
 * either library.  Speed matters (containers pack every key and value), so
 * the walkers dispatch on exact types first, never parse arguments
 * internally, and build lists/dicts pre-sized.  Nothing in the pack walk
 * runs Python code, so borrowed references from lists and dicts stay valid.
 */
#include "bclpy.h"

#include <math.h>

#include "msgpack_py.h"
#include "serial/bcl_hash.h"
#include "binding/generated/msgpack.h"

/* ----------------------------------------------------------------- packing */

/* What the walk is packing.  Containers need more than packb: a stored
 * value must come back (a dict keyed by a tuple packs, but its key comes
 * back as an unhashable list), and equal keys must pack to equal bytes
 * (1 == 1.0 == True is one key, as in a dict).  The walk's options are
 * passed down with it, as msgpack-python's Packer keeps its own. */
enum pack_mode { PACK_PLAIN, PACK_VALUE, PACK_KEY };
typedef struct pack_opts {
    enum pack_mode mode;
    bclpy_state *st;        /* pybcl._core's (packb), or NULL: the object's type says */
} pack_opts;

static int pack_obj(bcl_mp_writer *w, const pack_opts *opt, PyObject *o, int depth);

/* Turn a failed write into a Python exception; returns -1. */
static int pack_fail(bcl_status st)
{
    if (st == BCL_ERR_NOMEM)
        PyErr_NoMemory();
    else
        PyErr_Format(PyExc_ValueError, "pybcl.packb: %s", bcl_last_error());
    return -1;
}

#define PACK_TRY(call) BCLPY_TRY(call, pack_fail)

/* Replace the pending exception with one naming the value (error path only,
 * so a method call is fine; huge ints are not printed, their repr may be
 * megabytes or even refused by int_max_str_digits). */
static int int_range_error(PyObject *o)
{
    PyObject *bits;
    long long nbits;

    PyErr_Clear();
    bits = PyObject_CallMethod(o, "bit_length", NULL);
    nbits = bits ? PyLong_AsLongLong(bits) : -1;
    Py_XDECREF(bits);
    PyErr_Clear();
    if (nbits >= 0 && nbits <= 256)
        PyErr_Format(PyExc_OverflowError,
                     "pybcl.packb: integer %R is out of range for msgpack "
                     "(must be in [-2**63, 2**64-1])", o);
    else
        PyErr_Format(PyExc_OverflowError,
                     "pybcl.packb: integer of %lld bits is out of range for "
                     "msgpack (must be in [-2**63, 2**64-1])", nbits);
    return -1;
}

static int pack_int(bcl_mp_writer *w, PyObject *o)
{
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);

    if (overflow == 0) {
        if (v == -1 && PyErr_Occurred())
            return -1;
        PACK_TRY(bcl_mp_write_int64(w, (int64_t)v));
        return 0;
    }
    if (overflow > 0) {     /* above int64: may still fit uint64 */
        unsigned long long u = PyLong_AsUnsignedLongLong(o);
        if (u == (unsigned long long)-1 && PyErr_Occurred())
            return int_range_error(o);
        PACK_TRY(bcl_mp_write_uint64(w, (uint64_t)u));
        return 0;
    }
    return int_range_error(o);
}

static int pack_bytes(bcl_mp_writer *w, const void *p, Py_ssize_t n)
{
    PACK_TRY(bcl_mp_write_bin(w, p, (size_t)n));
    return 0;
}

static int pack_str(bcl_mp_writer *w, PyObject *o)
{
    const char *s;
    Py_ssize_t n;

    /* Compact ASCII strings are their own UTF-8: skip the function call. */
    if (PyUnicode_IS_COMPACT_ASCII(o)) {
        s = (const char *)PyUnicode_DATA(o);
        n = PyUnicode_GET_LENGTH(o);
    } else {
        s = PyUnicode_AsUTF8AndSize(o, &n);   /* lone surrogates raise */
        if (!s)
            return -1;
    }
    PACK_TRY(bcl_mp_write_str(w, s, (size_t)n));
    return 0;
}

static int depth_error(void)
{
    PyErr_Format(PyExc_ValueError,
                 "pybcl.packb: nesting deeper than %d levels "
                 "(or a reference cycle)", BCL_MP_MAX_DEPTH);
    return -1;
}

static int pack_items(bcl_mp_writer *w, const pack_opts *opt, PyObject *const *items,
                      Py_ssize_t n, int depth)
{
    Py_ssize_t i;

    if (depth >= BCL_MP_MAX_DEPTH)
        return depth_error();
    PACK_TRY(bcl_mp_write_array_header(w, (size_t)n));
    for (i = 0; i < n; i++)
        if (pack_obj(w, opt, items[i], depth + 1) < 0)
            return -1;
    return 0;
}

static int pack_dict(bcl_mp_writer *w, const pack_opts *opt, PyObject *o, int depth)
{
    Py_ssize_t pos = 0;
    PyObject *k, *v;

    if (depth >= BCL_MP_MAX_DEPTH)
        return depth_error();
    if (opt->mode == PACK_KEY) {
        PyErr_SetString(PyExc_TypeError, "key: unhashable type: 'dict' (a dict cannot "
                        "be a key, as in a Python dict)");
        return -1;
    }
    PACK_TRY(bcl_mp_write_map_header(w, (size_t)PyDict_GET_SIZE(o)));
    while (PyDict_Next(o, &pos, &k, &v)) {   /* insertion order */
        if (opt->mode == PACK_VALUE &&
            (PyList_Check(k) || PyTuple_Check(k) || PyDict_Check(k))) {
            PyErr_Format(PyExc_TypeError, "value: a dict keyed by a %.50s (%R) cannot be "
                         "stored: msgpack reads it back as an unhashable list; use "
                         "None, bool, int, float, str or bytes keys",
                         Py_TYPE(k)->tp_name, k);
            return -1;
        }
        if (pack_obj(w, opt, k, depth + 1) < 0 || pack_obj(w, opt, v, depth + 1) < 0)
            return -1;
    }
    return 0;
}

static int pack_buffer(bcl_mp_writer *w, PyObject *o)
{
    Py_buffer view;
    int rc;

    if (PyObject_GetBuffer(o, &view, PyBUF_SIMPLE) < 0)   /* contiguous only */
        return -1;
    rc = pack_bytes(w, view.buf, view.len);
    PyBuffer_Release(&view);
    return rc;
}

/* NumPy integer/bool scalars are common in k-mer code; msgpack-python
 * refuses them, we encode them as the equivalent Python value. */
static int pack_numpy_scalar(bcl_mp_writer *w, PyObject *o)
{
    PyObject *i;
    int rc;

    if (PyArray_IsScalar(o, Bool)) {
        int t = PyObject_IsTrue(o);
        if (t < 0)
            return -1;
        PACK_TRY(bcl_mp_write_bool(w, t));
        return 0;
    }
    if (PyArray_IsScalar(o, Floating)) {
        double d = PyFloat_AsDouble(o);
        if (d == -1.0 && PyErr_Occurred())
            return -1;
        PACK_TRY(bcl_mp_write_double(w, d));
        return 0;
    }
    i = PyNumber_Index(o);      /* numpy.integer */
    if (!i)
        return -1;
    rc = pack_int(w, i);
    Py_DECREF(i);
    return rc;
}

/* ---- GlobalPtr as msgpack ext type BCLPY_EXT_GPTR ------------------------
 * So a GlobalPtr can be stored inside `object` containers (docs/api.md), as
 * BCL stores GlobalPtr<T> in its containers.  Payload: rank (4 bytes, big
 * endian), offset (8), then the dtype: its `str` ('<i8', '|S16'), or for a
 * structured / subarray dtype the repr of its `descr` list.  The bytes are a
 * function of (rank, offset, dtype), so equal pointers of one dtype are one
 * key.  Other ext types stay "not supported" (ValueError). */
#define BCLPY_EXT_GPTR 71       /* 'G' */

static int pack_gptr(bcl_mp_writer *w, PyObject *o)
{
    bclpy_GlobalPtr *p = (bclpy_GlobalPtr *)o;
    PyArray_Descr *d = p->dtype;
    int simple = !PyDataType_HASFIELDS(d) && !PyDataType_HASSUBARRAY(d);
    PyObject *spec = PyObject_GetAttrString((PyObject *)d, simple ? "str" : "descr");
    PyObject *text = spec ? (simple ? (Py_INCREF(spec), spec) : PyObject_Repr(spec)) : NULL;
    Py_XDECREF(spec);
    if (!text)
        return -1;
    Py_ssize_t n;
    const char *t = PyUnicode_AsUTF8AndSize(text, &n);
    int rc = -1;
    unsigned char *buf = t ? PyMem_Malloc((size_t)n + 12) : NULL;
    if (t && !buf)
        PyErr_NoMemory();
    if (buf) {
        bcl_mp_put32(buf, (uint32_t)p->ptr.rank);
        bcl_mp_put64(buf + 4, p->ptr.offset);
        memcpy(buf + 12, t, (size_t)n);
        bcl_status st = bcl_mp_write_ext(w, BCLPY_EXT_GPTR, buf, (size_t)n + 12);
        rc = st == BCL_OK ? 0 : pack_fail(st);
        PyMem_Free(buf);
    }
    Py_DECREF(text);
    return rc;
}

/* The unpacking walk's options, passed down with it as msgpack-python's
 * Unpacker keeps its own.  tuples: decoding a container key, arrays come
 * back as tuples (a key was a tuple when stored: lists are refused, see
 * PACK_KEY).  st: pybcl._core's state, for the GlobalPtrs met (unpackb
 * gives its module's; a container's read looks it up at the first one). */
typedef struct unpack_opts {
    int tuples;
    bclpy_state *st;
} unpack_opts;

static PyObject *unpack_gptr(unpack_opts *opt, const unsigned char *p, uint32_t n)
{
    if (n < 13)
        return PyErr_Format(PyExc_ValueError, "pybcl.unpackb: GlobalPtr ext of %u bytes "
                            "is too short", n);
    uint32_t rank = (uint32_t)bcl_mp_get_be(p, 4);
    uint64_t offset = bcl_mp_get_be(p + 4, 8);
    PyObject *spec = PyUnicode_DecodeUTF8((const char *)p + 12, n - 12, NULL);
    if (spec && p[12] == '[') {         /* a structured dtype's descr list */
        PyObject *ast = PyImport_ImportModule("ast");
        PyObject *lit = ast ? PyObject_CallMethod(ast, "literal_eval", "O", spec) : NULL;
        Py_XDECREF(ast);
        Py_SETREF(spec, lit);
    }
    PyArray_Descr *d = NULL;
    if (!spec || !PyArray_DescrConverter(spec, &d) || rank > INT32_MAX) {
        Py_XDECREF(spec);
        PyErr_Clear();
        return PyErr_Format(PyExc_ValueError, "pybcl.unpackb: malformed GlobalPtr ext");
    }
    Py_DECREF(spec);
    if (!opt->st)
        opt->st = bclpy_core_state();
    PyObject *r = opt->st ? bclpy_gptr_new(opt->st, bcl_gptr_make((int)rank, offset), d)
                          : NULL;
    Py_DECREF(d);
    return r;
}

static PyObject *unpack_ext(unpack_opts *opt, const bcl_mp_item *it)
{
    if (it->v.i == BCLPY_EXT_GPTR)
        return unpack_gptr(opt, it->ptr, it->len);
    return PyErr_Format(PyExc_ValueError, "pybcl.unpackb: ext type %d is not supported "
                        "(only pybcl's GlobalPtr, type %d)", (int)it->v.i, BCLPY_EXT_GPTR);
}

/* Subclasses of the supported types and the other bytes-like objects: the
 * slow path, after the exact-type checks of pack_obj. */
static int pack_other(bcl_mp_writer *w, const pack_opts *opt, PyObject *o, int depth)
{
    if (PyBool_Check(o)) {     /* bool is an int subclass: test it first */
        PACK_TRY(bcl_mp_write_bool(w, o == Py_True));
        return 0;
    }
    if (PyLong_Check(o))
        return pack_int(w, o);
    if (PyFloat_Check(o)) {
        PACK_TRY(bcl_mp_write_double(w, PyFloat_AS_DOUBLE(o)));
        return 0;
    }
    if (PyUnicode_Check(o))
        return pack_str(w, o);
    if (PyBytes_Check(o))
        return pack_bytes(w, PyBytes_AS_STRING(o), PyBytes_GET_SIZE(o));
    if (PyByteArray_Check(o))
        return pack_bytes(w, PyByteArray_AS_STRING(o),
                          PyByteArray_GET_SIZE(o));
    if (PyMemoryView_Check(o))
        return pack_buffer(w, o);
    if (PyDict_Check(o))
        return pack_dict(w, opt, o, depth);
    if (PyList_Check(o))
        return pack_items(w, opt, ((PyListObject *)o)->ob_item, PyList_GET_SIZE(o), depth);
    if (PyTuple_Check(o))
        return pack_items(w, opt, ((PyTupleObject *)o)->ob_item, PyTuple_GET_SIZE(o),
                          depth);
    if (PyArray_IsScalar(o, Integer) || PyArray_IsScalar(o, Bool) ||
        PyArray_IsScalar(o, Floating))
        return pack_numpy_scalar(w, o);
    bclpy_state *st = opt->st ? opt->st : bclpy_type_state(Py_TYPE(o));
    PyErr_Clear();          /* not a type of ours: the TypeError below */
    if (st && bclpy_GlobalPtr_Check(st, o))
        return pack_gptr(w, o);
    PyErr_Format(PyExc_TypeError,
                 "pybcl.packb: cannot serialize object of type '%.200s'",
                 Py_TYPE(o)->tp_name);
    return -1;
}

/* Key mode: the representative of o's equality class ("1 == 1.0 == True"):
 * bools and integral floats pack as ints; lists are refused (unhashable in
 * Python, and they would equal the tuple of the same items). */
static int pack_key_special(bcl_mp_writer *w, PyObject *o, int depth, int *done)
{
    *done = 1;
    if (PyBool_Check(o) || PyArray_IsScalar(o, Bool)) {
        int t = PyObject_IsTrue(o);
        if (t < 0)
            return -1;
        PACK_TRY(bcl_mp_write_int64(w, t));
        return 0;
    }
    if (PyFloat_Check(o) || PyArray_IsScalar(o, Floating)) {
        double d = PyFloat_AsDouble(o);
        if (d == -1.0 && PyErr_Occurred())
            return -1;
        if (d == floor(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0)
            PACK_TRY(bcl_mp_write_int64(w, (int64_t)d));       /* -0.0 -> 0 too */
        else if (d == floor(d) && d >= 0 && d < 18446744073709551616.0)
            PACK_TRY(bcl_mp_write_uint64(w, (uint64_t)d));
        else
            PACK_TRY(bcl_mp_write_double(w, d));    /* inf, nan, fractions */
        return 0;
    }
    if (PyList_Check(o) || PyByteArray_Check(o)) {
        PyErr_Format(PyExc_TypeError, "key: unhashable type: '%.50s' (use a tuple / "
                     "bytes, as for a Python dict key)", Py_TYPE(o)->tp_name);
        return -1;
    }
    (void)depth;
    *done = 0;
    return 0;
}

static int pack_obj(bcl_mp_writer *w, const pack_opts *opt, PyObject *o, int depth)
{
    PyTypeObject *t = Py_TYPE(o);

    if (opt->mode == PACK_KEY && t != &PyLong_Type && t != &PyUnicode_Type &&
        t != &PyBytes_Type && t != &PyTuple_Type) {
        int done, rc = pack_key_special(w, o, depth, &done);
        if (done)
            return rc;
    }
    /* Most frequent types first; exact checks are one pointer compare. */
    if (t == &PyLong_Type)
        return pack_int(w, o);
    if (t == &PyUnicode_Type)
        return pack_str(w, o);
    if (t == &PyFloat_Type) {
        PACK_TRY(bcl_mp_write_double(w, PyFloat_AS_DOUBLE(o)));
        return 0;
    }
    if (t == &PyBytes_Type)
        return pack_bytes(w, PyBytes_AS_STRING(o), PyBytes_GET_SIZE(o));
    if (t == &PyDict_Type)
        return pack_dict(w, opt, o, depth);
    if (t == &PyList_Type)
        return pack_items(w, opt, ((PyListObject *)o)->ob_item, PyList_GET_SIZE(o), depth);
    if (t == &PyTuple_Type)
        return pack_items(w, opt, ((PyTupleObject *)o)->ob_item, PyTuple_GET_SIZE(o),
                          depth);
    if (o == Py_None) {
        PACK_TRY(bcl_mp_write_nil(w));
        return 0;
    }
    if (o == Py_True || o == Py_False) {
        PACK_TRY(bcl_mp_write_bool(w, o == Py_True));
        return 0;
    }
    return pack_other(w, opt, o, depth);
}

static const pack_opts plain_opts = {PACK_PLAIN}, value_opts = {PACK_VALUE},
                       key_opts = {PACK_KEY};

int bclpy_pack(bcl_mp_writer *w, PyObject *obj)
{
    return pack_obj(w, &plain_opts, obj, 0);
}

int bclpy_pack_value(bcl_mp_writer *w, PyObject *obj)
{
    return pack_obj(w, &value_opts, obj, 0);
}

int bclpy_pack_key(bcl_mp_writer *w, PyObject *obj)
{
    return pack_obj(w, &key_opts, obj, 0);
}

/* packb reuses one writer buffer across calls, kept in the module state
 * (the GIL is held for the whole call and nothing in the walk runs Python
 * code), so a typical call does no malloc besides the result bytes.
 * Buffers that grew big are released so a single huge packb does not pin
 * memory. */
#define PACKB_KEEP_CAP (1u << 20)

static PyObject *py_packb_impl(PyObject *self, PyObject *obj)
{
    bclpy_state *st = bclpy_module_state(self);
    bcl_mp_writer local, *w = &st->packb_writer;
    PyObject *res = NULL;

    if (st->packb_busy) {       /* defensive: re-entered somehow */
        bcl_mp_writer_init(&local);
        w = &local;
    }
    st->packb_busy++;
    bcl_mp_writer_reset(w);
    pack_opts opts = {PACK_PLAIN, st};
    if (pack_obj(w, &opts, obj, 0) == 0)
        res = PyBytes_FromStringAndSize((const char *)w->buf,
                                        (Py_ssize_t)w->len);
    st->packb_busy--;
    if (w == &local || w->cap > PACKB_KEEP_CAP)
        bcl_mp_writer_free(w);
    return res;
}

/* --------------------------------------------------------------- unpacking */

static PyObject *decode_error(void)
{
    PyErr_Format(PyExc_ValueError, "pybcl.unpackb: %s", bcl_last_error());
    return NULL;
}

/* Map keys repeat (record field names), so short ASCII keys are cached:
 * a hit skips the allocation and the dict's string hashing (the cached
 * object carries its hash).  Direct-mapped, keyed by XXH64 of the bytes.
 * This cache and the small ints' below hold immutable objects only and
 * stay process-wide: bclpy_unpack's callers (every container's reads) have
 * no module at hand, and a look-up per call would cost what they save. */
#define KEYCACHE_SLOTS 512
#define KEYCACHE_MAXLEN 32
static PyObject *keycache[KEYCACHE_SLOTS];

static PyObject *decode_key_str(const unsigned char *p, uint32_t n)
{
    PyObject *s, **slot;

    if (n > KEYCACHE_MAXLEN)
        return PyUnicode_DecodeUTF8((const char *)p, n, NULL);
    slot = &keycache[bcl_hash64(p, n, 0) & (KEYCACHE_SLOTS - 1)];
    s = *slot;
    if (s && PyUnicode_GET_LENGTH(s) == (Py_ssize_t)n &&
        memcmp(PyUnicode_DATA(s), p, n) == 0) {
        Py_INCREF(s);
        return s;
    }
    s = PyUnicode_DecodeUTF8((const char *)p, n, NULL);
    /* Only compact ASCII: their PyUnicode_DATA equals the UTF-8 bytes,
     * which the memcmp above relies on. */
    if (s && PyUnicode_IS_COMPACT_ASCII(s) && PyObject_Hash(s) != -1) {
        Py_INCREF(s);
        Py_XSETREF(*slot, s);
    }
    return s;
}

/* Counts and ids are mostly small: ints below SMALLINT_CACHE are shared
 * objects (CPython itself only caches up to 256), saving an allocation and
 * a free per value. */
#define SMALLINT_CACHE 1024
static PyObject *smallints[SMALLINT_CACHE];

static inline PyObject *small_uint(uint64_t v)
{
    PyObject *o = smallints[v];
    if (!o) {
        o = PyLong_FromLong((long)v);
        if (!o)
            return NULL;
        smallints[v] = o;       /* the cache keeps this reference */
    }
    Py_INCREF(o);
    return o;
}

static PyObject *unpack_array(bcl_mp_reader *r, unpack_opts *opt, uint32_t n,
                              int depth);
static PyObject *unpack_map(bcl_mp_reader *r, unpack_opts *opt, uint32_t n, int depth);

/* One object.  Inlined into the array/map loops (a call per item was a
 * measurable share of unpacking time); containers recurse through the
 * out-of-line unpack_array / unpack_map. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline PyObject *unpack_item(bcl_mp_reader *r, unpack_opts *opt, int depth,
                                    int is_key)
{
    bcl_mp_item it;

    if (bcl_mp_read(r, &it) != BCL_OK)
        return decode_error();
    switch (it.type) {
    case BCL_MP_UINT:
        if (it.v.u < SMALLINT_CACHE)
            return small_uint(it.v.u);
        if (it.v.u <= (uint64_t)LONG_MAX)
            return PyLong_FromLong((long)it.v.u);
        return PyLong_FromUnsignedLongLong(it.v.u);
    case BCL_MP_INT:
        /* PyLong_FromLong has a one-digit fast path FromLongLong lacks */
        if (it.v.i >= LONG_MIN && it.v.i <= LONG_MAX)
            return PyLong_FromLong((long)it.v.i);
        return PyLong_FromLongLong(it.v.i);
    case BCL_MP_STR:
        if (is_key)
            return decode_key_str(it.ptr, it.len);
        return PyUnicode_DecodeUTF8((const char *)it.ptr, it.len, NULL);
    case BCL_MP_FLOAT:
        return PyFloat_FromDouble(it.v.f);
    case BCL_MP_BIN:
        return PyBytes_FromStringAndSize((const char *)it.ptr, it.len);
    case BCL_MP_NIL:
        Py_RETURN_NONE;
    case BCL_MP_BOOL:
        return PyBool_FromLong(it.v.b);
    case BCL_MP_EXT:
        return unpack_ext(opt, &it);
    case BCL_MP_ARRAY:
    case BCL_MP_MAP:
        break;
    }
    /* Same limit as bcl_mp_validate: bounds this recursion's C stack. */
    if (depth >= BCL_MP_MAX_DEPTH) {
        PyErr_Format(PyExc_ValueError,
                     "pybcl.unpackb: nesting deeper than %d levels at "
                     "offset %zu", BCL_MP_MAX_DEPTH, r->pos);
        return NULL;
    }
    if (it.type == BCL_MP_ARRAY)
        return unpack_array(r, opt, it.len, depth);
    return unpack_map(r, opt, it.len, depth);
}

static PyObject *unpack_array(bcl_mp_reader *r, unpack_opts *opt, uint32_t n,
                              int depth)
{
    /* n <= remaining bytes (checked by the reader): a safe pre-size. */
    PyObject *list = opt->tuples ? PyTuple_New((Py_ssize_t)n)
                                   : PyList_New((Py_ssize_t)n);
    uint32_t i;

    if (!list)
        return NULL;
    for (i = 0; i < n; i++) {
        PyObject *item = unpack_item(r, opt, depth + 1, 0);
        if (!item) {
            Py_DECREF(list);
            return NULL;
        }
        if (opt->tuples)
            PyTuple_SET_ITEM(list, i, item);
        else
            PyList_SET_ITEM(list, i, item);
    }
    return list;
}

static PyObject *new_dict(uint32_t n)
{
#if PY_VERSION_HEX < 0x030D0000
    if (n > 5)      /* presizing avoids rehash growth of bigger maps */
        return _PyDict_NewPresized((Py_ssize_t)n);
#else
    (void)n;
#endif
    return PyDict_New();
}

static PyObject *unpack_map(bcl_mp_reader *r, unpack_opts *opt, uint32_t n, int depth)
{
    PyObject *dict = new_dict(n);
    uint32_t i;

    if (!dict)
        return NULL;
    for (i = 0; i < n; i++) {
        PyObject *k, *v;
        int rc;

        k = unpack_item(r, opt, depth + 1, 1);
        if (!k)
            goto fail;
        if (PyList_CheckExact(k) || PyDict_CheckExact(k)) {
            PyErr_Format(PyExc_ValueError,
                         "pybcl.unpackb: unhashable map key of type '%s' at "
                         "offset %zu",
                         Py_TYPE(k)->tp_name, r->pos);
            Py_DECREF(k);
            goto fail;
        }
        v = unpack_item(r, opt, depth + 1, 0);
        if (!v) {
            Py_DECREF(k);
            goto fail;
        }
        rc = PyDict_SetItem(dict, k, v);
        Py_DECREF(k);
        Py_DECREF(v);
        if (rc < 0)
            goto fail;
    }
    return dict;
fail:
    Py_DECREF(dict);
    return NULL;
}

static PyObject *unpack_with(unpack_opts opts, const unsigned char *data, size_t len)
{
    bcl_mp_reader r;
    PyObject *obj;

    bcl_mp_reader_init(&r, data, len);
    obj = unpack_item(&r, &opts, 0, 0);
    if (obj && r.pos != len) {
        Py_DECREF(obj);
        PyErr_Format(PyExc_ValueError,
                     "pybcl.unpackb: %zu trailing bytes after the object "
                     "(offset %zu)", len - r.pos, r.pos);
        return NULL;
    }
    return obj;
}

PyObject *bclpy_unpack(const unsigned char *data, size_t len)
{
    return unpack_with((unpack_opts){.tuples = 0}, data, len);
}

PyObject *bclpy_unpack_key(const unsigned char *data, size_t len)
{
    return unpack_with((unpack_opts){.tuples = 1}, data, len);
}

static PyObject *py_unpackb_impl(PyObject *self, PyObject *data)
{
    Py_buffer view;
    PyObject *res;
    unpack_opts opts = {.st = bclpy_module_state(self)};

    if (PyBytes_CheckExact(data))   /* common case: no buffer export */
        return unpack_with(opts, (const unsigned char *)PyBytes_AS_STRING(data),
                           (size_t)PyBytes_GET_SIZE(data));
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    res = unpack_with(opts, (const unsigned char *)view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    return res;
}

/* ----------------------------------------------------------------- hashing */

/* A uint64 argument: TypeError / OverflowError naming it (CPython's own
 * "an integer is required" / "can't convert negative int" name nothing). */
static int u64_arg(PyObject *o, const char *name, uint64_t *out)
{
    if (!PyIndex_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", name,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    PyObject *i = bclpy_index(o, name);          /* NumPy integers too */
    if (!i)
        return -1;
    unsigned long long s = PyLong_AsUnsignedLongLong(i);
    Py_DECREF(i);
    if (s == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_OverflowError, "%s must be in [0, 2**64), got %R", name, o);
        return -1;
    }
    *out = s;
    return 0;
}

static PyObject *py_hash64_impl(PyObject *self, PyObject *data, uint64_t seed)
{
    Py_buffer view;
    uint64_t h;
    if (PyObject_GetBuffer(data, &view, PyBUF_C_CONTIGUOUS) < 0) {
        PyErr_Clear();
        return PyErr_Format(PyExc_TypeError, "data must be a C-contiguous bytes-like "
                            "object, not %.100s", Py_TYPE(data)->tp_name);
    }
    if (view.len > (1 << 16)) {     /* big inputs: let other threads run */
        BCLPY_NOGIL(h = bcl_hash64(view.buf, (size_t)view.len, seed));
    } else {
        h = bcl_hash64(view.buf, (size_t)view.len, seed);
    }
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLongLong(h);
}

static PyObject *py_hash_u64_impl(PyObject *self, uint64_t x, uint64_t seed)
{
    return PyLong_FromUnsignedLongLong(bcl_hash_u64(x, seed));
}

/* The method tables, their argument parsing and the types (from the spec). */
#include "binding/generated/bclpy_msgpack_methods_clinic.h"
