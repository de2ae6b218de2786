/*
 * module.c -- pybcl._core: exceptions, runtime calls, module initialisation.
 *
 * The Python package (pybcl/) wraps these with defaults read from the
 * environment; here we only convert arguments and call the core.
 */
#define BCLPY_IMPORT_ARRAY
#include "bclpy.h"

#include <pthread.h>
#include <string.h>

#include "comm/bcl_depart.h"
#include "runtime/bcl_exit_guard.h"
#include "runtime/bcl_interrupt.h"
#include "runtime/bcl_ompi_osc.h"
#include "runtime/bcl_watchdog.h"
#include "serial/bcl_object.h"
#include "binding/docstrings/runtime.h"

PyObject *bclpy_Error, *bclpy_SegmentFull, *bclpy_ContainerFull, *bclpy_Empty;

PyObject *bclpy_raise(bcl_status st)
{
    PyObject *exc;
    switch (st) {
    case BCL_ERR_INTERRUPTED:       /* the signal handler's exception is set */
        if (PyErr_Occurred())
            return NULL;
        exc = PyExc_KeyboardInterrupt;
        break;
    case BCL_ERR_ARG: case BCL_ERR_DECODE: exc = PyExc_ValueError; break;
    case BCL_ERR_TYPE: exc = PyExc_TypeError; break;
    case BCL_ERR_BOUNDS: exc = PyExc_IndexError; break;
    case BCL_ERR_SEGFULL: exc = bclpy_SegmentFull; break;
    case BCL_ERR_FULL: exc = bclpy_ContainerFull; break;
    case BCL_ERR_EMPTY: exc = bclpy_Empty; break;
    case BCL_ERR_NOMEM: exc = PyExc_MemoryError; break;
    case BCL_ERR_OVERFLOW: exc = PyExc_OverflowError; break;
    case BCL_ERR_REENTRY: exc = PyExc_RuntimeError; break;
    default: exc = bclpy_Error; break;
    }
    PyErr_SetString(exc, bcl_last_error());
    return NULL;
}

/* The core's wait loops call this (bcl_interrupt.h): run Python's pending
 * signal handlers, so Ctrl-C reaches a rank blocked in barrier() or a spin
 * loop.  Works whether or not the caller released the GIL; only the main
 * thread runs signal handlers. */
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

#define CHECK(expr)                         \
    do {                                    \
        bcl_status st_ = (expr);            \
        if (st_ != BCL_OK)                  \
            return bclpy_raise(st_);        \
    } while (0)

static int parse_transport(const char *name, bcl_transport *out)
{
    if (!strcmp(name, "auto")) *out = BCL_TRANSPORT_AUTO;
    else if (!strcmp(name, "shm")) *out = BCL_TRANSPORT_SHM;
    else if (!strcmp(name, "rma")) *out = BCL_TRANSPORT_RMA;
    else if (!strcmp(name, "rma-node")) *out = BCL_TRANSPORT_RMA_NODE;
    else {
        PyErr_Format(PyExc_ValueError, "transport must be 'auto', 'shm', 'rma' or 'rma-node', "
                     "not %R", PyUnicode_FromString(name));
        return -1;
    }
    return 0;
}

/* init(comm_address, segment_size, transport, async_progress)
 * comm_address: address of an MPI_Comm handle (mpi4py's MPI._addressof). */
static PyObject *py_init(PyObject *self, PyObject *args)
{
    unsigned long long comm_addr;
    Py_ssize_t segsize;
    const char *transport;
    int async_progress;
    if (!PyArg_ParseTuple(args, "Knsp:init", &comm_addr, &segsize, &transport,
                          &async_progress))
        return NULL;
    if (segsize <= 0)
        return PyErr_Format(PyExc_ValueError, "segment_size must be positive, got %zd",
                            segsize);
    bcl_transport t;
    if (parse_transport(transport, &t) < 0)
        return NULL;
    MPI_Comm comm = comm_addr ? *(MPI_Comm *)(uintptr_t)comm_addr : MPI_COMM_NULL;
    bcl_status st;
    Py_BEGIN_ALLOW_THREADS
    st = bcl_init(comm, (size_t)segsize, t, async_progress);
    Py_END_ALLOW_THREADS
    CHECK(st);
    Py_RETURN_NONE;
}

