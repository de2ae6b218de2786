/* bcl_rankset.c -- allocation of the rank sets (bcl_rankset.h). */
#include "comm/bcl_rankset.h"

#include <stdlib.h>

#include "runtime/bcl_error.h"

int bcl_rankset_reserve(bcl_rankset *s, int nprocs)
{
    if (s->cap == nprocs)
        return BCL_OK;
    bcl_rankset_free(s);
    if (nprocs <= 0)
        return BCL_OK;
    s->list = malloc((size_t)nprocs * sizeof *s->list);
    s->slot = calloc((size_t)nprocs, sizeof *s->slot);
    if (!s->list || !s->slot) {
        bcl_rankset_free(s);
        return BCL_ERR_NOMEM;
    }
    s->cap = nprocs;
    return BCL_OK;
}

void bcl_rankset_free(bcl_rankset *s)
{
    free(s->list);
    free(s->slot);
    s->list = NULL;
    s->slot = NULL;
    s->n = s->cap = 0;
}
