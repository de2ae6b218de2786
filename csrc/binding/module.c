/*
 * module.c -- pybcl._core: the runtime calls and module initialisation (every
 * type and function table of the binding is added here; exceptions: errors.c).
 *
 * The Python package (pybcl/) wraps these with defaults read from the
 * environment; here we only convert arguments and call the core.
 */
#define BCLPY_IMPORT_ARRAY
#include "bclpy.h"

#include <pthread.h>
#include <string.h>

#include "comm/bcl_agree.h"
#include "comm/bcl_depart.h"
#include "comm/bcl_resync.h"
#include "runtime/bcl_exit_guard.h"
#include "runtime/bcl_interrupt.h"
#include "runtime/bcl_ompi_osc.h"
#include "runtime/bcl_watchdog.h"
#include "containers/bcl_object.h"
#include "binding/capi.h"
#include "binding/generated/runtime.h"

/* The core's wait loops call this (bcl_interrupt.h): run Python's pending
 * signal handlers, so Ctrl-C reaches a rank blocked in barrier() or a spin
 * loop.  Works whether or not the caller released the GIL; only the main
 * thread runs signal handlers.  The hook and the main thread are facts of
 * the process (the core's runtime is one per process), not of a module
 * object, so they stay outside the module state. */
static pthread_t main_thread;

static int check_python_signals(void)
{
    if (!pthread_equal(pthread_self(), main_thread))
        return 0;
    PyGILState_STATE g = PyGILState_Ensure();
    int raised = PyErr_CheckSignals() < 0;
    PyGILState_Release(g);
    return raised;
}

/* comm_address: address of an MPI_Comm handle (mpi4py's MPI._addressof). */
static PyObject *py_init_impl(PyObject *self, long long comm_address, long long segment_size,
                              const char *transport, long long async_progress)
{
    bcl_transport t;
    CHECK(bcl_transport_parse(transport, &t));
    MPI_Comm comm = comm_address ? *(MPI_Comm *)(uintptr_t)comm_address : MPI_COMM_NULL;
    CHECK_NOGIL(bcl_init(comm, (size_t)segment_size, t, (int)async_progress));
    Py_RETURN_NONE;
}

static PyObject *py_finalize_impl(PyObject *self, double exit_guard)
{
    if (!(exit_guard >= 0) || exit_guard > 1e9) {   /* also refuses NaN */
        char got[32];                                /* PyErr_Format has no %g */
        PyOS_snprintf(got, sizeof got, "%g", exit_guard);
        return PyErr_Format(PyExc_ValueError,
                            "exit_guard must be 0 or a positive number of seconds, got %s",
                            got);
    }
    bcl_status st;
    Py_BEGIN_ALLOW_THREADS
    /* Announce first: a peer still waiting in a collective for this rank
     * then fails with a clear error instead of waiting forever. */
    st = bcl_rt.initialized ? bcl_depart() : BCL_OK;
    if (st == BCL_OK)
        st = bcl_finalize(exit_guard);
    Py_END_ALLOW_THREADS
    CHECK(st);
    Py_RETURN_NONE;
}

static PyObject *py_arm_exit_guard_impl(PyObject *self, double seconds, long long rank)
{
    CHECK(bcl_exit_guard_arm(seconds, (int)rank));
    Py_RETURN_NONE;
}

/* The queries of the runtime's state (rank(), nprocs(), ...) are the spec's
 * `returns:`; they, and the calls below that need the runtime, bring it up
 * first (`guard: bclpy_ensure_init()`: initialised with the defaults if
 * nobody has yet). */

static PyObject *py_barrier_impl(PyObject *self)
{
    CHECK_NOGIL(bcl_barrier_named("barrier()"));
    CHECK(bcl_obj_drain_remote_frees());
    Py_RETURN_NONE;
}

static PyObject *py_flush_impl(PyObject *self)
{
    CHECK(bcl_flush());
    Py_RETURN_NONE;
}

/* Debug query of the comm layer's flush bookkeeping (tests, benchmarks). */
static PyObject *py_flush_stats_impl(PyObject *self)
{
    bcl_flush_stats fs;
    bcl_flush_stats_get(&fs);
    return Py_BuildValue("{s:K,s:K,s:K,s:i,s:O}", "flushes",
                         (unsigned long long)fs.flushes, "targets_flushed",
                         (unsigned long long)fs.targets_flushed, "flush_all_calls",
                         (unsigned long long)fs.flush_all_calls, "dirty", fs.dirty,
                         "flush_all_trusted", fs.flush_all_trusted ? Py_True : Py_False);
}

