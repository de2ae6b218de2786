/*
 * docstrings/runtime.h -- docstrings of the runtime functions (module.c).
 * Text-signature form: "name(args)\n--\n\n" (see README.md in this folder).
 */
#ifndef BCLPY_DOC_RUNTIME_H
#define BCLPY_DOC_RUNTIME_H

#include "binding/docstrings/common.h"

#define BCLPY_DOC_INIT \
    "init(comm_address, segment_size, transport, async_progress, /)\n--\n\n" \
    "Internal: start the runtime.  Collective.  Use pybcl.init() instead.\n\n" \
    "comm_address: address of an MPI_Comm handle (mpi4py's MPI._addressof);\n" \
    "segment_size: bytes per rank; transport: 'auto', 'shm', 'rma' or\n" \
    "'rma-node'; async_progress: 0, or start the progress thread on the rma\n" \
    "transports (1) or on every transport (2: an interactive kernel).\n" \
    "Raises ValueError for a bad size or transport, SegmentFull when the\n" \
    "segment cannot be allocated, pybcl.Error when MPI fails."

#define BCLPY_DOC_FINALIZE \
    "finalize(exit_guard=0.0, /)\n--\n\n" \
    "Collective: complete outstanding operations, free the segment, the window\n" \
    "and the communicator (MPI itself is finalized only if pybcl started it).\n" \
    "Also runs at interpreter exit, where exit_guard > 0 arms the exit guard\n" \
    "before pybcl's own MPI_Finalize (see arm_exit_guard)."

#define BCLPY_DOC_ARM_EXIT_GUARD \
    "arm_exit_guard(seconds, rank, /)\n--\n\n" \
    "Internal, at interpreter exit only (after finalize()'s last barrier):\n" \
    "start a detached thread that ends this process with exit status 0 if\n" \
    "MPI's teardown has not returned `seconds` (float > 0) later, reporting\n" \
    "`rank` (int) on stderr.  Bounds MPICH 4.0.2 + UCX TCP's MPI_Finalize hang\n" \
    "(docs/multinode.md; PYBCL_FINALIZE_TIMEOUT).  Local."

#define BCLPY_DOC_INITIALIZED \
    "initialized()\n--\n\n" \
    "Return True while the runtime is up (between init() and finalize()).\n" \
    "Local; never initialises anything."

#define BCLPY_DOC_RANK \
    BCLPY_SIG("rank()") \
    "This process's rank in pybcl's communicator.  Local; initialises the\n" \
    "runtime with the defaults if needed.\n" \
    BCLPY_RETURNS \
    "int\n" \
    BCLPY_EXAMPLES \
    ">>> 0 <= pybcl.rank() < pybcl.nprocs()\n" \
    "True"

#define BCLPY_DOC_NPROCS \
    BCLPY_SIG("nprocs()") \
    "The number of ranks in pybcl's communicator.  Local; initialises the\n" \
    "runtime with the defaults if needed.\n" \
    BCLPY_RETURNS \
    "int\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl.nprocs() >= 1\n" \
    "True"

#define BCLPY_DOC_TRANSPORT \
    BCLPY_SIG("transport()") \
    "The transport in use: 'shm' (all ranks on one node: loads, stores\n" \
    "and CPU atomics on one MPI shared-memory window), 'rma' (MPI-3\n" \
    "passive-target RMA) or 'rma-node' (rma whose get/put to ranks of the\n" \
    "same node are memcpy through the node's shared memory; every atomic\n" \
    "still MPI).  Chosen at init from PYBCL_TRANSPORT=auto|shm|rma|rma-node.\n" \
    "Local.\n" \
    BCLPY_RETURNS \
    "str\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl.transport() in ('shm', 'rma', 'rma-node')\n" \
    "True"

#define BCLPY_DOC_SEGMENT_SIZE \
    "segment_size()\n--\n\n" \
    "Return the size in bytes of each rank's shared segment (the smallest size\n" \
    "any rank asked for, rounded down to 64 bytes).  Local."

