/* hashmap_values_py.c -- HashMap.local_histogram() and local_select(): this
 * rank's integer values read in place by the core (bcl_hashmap_values.c),
 * one pass over the block, no copy of it and no object per entry. */
#include "hashmap_py.h"

#include "binding/generated/hashmap.h"
#include "containers/hashmap/bcl_hashmap_compact.h"

/* The values must be integers: TypeError naming the method otherwise. */
static int integer_values(bclpy_HashMap *self, const char *method)
{
    if (!bclpy_elemtype_is_var(&self->kt) && !bclpy_elemtype_is_var(&self->vt) &&
        PyDataType_ISINTEGER(self->vt.dtype))
        return 0;
    PyErr_Format(PyExc_TypeError, "%s() needs an integer value type", method);
    return -1;
}

#define HIST_GUESS 4096      /* a first histogram's length: counts are mostly small */

PyObject *bclpy_hm_local_histogram_impl(bclpy_HashMap *self, long long every)
{
    if (integer_values(self, "local_histogram") < 0)
        return NULL;
    int64_t lo = 0, hi = -1;
    uint64_t n = 0, len = HIST_GUESS;
    PyObject *h = bclpy_new_1d((npy_intp)len, NPY_INT64);
    for (int pass = 0; h; pass++) {
        int64_t *d = PyArray_DATA((PyArrayObject *)h);
        memset(d, 0, (size_t)len * sizeof *d);
        bcl_status st;
        BCLPY_NOGIL(st = bcl_hm_local_value_hist(&self->m, (uint64_t)every, d, len, &lo, &hi, &n));
        if (st != BCL_OK) {
            Py_DECREF(h);
            CHECK(st);
        }
        if (n && lo < 0) {
            Py_DECREF(h);
            return PyErr_Format(PyExc_ValueError, "local_histogram(): this rank holds a "
                                "negative value (%lld)", (long long)lo);
        }
        if (n && hi >= (int64_t)1 << 40) {
            Py_DECREF(h);
            return PyErr_Format(PyExc_ValueError, "local_histogram(): this rank holds the "
                                "value %lld, too large for a histogram", (long long)hi);
        }
        if (!n || (uint64_t)hi < len)     /* all counted: cut to the largest value */
            return bclpy_shrink(h, n ? (npy_intp)hi + 1 : 0);
        Py_DECREF(h);                      /* once more, long enough */
        len = (uint64_t)hi + 1;
        h = bclpy_new_1d((npy_intp)len, NPY_INT64);
    }
    return NULL;
}

PyObject *bclpy_hm_local_select_impl(bclpy_HashMap *self, long long at_least)
{
    if (integer_values(self, "local_select") < 0)
        return NULL;
    uint64_t n = 0, got = 0;
    bcl_status st;
    BCLPY_NOGIL(st = bcl_hm_local_select(&self->m, (int64_t)at_least, NULL, NULL, 0, &n));
    CHECK(st);
    PyObject *k, *v;
    if (bclpy_hm_new_arrays(self, (npy_intp)n, &k, &v) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    st = bcl_hm_local_select(&self->m, (int64_t)at_least, PyArray_DATA((PyArrayObject *)k),
                             PyArray_DATA((PyArrayObject *)v), n, &got);
    Py_END_ALLOW_THREADS
    if (st != BCL_OK || got != n) {
        Py_DECREF(k);
        Py_DECREF(v);
        if (st == BCL_OK)
            st = bcl_set_error(BCL_ERR_STATE, "local_select(): the map changed during the "
                               "call (call it after a barrier)");
        CHECK(st);
    }
    return bclpy_pair(k, v);
}

int bclpy_hm_add_constants(PyObject *module)
{
    PyObject *words = Py_BuildValue("(KKK)", (unsigned long long)BCL_HMC_EMPTY,
                                    (unsigned long long)BCL_HMC_TOMB,
                                    (unsigned long long)BCL_HMC_BUSY);
    int bad = !words || PyModule_AddObjectRef(module, "_HASHMAP_RESERVED_WORDS", words) < 0;
    Py_XDECREF(words);
    return bad ? -1 : 0;
}