static PyObject *py_progress_impl(PyObject *self)
{
    CHECK(bcl_progress());
    Py_RETURN_NONE;
}

static PyObject *py_abort_impl(PyObject *self, long long code)
{
    bcl_abort((int)code);
    Py_RETURN_NONE;   /* not reached */
}

/* wait_policy() -> dict: how this job waits (docs/progress.md, section 4). */
static PyObject *py_wait_policy_impl(PyObject *self)
{
    return Py_BuildValue("{s:s,s:s,s:i,s:i}",
                         "policy", bcl_rt.oversubscribed ? "patient" : "spin",
                         "chosen_by", bcl_rt.wait_forced ? "PYBCL_WAIT" : "cpus",
                         "node_ranks", bcl_rt.node_ranks, "node_cpus", bcl_rt.node_cpus);
}

/* See runtime/bcl_watchdog.h.  Needs no init (before it, abort is exit). */
static PyObject *py_watchdog_arm_impl(PyObject *self, double report_after,
                                      long long report_signal, const char *report,
                                      double abort_after, const char *abort, long long fd,
                                      long long exit_code)
{
    bcl_watchdog_plan plan = {
        .report_after = report_after, .report_signal = (int)report_signal, .report = report,
        .abort_after = abort_after, .abort = abort, .fd = (int)fd, .exit_code = (int)exit_code
    };
    CHECK(bcl_watchdog_arm(&plan));
    Py_RETURN_NONE;
}

static PyObject *py_watchdog_disarm(PyObject *self, PyObject *noargs)
{
    bcl_watchdog_disarm();
    Py_RETURN_NONE;
}

/* Every rank gets root's bytes (data: None on the others). */
static PyObject *py_bcast_bytes_impl(PyObject *self, PyObject *data, long long root_ll)
{
    int root = (int)root_ll;
    if (root < 0 || root >= bcl_rt.nprocs)
        return PyErr_Format(PyExc_ValueError, "root must be a rank in [0, %d), got %d",
                            bcl_rt.nprocs, root);
    int is_root = bcl_rt.rank == root;
    if (is_root && !PyBytes_Check(data))
        return PyErr_Format(PyExc_TypeError, "bcast_bytes: root must pass bytes");
    uint64_t n = is_root ? (uint64_t)PyBytes_GET_SIZE(data) : 0;
    CHECK(bcl_bcast(&n, sizeof n, root));
    PyObject *out = is_root ? (Py_INCREF(data), data)
                            : PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n);
    if (!out)
        return NULL;
    bcl_status st = bcl_bcast(PyBytes_AS_STRING(out), (size_t)n, root);
    if (st != BCL_OK) {
        Py_DECREF(out);
        return bclpy_raise(st);
    }
    return out;
}

/* array: a writable C-contiguous ndarray. */
static PyObject *py_allreduce_inplace_impl(PyObject *self, PyObject *array, long long op)
{
    if (!PyArray_Check(array))
        return PyErr_Format(PyExc_TypeError, "allreduce_inplace: array must be a NumPy "
                            "array, not %.100s", Py_TYPE(array)->tp_name);
    PyArrayObject *arr = (PyArrayObject *)array;
    if (bclpy_ensure_init() < 0)
        return NULL;
    bcl_elem elem;
    if (bclpy_elem_of(PyArray_DESCR(arr), &elem) < 0)
        return PyErr_Format(PyExc_TypeError, "allreduce: x has unsupported dtype %R",
                            (PyObject *)PyArray_DESCR(arr));
    if (!PyArray_IS_C_CONTIGUOUS(arr) || !PyArray_ISWRITEABLE(arr))
        return PyErr_Format(PyExc_ValueError, "allreduce: need a writable contiguous array");
    if (op < BCL_SUM || op > BCL_BXOR)
        return PyErr_Format(PyExc_ValueError, "allreduce: bad op code %lld", op);
    bcl_status st;
    void *data = PyArray_DATA(arr);
    size_t n = (size_t)PyArray_SIZE(arr);
    BCLPY_NOGIL(st = bcl_allreduce(data, n, elem, (bcl_redop)op));
    CHECK(st);
    Py_RETURN_NONE;
}

