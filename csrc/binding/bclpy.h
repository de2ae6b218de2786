/*
 * bclpy.h -- shared declarations of the CPython binding layer (pybcl._core).
 *
 * The binding only converts Python objects and calls the C core (csrc/runtime,
 * comm, serial, containers); it never calls MPI itself.  Every binding file
 * includes this header first, and so do the apps' extension's (csrc/apps/),
 * which link the argument, conversion and error helpers too (setup.py).
 * NumPy's C API table is shared across the files of one extension module:
 * its module file defines BCLPY_IMPORT_ARRAY before including this header
 * and calls import_array(); the other files see NO_IMPORT_ARRAY.
 */
#ifndef BCLPY_H
#define BCLPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <limits.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL bclpy_ARRAY_API
#ifndef BCLPY_IMPORT_ARRAY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "comm/bcl_comm.h"
#include "runtime/bcl_error.h"
#include "runtime/bcl_lifetime.h"
#include "serial/bcl_msgpack.h"

/* ---- module state (multi-phase init: module.c, errors.c, configure.c) --- */

/* What pybcl._core is made of: its types (enum bclpy_type_id, their specs)
 * and function tables, from the spec. */
#include "binding/generated/module.h"

/* Its exception classes (pybcl.Error and subclasses), made by
 * bclpy_add_exceptions (errors.c). */
enum bclpy_exc_id {
    BCLPY_E_ERROR,          /* base: pybcl.Error          */
    BCLPY_E_SEGMENTFULL,    /* MemoryError + Error        */
    BCLPY_E_CONTAINERFULL,  /* queue.Full + Error         */
    BCLPY_E_EMPTY,          /* queue.Empty + Error        */
    BCLPY_NEXC
};
/* What pybcl._core keeps per module object: its types, its exceptions, what
 * the package hands down (configure.c, io_py.c) -- object references the
 * module's traverse and clear visit -- and packb's reused buffer. */
typedef struct bclpy_state {
    PyTypeObject *types[BCLPY_NTYPES];
    PyObject *exc[BCLPY_NEXC];
    PyObject *init_fn;              /* pybcl.init, for auto-initialisation */
    PyObject *promise_cls[2];       /* ConProm.HashMap, ConProm.CircularQueue */
    PyObject *describe_fn;          /* pybcl/io.py's describe (io_py.c) */
    PyObject *not_a_file;           /* pybcl.io.NotAFileError (io_py.c) */
    bcl_mp_writer packb_writer;     /* packb's buffer (msgpack_py.c) ... */
    int packb_busy;                 /* ... and whether a call holds it   */
} bclpy_state;

/* The state of the module pybcl._core (either extension may ask; found in
 * sys.modules, for the paths that have no object of ours at hand: raising,
 * auto-initialisation).  NULL, with ImportError, when it is not imported. */
bclpy_state *bclpy_core_state(void);
/* The state of the module that made `type` or a base of it (a Python
 * subclass of HashMap too): methods and slots start here.  Never NULL for
 * an object of _core's types. */
bclpy_state *bclpy_type_state(PyTypeObject *type);
/* ... and of pybcl._core's module-level functions, whose self is the module. */
#define bclpy_module_state(m) ((bclpy_state *)PyModule_GetState(m))

/* The exception class `id` of pybcl._core (borrowed); RuntimeError when the
 * module is gone (interpreter shutdown), so raising never fails. */
PyObject *bclpy_exc(enum bclpy_exc_id id);

/* Raise the Python exception matching a core failure `st` (with the core's
 * message) and return NULL, so call sites read `return bclpy_raise(st);`. */
PyObject *bclpy_raise(bcl_status st);
/* Replace the pending exception by one of class `type` (NULL: the same
 * class) saying fmt's message, then ": " and the old one; returns NULL. */
PyObject *bclpy_error_from(PyObject *type, const char *fmt, ...);
/* A new exception class `name` deriving from base and base2 (NULL: from
 * base alone); NULL with the exception. */
PyObject *bclpy_new_exception(const char *name, const char *doc, PyObject *base,
                              PyObject *base2);
