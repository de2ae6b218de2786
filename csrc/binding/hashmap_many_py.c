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

/* insert_many of variable-length types stores the keys in order and stops at
 * the first failure: say which went in.  A pybcl.Error (SegmentFull,
 * ContainerFull) is re-raised, same type, with keys[:i] named as stored;
 * conversion errors (raised before anything of key i was written) too. */
static void note_stored(Py_ssize_t i, Py_ssize_t k)
{
    if (i > 0 && PyErr_Occurred())
        bclpy_error_from(NULL, "insert_many: keys[:%zd] were stored, keys[%zd:] of %zd "
                         "were not", i, i, k);
}

static PyObject *insert_many_var(bclpy_HashMap *self, PyObject *keys, PyObject *values)
{
    PyObject *ks = PySequence_Fast(keys, "insert_many: keys must be a sequence");
    PyObject *vs = ks ? PySequence_Fast(values, "insert_many: values must be a sequence")
                      : NULL;
    PyObject *r = NULL;
    Py_ssize_t i = 0, k = 0;     /* keys[:i] are stored (note_stored) */
    if (!vs)
        goto out;
    k = PySequence_Fast_GET_SIZE(ks);
    if (PySequence_Fast_GET_SIZE(vs) != k) {
        PyErr_Format(PyExc_ValueError, "insert_many: %zd values for %zd keys",
                     PySequence_Fast_GET_SIZE(vs), k);
        goto out;
    }
    for (i = 0; i < k; i++) {
        bcl_hm_key key;
        if (bclpy_hm_key(self, PySequence_Fast_GET_ITEM(ks, i), &self->kw, &key) < 0 ||
            bclpy_hm_value(self, PySequence_Fast_GET_ITEM(vs, i), &self->vw, "value") < 0)
            goto out;
        bcl_status st = bcl_hm_insert(&self->m, &key, self->vw.buf, self->vw.len, 0);
        if (st != BCL_OK) {
            bclpy_raise(st);
            goto out;
        }
    }
    r = Py_None;
    Py_INCREF(r);
out:
    if (!r && vs)
        note_stored(i, k);
    Py_XDECREF(ks);
    Py_XDECREF(vs);
    return r;
}

PyObject *bclpy_hm_insert_many_impl(bclpy_HashMap *self, PyObject *keys, PyObject *values,
                                    int promise)
{
    if (batch_usable(self, "insert_many") < 0)
        return NULL;
    if (!is_fixed(self))
        return insert_many_var(self, keys, values);
    PyArrayObject *ka = bclpy_hm_array(keys, self->kt.dtype, "keys");
    PyArrayObject *va = ka ? bclpy_values_for(values, self->vt.dtype, PyArray_SIZE(ka), "values", "keys")
                           : NULL;
    PyObject *r = NULL;
    if (va)
        r = run_batch(self, promise & BCL_HM_P_LOCAL ? bcl_hm_insert_many_local
                                                     : bcl_hm_insert_many, ka, va);
    Py_XDECREF(ka);
    Py_XDECREF(va);
    return r;
}

/* ---- find_many ---------------------------------------------------------------- */

static PyObject *find_many_var(bclpy_HashMap *self, PyObject *keys, int promise)
{
    PyObject *ks = PySequence_Fast(keys, "find_many: keys must be a sequence");
    if (!ks)
        return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(ks);
    npy_intp dims[1] = { k };
    PyObject *vals = PyList_New(k);
    PyArrayObject *found = (PyArrayObject *)PyArray_ZEROS(1, dims, NPY_BOOL, 0);
    PyObject *r = NULL;
    if (!vals || !found)
        goto out;
    for (Py_ssize_t i = 0; i < k; i++) {
        bcl_hm_key key;
        int f;
        if (bclpy_hm_key(self, PySequence_Fast_GET_ITEM(ks, i), &self->kw, &key) < 0)
            goto out;
        bcl_mp_writer_reset(&self->vw);
        bcl_status st = bcl_hm_find(&self->m, &key, &self->vw, &f, promise);
        if (st != BCL_OK) {
            bclpy_raise(st);
            goto out;
        }
        PyObject *v = f ? bclpy_elem_decode(&self->vt, self->vw.buf, self->vw.len)
                        : (Py_INCREF(Py_None), Py_None);
        if (!v)
            goto out;
        PyList_SET_ITEM(vals, i, v);
        ((npy_bool *)PyArray_DATA(found))[i] = (npy_bool)f;
    }
    r = PyTuple_Pack(2, vals, (PyObject *)found);
out:
    Py_DECREF(ks);
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

static PyObject *accumulate_many_var(bclpy_HashMap *self, PyObject *keys, PyArrayObject *da)
{
    PyObject *ks = PySequence_Fast(keys, "accumulate_many: keys must be a sequence");
    if (!ks)
        return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(ks);
    const char *d = PyArray_DATA(da);
    int single = PyArray_SIZE(da) == 1 && k != 1;
    if (!single && PyArray_SIZE(da) != k) {
        Py_DECREF(ks);
        return PyErr_Format(PyExc_ValueError, "accumulate_many: %zd deltas for %zd keys",
                            (Py_ssize_t)PyArray_SIZE(da), k);
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        bcl_hm_key key;
        if (bclpy_hm_key(self, PySequence_Fast_GET_ITEM(ks, i), &self->kw, &key) < 0) {
            Py_DECREF(ks);
            return NULL;
        }
        bcl_status st = bcl_hm_accumulate(&self->m, &key,
                                          d + (single ? 0 : i) * self->m.val_size);
        if (st != BCL_OK) {
            Py_DECREF(ks);
            return bclpy_raise(st);
        }
    }
    Py_DECREF(ks);
    Py_RETURN_NONE;
}

PyObject *bclpy_hm_accumulate_many_impl(bclpy_HashMap *self, PyObject *keys, PyObject *deltas)
{
    if (batch_usable(self, "accumulate_many") < 0)
        return NULL;
    if (self->m.num == BCL_HM_NUM_NONE)
        return bclpy_hm_not_numeric(self, "accumulate_many");
    PyObject *one = deltas ? NULL : PyLong_FromLong(1);
    if (!deltas)
        deltas = one;
    PyObject *r = NULL;
    if (bclpy_elemtype_is_var(&self->kt)) {
        PyArrayObject *da = bclpy_to_array(deltas, self->vt.dtype, 0, 1, "deltas");
        if (da) {
            r = accumulate_many_var(self, keys, da);
            Py_DECREF(da);
        }
        Py_XDECREF(one);
        return r;
    }
    PyArrayObject *ka = bclpy_hm_array(keys, self->kt.dtype, "keys");
    PyArrayObject *da = ka ? bclpy_values_for(deltas, self->vt.dtype, PyArray_SIZE(ka), "deltas", "keys")
                           : NULL;
    Py_XDECREF(one);
    if (da)
        r = run_batch(self, bcl_hm_accumulate_many, ka, da);
    Py_XDECREF(ka);
    Py_XDECREF(da);
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