#define BCLPY_DOC_BARRIER \
    BCLPY_SIG("barrier()") \
    "Collective: complete all of this rank's outstanding remote operations,\n" \
    "then synchronise every rank.  Afterwards every rank sees every write made\n" \
    "before it; also reclaims storage of overwritten variable-length values.\n" \
    BCLPY_RAISES \
    "pybcl.Error\n" \
    "    If MPI fails.\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl.barrier()"

#define BCLPY_DOC_FLUSH \
    BCLPY_SIG("flush()") \
    "Complete this rank's outstanding remote operations (local and remote\n" \
    "completion), e.g. the puts of rput().  Not collective.\n" \
    BCLPY_RAISES \
    "pybcl.Error\n" \
    "    If MPI fails.\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl.flush()"

#define BCLPY_DOC_PROGRESS \
    BCLPY_SIG("progress()") \
    "Let remote operations aimed at this rank advance.  Call it now and then\n" \
    "during long compute phases outside pybcl on the rma transport (or set\n" \
    "PYBCL_ASYNC_PROGRESS=1).  Not collective; cheap on shm.\n" \
    BCLPY_RAISES \
    "pybcl.Error\n" \
    "    If MPI fails.\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl.progress()"

#define BCLPY_DOC_FLUSH_STATS \
    "_flush_stats()\n--\n\n" \
    "Debug: a dict of cumulative flush counters (flushes, targets_flushed,\n" \
    "flush_all_calls), the number of dirty targets now, and whether a full\n" \
    "flush may trust the dirty set (flush_all_trusted; rma).  Local."

#define BCLPY_DOC_ABORT \
    "abort(code, /)\n--\n\n" \
    "MPI_Abort the whole job with exit code `code` (int).  Does not return."

#define BCLPY_DOC_BCAST_BYTES \
    "bcast_bytes(data, root, /)\n--\n\n" \
    "Internal, collective: return root's bytes `data` on every rank (others\n" \
    "pass None).  pybcl.broadcast() is the public form."

#define BCLPY_DOC_ALLREDUCE_INPLACE \
    "allreduce_inplace(array, opcode, /)\n--\n\n" \
    "Internal, collective: reduce a contiguous NumPy array in place over all\n" \
    "ranks; opcode indexes (sum, prod, min, max, land, lor, band, bor, bxor).\n" \
    "pybcl.allreduce() is the public form."

#define BCLPY_DOC_WAIT_POLICY \
    "wait_policy()\n--\n\n" \
    "Return how blocked calls wait, as a dict: policy ('spin': busy-poll MPI,\n" \
    "the fastest when every rank has a CPU; 'patient': poll and yield the CPU,\n" \
    "chosen when some node runs more ranks than the CPUs they may use),\n" \
    "chosen_by ('cpus', or 'PYBCL_WAIT' when PYBCL_WAIT=patient|spin forced it),\n" \
    "node_ranks (ranks on this rank's node) and node_cpus (CPUs they may use\n" \
    "together: affinity union and cgroup quota).  One policy for the whole job.\n" \
    "Local."

#define BCLPY_DOC_WATCHDOG_ARM \
    "watchdog_arm(report_after, report_signal, report, abort_after, abort, fd, exit_code, /)\n--\n\n" \
    "Internal (the test suite's per-test time limit): arm this process's C\n" \
    "watchdog thread.  After report_after seconds (float; < 0: never) write\n" \
    "`report` (str or None) to file descriptor fd and raise report_signal (int;\n" \
    "0: none); after abort_after seconds write `abort` (str or None) and\n" \
    "MPI_Abort the job with exit_code.  Replaces any armed plan; needs no init.\n" \
    "Local."

#define BCLPY_DOC_WATCHDOG_DISARM \
    "watchdog_disarm()\n--\n\n" \
    "Internal: cancel the plan armed by watchdog_arm(), if any.  Local."

#define BCLPY_DOC_RANKS_PER_NODE \
    "ranks_per_node()\n--\n\n" \
    "Return the number of ranks of pybcl's communicator on this rank's node\n" \
    "(measured at init with MPI_Comm_split_type; wait_policy()['node_ranks']).\n" \
    "Local."

#define BCLPY_DOC_PROGRESS_THREAD \
    "progress_thread()\n--\n\n" \
    "Return True if pybcl's progress thread runs in this process\n" \
    "(PYBCL_ASYNC_PROGRESS=1 on the rma transports; every transport in an\n" \
    "interactive kernel).  Local."

