/* hmbuffer_py.c -- pybcl._core.HashMapBuffer (core: bcl_hashmap_buffer.h,
 * one interface over fixed-size and bytes/str/object records).  Keys and
 * values are converted as HashMap's (to their bytes, or msgpack bytes for
 * bytes/str/object types) under the GIL, then handed to the core without it. */
#include "bclpy.h"

#include "hashmap_py.h"
#include "containers/hashmap/bcl_hashmap_buffer.h"
#include "binding/generated/hashmap.h"

typedef struct {
    PyObject_HEAD
    bcl_hm_buffer b;
    bcl_mp_writer kw, vw;     /* scratch: a serialized key's / value's bytes */
    bclpy_HashMap *map;       /* owned: the buffer must not outlive its map */
    bclpy_life life;       /* usable? (bclpy.h) */
} bclpy_HMBuf;

/* The sizes are at most 2**48 entries (the spec), beyond any segment: the
 * bound only keeps their byte counts from overflowing before the allocator
 * refuses them. */
static int hb_init_impl(bclpy_HMBuf *self, PyObject *map, long long qs, long long ms,
                        PyObject *grow_obj)
{
    int grow = 0;
    if (bclpy_init_once((PyObject *)self, &self->life) < 0)
        return -1;
    if (grow_obj && !PyBool_Check(grow_obj) &&
        !PyObject_TypeCheck(grow_obj, &PyBoolArrType_Type)) {
        PyErr_Format(PyExc_TypeError, "grow must be a bool, not %.100s",
                     Py_TYPE(grow_obj)->tp_name);
        return -1;
    }
    if (grow_obj && (grow = PyObject_IsTrue(grow_obj)) < 0)
        return -1;
    if (!PyObject_TypeCheck(map, bclpy_type_state(Py_TYPE(self))->types[BCLPY_T_HASHMAP])) {
        PyErr_Format(PyExc_TypeError, "HashMapBuffer: hashmap must be a pybcl.HashMap, "
                     "not %.100s", Py_TYPE(map)->tp_name);
        return -1;
    }
    bclpy_HashMap *hm = (bclpy_HashMap *)map;
    if (!bclpy_current(&hm->life)) {
        PyErr_SetString(bclpy_exc(BCLPY_E_ERROR), "HashMap is not initialised");
        return -1;
    }
    static const char *const names[] = { "queue_size", "message_size", "grow" };
    int64_t vals[] = { (int64_t)qs, (int64_t)ms, grow };
    if (bclpy_agree("HashMapBuffer()", names, vals, 3) < 0)
        return -1;
    bcl_status st;
    BCLPY_NOGIL(st = bcl_hm_buffer_create(&self->b, &hm->m, (size_t)qs, (size_t)ms, grow));
    if (bclpy_life_started(st, &self->life) < 0)
        return -1;
    Py_INCREF(map);
    self->map = hm;
    return 0;
}

/* The inboxes other ranks push into outlive this rank's handle (see
 * bcl_lifetime.h): freed once every rank has dropped the buffer, or only
 * its private memory where peers may still use them. */
static void hb_free_buried(void *obj, int storage)
{
    bcl_hm_buffer_destroy(obj, storage);
    free(obj);
}

static void hb_dealloc(bclpy_HMBuf *self)
{
    if (!bclpy_life_bury(&self->life, &self->b, sizeof self->b,
                         hb_free_buried) && self->life.live == 1)
        bcl_hm_buffer_destroy(&self->b, 0);   /* stale: private memory only */
    bcl_mp_writer_free(&self->kw);
    bcl_mp_writer_free(&self->vw);
    Py_XDECREF(self->map);
    bclpy_dealloc_end((PyObject *)self);
}

/* The buffer and its map must be usable (-1 with the exception). */
static int hb_live(bclpy_HMBuf *self)
{
    BCLPY_LIVE_OR(self, -1);
    BCLPY_LIVE_OR(self->map, -1);
    return 0;
}

/* 0 if key converts to the map's key type, else -1 with the TypeError. */
static int check_key(const bclpy_HashMap *hm, PyObject *key)
{
    bcl_mp_writer w;
    bcl_mp_writer_init(&w);
    int rc = bclpy_hm_key_bytes(hm, key, &w, "key");
    bcl_mp_writer_free(&w);
    return rc;
}

/* One entry; val NULL: a delta of 1. */
static PyObject *add_one(bclpy_HMBuf *self, PyObject *key, PyObject *val, int acc)
{
    bclpy_HashMap *hm = self->map;
    bcl_mp_writer_reset(&self->kw);
    bcl_mp_writer_reset(&self->vw);
    if (bclpy_hm_key_bytes(hm, key, &self->kw, "key") < 0)
        return NULL;
    PyObject *one = val ? NULL : PyLong_FromLong(1);
    int rc = bclpy_elem_serialize(&hm->vt, val ? val : one, &self->vw, acc ? "delta" : "value");
    Py_XDECREF(one);
    if (rc < 0)
        return NULL;
    CHECK(bcl_hm_buffer_add(&self->b, self->kw.buf, self->kw.len, self->vw.buf, self->vw.len,
                            acc));
    Py_RETURN_NONE;
}

/* A sequence of keys and one value per key (or, for a fixed-size value
 * type, one for all; NULL: deltas of 1).  Everything converts before
 * anything is buffered: a bad key or value raises and leaves the buffer as
 * it was. */
