/*
 * hashmap_many_py.c -- HashMap.insert_many / find_many / accumulate_many.
 *
 * Fixed-size keys and values go to the core's pipelined batches as NumPy
 * arrays; variable-length ones (any sequence) run the scalar protocol key
 * by key.
 */
#include "bclpy.h"

#include <string.h>

#include "hashmap_py.h"
#include "binding/generated/hashmap.h"

static int is_fixed(bclpy_HashMap *self)
{
    return !bclpy_elemtype_is_var(&self->kt) && !bclpy_elemtype_is_var(&self->vt);
}

/* The core's batch of fixed-size pairs: bcl_hm_insert_many or
 * bcl_hm_accumulate_many. */
typedef bcl_status (*batch_fn)(const bcl_hashmap *m, const void *keys, const void *vals,
                               size_t k, size_t *n_full);

/* Run `fn` over the keys ka and values va (as many), the GIL released;
 * ContainerFull when some keys found no free bucket. */
static PyObject *run_batch(bclpy_HashMap *self, batch_fn fn, PyArrayObject *ka,
                           PyArrayObject *va)
{
    size_t n_full, k = (size_t)PyArray_SIZE(ka);
    CHECK_NOGIL(fn(&self->m, PyArray_DATA(ka), PyArray_DATA(va), k, &n_full));
    if (n_full)
        return PyErr_Format(bclpy_exc(BCLPY_E_CONTAINERFULL), "hash map full: %zu of %zu "
                            "keys found no free bucket (the others were stored); "
                            "resize() makes room",
                            n_full, k);
    Py_RETURN_NONE;
}

/* The start of every batch method: refused inside a modify() fn on this
 * map, then a usable map.  -1 with the exception. */
static int batch_usable(bclpy_HashMap *self, const char *fname)
{
    if (bclpy_hm_refuse_in_modify(self, fname) < 0)
        return -1;
    BCLPY_LIVE_OR(self, -1);
    return 0;
}

/* ---- insert_many ------------------------------------------------------------ */

/* Keys or values of variable length: every key and value converts first
 * (an error there stores nothing), then the core stores the keys in order
 * and stops at the first failure, which says which went in: a pybcl.Error
 * (SegmentFull, ContainerFull) is re-raised, same type, with keys[:i] named
 * as stored. */
static PyObject *insert_many_seq(bclpy_HashMap *self, const bclpy_hm_keys *ks,
                                 PyObject *values)
{
    bcl_mp_writer vw;
    bcl_mp_writer_init(&vw);
    size_t *voff = NULL, stored = 0;
    bcl_status st = BCL_OK;
    int rc = bclpy_hm_values_bytes(self, values, (Py_ssize_t)ks->k, &vw, &voff);
    if (rc == 0)
        BCLPY_NOGIL(st = bcl_hm_insert_seq(&self->m, bclpy_hm_keys_data(ks), ks->off, vw.buf,
                                           voff, ks->k, &stored));
    if (rc == 0 && st != BCL_OK) {
        bclpy_raise(st);
        if (stored)
            bclpy_error_from(NULL, "insert_many: keys[:%zu] were stored, keys[%zu:] of %zu "
                             "were not", stored, stored, ks->k);
    }
    bcl_mp_writer_free(&vw);
    PyMem_Free(voff);
    return rc == 0 && st == BCL_OK ? Py_NewRef(Py_None) : NULL;
}

PyObject *bclpy_hm_insert_many_impl(bclpy_HashMap *self, PyObject *keys, PyObject *values,
                                    int promise)
{
    bclpy_hm_keys ks;
    PyArrayObject *va = NULL;
    PyObject *r = NULL;
    if (batch_usable(self, "insert_many") < 0)
        return NULL;
    if (bclpy_hm_keys_of(self, keys, &ks) == 0 && !is_fixed(self))
        r = insert_many_seq(self, &ks, values);
    else if (ks.arr && (va = bclpy_values_for(values, self->vt.dtype, (npy_intp)ks.k,
                                              "values", "keys")))
        r = run_batch(self, promise & BCL_HM_P_LOCAL ? bcl_hm_insert_many_local
                                                     : bcl_hm_insert_many, ks.arr, va);
    bclpy_hm_keys_free(&ks);
    Py_XDECREF(va);
    return r;
}

