/* bcl_memcheck.c -- node memory versus the segments asked for (bcl_memcheck.h). */
#include "runtime/bcl_memcheck.h"

#include "runtime/bcl_mpi_error.h"

#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>

static int read_u64(const char *path, uint64_t *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    unsigned long long v;
    int ok = fscanf(f, "%llu", &v) == 1;     /* "max" (no limit) does not parse */
    fclose(f);
    if (ok)
        *out = v;
    return ok;
}

static int mem_available(uint64_t *out)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    int ok = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long kib;
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
            *out = (uint64_t)kib * 1024u;
            ok = 1;
            break;
        }
    }
    fclose(f);
    return ok;
}

/* cgroup v2 (memory.max / memory.current), else v1. */
static int cgroup_room(uint64_t *out)
{
    static const char *const pairs[][2] = {
        { "/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current" },
        { "/sys/fs/cgroup/memory/memory.limit_in_bytes",
          "/sys/fs/cgroup/memory/memory.usage_in_bytes" },
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        uint64_t limit, used = 0;
        if (!read_u64(pairs[i][0], &limit))
            continue;
        if (limit >= ((uint64_t)1 << 62))          /* v1's "unlimited" */
            return 0;
        read_u64(pairs[i][1], &used);
        *out = limit > used ? limit - used : 0;
        return 1;
    }
    return 0;
}

static int shm_room(uint64_t *out)
{
    struct statvfs s;
    if (statvfs("/dev/shm", &s) != 0)
        return 0;
    *out = (uint64_t)s.f_bavail * (uint64_t)s.f_frsize;
    return 1;
}

uint64_t bcl_node_memory_available(int shm, const char **what)
{
    uint64_t best = UINT64_MAX, v;
    *what = "unknown";
    if (mem_available(&v) && v < best) { best = v; *what = "MemAvailable"; }
    if (cgroup_room(&v) && v < best) { best = v; *what = "the cgroup memory limit"; }
    if (shm && shm_room(&v) && v < best) { best = v; *what = "free space in /dev/shm"; }
    return best;
}

static double gib(uint64_t b) { return (double)b / (double)(1u << 30); }

bcl_status bcl_check_segments_fit(MPI_Comm comm, size_t segment_size, int shm)
{
    MPI_Comm node;
    int node_size;
    BCL_MPI_CHECK("MPI_Comm_split_type",
                  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int rc = MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    if (rc != MPI_SUCCESS)
        return bcl_mpi_error("MPI_Comm_size", rc);
    const char *what;
    uint64_t avail = bcl_node_memory_available(shm, &what);
    /* segment_size * node_size without overflow: saturate. */
    uint64_t need = segment_size > UINT64_MAX / (uint64_t)node_size
                        ? UINT64_MAX : (uint64_t)segment_size * (uint64_t)node_size;
    int bad = need > avail;
    /* One allreduce: the worst node (largest shortfall flag, then its
     * numbers) is reported by every rank.  MIN of negated = MAX. */
    long long mine[3] = { bad ? -1 : 0, bad ? -(long long)(need >> 10) : 0,
                          bad ? (long long)(avail >> 10) : (long long)1 << 62 };
    long long all[3];
    BCL_MPI_CHECK("MPI_Allreduce",
                  MPI_Allreduce(mine, all, 3, MPI_LONG_LONG, MPI_MIN, comm));
    if (all[0] == 0)
        return BCL_OK;
    uint64_t worst_need = (uint64_t)(-all[1]) << 10, worst_avail = (uint64_t)all[2] << 10;
    if (bad)
        return bcl_set_error(BCL_ERR_SEGFULL,
                             "segment_size %zu bytes (%.1f GiB) x %d rank(s) on this node "
                             "needs %.1f GiB, but only %.1f GiB is available (%s); "
                             "ask for a smaller segment_size / PYBCL_SEGMENT_SIZE",
                             segment_size, gib(segment_size), node_size,
                             gib(need), gib(avail), what);
    return bcl_set_error(BCL_ERR_SEGFULL,
                         "segment_size %zu bytes (%.1f GiB): another node's ranks need "
                         "%.1f GiB for their segments, but only %.1f GiB is available "
                         "there; ask for a smaller segment_size / PYBCL_SEGMENT_SIZE",
                         segment_size, gib(segment_size), gib(worst_need),
                         gib(worst_avail));
}
