/*
 * hashmap_common.c -- the HashMap binding's shared conversions: promises,
 * keys and values to bytes, and the checks every HashMap method file makes
 * (hashmap_py.h).  It calls no other HashMap binding file.
 */
#include "bclpy.h"

#include <string.h>

#include "hashmap_py.h"

/* ---- promises ------------------------------------------------------------ */

int bclpy_hm_promise(bclpy_HashMap *self, PyObject *p, const char *argname, int *bits)
{
    unsigned u;
    if (bclpy_promise((PyObject *)self, p, "HashMap", &u) < 0)
        return -1;
    *bits = (int)u;
    return 0;
}

/* ---- keys and values ----------------------------------------------------- */

/* key -> its serialized bytes in self->kw, and the core's view of them. */
int bclpy_hm_key(bclpy_HashMap *self, PyObject *key, bcl_mp_writer *w, bcl_hm_key *k)
{
    bcl_mp_writer_reset(w);
    if (bclpy_key_serialize(&self->kt, key, w, "key") < 0)
        return -1;
    *k = bcl_hm_key_make(w->buf, w->len);
    return 0;
}

/* value -> its serialized bytes in w (the map stores them). */
int bclpy_hm_value(bclpy_HashMap *self, PyObject *value, bcl_mp_writer *w,
                   const char *argname)
{
    bcl_mp_writer_reset(w);
    return bclpy_elem_serialize(&self->vt, value, w, argname);
}

PyObject *bclpy_hm_not_numeric(bclpy_HashMap *self, const char *fname)
{
    PyObject *spec = bclpy_elemtype_spec(&self->vt);
    PyObject *name = spec ? PyObject_GetAttrString(spec, "__name__") : NULL;
    PyErr_Clear();                     /* np.dtype has no __name__: use its repr */
    PyErr_Format(PyExc_TypeError, "%s() needs a numeric value type (a native integer or "
                 "float dtype); this map's value_type is %R", fname,
                 name ? name : spec);
    Py_XDECREF(name);
    Py_XDECREF(spec);
    return NULL;
}

int bclpy_hm_new_arrays(bclpy_HashMap *self, npy_intp n, PyObject **keys, PyObject **values)
{
    npy_intp dims[1] = { n };
    Py_INCREF(self->kt.dtype);
    *keys = PyArray_NewFromDescr(&PyArray_Type, self->kt.dtype, 1, dims, NULL, NULL, 0, NULL);
    Py_INCREF(self->vt.dtype);
    *values = *keys ? PyArray_NewFromDescr(&PyArray_Type, self->vt.dtype, 1, dims, NULL, NULL,
                                           0, NULL)
                    : (Py_DECREF(self->vt.dtype), NULL);
    if (!*values) {
        Py_CLEAR(*keys);
        return -1;
    }
    return 0;
}

int bclpy_hm_refuse_in_modify(bclpy_HashMap *self, const char *method)
{
    if (self->modify_depth > 0 && self->modify_thread == PyThread_get_thread_ident()) {
        PyErr_Format(PyExc_RuntimeError, "HashMap.%s() inside a modify() fn on the same "
                     "map: the batch could wait for the bucket modify() holds", method);
        return -1;
    }
    return 0;
}