/* Create the classes into st and add them to module m (pybcl._core). */
int bclpy_add_exceptions(PyObject *m, bclpy_state *st);

/* Return raise(st) when the core call `expr` fails with st: the one shape
 * of every binding's error return (raise sets the exception, returns the
 * caller's failure value). */
#define BCLPY_TRY(expr, raise)              \
    do {                                    \
        bcl_status st_ = (expr);            \
        if (st_ != BCL_OK)                  \
            return raise(st_);              \
    } while (0)

/* Return the Python exception of a failed core call from a PyObject* function. */
#define CHECK(expr) BCLPY_TRY(expr, bclpy_raise)

/* Run the statement `stmt` (a core call that may wait on other ranks or on
 * memory) with the GIL released, so other Python threads run meanwhile. */
#define BCLPY_NOGIL(stmt)                   \
    do {                                    \
        Py_BEGIN_ALLOW_THREADS              \
        stmt;                               \
        Py_END_ALLOW_THREADS                \
    } while (0)

/* CHECK of a core call run without the GIL. */
#define CHECK_NOGIL(expr)                   \
    do {                                    \
        bcl_status nogil_st_;               \
        BCLPY_NOGIL(nogil_st_ = (expr));    \
        CHECK(nogil_st_);                   \
    } while (0)

/* ---- arguments by name (args.c) ----------------------------------------- */

/* The one argument convention of the binding: METH_FASTCALL | METH_KEYWORDS
 * methods, every parameter also by the name docs/api.md gives it.
 * bclpy_parse fills out[0..n) from the positional args and keywords; the
 * first nreq are required, the rest NULL when not given; -1 with TypeError
 * naming the function and the argument.  names NULL: positional-only
 * parameters (internal calls, the `/` of a signature).  Positional calls
 * (the hot path) take the inline branch. */
int bclpy_parse_slow(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                     PyObject *kwnames, const char *const *names, int nreq, int n,
                     PyObject **out);
static inline int bclpy_parse(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames, const char *const *names, int nreq,
                              int n, PyObject **out)
{
    if (kwnames || nargs < nreq || nargs > n)
        return bclpy_parse_slow(fname, args, nargs, kwnames, names, nreq, n, out);
    for (int i = 0; i < n; i++)
        out[i] = i < nargs ? args[i] : NULL;
    return 0;
}

/* The same for a type's __init__ (tp_init gets a tuple and a dict). */
int bclpy_parse_init(const char *fname, PyObject *args, PyObject *kwds,
                     const char *const *names, int nreq, int n, PyObject **out);

/* The number of names in a name table (static const char *const []). */
#define BCLPY_NNAMES(names) ((int)(sizeof(names) / sizeof((names)[0])))
/* A function's argument names (its BCLPY_ARGS_* table, under its docstring)
 * and the array bclpy_parse fills, declared together as `names` and `a`. */
#define BCLPY_ARG_TABLE(NAMES)                                                 \
    static const char *const names[] = NAMES;                                  \
    PyObject *a[BCLPY_NNAMES(names)]

/* The parameter list of such a method (after self). */
#define BCLPY_FASTARGS PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames

/* The flags and cast of a method table entry for f: every parameter may be
 * passed by its documented name (docs/api.md). */
#define BCLPY_KW_METHOD(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

/* ---- GlobalPtr (globalptr.c) ------------------------------------------ */
typedef struct {
    PyObject_HEAD
    bcl_gptr ptr;
    PyArray_Descr *dtype;     /* owned reference */
    uint64_t epoch;           /* runtime epoch it was made in; 0: made before */
                              /* any init (bound to none)                    */
    uint64_t blk_off, blk_len;  /* the alloc() block it points into, in bytes */
                              /* (blk_len 0: unknown, the segment bounds it) */
} bclpy_GlobalPtr;

/* o is a pybcl.GlobalPtr (st: pybcl._core's state). */
#define bclpy_GlobalPtr_Check(st, o) PyObject_TypeCheck((o), (st)->types[BCLPY_T_GLOBALPTR])

/* New GlobalPtr of _core's state st (steals nothing; increfs dtype). */
PyObject *bclpy_gptr_new(bclpy_state *st, bcl_gptr p, PyArray_Descr *dtype);

