/* bcl_object.c -- out-of-line variable-length values (see bcl_object.h). */
#include "containers/bcl_object.h"

#include "runtime/bcl_alloc.h"

/* The remote-free stack is a Treiber stack threaded through the freed blocks
 * themselves: the first 8 bytes of a released block hold the offset of the
 * next one.  Peers only push (CAS on the head); the owner only takes the
 * whole stack at once (atomic swap with 0), so there is no ABA problem. */

static bcl_gptr stack_head(int rank) { return bcl_gptr_make(rank, bcl_rt.free_stack); }

bcl_status bcl_obj_store(const void *data, size_t len, bcl_objref *out)
{
    if (len > UINT32_MAX)
        return bcl_set_error(BCL_ERR_ARG, "a serialized value of %zu bytes exceeds the "
                             "4 GiB limit of one element", len);
    uint64_t off;
    bcl_status st = bcl_alloc(len, 0, &off);
    if (st == BCL_ERR_SEGFULL) {
        st = bcl_obj_drain_remote_frees();
        if (st == BCL_OK)
            st = bcl_alloc(len, 0, &off);
    }
    if (st != BCL_OK)
        return st;
    bcl_objref ref = { bcl_rt.rank, (uint32_t)len, off };
    st = bcl_put(bcl_gptr_make(bcl_rt.rank, off), data, len);
    if (st != BCL_OK) {
        bcl_free(off);
        return st;
    }
    *out = ref;
    return BCL_OK;
}

bcl_status bcl_obj_load(bcl_objref ref, void *buf)
{
    if (bcl_objref_is_null(ref))
        return bcl_set_error(BCL_ERR_ARG, "null object reference");
    return bcl_get(buf, bcl_gptr_make(ref.rank, ref.offset), ref.len);
}

static bcl_status push_remote_free(bcl_objref ref)
{
    bcl_gptr head = stack_head(ref.rank), block = bcl_gptr_make(ref.rank, ref.offset);
    uint64_t seen, prev;
    bcl_status st = bcl_fetch_op(head, 8, BCL_OP_NOOP, 0, &seen);
    while (st == BCL_OK) {
        /* Link the block in front of what we last saw, then try to publish
         * it; bcl_put completes before the CAS can make it reachable. */
        if ((st = bcl_put(block, &seen, sizeof seen)) != BCL_OK)
            break;
        if ((st = bcl_cas(head, 8, seen, ref.offset, &prev)) != BCL_OK || prev == seen)
            break;
        seen = prev;
    }
    return st;
}

bcl_status bcl_obj_release(bcl_objref ref)
{
    if (bcl_objref_is_null(ref))
        return BCL_OK;
    if (ref.rank == bcl_rt.rank)
        return bcl_free(ref.offset);
    return push_remote_free(ref);
}

bcl_status bcl_obj_drain_remote_frees(void)
{
    BCL_REQUIRE_INIT();
    uint64_t top;
    bcl_status st = bcl_fetch_op(stack_head(bcl_rt.rank), 8, BCL_OP_REPLACE, 0, &top);
    while (st == BCL_OK && top) {
        uint64_t next;
        if ((st = bcl_get(&next, bcl_gptr_make(bcl_rt.rank, top), sizeof next)) != BCL_OK)
            break;
        st = bcl_free(top);
        top = next;
    }
    return st;
}
