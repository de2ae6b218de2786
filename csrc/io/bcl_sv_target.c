/* bcl_sv_target.c -- save or load a container of any kind (bcl_sv_target,
 * bcl_sv_containers.h): one switch over the kinds, for callers that hold
 * several. */
#include "io/bcl_sv_containers.h"

bcl_status bcl_sv_save(const bcl_sv_target *t, const char *path, const void *info,
                       size_t info_len)
{
    switch (t->kind) {
    case BCL_SV_HASHMAP: return bcl_sv_save_hashmap(t->hm, path, info, info_len);
    case BCL_SV_DARRAY: case BCL_SV_ARRAY: return bcl_sv_save_array(t->arr, path, info, info_len);
    case BCL_SV_BLOOM: return bcl_sv_save_bloom(t->bloom, path, info, info_len);
    default: return bcl_sv_save_queue(t->q, path, info, info_len);
    }
}

bcl_status bcl_sv_load(bcl_sv_file *f, const bcl_sv_target *t, int k)
{
    switch (t->kind) {
    case BCL_SV_HASHMAP: return bcl_sv_load_hashmap(f, t->hm);
    case BCL_SV_DARRAY: case BCL_SV_ARRAY: return bcl_sv_load_array(f, t->arr);
    case BCL_SV_BLOOM: return bcl_sv_load_bloom(f, t->bloom, k);
    default: return bcl_sv_load_queue(f, t->q);
    }
}