/* `nbytes` at byte offset `off` of p's rank may be accessed through p: p is
 * from this runtime epoch and the range lies in its alloc() block when that
 * is known.  -1 with pybcl.Error (stale) or IndexError (outside the block). */
int bclpy_gptr_check(const bclpy_GlobalPtr *p, uint64_t off, size_t nbytes);
/* bclpy_gptr_check of `count` elements of p's dtype, whose bytes go to
 * *nbytes (IndexError when they overflow). */
int bclpy_gptr_elems(const bclpy_GlobalPtr *p, uint64_t off, long long count, size_t *nbytes);
/* A new 1-d array of `count` elements of `dtype`: the `nbytes` at p, read. */
PyObject *bclpy_gptr_get(bcl_gptr p, PyArray_Descr *dtype, long long count, size_t nbytes);

/* ---- what the package hands down (configure.c) ------------------------ */
/* A concurrency promise (pybcl.ConProm.<container> flag, or None = 0) given
 * to a method of self -> its bits; -1 with TypeError naming `promise`
 * otherwise.  container: "HashMap" or "CircularQueue". */
int bclpy_promise(PyObject *self, PyObject *p, const char *container, unsigned *bits);

/* Ensure the runtime is up (auto-initialisation calls pybcl.init(), handed
 * down by _core._configure: configure.c). */
int bclpy_ensure_init(void);
/* A rank argument (host, new_host): an int in [0, nprocs) of the runtime,
 * brought up first; -1 with TypeError/ValueError naming `name`. */
int bclpy_rank_arg(PyObject *o, const char *name, long long *out);

/* ---- conversions shared by the binding files (convert.c) -------------- */
/* dtype-like (str, type, np.dtype) -> new reference to a descriptor, or NULL
 * with TypeError naming `argname`. */
PyArray_Descr *bclpy_dtype(PyObject *obj, const char *argname);

/* ---- the casting rules (cast.c): without loss, or an exception ---------- */
/* Python object -> itemsize bytes of `dtype` at `out` (Python's rules: no
 * float into an integer dtype, no value out of range, no bytes/str longer
 * than an S<n>/U<n>); -1 with TypeError / OverflowError / ValueError naming
 * `argname`. */
int bclpy_to_bytes(PyObject *value, PyArray_Descr *dtype, void *out,
                   const char *argname);

/* Array-like -> C-contiguous aligned array of `dtype` with mindim..maxdim
 * dimensions (new reference; no copy when obj already is one).  NumPy
 * arrays: casting="safe", integers and S/U strings checked by value;
 * Python sequences: element by element with bclpy_to_bytes's rules when
 * their NumPy dtype does not cast safely.  NULL with an exception naming
 * `argname`. */
PyArrayObject *bclpy_to_array(PyObject *obj, PyArray_Descr *dtype, int mindim,
                              int maxdim, const char *argname);
/* The values of a batch of n targets ("keys", "indices"): a 1-d array of n
 * elements of `dtype` by bclpy_to_array's rules; one value (a scalar or
 * one element) is repeated, as NumPy broadcasts it.  ValueError for any
 * other count. */
PyArrayObject *bclpy_values_for(PyObject *obj, PyArray_Descr *dtype, npy_intp n,
                                const char *argname, const char *targets);
/* bclpy_to_array to a 1-d array of the NumPy type number `type` (NPY_UINT64...). */
PyArrayObject *bclpy_1d_of(PyObject *obj, int type, const char *argname);

/* An element type (np.dtype or the type str/bytes/object) as its
 * constructor argument in a repr: 'int64', str, ... (new reference). */
PyObject *bclpy_spec_repr(PyObject *spec);

/* itemsize bytes of `dtype` -> NumPy scalar. */
PyObject *bclpy_from_bytes(const void *data, PyArray_Descr *dtype);

/* A new 1-d array of n elements of the NumPy type number `type`. */
PyObject *bclpy_new_1d(npy_intp n, int type);

/* A 1-d array we own cut to its first n elements, in place (one realloc);
 * NULL releasing it on failure. */
