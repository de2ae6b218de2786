/*
 * hashmap_py.c -- pybcl._core.HashMap: converts Python keys/values to slot
 * bytes (elemtype.h) and calls the core (csrc/containers/hashmap/bcl_hashmap.h).
 *
 * Hot methods use METH_FASTCALL; each keeps two scratch writers on the
 * object (key bytes, value bytes) so a call allocates nothing but its
 * result.  modify() runs Python code between lock and commit, so it uses
 * writers of its own (the callback may use the map).
 */
#include "bclpy.h"

#include <string.h>

#include "elemtype.h"
#include "hashmap_py.h"

#include "comm/bcl_agree.h"
#include "binding/generated/hashmap.h"
#include "binding/generated/io.h"
#include "io_py.h"

/* ---- construction -------------------------------------------------------- */

/* The value dtype's arithmetic, for accumulate (the map decides how it adds). */
static bcl_hm_num value_num(const bclpy_elemtype *t)
{
    if (t->kind != BCLPY_FIXED || PyDataType_ISBYTESWAPPED(t->dtype))
        return BCL_HM_NUM_NONE;
    switch (t->dtype->kind) {
    case 'i': return BCL_HM_NUM_INT;
    case 'u': return BCL_HM_NUM_UINT;
    case 'f': return BCL_HM_NUM_FLOAT;
    default: return BCL_HM_NUM_NONE;
    }
}

/* capacity <= 2^48 (the spec): already far past any segment, the bound only
 * keeps the size arithmetic below from overflowing. */
static int hm_init_impl(bclpy_HashMap *self, long long capacity, PyObject *key_type,
                        PyObject *value_type)
{
    if (bclpy_init_once((PyObject *)self, &self->life) < 0)
        return -1;
    if (bclpy_elemtype_init(&self->kt, key_type, "int64", "key_type") < 0 ||
        bclpy_elemtype_init(&self->vt, value_type, "int64", "value_type") < 0 ||
        bclpy_ensure_init() < 0)
        return -1;          /* dealloc clears the element types */
    static const char *const names[] = { "capacity", "#key_type", "#value_type" };
    int64_t vals[] = { capacity, bclpy_elemtype_digest(&self->kt),
                       bclpy_elemtype_digest(&self->vt) };
    if (bclpy_agree("HashMap()", names, vals, 3) < 0)
        return -1;
    bcl_hm_num num = value_num(&self->vt);
    size_t ks = bclpy_elemtype_is_var(&self->kt) ? 0 : self->kt.slot_size;
    size_t vs = bclpy_elemtype_is_var(&self->vt) ? 0 : self->vt.slot_size;
    bcl_status st;
    BCLPY_NOGIL(st = bcl_hm_create(&self->m, (uint64_t)capacity, ks, vs, num));
    return bclpy_life_started(st, &self->life);
}

BCLPY_FREE_BURIED(hm_free_buried, bcl_hm_destroy)

static void hm_dealloc(bclpy_HashMap *self)
{
    /* Peers may still use the table: bury it, never free it here. */
    bclpy_life_dealloc(&self->life, &self->m, sizeof self->m,
                       hm_free_buried, self->m.base);
    bclpy_elemtype_clear(&self->kt);
    bclpy_elemtype_clear(&self->vt);
    bcl_mp_writer_free(&self->kw);
    bcl_mp_writer_free(&self->vw);
    bclpy_dealloc_end((PyObject *)self);
}

/* ---- insert / find ------------------------------------------------------- */

static PyObject *do_insert(bclpy_HashMap *self, PyObject *key, PyObject *value, int promise)
{
    bcl_hm_key k;
    if (bclpy_hm_key(self, key, &self->kw, &k) < 0 ||
        bclpy_hm_value(self, value, &self->vw, "value") < 0)
        return NULL;
    CHECK(bcl_hm_insert(&self->m, &k, self->vw.buf, self->vw.len, promise));
    Py_RETURN_NONE;
}

static PyObject *hm_insert_impl(bclpy_HashMap *self, PyObject *key, PyObject *value,
                                int promise)
{
    return do_insert(self, key, value, promise);
}

/* 1: found (*value set), 0: absent, -1: error. */
static int do_find(bclpy_HashMap *self, PyObject *key, int promise, PyObject **value)
{
    bcl_hm_key k;
    int found;
    if (bclpy_hm_key(self, key, &self->kw, &k) < 0)
        return -1;
    bcl_mp_writer_reset(&self->vw);
    bcl_status st = bcl_hm_find(&self->m, &k, &self->vw, &found, promise);
    if (st != BCL_OK)
        return bclpy_raise(st), -1;
    if (!found || !value)
        return found;
    *value = bclpy_elem_decode(&self->vt, self->vw.buf, self->vw.len);
    return *value ? 1 : -1;
}

/* find()'s and get()'s answer to do_find's r: the value found, else `dflt`
 * (None when not given). */
