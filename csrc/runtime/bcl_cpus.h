/*
 * bcl_cpus.h -- how many CPUs the ranks of a node may really use.
 *
 * The wait policy (docs/progress.md) must know whether a node runs more
 * ranks than it has CPUs for them.  The online CPU count is the wrong
 * measure: `taskset -c 0 mpiexec -n 2`, a Slurm cpuset or a container's
 * CPU quota give the ranks far fewer.  Two limits apply:
 *   - affinity: a rank runs only on the CPUs of its sched_getaffinity mask;
 *     the node's ranks together can use the union of their masks;
 *   - CPU bandwidth: a cgroup quota (v2 cpu.max, v1 cpu.cfs_quota_us /
 *     cpu.cfs_period_us, on the rank's cgroup or any ancestor) caps the
 *     CPU time per period, in CPUs.
 */
#ifndef BCL_CPUS_H
#define BCL_CPUS_H

#include <stddef.h>

/* Bytes of an affinity mask covering every configured CPU (the same on
 * every process of a machine, so masks can be OR-reduced as bytes). */
size_t bcl_cpu_mask_bytes(void);

/* Fill `mask` (bcl_cpu_mask_bytes() bytes) with this process's affinity.
 * Returns 0, or -1 when the kernel would not tell (mask is then all ones). */
int bcl_cpu_mask(void *mask, size_t nbytes);

/* Number of CPUs set in a mask of `nbytes` bytes. */
int bcl_cpu_mask_count(const void *mask, size_t nbytes);

/* The tightest cgroup CPU quota of this process, in CPUs (e.g. 1.5), or 0
 * when no cgroup limits its CPU time (or none can be read). */
double bcl_cgroup_cpu_limit(void);

#endif /* BCL_CPUS_H */