PyObject *bclpy_shrink(PyObject *arr, npy_intp n);

/* (a, b) as a new tuple taking both references, or NULL releasing whichever
 * exists when either is missing (a failed allocation's exception is set). */
PyObject *bclpy_pair(PyObject *a, PyObject *b);

/* The core's element type (bcl_elem) of a native bool, integer or float
 * dtype, for its reductions and atomic updates; -1 (no exception) for any
 * other: the caller names what it needed. */
int bclpy_elem_of(PyArray_Descr *d, bcl_elem *out);

/* Atomic width (4 or 8) of an integer dtype, or -1 with TypeError. */
int bclpy_atomic_width(PyArray_Descr *dtype, const char *argname);

/* Python int -> 64-bit pattern of an atomic operand of `dtype`, by the
 * casting rules (bclpy_to_bytes); -1 with the exception naming `argname`. */
int bclpy_atomic_operand(PyObject *v, PyArray_Descr *dtype, uint64_t *out,
                         const char *argname);

/* 64-bit pattern read from an atomic of `dtype` -> Python int. */
PyObject *bclpy_atomic_result(uint64_t bits, PyArray_Descr *dtype);

/* ---- collective calls agree on their arguments (collective_py.c) ------ */
/* Run a collective call's body between begin and end (a constructor's: its
 * generated tp_init, `collective:` in the spec); end(rc) joins the
 * agreement as "failed on this rank" when the body raised before its
 * bclpy_agree() call.  bclpy_agree: -1 with the exception (on every rank)
 * when some rank failed or the ranks' values differ. */
void bclpy_collective_begin(void);
int bclpy_collective_end(int rc, const char *what);
/* The body called a core function that agrees itself (a queue's): this rank
 * has joined the agreement, whatever that call returned. */
void bclpy_collective_joined(void);
int bclpy_agree(const char *what, const char *const *names, const int64_t *vals, int n);
/* bclpy_agree after a flush, as a barrier (bcl_barrier_agree): the collective
 * views (size(), items()) see every operation issued before them. */
int bclpy_barrier_agree(const char *what, const char *const *names, const int64_t *vals,
                        int n);
struct bclpy_elemtype;
int64_t bclpy_elemtype_digest(const struct bclpy_elemtype *t);
int64_t bclpy_dtype_digest(PyArray_Descr *d);
extern PyMethodDef bclpy_collective_methods[];

/* ---- typed arguments (args.c) ------------------------------------------ */

/* PyNumber_Index whose TypeError names the argument: a NumPy array passes
 * PyIndex_Check, and NumPy's "only integer scalar arrays ..." names nothing. */
PyObject *bclpy_index(PyObject *o, const char *name);

/* An int argument in [lo, hi]; -1 with TypeError/ValueError naming it. */
int bclpy_int_arg(PyObject *o, const char *name, long long lo, long long hi, long long *out);

/* bclpy_int_arg of an optional argument: NULL (not given) is `dflt`. */
int bclpy_opt_int(PyObject *o, const char *name, long long lo, long long hi, long long dflt,
                  long long *out);

/* Any int as its low 64 bits, as seeds are taken (PCG's reference, the read
 * simulator); -1 with TypeError naming it. */
int bclpy_u64_mask_arg(PyObject *o, const char *name, uint64_t *out);

/* A float argument (an int or float); -1 with TypeError naming it. */
int bclpy_double_arg(PyObject *o, const char *name, double *out);

/* A str argument as UTF-8 (borrowed from o); with none_ok, None or NULL give
 * NULL.  -1 with TypeError naming it. */
int bclpy_str_arg(PyObject *o, const char *name, int none_ok, const char **out);

/* Any object as 0/1 by its truth value (bool(o)), in the converters' shape. */
int bclpy_truth_arg(PyObject *o, const char *name, int *out);

/* A callable / a class (borrowed); -1 with TypeError naming it. */
int bclpy_callable_arg(PyObject *o, const char *name, PyObject **out);
int bclpy_class_arg(PyObject *o, const char *name, PyObject **out);

/* ---- views of segment memory (view.c) ---------------------------------- */