static PyObject *py_finalize(PyObject *self, PyObject *args)
{
    double exit_guard = 0.0;
    if (!PyArg_ParseTuple(args, "|d:finalize", &exit_guard))
        return NULL;
    if (!(exit_guard >= 0) || exit_guard > 1e9)     /* also refuses NaN */
        return PyErr_Format(PyExc_ValueError,
                            "exit_guard must be 0 or a positive number of seconds, got %g",
                            exit_guard);
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

static PyObject *py_arm_exit_guard(PyObject *self, PyObject *args)
{
    double seconds;
    int rank;
    if (!PyArg_ParseTuple(args, "di:arm_exit_guard", &seconds, &rank))
        return NULL;
    CHECK(bcl_exit_guard_arm(seconds, rank));
    Py_RETURN_NONE;
}

static PyObject *py_initialized(PyObject *self, PyObject *noargs)
{
    return PyBool_FromLong(bcl_rt.initialized);
}

#define NEED_INIT()                      \
    do {                                 \
        if (bclpy_ensure_init() < 0)     \
            return NULL;                 \
    } while (0)

static PyObject *py_rank(PyObject *self, PyObject *noargs)
{
    NEED_INIT();
    return PyLong_FromLong(bcl_rt.rank);
}

static PyObject *py_nprocs(PyObject *self, PyObject *noargs)
{
    NEED_INIT();
    return PyLong_FromLong(bcl_rt.nprocs);
}

static PyObject *py_transport(PyObject *self, PyObject *noargs)
{
    NEED_INIT();
    return PyUnicode_FromString(bcl_transport_name(bcl_rt.transport));
}

static PyObject *py_segment_size(PyObject *self, PyObject *noargs)
{
    NEED_INIT();
    return PyLong_FromSize_t(bcl_rt.segment_size);
}

static PyObject *py_barrier(PyObject *self, PyObject *noargs)
{
    NEED_INIT();
    bcl_status st;
    Py_BEGIN_ALLOW_THREADS
    st = bcl_barrier_named("barrier()");
    Py_END_ALLOW_THREADS
    CHECK(st);
    CHECK(bcl_obj_drain_remote_frees());
    Py_RETURN_NONE;
}

static PyObject *py_flush(PyObject *self, PyObject *noargs)
{
    NEED_INIT();
    CHECK(bcl_flush());
    Py_RETURN_NONE;
}

/* Debug query of the comm layer's flush bookkeeping (tests, benchmarks). */
static PyObject *py_flush_stats(PyObject *self, PyObject *noargs)
{
    NEED_INIT();
    bcl_flush_stats fs;
    bcl_flush_stats_get(&fs);
    return Py_BuildValue("{s:K,s:K,s:K,s:i,s:O}", "flushes",
                         (unsigned long long)fs.flushes, "targets_flushed",
                         (unsigned long long)fs.targets_flushed, "flush_all_calls",
                         (unsigned long long)fs.flush_all_calls, "dirty", fs.dirty,
                         "flush_all_trusted", fs.flush_all_trusted ? Py_True : Py_False);
}

static PyObject *py_progress(PyObject *self, PyObject *noargs)
{
    NEED_INIT();
    CHECK(bcl_progress());
    Py_RETURN_NONE;
}

static PyObject *py_abort(PyObject *self, PyObject *arg)
{
    int code = (int)PyLong_AsLong(arg);
    if (code == -1 && PyErr_Occurred())
        return NULL;
    bcl_abort(code);
    Py_RETURN_NONE;   /* not reached */
}

/* wait_policy() -> dict: how this job waits (docs/progress.md, section 4). */
static PyObject *py_wait_policy(PyObject *self, PyObject *noargs)
{
    NEED_INIT();
    return Py_BuildValue("{s:s,s:s,s:i,s:i}",
                         "policy", bcl_rt.oversubscribed ? "patient" : "spin",
                         "chosen_by", bcl_rt.wait_forced ? "PYBCL_WAIT" : "cpus",
                         "node_ranks", bcl_rt.node_ranks, "node_cpus", bcl_rt.node_cpus);
}

/* watchdog_arm(report_after, report_signal, report, abort_after, abort, fd, exit_code):
 * see runtime/bcl_watchdog.h.  Needs no init (before it, abort is exit). */
static PyObject *py_watchdog_arm(PyObject *self, PyObject *args)
{
    bcl_watchdog_plan plan;
    if (!PyArg_ParseTuple(args, "dizdzii:watchdog_arm", &plan.report_after,
                          &plan.report_signal, &plan.report, &plan.abort_after,
                          &plan.abort, &plan.fd, &plan.exit_code))
        return NULL;
    CHECK(bcl_watchdog_arm(&plan));
    Py_RETURN_NONE;
}

static PyObject *py_watchdog_disarm(PyObject *self, PyObject *noargs)
{
    bcl_watchdog_disarm();
    Py_RETURN_NONE;
}

/* bcast_bytes(data_or_None, root) -> bytes: every rank gets root's bytes. */
static PyObject *py_bcast_bytes(PyObject *self, PyObject *args)
{
    PyObject *data;
    int root;
    if (!PyArg_ParseTuple(args, "Oi:bcast_bytes", &data, &root))
        return NULL;
    NEED_INIT();
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

static int elem_of(PyArray_Descr *d, bcl_elem *out)
{
    if (PyDataType_ISBYTESWAPPED(d))
        return -1;
    switch (d->kind) {
    case 'b': *out = BCL_BOOL; return PyDataType_ELSIZE(d) == 1 ? 0 : -1;
    case 'f':
        if (PyDataType_ELSIZE(d) == 4) { *out = BCL_F32; return 0; }
        if (PyDataType_ELSIZE(d) == 8) { *out = BCL_F64; return 0; }
        return -1;
    case 'i': case 'u': {
        static const bcl_elem si[] = { BCL_I8, BCL_I16, 0, BCL_I32, 0, 0, 0, BCL_I64 };
        static const bcl_elem ui[] = { BCL_U8, BCL_U16, 0, BCL_U32, 0, 0, 0, BCL_U64 };
        int e = PyDataType_ELSIZE(d);
        if (e != 1 && e != 2 && e != 4 && e != 8)
            return -1;
        *out = d->kind == 'i' ? si[e - 1] : ui[e - 1];
        return 0;
    }
    default: return -1;
    }
}

/* allreduce_inplace(array, opcode): array is a writable C-contiguous ndarray. */
static PyObject *py_allreduce_inplace(PyObject *self, PyObject *args)
{
    PyArrayObject *arr;
    int op;
    if (!PyArg_ParseTuple(args, "O!i:allreduce_inplace", &PyArray_Type, &arr, &op))
        return NULL;
    NEED_INIT();
    bcl_elem elem;
    if (elem_of(PyArray_DESCR(arr), &elem) < 0)
        return PyErr_Format(PyExc_TypeError, "allreduce: x has unsupported dtype %R",
                            (PyObject *)PyArray_DESCR(arr));
    if (!PyArray_IS_C_CONTIGUOUS(arr) || !PyArray_ISWRITEABLE(arr))
        return PyErr_Format(PyExc_ValueError, "allreduce: need a writable contiguous array");
    if (op < BCL_SUM || op > BCL_BXOR)
        return PyErr_Format(PyExc_ValueError, "allreduce: bad op code %d", op);
    bcl_status st;
    void *data = PyArray_DATA(arr);
    size_t n = (size_t)PyArray_SIZE(arr);
    Py_BEGIN_ALLOW_THREADS
    st = bcl_allreduce(data, n, elem, (bcl_redop)op);
    Py_END_ALLOW_THREADS
    CHECK(st);
    Py_RETURN_NONE;
}

/* Diagnostics for pybcl.info(): what init decided, read back from the core. */
static PyObject *py_ranks_per_node(PyObject *self, PyObject *noargs)
{
    NEED_INIT();
    return PyLong_FromLong(bcl_rt.node_ranks);
}

static PyObject *py_progress_thread(PyObject *self, PyObject *noargs)
{
    NEED_INIT();
    return PyBool_FromLong(bcl_rt.async_progress && bcl_rt.transport != BCL_TRANSPORT_SHM);
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

PyMethodDef bclpy_runtime_methods[] = {
    {"init", py_init, METH_VARARGS, BCLPY_DOC_INIT},
    {"finalize", py_finalize, METH_VARARGS, BCLPY_DOC_FINALIZE},
    {"arm_exit_guard", py_arm_exit_guard, METH_VARARGS, BCLPY_DOC_ARM_EXIT_GUARD},
    {"initialized", py_initialized, METH_NOARGS, BCLPY_DOC_INITIALIZED},
    {"rank", py_rank, METH_NOARGS, BCLPY_DOC_RANK},
    {"nprocs", py_nprocs, METH_NOARGS, BCLPY_DOC_NPROCS},
    {"transport", py_transport, METH_NOARGS, BCLPY_DOC_TRANSPORT},
    {"segment_size", py_segment_size, METH_NOARGS, BCLPY_DOC_SEGMENT_SIZE},
    {"barrier", py_barrier, METH_NOARGS, BCLPY_DOC_BARRIER},
    {"flush", py_flush, METH_NOARGS, BCLPY_DOC_FLUSH},
    {"progress", py_progress, METH_NOARGS, BCLPY_DOC_PROGRESS},
    {"_flush_stats", py_flush_stats, METH_NOARGS, BCLPY_DOC_FLUSH_STATS},
    {"abort", py_abort, METH_O, BCLPY_DOC_ABORT},
    {"bcast_bytes", py_bcast_bytes, METH_VARARGS, BCLPY_DOC_BCAST_BYTES},
    {"allreduce_inplace", py_allreduce_inplace, METH_VARARGS, BCLPY_DOC_ALLREDUCE_INPLACE},
    {"wait_policy", py_wait_policy, METH_NOARGS, BCLPY_DOC_WAIT_POLICY},
    {"watchdog_arm", py_watchdog_arm, METH_VARARGS, BCLPY_DOC_WATCHDOG_ARM},
    {"watchdog_disarm", py_watchdog_disarm, METH_NOARGS, BCLPY_DOC_WATCHDOG_DISARM},
    {"ranks_per_node", py_ranks_per_node, METH_NOARGS, BCLPY_DOC_RANKS_PER_NODE},
    {"progress_thread", py_progress_thread, METH_NOARGS, BCLPY_DOC_PROGRESS_THREAD},
    {"mpi_env_default", py_mpi_env_default, METH_NOARGS, BCLPY_DOC_MPI_ENV_DEFAULT},
    {NULL, NULL, 0, NULL}
};

/* Each container's binding file defines its bclpy_register_* function; the
 * weak defaults here keep the module importable while one is absent. */
#define WEAK_REGISTER(name) \
    __attribute__((weak)) int name(PyObject *m) { (void)m; return 0; }
WEAK_REGISTER(bclpy_register_msgpack)
WEAK_REGISTER(bclpy_register_queues)
WEAK_REGISTER(bclpy_register_hashmap)
WEAK_REGISTER(bclpy_register_bloom)
WEAK_REGISTER(bclpy_register_arrays)
WEAK_REGISTER(bclpy_register_array_update)
WEAK_REGISTER(bclpy_register_gups)
WEAK_REGISTER(bclpy_register_dbg)

static int register_containers(PyObject *m)
{
    return bclpy_register_msgpack(m) < 0 || bclpy_register_queues(m) < 0 ||
                   bclpy_register_hashmap(m) < 0 || bclpy_register_bloom(m) < 0 ||
                   bclpy_register_arrays(m) < 0 || bclpy_register_kmer(m) < 0 ||
                   bclpy_register_isx(m) < 0 ||
                   bclpy_register_array_update(m) < 0 || bclpy_register_gups(m) < 0 ||
                   bclpy_register_dbg(m) < 0
               ? -1
               : 0;
}

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "pybcl._core",
    "C core of pybcl: runtime, global pointers and containers over MPI-3.", -1,
    NULL, NULL, NULL, NULL, NULL
};

/* pybcl.<name> subclassing both queue.<base> and pybcl.Error, so code
 * written for the standard library's queues catches pybcl's too. */
static PyObject *queue_style_exception(const char *name, const char *base,
                                       const char *doc)
{
    PyObject *queue_mod = PyImport_ImportModule("queue");
    if (!queue_mod)
        return NULL;
    PyObject *std = PyObject_GetAttrString(queue_mod, base);
    Py_DECREF(queue_mod);
    if (!std)
        return NULL;
    PyObject *bases = PyTuple_Pack(2, std, bclpy_Error);
    Py_DECREF(std);
    if (!bases)
        return NULL;
    PyObject *exc = PyErr_NewExceptionWithDoc(name, doc, bases, NULL);
    Py_DECREF(bases);
    return exc;
}

static int add_exceptions(PyObject *m)
{
    bclpy_Error = PyErr_NewExceptionWithDoc("pybcl.Error", BCLPY_DOC_EXC_ERROR, NULL, NULL);
    if (!bclpy_Error)
        return -1;
    PyObject *bases = PyTuple_Pack(2, PyExc_MemoryError, bclpy_Error);
    if (!bases)
        return -1;
    bclpy_SegmentFull = PyErr_NewExceptionWithDoc("pybcl.SegmentFull",
                                                  BCLPY_DOC_EXC_SEGMENTFULL, bases, NULL);
    Py_DECREF(bases);
    bclpy_ContainerFull = queue_style_exception("pybcl.ContainerFull", "Full",
                                                BCLPY_DOC_EXC_CONTAINERFULL);
    bclpy_Empty = queue_style_exception("pybcl.Empty", "Empty", BCLPY_DOC_EXC_EMPTY);
    if (!bclpy_SegmentFull || !bclpy_ContainerFull || !bclpy_Empty)
        return -1;
    if (PyModule_AddObjectRef(m, "Error", bclpy_Error) < 0 ||
        PyModule_AddObjectRef(m, "SegmentFull", bclpy_SegmentFull) < 0 ||
        PyModule_AddObjectRef(m, "ContainerFull", bclpy_ContainerFull) < 0 ||
        PyModule_AddObjectRef(m, "Empty", bclpy_Empty) < 0)
        return -1;
    return 0;
}

PyMODINIT_FUNC PyInit__core(void)
{
    import_array();
    PyObject *m = PyModule_Create(&core_module);
    if (!m)
        return NULL;
    if (add_exceptions(m) < 0 ||
        PyModule_AddFunctions(m, bclpy_runtime_methods) < 0 ||
        PyModule_AddFunctions(m, bclpy_ops_methods) < 0 ||
        PyModule_AddFunctions(m, bclpy_collective_methods) < 0 ||
        PyType_Ready(&bclpy_GlobalPtrType) < 0 ||
        PyModule_AddObjectRef(m, "GlobalPtr", (PyObject *)&bclpy_GlobalPtrType) < 0 ||
        register_containers(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    main_thread = pthread_self();
    bcl_set_interrupt_hook(check_python_signals);
    return m;
}
