/* bcl_ompi_osc.c -- keep Open MPI's defective osc/rdma away from pybcl's
 * window (why: bcl_ompi_osc.h). */
#include "runtime/bcl_ompi_osc.h"

#include "runtime/bcl_mpi_error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/bcl_mpicheck.h"

#define OSC_DEFAULT "^rdma"

int bcl_ompi_cas_defect(void)
{
    int major, minor, release;
    if (sscanf(bcl_mpi_library_name(), "Open MPI v%d.%d.%d", &major, &minor, &release) != 3)
        return 0;
    return major == 4 && ((minor == 0 && release <= 4) || (minor == 1 && release <= 4));
}

void bcl_mpi_env_default(const char **name, const char **value)
{
    *name = *value = NULL;
    if (bcl_ompi_cas_defect()) {
        *name = "OMPI_MCA_osc";
        *value = OSC_DEFAULT;
    }
}

/* Does an Open MPI component selection ("a,b", "^a,b", "" = all) let
 * `component` be chosen? */
static int selection_allows(const char *selection, const char *component)
{
    const char *s = selection;
    while (*s == ' ')
        s++;
    int exclude = *s == '^';
    if (exclude)
        s++;
    if (!*s)
        return 1;                     /* nothing listed: every component may run */
    size_t want = strlen(component);
    int listed = 0;
    while (*s) {
        while (*s == ' ' || *s == ',')
            s++;
        size_t n = strcspn(s, ", ");
        if (n == want && strncmp(s, component, n) == 0)
            listed = 1;
        s += n;
    }
    return exclude ? !listed : listed;
}

/* The "osc" selection MPI is running with, through the MPI tool interface
 * (it sees the command line, the environment and mca-params.conf alike);
 * the environment variable alone when the tool interface cannot say.
 * Returns a malloc'ed string ("" when nothing is set), NULL on no memory. */
static char *osc_selection(void)
{
    char *value = NULL;
    int level, provided, index, count;
    MPI_T_cvar_handle handle;
    /* Ask for the thread level MPI already runs at: Open MPI 4.1's
     * MPI_T_init_thread overwrites MPI's own thread level with the one it is
     * given (MPI_THREAD_SINGLE here made MPI_Query_thread say so afterwards,
     * and the progress thread refused to start). */
    if (MPI_Query_thread(&level) != MPI_SUCCESS ||
        MPI_T_init_thread(level, &provided) != MPI_SUCCESS)
        goto from_env;
    if (MPI_T_cvar_get_index("osc", &index) == MPI_SUCCESS &&
        MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) == MPI_SUCCESS) {
        /* count is the string's buffer size; room for one more byte, zeroed,
         * so the value is terminated whatever the library writes. */
        if (count >= 0 && (value = calloc((size_t)count + 2, 1)) &&
            MPI_T_cvar_read(handle, value) != MPI_SUCCESS) {
            free(value);
            value = NULL;
        }
        MPI_T_cvar_handle_free(&handle);
    }
    MPI_T_finalize();
    if (value)
        return value;
from_env:;
    const char *env = getenv("OMPI_MCA_osc");
    return strdup(env ? env : "");
}

bcl_status bcl_check_ompi_osc(MPI_Comm comm)
{
    int bad = 0;
    char why[160] = "another rank's osc selection allows it";
    if (bcl_ompi_cas_defect()) {
        char *selection = osc_selection();
        bad = !selection || selection_allows(selection, "rdma");
        if (bad)
            snprintf(why, sizeof why, "osc selection '%.100s' allows it",
                     selection ? selection : "?");
        free(selection);
    }
    /* One verdict for the whole job: nobody creates a window its peers refused. */
    int agreed = 0;
    BCL_MPI_CHECK("MPI_Allreduce", MPI_Allreduce(&bad, &agreed, 1, MPI_INT, MPI_MAX, comm));
    if (!agreed)
        return BCL_OK;
    return bcl_set_error(
        BCL_ERR_STATE,
        "pybcl's rma and rma-node transports cannot use the osc/rdma component of %s (%s): "
        "a 64-bit MPI_Compare_and_swap on a peer of the same node crashes there "
        "(Open MPI issue 7027, fixed in 4.0.5 and 4.1.5). Set OMPI_MCA_osc=%s before "
        "MPI starts (pybcl does so itself when imported before mpi4py.MPI), or use "
        "PYBCL_TRANSPORT=shm on one node, or Open MPI 4.1.5 or later (docs/install.md)",
        bcl_mpi_library_name(), why, OSC_DEFAULT);
}