/* Zero-copy 1-D NumPy view of `count` elements at `addr` (segment memory),
 * writable, whose base is `owner` (kept alive by the view). */
PyObject *bclpy_segment_view(void *addr, npy_intp count, PyArray_Descr *dtype,
                             PyObject *owner);

/* ---- a container's lifetime (lifetime_py.c; core: runtime/bcl_lifetime.h) -- */

/* Containers remember the runtime epoch they were made in (bcl_runtime.h):
 * after finalize() or a re-init their offsets point into segments that are
 * gone or belong to new data.  `live` is 0 before the collective creation
 * succeeds, 1 while usable, BCLPY_CLOSED after close(); `seq` numbers it in
 * the core's lifetime registry, which reclaims a container dropped on every
 * rank.  Every container object has one, as its field `life`. */
#define BCLPY_CLOSED 2
typedef struct bclpy_life {
    int live;
    int registered;        /* the registry knows it (not out of memory)      */
    uint64_t epoch;        /* runtime epoch it was made in                   */
    uint64_t seq;          /* creation number, the same on every rank        */
} bclpy_life;

/* The container is usable now. */
static inline int bclpy_current(const bclpy_life *l)
{
    return l->live == 1 && bcl_epoch_current(l->epoch);
}
/* Set the exception of a container `tname` that is not usable (ValueError
 * once closed); returns -1. */
int bclpy_stale(const char *tname, int live);

/* The name users know the type of o by ("HashMap", not "pybcl._core.HashMap"). */
const char *bclpy_type_name(PyObject *o);

/* 0 when the container `self` is usable now, else -1 with bclpy_stale's
 * exception naming its type: every container's one check (`guard:` in the
 * spec). */
#define BCLPY_USABLE(self)                                                      \
    (bclpy_current(&(self)->life)                                               \
         ? 0 : bclpy_stale(bclpy_type_name((PyObject *)(self)), (self)->life.live))

/* Return `fail` unless BCLPY_USABLE(self). */
#define BCLPY_LIVE_OR(self, fail)                                               \
    do {                                                                        \
        if (BCLPY_USABLE(self) < 0)                                             \
            return fail;                                                        \
    } while (0)

/* A container's __init__ runs once: -1 with RuntimeError naming its type
 * when it ran already. */
int bclpy_init_once(PyObject *self, const bclpy_life *l);

/* The end of a collective creation: the core's status st -> -1 with its
 * exception, else the container is numbered, usable in this epoch, and 0. */
int bclpy_life_started(bcl_status st, bclpy_life *l);

/* Deallocation of a container that is usable: bury a malloc'd copy of its
 * core struct (`size` bytes), which `fn` frees once every rank has dropped
 * it; 1.  0 when it was not usable (its segments are gone: the caller frees
 * its private memory itself). */
int bclpy_life_bury(const bclpy_life *l, const void *core, size_t size, bcl_life_free_fn fn);
/* The deallocation of a container whose core struct holds one private
 * allocation besides its segments: bclpy_life_bury, or when it was made in
 * an earlier epoch free `stale_private`. */
void bclpy_life_dealloc(const bclpy_life *l, const void *core, size_t size,
                        bcl_life_free_fn fn, void *stale_private);
/* Define `fn`, the bcl_life_free_fn of a buried core struct that `destroy`
 * takes apart (every rank has dropped it; once the runtime is down, destroy
 * frees only private memory). */
#define BCLPY_FREE_BURIED(fn, destroy)                                           \
    static void fn(void *obj, int storage)                                       \
    {                                                                            \
        destroy(obj);                                                            \
        free(obj);                                                               \
    }

/* The start of the container self's close(): 1 when it is closed already
 * (close() again does nothing); else it must be usable and every rank agree
 * -- 0: the caller frees the storage and marks it BCLPY_CLOSED -- or -1
 * with the exception. */
int bclpy_life_closing(PyObject *self, const bclpy_life *l);

/* Define `fn`, the close() of Obj: bclpy_life_closing, then
 * `destroy(&self->core)` and mark it closed -- every rank is here: nobody
 * uses the storage. */
