/* bcl_hashmap_num.c -- a map's numeric values: the checked add of an
 * accumulate and its overflow error, shared by both bucket layouts' scalar,
 * batch and own-block paths (bcl_hashmap.c, bcl_hashmap_compact*.c, the
 * batches), which is why it stands apart from any of them. */
#include "containers/hashmap/bcl_hashmap_internal.h"

#include <stdint.h>
#include <string.h>

int bcl_hm_num_add(const bcl_hashmap *m, void *value, const void *delta)
{
    /* Integers: checked (docs/api.md: values convert without loss or raise);
     * floats follow IEEE (inf is a float). */
#define ADD(T)                                                  \
    do {                                                        \
        T a_, b_, s_;                                           \
        memcpy(&a_, value, sizeof a_);                          \
        memcpy(&b_, delta, sizeof b_);                          \
        if (__builtin_add_overflow(a_, b_, &s_))                \
            return 1;                                           \
        memcpy(value, &s_, sizeof s_);                          \
    } while (0)
#define FADD(T)                                                 \
    do {                                                        \
        T a_, b_;                                               \
        memcpy(&a_, value, sizeof a_);                          \
        memcpy(&b_, delta, sizeof b_);                          \
        a_ = (T)(a_ + b_);                                      \
        memcpy(value, &a_, sizeof a_);                          \
    } while (0)
    size_t w = m->val_size;
    if (m->num == BCL_HM_NUM_FLOAT) {
        if (w == 4) FADD(float); else FADD(double);
        return 0;
    }
    int sgn = m->num == BCL_HM_NUM_INT;
    switch (w) {
    case 1: if (sgn) ADD(int8_t); else ADD(uint8_t); break;
    case 2: if (sgn) ADD(int16_t); else ADD(uint16_t); break;
    case 4: if (sgn) ADD(int32_t); else ADD(uint32_t); break;
    default: if (sgn) ADD(int64_t); else ADD(uint64_t); break;
    }
    return 0;
#undef ADD
#undef FADD
}

bcl_status bcl_hm_overflow_error(const bcl_hashmap *m, const void *delta)
{
    long long d = 0;
    if (m->val_size == 8) { int64_t t; memcpy(&t, delta, 8); d = t; }
    else if (m->val_size == 4) { int32_t t; memcpy(&t, delta, 4); d = t; }
    else if (m->val_size == 2) { int16_t t; memcpy(&t, delta, 2); d = t; }
    else { int8_t t; memcpy(&t, delta, 1); d = t; }
    if (m->num == BCL_HM_NUM_UINT)
        return bcl_set_error(BCL_ERR_OVERFLOW, "accumulate: the sum does not fit the "
                             "%zu-byte unsigned value type; not applied (the stored "
                             "value is unchanged)", m->val_size);
    return bcl_set_error(BCL_ERR_OVERFLOW, "accumulate: adding %lld overflows the "
                         "%zu-byte integer value type; not applied (the stored value is "
                         "unchanged)", d, m->val_size);
}
