/* bcl_cpus.c -- CPU affinity and cgroup CPU quota (see bcl_cpus.h). */
#define _GNU_SOURCE
#include "runtime/bcl_cpus.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t bcl_cpu_mask_bytes(void)
{
    long conf = sysconf(_SC_NPROCESSORS_CONF);
    /* at least CPU_SETSIZE: the kernel refuses masks shorter than its own */
    return CPU_ALLOC_SIZE(conf > CPU_SETSIZE ? (int)conf : CPU_SETSIZE);
}

int bcl_cpu_mask(void *mask, size_t nbytes)
{
    if (sched_getaffinity(0, nbytes, (cpu_set_t *)mask) == 0)
        return 0;
    memset(mask, 0xff, nbytes);
    return -1;
}

int bcl_cpu_mask_count(const void *mask, size_t nbytes)
{
    return CPU_COUNT_S(nbytes, (const cpu_set_t *)mask);
}

/* ---- cgroups ------------------------------------------------------------------ */

/* One cgroup hierarchy that can limit CPU time: where it is mounted, which
 * cgroup directory is mounted there, and this process's cgroup in it. */
typedef struct hierarchy {
    char mount[512], root[512], path[512];
} hierarchy;

/* Read the first line of a small file; 0 on success. */
static int read_line(const char *file, char *buf, size_t len)
{
    FILE *f = fopen(file, "r");
    if (!f)
        return -1;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    return ok ? 0 : -1;
}

/* Quota in CPUs of one cgroup directory, 0 if it sets none. */
static double dir_limit(const char *dir, int v2)
{
    char file[1200], line[128];
    if (v2) {
        snprintf(file, sizeof file, "%s/cpu.max", dir);
        char quota[64];
        long period;
        if (read_line(file, line, sizeof line) || sscanf(line, "%63s %ld", quota, &period) != 2 ||
            !strcmp(quota, "max") || period <= 0)
            return 0;
        return atof(quota) / (double)period;
    }
    long quota, period;
    snprintf(file, sizeof file, "%s/cpu.cfs_quota_us", dir);
    if (read_line(file, line, sizeof line) || sscanf(line, "%ld", &quota) != 1 || quota <= 0)
        return 0;
    snprintf(file, sizeof file, "%s/cpu.cfs_period_us", dir);
    if (read_line(file, line, sizeof line) || sscanf(line, "%ld", &period) != 1 || period <= 0)
        return 0;
    return (double)quota / (double)period;
}

/* Tightest quota on the way from this process's cgroup up to the mount's root. */
static double hierarchy_limit(const hierarchy *h, int v2)
{
    const char *rel = h->path;
    size_t rootlen = strlen(h->root);
    if (strcmp(h->root, "/") && !strncmp(rel, h->root, rootlen))
        rel += rootlen;                 /* mounted below the hierarchy's root */
    else if (strcmp(h->root, "/"))
        rel = "";                       /* not ours to walk: the mount's own limit */
    char dir[1100];
    snprintf(dir, sizeof dir, "%s%s", h->mount, rel);
    double best = 0;
    for (;;) {
        double q = dir_limit(dir, v2);
        if (q > 0 && (best == 0 || q < best))
            best = q;
        char *slash = strrchr(dir, '/');
        if (!slash || (size_t)(slash - dir) < strlen(h->mount))
            break;
        *slash = '\0';
    }
    return best;
}

/* Does a comma-separated option list contain `opt` exactly? */
static int has_option(const char *list, const char *opt)
{
    size_t n = strlen(opt);
    for (const char *p = list; (p = strstr(p, opt)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0' || p[n] == '\n'))
            return 1;
    return 0;
}

/* Our cgroup path in the v2 hierarchy ("0::/x") or the v1 one with "cpu". */
static int own_cgroup(int v2, char *out, size_t len)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return -1;
    char line[1024];
    int found = -1;
    while (found && fgets(line, sizeof line, f)) {
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = '\0';
        int match = v2 ? (c1[1] == '\0' && !strncmp(line, "0", 1))
                       : has_option(c1 + 1, "cpu");
        if (match) {
            snprintf(out, len, "%s", c2 + 1);
            out[strcspn(out, "\n")] = '\0';
            found = 0;
        }
    }
    fclose(f);
    return found;
}

double bcl_cgroup_cpu_limit(void)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f)
        return 0;
    double best = 0;
    char line[2048];
    while (fgets(line, sizeof line, f)) {
        /* id parent major:minor root mountpoint options... - fstype source superopts */
        hierarchy h;
        char fstype[64], superopts[512];
        const char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*s %*s %*s %511s %511s", h.root, h.mount) != 2 ||
            sscanf(dash + 3, "%63s %*s %511s", fstype, superopts) != 2)
            continue;
        int v2 = !strcmp(fstype, "cgroup2");
        if (!v2 && !(strcmp(fstype, "cgroup") == 0 && has_option(superopts, "cpu")))
            continue;
        if (own_cgroup(v2, h.path, sizeof h.path))
            continue;
        double q = hierarchy_limit(&h, v2);
        if (q > 0 && (best == 0 || q < best))
            best = q;
    }
    fclose(f);
    return best;
}