static PyObject *found_or(int r, PyObject *v, PyObject *dflt)
{
    if (r)
        return r < 0 ? NULL : v;
    return Py_NewRef(dflt ? dflt : Py_None);
}

static PyObject *hm_find_impl(bclpy_HashMap *self, PyObject *key, PyObject *default_,
                              int promise)
{
    PyObject *v = NULL;
    int r = do_find(self, key, promise, &v);
    return found_or(r, v, default_);
}

static PyObject *hm_get_impl(bclpy_HashMap *self, PyObject *key, PyObject *default_)
{
    return hm_find_impl(self, key, default_, 0);
}

static PyObject *hm_subscript(bclpy_HashMap *self, PyObject *key)
{
    PyObject *v = NULL;
    BCLPY_LIVE_OR(self, NULL);
    int r = do_find(self, key, 0, &v);
    if (r == 0)
        PyErr_SetObject(PyExc_KeyError, key);
    return r > 0 ? v : NULL;
}

static int hm_ass_subscript(bclpy_HashMap *self, PyObject *key, PyObject *value)
{
    BCLPY_LIVE_OR(self, -1);
    if (!value)
        return bclpy_hm_delitem(self, key);
    PyObject *r = do_insert(self, key, value, 0);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

static int hm_contains(bclpy_HashMap *self, PyObject *key)
{
    BCLPY_LIVE_OR(self, -1);
    return do_find(self, key, 0, NULL);
}

/* ---- accumulate / modify ------------------------------------------------- */

static PyObject *hm_accumulate_impl(bclpy_HashMap *self, PyObject *key, PyObject *delta,
                                    int promise)
{
    bcl_hm_key k;
    unsigned char d[8];
    if (self->m.num == BCL_HM_NUM_NONE)
        return bclpy_hm_not_numeric(self, "accumulate");
    if (bclpy_hm_key(self, key, &self->kw, &k) < 0)
        return NULL;
    PyObject *one = delta ? NULL : PyLong_FromLong(1);
    int rc = bclpy_to_bytes(delta ? delta : one, self->vt.dtype, d, "delta");
    Py_XDECREF(one);
    if (rc < 0)
        return NULL;
    CHECK(bcl_hm_accumulate(&self->m, &k, d));
    Py_RETURN_NONE;
}

static PyObject *hm_modify_impl(bclpy_HashMap *self, PyObject *key, PyObject *fn)
{
    bcl_mp_writer kw, vw;
    bcl_mp_writer_init(&kw);
    bcl_mp_writer_init(&vw);
    bcl_hm_key k;
    bcl_hm_lock lk;
    int found;
    PyObject *old = NULL, *new = NULL, *result = NULL;
    if (bclpy_hm_key(self, key, &kw, &k) < 0)
        goto out;
    bcl_status st = bcl_hm_lock_key(&self->m, &k, &lk, &vw, &found);
    if (st != BCL_OK) {
        bclpy_raise(st);
        goto out;
    }
    /* The bucket is ours until commit/abort: every path below ends it. */
    old = found ? bclpy_elem_decode(&self->vt, vw.buf, vw.len) : (Py_INCREF(Py_None), Py_None);
    int outer_depth = self->modify_depth;
    unsigned long outer_thread = self->modify_thread;
    self->modify_depth = outer_depth + 1;
    self->modify_thread = PyThread_get_thread_ident();
    bcl_agree_forbid(1);           /* no collective while we hold the bucket */
    new = old ? PyObject_CallOneArg(fn, old) : NULL;
    bcl_agree_forbid(0);
    self->modify_depth = outer_depth;
    self->modify_thread = outer_thread;
    if (new && bclpy_hm_value(self, new, &vw, "fn(value)") < 0)
        Py_CLEAR(new);
    if (!new) {
        bcl_hm_abort(&self->m, &lk);
        goto out;
    }
    st = bcl_hm_commit(&self->m, &lk, &k, vw.buf, vw.len);
    if (st != BCL_OK) {
        bclpy_raise(st);
        goto out;
    }
    result = new;
    new = NULL;
out:
    Py_XDECREF(old);
    Py_XDECREF(new);
    bcl_mp_writer_free(&kw);
    bcl_mp_writer_free(&vw);
    return result;
}

/* ---- whole table ---------------------------------------------------------- */

/* The map's identity, the same on every rank for one map (its blocks'
 * offsets): the collective views agree on it, so ranks calling them on
 * different maps raise instead of mixing the maps. */
static int64_t map_digest(const bclpy_HashMap *self)
{
    uint64_t h = 1469598103934665603ull;
    for (int r = 0; r < bcl_rt.nprocs; r++)
        h = (h ^ self->m.base[r]) * 1099511628211ull;
    return (int64_t)(h >> 1);
}

/* Flush, then agree on (`what`, this map) as a barrier. */
static int agree_view(bclpy_HashMap *self, const char *what)
{
    static const char *const names[] = { "#map" };
    int64_t vals[] = { map_digest(self) };
    return bclpy_barrier_agree(what, names, vals, 1);
}

/* size(), len(m): collective and agreement-checked (a subset raises), each
 * under its own name (size(): generated/hm_methods_clinic.h). */
static PyObject *size_as(bclpy_HashMap *self, const char *what)
{
    uint64_t n;
    bcl_status st;
    if (agree_view(self, what) < 0)
        return NULL;
    BCLPY_NOGIL(st = bcl_hm_size(&self->m, &n));
    CHECK(st);
    return PyLong_FromUnsignedLongLong(n);
}

static PyObject *hm_size_impl(bclpy_HashMap *self)
{
    return size_as(self, "HashMap.size()");
}

static Py_ssize_t hm_length(bclpy_HashMap *self)
{
    bclpy_collective_begin();
    PyObject *n = BCLPY_USABLE(self) < 0 ? NULL : size_as(self, "len(HashMap)");
    bclpy_collective_end(n ? 0 : -1, "len(HashMap)");
    Py_ssize_t r = n ? PyLong_AsSsize_t(n) : -1;
    Py_XDECREF(n);
    return r;
}

/* _collective_view(what): the first step of the Python-level views
 * (items(), keys(), values(), iter()): flush, then agree on (what, map). */
static PyObject *hm_collective_view_impl(bclpy_HashMap *self, const char *what)
{
    bclpy_collective_begin();
    int rc = BCLPY_USABLE(self);
    if (rc == 0)
        rc = agree_view(self, what);
    bclpy_collective_end(rc, what);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

typedef struct { bclpy_HashMap *self; PyObject *list; } items_ctx;

static PyObject *slot_to_py(const bclpy_elemtype *t, const void *slot)
{
    return bclpy_elem_load(t, slot);
}

static int add_item(void *vctx, const void *key_slot, const void *val_slot)
{
    items_ctx *c = vctx;
    PyObject *k = bclpy_key_load(&c->self->kt, key_slot);
    PyObject *v = k ? slot_to_py(&c->self->vt, val_slot) : NULL;
    PyObject *t = v ? PyTuple_Pack(2, k, v) : NULL;
    Py_XDECREF(k);
    Py_XDECREF(v);
    if (!t || PyList_Append(c->list, t) < 0) {
        Py_XDECREF(t);
        Py_CLEAR(c->list);
        return 1;
    }
    Py_DECREF(t);
    return 0;
}

static PyObject *hm_local_items_impl(bclpy_HashMap *self)
{
    items_ctx c = { self, PyList_New(0) };
    if (!c.list)
        return NULL;
    bcl_hm_local_scan(&self->m, add_item, &c);
    return c.list;
}

/* Collective: a rank whose new_capacity does not convert still joins the
 * agreement (the generated wrapper converts it inside the collective). */
static PyObject *hm_resize_impl(bclpy_HashMap *self, long long n)
{
    static const char *const names[] = { "new_capacity", "#map" };
    int64_t vals[] = { n, map_digest(self) };
    if (bclpy_agree("HashMap.resize()", names, vals, 2) < 0)
        return NULL;
    CHECK_NOGIL(bcl_hm_resize(&self->m, (uint64_t)n));
    Py_RETURN_NONE;
}

static PyObject *hm_owner_impl(bclpy_HashMap *self, PyObject *key)
{
    bcl_hm_key k;
    if (bclpy_hm_key(self, key, &self->kw, &k) < 0)
        return NULL;
    return PyLong_FromLong(bcl_hm_owner(&self->m, &k));
}

static PyObject *hm_repr(bclpy_HashMap *self)
{
    if (!self->life.live)
        return PyUnicode_FromString("<pybcl.HashMap (not created)>");
    PyObject *kr = bclpy_elemtype_repr(&self->kt), *vr = bclpy_elemtype_repr(&self->vt);
    PyObject *r = kr && vr
        ? PyUnicode_FromFormat("pybcl.HashMap(capacity=%llu, key_type=%U, value_type=%U)",
                               (unsigned long long)bcl_hm_capacity(&self->m), kr, vr)
        : NULL;
    Py_XDECREF(kr);
    Py_XDECREF(vr);
    return r;
}

int bclpy_hm_io_target(PyObject *self, bcl_sv_target *t)
{
    bclpy_HashMap *m = (bclpy_HashMap *)self;
    BCLPY_LIVE_OR(m, -1);
    t->kind = BCL_SV_HASHMAP;
    t->hm = &m->m;
    return 0;
}

BCLPY_SAVE_METHOD(hm_save, bclpy_HashMap, bclpy_hm_io_target)

BCLPY_CLOSE_METHOD(hm_close, bclpy_HashMap, bcl_hm_destroy, m)

/* The method tables, their argument parsing and the types (from the spec). */
#include "binding/generated/hm_methods_clinic.h"