/* An interactive kernel's cells (pybcl/_kernel.py): the ranks get back in
 * step after a cell that failed on some of them (comm/bcl_resync.h). */
static PyObject *py_cell_started(PyObject *self, PyObject *noargs)
{
    if (bcl_rt.initialized)
        bcl_resync_cell_start();
    Py_RETURN_NONE;
}

static PyObject *py_cell_failed_impl(PyObject *self, const char *why)
{
    if (bcl_rt.initialized)
        CHECK(bcl_resync_announce(bcl_agree_rounds(), why));
    Py_RETURN_NONE;
}

/* Before MPI_Init: what pybcl._env must put in the environment (bcl_ompi_osc.h). */
static PyObject *py_mpi_env_default(PyObject *self, PyObject *noargs)
{
    const char *name, *value;
    bcl_mpi_env_default(&name, &value);
    if (!name)
        Py_RETURN_NONE;
    return Py_BuildValue("(ss)", name, value);
}

/* Every type and function table of pybcl._core (generated/module.h). */
static PyType_Spec *const specs[BCLPY_NTYPES] = BCLPY_TYPE_SPECS;

static PyMethodDef *const method_tables[] = BCLPY_FUNCTION_TABLES;

static PyObject *transport_names(void)
{
    Py_ssize_t n = 0;
    while (bcl_transport_nth_name((int)n))
        n++;
    PyObject *names = PyTuple_New(n);
    for (Py_ssize_t i = 0; names && i < n; i++) {
        PyObject *name = PyUnicode_FromString(bcl_transport_nth_name((int)i));
        if (!name)
            Py_CLEAR(names);
        else
            PyTuple_SET_ITEM(names, i, name);
    }
    return names;
}

/* Apply DO (Py_VISIT, Py_CLEAR) to every reference the state st holds. */
#define STATE_REFS(st, DO)                                                      \
    do {                                                                        \
        for (int i_ = 0; i_ < BCLPY_NTYPES; i_++)                               \
            DO((st)->types[i_]);                                                \
        for (int i_ = 0; i_ < BCLPY_NEXC; i_++)                                 \
            DO((st)->exc[i_]);                                                  \
        DO((st)->init_fn);                                                      \
        DO((st)->promise_cls[0]);                                               \
        DO((st)->promise_cls[1]);                                               \
        DO((st)->describe_fn);                                                  \
        DO((st)->not_a_file);                                                   \
    } while (0)

static void release_state(bclpy_state *st)
{
    bcl_mp_writer_free(&st->packb_writer);
}

static int core_exec(PyObject *m)
{
    import_array1(-1);
    bclpy_state *st = bclpy_module_state(m);
    /* the types and functions; the exceptions; the transports' names, from
     * the core's one table (pybcl._env checks PYBCL_TRANSPORT against them);
     * the C functions other extensions may call (capi.h); the compact hash
     * map's reserved key words (hashmap_values_py.c) */
    if (bclpy_add_types(m, st->types, specs, BCLPY_NTYPES) < 0 ||
        bclpy_add_functions(m, method_tables, BCLPY_COUNT(method_tables)) < 0 ||
        bclpy_add_exceptions(m, st) < 0 ||
        bclpy_add_new_ref(m, "TRANSPORTS", transport_names()) < 0 ||
        bclpy_add_new_ref(m, "_C_API", bclpy_capi_capsule()) < 0 ||
        bclpy_hm_add_constants(m) < 0)
        return -1;
    main_thread = pthread_self();
    bcl_set_interrupt_hook(check_python_signals);
    return 0;
}

BCLPY_MODULE_DEF(core_module, "pybcl._core",
                 "C core of pybcl: runtime, global pointers and containers over MPI-3.",
                 bclpy_state, STATE_REFS, core_exec, release_state);

PyMODINIT_FUNC PyInit__core(void)
{
    return PyModuleDef_Init(&core_module);
}

/* The method tables, their argument parsing and the types (from the spec). */
#include "binding/generated/bclpy_runtime_methods_clinic.h"
