/*
 * Plans and their per-communicator cache.
 *
 * A plan is built once per (root, algorithm, signature bytes) on a communicator
 * (the algorithm parameters are process-wide MCA values registered ALL_EQ, so they
 * are part of the key implicitly) and looked up on every later call.  The cache is
 * a small move-to-front list owned by the module and freed with the communicator.
 */
#ifndef MCAST_PLAN_H
#define MCAST_PLAN_H

#include <stddef.h>
#include "kbinomial.h"
#include "mcast_exec.h"

#define MCAST_PLAN_DESC_LEN 256
#define MCAST_PLAN_CACHE_CAP 64

typedef struct mcast_plan {
    struct mcast_plan *next;
    int root;
    int algorithm;            /* registry id of the component that built it */
    size_t bytes;             /* signature bytes it was built for */
    const char *name;         /* algorithm that runs (auto resolves to one) */
    kb_tree_t *tree;          /* over communicator ranks */
    int *chain;               /* [n] the ordering the tree was built on (root first), or NULL */
    mcast_local_plan_t local; /* this rank's part */
    char desc[MCAST_PLAN_DESC_LEN]; /* "k=4 segment_bytes=8192 ..." for the verbose line */
} mcast_plan_t;

typedef struct mcast_plan_cache {
    mcast_plan_t *head;
    int count;
} mcast_plan_cache_t;

/* Look a plan up (moves it to the front). NULL if absent. */
mcast_plan_t *mcast_plan_cache_find(mcast_plan_cache_t *cache, int root, int algorithm,
                                    size_t bytes);
/* Allocate an empty plan for the key (tree NULL). NULL on ENOMEM. */
mcast_plan_t *mcast_plan_new(int root, int algorithm, size_t bytes);
/* Fill plan->local for `rank` from plan->tree (tree positions are comm ranks). */
void mcast_plan_set_local(mcast_plan_t *plan, int rank, size_t seg_bytes, int window,
                          int max_sends, mcast_discipline_t discipline);
/* Insert at the front, evicting the least recently used plan beyond the cap. */
void mcast_plan_cache_insert(mcast_plan_cache_t *cache, mcast_plan_t *plan);
void mcast_plan_free(mcast_plan_t *plan);
void mcast_plan_cache_clear(mcast_plan_cache_t *cache);

#endif /* MCAST_PLAN_H */