/* ---- find_many ---------------------------------------------------------------- */

static PyObject *find_many_var(bclpy_HashMap *self, PyObject *keys, int promise)
{
    bclpy_hm_keys ks;
    bcl_mp_writer vw;
    bcl_mp_writer_init(&vw);
    size_t *voff = NULL;
    PyArrayObject *found = NULL;
    PyObject *vals = NULL, *r = NULL;
    bcl_status st;
    if (bclpy_hm_keys_of(self, keys, &ks) < 0)
        goto out;
    npy_intp k = (npy_intp)ks.k;
    if (!(voff = PyMem_Malloc((ks.k + 1) * sizeof *voff)) ||
        !(found = (PyArrayObject *)PyArray_ZEROS(1, &k, NPY_BOOL, 0)) ||
        !(vals = PyList_New(k))) {
        if (!voff)
            PyErr_NoMemory();
        goto out;
    }
    unsigned char *f = PyArray_DATA(found);
    BCLPY_NOGIL(st = bcl_hm_find_seq(&self->m, bclpy_hm_keys_data(&ks), ks.off, ks.k,
                                     promise, &vw, voff, f));
    if (st != BCL_OK) {
        bclpy_raise(st);
        goto out;
    }
    for (npy_intp i = 0; i < k; i++) {
        PyObject *v = f[i] ? bclpy_elem_decode(&self->vt, vw.buf + voff[i],
                                                voff[i + 1] - voff[i])
                           : Py_NewRef(Py_None);
        if (!v)
            goto out;
        PyList_SET_ITEM(vals, i, v);
    }
    r = PyTuple_Pack(2, vals, (PyObject *)found);
out:
    bclpy_hm_keys_free(&ks);
    bcl_mp_writer_free(&vw);
    PyMem_Free(voff);
    Py_XDECREF(vals);
    Py_XDECREF(found);
    return r;
}

/* find_many of fixed-size keys: one-sided (bcl_hm_find_many under
 * `promise`), or collective (bcl_hm_find_exchange, after the ranks agree on
 * the map). */
static PyObject *find_many_fixed(bclpy_HashMap *self, PyObject *keys, int promise,
                                 int collective)
{
    static const char *const names[] = { "map" };
    PyArrayObject *ka = bclpy_hm_array(keys, self->kt.dtype, "keys");
    if (!ka)
        return NULL;
    npy_intp dims[1] = { PyArray_SIZE(ka) };
    Py_INCREF(self->vt.dtype);
    PyArrayObject *vals = (PyArrayObject *)PyArray_Zeros(1, dims, self->vt.dtype, 0);
    PyArrayObject *found = (PyArrayObject *)PyArray_ZEROS(1, dims, NPY_BOOL, 0);
    PyObject *r = NULL;
    int64_t seq = (int64_t)self->life.seq;
    if (vals && found &&
        (!collective || bclpy_agree("HashMap.find_many", names, &seq, 1) == 0)) {
        bcl_status st;
        Py_BEGIN_ALLOW_THREADS
        st = collective ? bcl_hm_find_exchange(&self->m, PyArray_DATA(ka), (size_t)dims[0],
                                               PyArray_DATA(vals), PyArray_DATA(found))
                        : bcl_hm_find_many(&self->m, PyArray_DATA(ka), (size_t)dims[0],
                                           PyArray_DATA(vals), PyArray_DATA(found), promise);
        Py_END_ALLOW_THREADS
        if (st != BCL_OK)
            bclpy_raise(st);
        else
            r = PyTuple_Pack(2, (PyObject *)vals, (PyObject *)found);
    }
    Py_DECREF(ka);
    Py_XDECREF(vals);
    Py_XDECREF(found);
    return r;
}