#define BCLPY_DOC_INIT_REASONS \
    "init_reasons()\n--\n\n" \
    "Why init chose the transport and whether a progress thread runs, in\n" \
    "words, as the core decided: a dict with the keys 'transport' and\n" \
    "'progress_thread' (what pybcl.info() reports).  Local."

#define BCLPY_DOC_CONFIGURE \
    "_configure(init, hashmap_promise, queue_promise)\n--\n\n" \
    "Hand _core the package objects it uses: the function that auto-initialises\n" \
    "the runtime (pybcl.init) and the promise flag classes ConProm.HashMap and\n" \
    "ConProm.CircularQueue.  Called once by pybcl/__init__.py at import.  Local."
#define BCLPY_ARGS_CONFIGURE { "init", "hashmap_promise", "queue_promise" }

#define BCLPY_DOC_CELL_STARTED \
    "_cell_started()\n--\n\n" \
    "An interactive kernel (an ipyparallel engine) starts a cell on this rank:\n" \
    "what peers announced before it no longer ends a wait of this rank (it\n" \
    "only tells how far they got).  No-op before init.  Local."

#define BCLPY_DOC_CELL_FAILED \
    "_cell_failed(why)\n--\n\n" \
    "A cell failed on this rank of an interactive kernel: tell every peer,\n" \
    "so a peer waiting in a collective call this rank will not join in this\n" \
    "cell fails it with an error naming this rank and `why` (the exception's\n" \
    "name), and the ranks get back in step at their next collective call.\n" \
    "No-op before init.  Local (non-blocking messages)."
#define BCLPY_ARGS_CELL_FAILED { "why" }

#define BCLPY_DOC_MPI_ENV_DEFAULT \
    "mpi_env_default()\n--\n\n" \
    "Return (name, value) of the environment variable the loaded MPI library\n" \
    "needs before MPI_Init for pybcl to work on it, or None.  Today only Open\n" \
    "MPI 4.0.0-4.0.4 and 4.1.0-4.1.4: ('OMPI_MCA_osc', '^rdma'), keeping out\n" \
    "the one-sided component whose 64-bit compare-and-swap crashes\n" \
    "(open-mpi/ompi#7027; docs/install.md).  Callable before MPI is initialised.  Local."

#define BCLPY_DOC_EXC_ERROR \
    "Base class of pybcl's own exceptions (an MPI failure, a container used\n" \
    "after finalize(), a peer's failure in a collective call).\n" \
    BCLPY_EXAMPLES \
    ">>> try:\n" \
    "...     pybcl.barrier()\n" \
    "... except pybcl.Error as exc:\n" \
    "...     print(exc)"

#define BCLPY_DOC_EXC_SEGMENTFULL \
    "The shared segment has no room (also a MemoryError): alloc() or a\n" \
    "container's constructor, or a segment size the node cannot hold\n" \
    "(raised on every rank then).\n" \
    BCLPY_EXAMPLES \
    ">>> try:\n" \
    "...     p = pybcl.alloc(1 << 40)\n" \
    "... except pybcl.SegmentFull:\n" \
    "...     p = None"

#define BCLPY_DOC_EXC_CONTAINERFULL \
    "A fixed-capacity container has no room and nothing was written (also a\n" \
    "queue.Full): HashMap.insert() finding no free bucket, a full\n" \
    "HashMapBuffer.flush().  A collective resize() makes room.\n" \
    BCLPY_EXAMPLES \
    ">>> m = pybcl.HashMap(2 * pybcl.nprocs())\n" \
    ">>> try:\n" \
    "...     m.insert_many(np.arange(1000), np.arange(1000))\n" \
    "... except pybcl.ContainerFull:\n" \
    "...     pass"

#define BCLPY_DOC_EXC_EMPTY \
    "Pop from an empty queue (also a queue.Empty).\n" \
    BCLPY_EXAMPLES \
    ">>> q = pybcl.CircularQueue(0, 8)\n" \
    ">>> try:\n" \
    "...     q.pop()\n" \
    "... except pybcl.Empty:\n" \
    "...     pass"

#endif /* BCLPY_DOC_RUNTIME_H */
