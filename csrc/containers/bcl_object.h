/*
 * bcl_object.h -- out-of-line storage of variable-length values (BCL's
 * ObjectContainer / serial_ptr).
 *
 * A container slot for a `bytes`/`str`/`object` element holds a 16-byte
 * bcl_objref: where the serialized bytes live and how many there are.  The
 * bytes are stored in the *writer's* segment (allocation is local-only), so
 * the slot may point to any rank.  Releasing a reference frees the bytes:
 * at once when they are ours, else by pushing the block on its owner's
 * remote-free stack, which the owner drains at its next barrier or when an
 * allocation would otherwise fail — so overwrite-heavy runs never fill a
 * segment with garbage.
 */
#ifndef BCL_OBJECT_H
#define BCL_OBJECT_H

#include <stdint.h>

#include "comm/bcl_comm.h"

typedef struct bcl_objref {
    int32_t rank;       /* owner of the bytes                      */
    uint32_t len;       /* number of serialized bytes              */
    uint64_t offset;    /* in the owner's segment; 0 = no value    */
} bcl_objref;

static inline int bcl_objref_is_null(bcl_objref r) { return r.offset == 0; }

/* Copy `len` bytes into a new block of this rank's segment.  Drains the
 * remote-free stack and retries before giving up with BCL_ERR_SEGFULL. */
bcl_status bcl_obj_store(const void *data, size_t len, bcl_objref *out);

/* Read the referenced bytes into `buf` (ref.len bytes). */
bcl_status bcl_obj_load(bcl_objref ref, void *buf);

/* Give the referenced block back to its owner (see above).  A null ref is
 * a no-op. */
bcl_status bcl_obj_release(bcl_objref ref);

/* Owner side: free every block peers have released to us.  Called by
 * bcl_barrier and by the allocator's slow path; cheap when nothing waits. */
bcl_status bcl_obj_drain_remote_frees(void);

#endif /* BCL_OBJECT_H */
