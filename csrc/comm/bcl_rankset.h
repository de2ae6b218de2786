/*
 * bcl_rankset.h -- a set of ranks with O(1) insert, remove and membership
 * and O(size) iteration: a dense list plus, per rank, its slot in the list
 * (0 = absent, so the slot array doubles as the membership bitmap).
 *
 * The comm layer keeps two: the targets with operations issued since their
 * last flush (a flush costs what it touches, not what the job has), and the
 * targets with posted atomics.  Two ints per rank: 8 KB at 1,000 ranks.
 */
#ifndef BCL_RANKSET_H
#define BCL_RANKSET_H

typedef struct bcl_rankset {
    int *list;      /* members, in insertion order (until a removal)   */
    int *slot;      /* slot[r] = index of r in list + 1; 0 = absent     */
    int n, cap;     /* members; ranks the arrays cover                  */
} bcl_rankset;

/* Cover ranks [0, nprocs).  Drops the members when the size changes (a new
 * runtime).  BCL_OK or BCL_ERR_NOMEM (the set is then empty and unusable:
 * cap == 0). */
int bcl_rankset_reserve(bcl_rankset *s, int nprocs);

static inline int bcl_rankset_has(const bcl_rankset *s, int r)
{
    return r >= 0 && r < s->cap && s->slot[r] != 0;
}

/* r must be in [0, cap). */
static inline void bcl_rankset_add(bcl_rankset *s, int r)
{
    if (s->slot[r])
        return;
    s->list[s->n++] = r;
    s->slot[r] = s->n;
}

static inline void bcl_rankset_remove(bcl_rankset *s, int r)
{
    if (r < 0 || r >= s->cap || !s->slot[r])
        return;
    int i = s->slot[r] - 1, last = s->list[--s->n];
    s->list[i] = last;          /* swap the last member into r's slot */
    s->slot[last] = i + 1;
    s->slot[r] = 0;
}

static inline void bcl_rankset_clear(bcl_rankset *s)
{
    for (int i = 0; i < s->n; i++)
        s->slot[s->list[i]] = 0;
    s->n = 0;
}

void bcl_rankset_free(bcl_rankset *s);

#endif /* BCL_RANKSET_H */