/* find_many(keys, collective=True): every rank calls it.  Every failure
 * before the agreement joins it as failed, so that a rank whose keys do not
 * convert raises on every rank instead of leaving its peers in the exchange. */
static PyObject *find_many_collective(bclpy_HashMap *self, PyObject *keys)
{
    PyObject *r = NULL;
    bclpy_collective_begin();
    if (!is_fixed(self))
        PyErr_SetString(PyExc_TypeError, "find_many: collective=True needs fixed-size key "
                        "and value types");
    else
        r = find_many_fixed(self, keys, 0, 1);
    bclpy_collective_end(r ? 0 : -1, "HashMap.find_many");
    return r;
}

PyObject *bclpy_hm_find_many_impl(bclpy_HashMap *self, PyObject *keys, int promise,
                                  int collective)
{
    if (batch_usable(self, "find_many") < 0)
        return NULL;
    if (collective)
        return find_many_collective(self, keys);
    if (!is_fixed(self))
        return find_many_var(self, keys, promise);
    return find_many_fixed(self, keys, promise, 0);
}

/* ---- accumulate_many ------------------------------------------------------------ */

/* Keys of variable length: key by key in the core, without the GIL. */
static PyObject *accumulate_many_seq(bclpy_HashMap *self, const bclpy_hm_keys *ks,
                                     PyArrayObject *da)
{
    bcl_status st;
    BCLPY_NOGIL(st = bcl_hm_accumulate_seq(&self->m, bclpy_hm_keys_data(ks), ks->off, ks->k,
                                           PyArray_DATA(da), self->m.val_size));
    return st == BCL_OK ? Py_NewRef(Py_None) : bclpy_raise(st);
}

PyObject *bclpy_hm_accumulate_many_impl(bclpy_HashMap *self, PyObject *keys, PyObject *deltas)
{
    bclpy_hm_keys ks;
    PyArrayObject *da = NULL;
    PyObject *r = NULL;
    if (batch_usable(self, "accumulate_many") < 0)
        return NULL;
    if (self->m.num == BCL_HM_NUM_NONE)
        return bclpy_hm_not_numeric(self, "accumulate_many");
    PyObject *one = deltas ? NULL : PyLong_FromLong(1);
    if (bclpy_hm_keys_of(self, keys, &ks) == 0 &&
        (da = bclpy_values_for(deltas ? deltas : one, self->vt.dtype, (npy_intp)ks.k,
                               "deltas", "keys")))
        r = ks.arr ? run_batch(self, bcl_hm_accumulate_many, ks.arr, da)
                   : accumulate_many_seq(self, &ks, da);
    bclpy_hm_keys_free(&ks);
    Py_XDECREF(da);
    Py_XDECREF(one);
    return r;
}

/* local_arrays(): this rank's entries as two NumPy arrays, copied from the
 * block in one pass (local_items() builds a tuple per entry).  The arrays
 * are made as long as the block, which no rank can overfill, and cut to
 * the entries found: one read of the block instead of a count first (the
 * block is most of the map's memory; untouched tails cost no pages). */
PyObject *bclpy_hm_local_arrays_impl(bclpy_HashMap *self)
{
    if (bclpy_elemtype_is_var(&self->kt) || bclpy_elemtype_is_var(&self->vt))
        return PyErr_Format(PyExc_TypeError, "local_arrays() needs fixed-size key and value "
                            "types (NumPy dtypes); use local_items()");
    uint64_t slots = bcl_hm_local_slots(&self->m);
    PyObject *k, *v;
    if (bclpy_hm_new_arrays(self, (npy_intp)slots, &k, &v) < 0)
        return NULL;
    uint64_t got;
    BCLPY_NOGIL(got = bcl_hm_local_copy(&self->m, PyArray_DATA((PyArrayObject *)k),
                                        PyArray_DATA((PyArrayObject *)v), slots));
    return bclpy_pair(bclpy_shrink(k, (npy_intp)got), bclpy_shrink(v, (npy_intp)got));
}