#define BCLPY_CLOSE_METHOD(fn, Obj, destroy, core)                               \
    static PyObject *fn(Obj *self, PyObject *noargs)                             \
    {                                                                            \
        int rc_ = bclpy_life_closing((PyObject *)self, &self->life);             \
        if (rc_ == 0) {                                                          \
            destroy(&self->core);                                                \
            self->life.live = BCLPY_CLOSED;                                      \
        }                                                                        \
        return rc_ < 0 ? NULL : Py_NewRef(Py_None);                              \
    }

PyObject *bclpy_life_enter(PyObject *self, PyObject *unused);
PyObject *bclpy_life_exit(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

/* ---- type objects ------------------------------------------------------ */

/* The end of an instance's deallocation: free it, then drop the reference
 * every instance of a heap type holds on its type. */
static inline void bclpy_dealloc_end(PyObject *self)
{
    PyTypeObject *type = Py_TYPE(self);
    type->tp_free(self);
    Py_DECREF(type);
}
/* The deallocator of a type that owns nothing besides its struct. */
void bclpy_dealloc(PyObject *self);

/* ---- module initialisation (modinit.c) ------------------------------- */
/* Create the type of each spec with module m (PyType_FromModuleAndSpec),
 * keep it in types[i] (the state's reference) and add it to m under its
 * name; -1 with the exception. */
int bclpy_add_types(PyObject *m, PyTypeObject **types, PyType_Spec *const *specs, size_t n);
/* Add every function of the method tables to m. */
int bclpy_add_functions(PyObject *m, PyMethodDef *const *tables, size_t n);
/* m.name = obj, taking the new reference obj (NULL: its error is set). */
int bclpy_add_new_ref(PyObject *m, const char *name, PyObject *obj);

/* Py_mod_multiple_interpreters (3.12+): the core's runtime is one per
 * process (bcl_rt), so one interpreter may drive it. */
#ifdef Py_mod_multiple_interpreters
#define BCLPY_ONE_INTERPRETER                                                    \
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_NOT_SUPPORTED},
#else
#define BCLPY_ONE_INTERPRETER
#endif

/* Define `def`, an extension's module of multi-phase init: `exec` fills its
 * state, a State; REFS(st, DO) applies DO to each object reference the state
 * holds (Py_VISIT at traverse, Py_CLEAR at clear and free); `release`
 * (void (*)(State *), or NULL) frees what else it owns at free. */
#define BCLPY_MODULE_DEF(def, qualname, doc, State, REFS, exec, release)        \
    static int def##_traverse(PyObject *m, visitproc visit, void *arg)           \
    {                                                                            \
        State *st = PyModule_GetState(m);                                        \
        if (st && visit)                                                         \
            REFS(st, Py_VISIT);                                                  \
        else if (st)                  /* no visit: the clear below */            \
            REFS(st, Py_CLEAR);                                                  \
        return 0;                                                                \
    }                                                                            \
    static int def##_clear(PyObject *m) { return def##_traverse(m, NULL, NULL); } \
    static void def##_free(void *m)                                              \
    {                                                                            \
        void (*release_)(State *) = (release);                                   \
        State *st = PyModule_GetState((PyObject *)m);                            \
        def##_clear((PyObject *)m);                                              \
        if (st && release_)                                                      \
            release_(st);                                                        \
    }                                                                            \
    static PyModuleDef_Slot def##_slots[] = {                                    \
        {Py_mod_exec, (void *)(exec)}, BCLPY_ONE_INTERPRETER {0, NULL}           \
    };                                                                           \
    static struct PyModuleDef def = {                                            \
        PyModuleDef_HEAD_INIT, .m_name = (qualname), .m_doc = (doc),             \
        .m_size = sizeof(State), .m_slots = def##_slots,                         \
        .m_traverse = def##_traverse, .m_clear = def##_clear, .m_free = def##_free \
    }
#define BCLPY_COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* The compact hash map's reserved key words as _core._HASHMAP_RESERVED_WORDS
 * (for the tests of the keys equal to them; hashmap_values_py.c). */
int bclpy_hm_add_constants(PyObject *module);

#endif /* BCLPY_H */