static PyObject *add_many(bclpy_HMBuf *self, PyObject *keys, PyObject *vals, int acc)
{
    bclpy_HashMap *hm = self->map;
    bclpy_hm_keys ks;
    PyArrayObject *va = NULL;
    size_t *voff = NULL, vstep = 0;
    const void *vd = NULL;
    bcl_mp_writer_reset(&self->vw);
    int rc = bclpy_hm_keys_of(hm, keys, &ks);
    if (rc == 0 && bclpy_elemtype_is_var(&hm->vt)) {
        rc = bclpy_hm_values_bytes(hm, vals, (Py_ssize_t)ks.k, &self->vw, &voff);
        vd = self->vw.buf;
    } else if (rc == 0) {
        PyObject *one = vals ? NULL : PyLong_FromLong(1);
        va = bclpy_values_for(vals ? vals : one, hm->vt.dtype, (npy_intp)ks.k,
                              acc ? "deltas" : "values", "keys");
        Py_XDECREF(one);
        rc = va ? 0 : -1;
        vd = va ? PyArray_DATA(va) : NULL;
        vstep = hm->m.val_size;
    }
    bcl_status st = BCL_OK;
    if (rc == 0)
        BCLPY_NOGIL(st = bcl_hm_buffer_add_many(&self->b, bclpy_hm_keys_data(&ks), ks.off,
                                                ks.k, vd, voff, vstep, acc));
    bclpy_hm_keys_free(&ks);
    PyMem_Free(voff);
    Py_XDECREF(va);
    if (rc < 0)
        return NULL;
    return st == BCL_OK ? Py_NewRef(Py_None) : bclpy_raise(st);
}

/* insert, accumulate and their _many forms, (key(s), value(s)) or
 * (key(s), delta(s)=1); accumulating needs a numeric value type. */
static PyObject *hb_add(bclpy_HMBuf *self, BCLPY_FASTARGS, const char *fname,
                        const char *const *names, int acc, int many)
{
    PyObject *a[2];
    if (bclpy_parse(fname, args, nargs, kwnames, names, acc ? 1 : 2, 2, a) < 0)
        return NULL;
    /* one key's TypeError first, closed buffer or not */
    bclpy_HashMap *hm = self->map;
    if (hm && !many && (hm->m.key_var || hm->m.val_var) && check_key(hm, a[0]) < 0)
        return NULL;
    if (hb_live(self) < 0)
        return NULL;
    if (acc && hm->m.num == BCL_HM_NUM_NONE)
        return bclpy_hm_not_numeric(hm, fname);
    return many ? add_many(self, a[0], a[1], acc) : add_one(self, a[0], a[1], acc);
}

/* Define `fn`, hb_add for one method: NAMES its name table. */
#define HB_ADD_METHOD(fn, NAMES, fname, acc, many)                              \
    static PyObject *fn(bclpy_HMBuf *self, BCLPY_FASTARGS)                       \
    {                                                                            \
        static const char *const names[] = NAMES;                               \
        return hb_add(self, args, nargs, kwnames, fname, names, acc, many);      \
    }
HB_ADD_METHOD(hb_insert, BCLPY_ARGS_HB_INSERT, "insert", 0, 0)
HB_ADD_METHOD(hb_accumulate, BCLPY_ARGS_HB_ACCUMULATE, "accumulate", 1, 0)
HB_ADD_METHOD(hb_insert_many, BCLPY_ARGS_HB_INSERT_MANY, "insert_many", 0, 1)
HB_ADD_METHOD(hb_accumulate_many, BCLPY_ARGS_HB_ACCUMULATE_MANY, "accumulate_many", 1, 1)

/* flush() agrees first (the same step as every collective; the spec's
 * `collective:` joins a rank whose buffer is not usable as failed): a rank
 * in another collective, or flushing another buffer, makes all raise here
 * instead of feeding garbage to the flush's own reductions. */
static PyObject *hb_flush_impl(bclpy_HMBuf *self)
{
    static const char *const names[] = { "#buffer" };
    int64_t vals[] = { (int64_t)(bcl_hm_buffer_digest(&self->b) >> 1) };
    if (bclpy_agree("HashMapBuffer.flush()", names, vals, 1) < 0)
        return NULL;
    CHECK_NOGIL(bcl_hm_buffer_flush(&self->b));
    Py_RETURN_NONE;
}

/* close(): entries not yet flushed are dropped with the buffer (flush()
 * first); every rank is here, no push is coming, the inboxes go too. */
static void hb_destroy_all(bcl_hm_buffer *b) { bcl_hm_buffer_destroy(b, 1); }

BCLPY_CLOSE_METHOD(hb_close, bclpy_HMBuf, hb_destroy_all, b)

static PyObject *hb_repr(bclpy_HMBuf *self)
{
    if (!bclpy_current(&self->life))
        return PyUnicode_FromString("<pybcl.HashMapBuffer (not created)>");
    return PyUnicode_FromFormat("pybcl.HashMapBuffer(hashmap=%R, queue_size=%zu, "
                                "message_size=%zu, grow=%s)", (PyObject *)self->map,
                                self->b.queue_size, self->b.message_size,
                                self->b.grow ? "True" : "False");
}

/* The method tables, their argument parsing and the types (from the spec). */
#include "binding/generated/hb_methods_clinic.h"
