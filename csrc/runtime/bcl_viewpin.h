/*
 * bcl_viewpin.h -- views of the segment that outlive the runtime.
 *
 * local() hands out NumPy arrays that point straight into this rank's
 * segment.  finalize() frees the window: on shm MPI unmaps the memory, and a
 * view read afterwards was a segmentation fault.  A view cannot be revoked
 * (NumPy reads its pointer directly), so finalize detaches them instead: the
 * binding pins each view's byte range while the array lives; just before
 * the window is freed the pinned ranges are copied aside, and just after,
 * private anonymous memory is mapped at the same addresses (only where
 * nothing else has been mapped since: MAP_FIXED_NOREPLACE) and the copies
 * are put back.  A view read after finalize() therefore shows the values it
 * had at finalize, detached from any container; writes go nowhere shared.
 * On rma the window's memory may stay mapped (heap) and is left as it is.
 */
#ifndef BCL_VIEWPIN_H
#define BCL_VIEWPIN_H

#include <stddef.h>

/* Pin [addr, addr + len): a handle >= 0, or -1 (no memory: the view is then
 * simply not detached at finalize). */
int bcl_view_pin(void *addr, size_t len);

/* The view is gone. */
void bcl_view_unpin(int handle);

/* Around freeing the window: copy the pinned ranges aside (before), map
 * anonymous memory there and copy them back (after).  Pins are detached
 * afterwards: a later runtime never touches these addresses again. */
void bcl_view_detach_before(void);
void bcl_view_detach_after(void);

#endif /* BCL_VIEWPIN_H */
