/*
 * bcl_hashmap_buffer.h -- HashMapBuffer (BCL paper 5.3): one interface over
 * its two kinds of records, chosen by the map's types.  Fixed-size keys and
 * values travel as records through the owners' inboxes (bcl_hmbuffer.h);
 * bytes/str/object ones are combined on the sender and exchanged
 * (bcl_hmvbuffer.h).  The binding calls only this.
 *
 * grow is an option of the buffer, agreed among the ranks with its other
 * arguments (the binding's agreement).  A flush with grow set first grows
 * the map for the keys it brings (bcl_hm_grow_for, before the owners apply
 * them); should a block still fill, the flush grows the map again -- at
 * least doubling, to hold every entry and the refused ones at most half
 * full (bcl_hm_grow_past) -- and flushes again, until every entry is in or
 * the segments cannot hold the map (BCL_ERR_SEGFULL on every rank, the
 * entries kept).  Without grow a full map is BCL_ERR_FULL, entries kept.
 */
#ifndef BCL_HASHMAP_BUFFER_H
#define BCL_HASHMAP_BUFFER_H

#include "containers/hashmap/bcl_hmbuffer.h"
#include "containers/hashmap/bcl_hmvbuffer.h"

typedef struct bcl_hm_buffer {
    bcl_hashmap *m;
    size_t queue_size, message_size;   /* as created (agreed)                */
    int grow;
    int var;                  /* the map has a bytes/str/object type: u.v   */
    uint64_t id;              /* creation number, the same on every rank    */
    union {
        bcl_hmbuf f;          /* fixed-size keys and values                 */
        bcl_hmvbuf v;         /* variable-length ones                       */
    } u;
} bcl_hm_buffer;

/* Collective: a buffer over m (which must outlive it). */
bcl_status bcl_hm_buffer_create(bcl_hm_buffer *b, bcl_hashmap *m, size_t queue_size,
                                size_t message_size, int grow);

/* Local.  storage 0: private memory only -- the inboxes in the segments
 * belong to a runtime that is gone, or peers may still push to them. */
void bcl_hm_buffer_destroy(bcl_hm_buffer *b, int storage);

/* Buffer one entry: the key's and the value's bytes (klen = key_size and
 * vlen = val_size for fixed-size types; the serialized bytes otherwise);
 * accumulate: add `val` instead of replacing. */
bcl_status bcl_hm_buffer_add(bcl_hm_buffer *b, const void *key, size_t klen,
                             const void *val, size_t vlen, int accumulate);

/* Buffer n entries.  Keys: keys[koff[i] .. koff[i + 1]) when koff is given
 * (serialized), else key_size bytes apart.  Values: vals[voff[i] ..
 * voff[i + 1]) when voff is given, else val_size bytes at vals + i * vstep
 * (vstep 0: one value for all). */
bcl_status bcl_hm_buffer_add_many(bcl_hm_buffer *b, const unsigned char *keys,
                                  const size_t *koff, size_t n, const unsigned char *vals,
                                  const size_t *voff, size_t vstep, int accumulate);

/* Entries this rank hands to the map at the next flush (added since the
 * last flush began, after combining, plus those a full map refused). */
uint64_t bcl_hm_buffer_pending(const bcl_hm_buffer *b);

/* Entries that found their owner's inbox full and waited in this rank's
 * memory for a flush (fixed-size records; 0 for the others). */
uint64_t bcl_hm_buffer_waited(const bcl_hm_buffer *b);

/* A digest of the buffer's identity, the same on every rank for one buffer
 * (what flush() agrees on before it starts). */
uint64_t bcl_hm_buffer_digest(const bcl_hm_buffer *b);

/* Collective: afterwards every buffered entry is in the map; the same status
 * on every rank (BCL_ERR_FULL without grow when the map is full,
 * BCL_ERR_SEGFULL when it cannot grow, BCL_ERR_OVERFLOW for accumulates
 * that overflowed; see bcl_hmbuffer.h). */
bcl_status bcl_hm_buffer_flush(bcl_hm_buffer *b);

#endif /* BCL_HASHMAP_BUFFER_H */
