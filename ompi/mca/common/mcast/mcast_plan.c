/* Plan cache: see mcast_plan.h. */
#include "mcast_plan.h"

#include <stdlib.h>

mcast_plan_t *mcast_plan_cache_find(mcast_plan_cache_t *cache, int root, int algorithm,
                                    size_t bytes)
{
    mcast_plan_t *prev = NULL;
    for (mcast_plan_t *p = cache->head; NULL != p; prev = p, p = p->next) {
        if (p->root == root && p->algorithm == algorithm && p->bytes == bytes) {
            if (NULL != prev) {
                prev->next = p->next;
                p->next = cache->head;
                cache->head = p;
            }
            return p;
        }
    }
    return NULL;
}

mcast_plan_t *mcast_plan_new(int root, int algorithm, size_t bytes)
{
    mcast_plan_t *p = calloc(1, sizeof(*p));
    if (NULL != p) {
        p->root = root;
        p->algorithm = algorithm;
        p->bytes = bytes;
    }
    return p;
}

void mcast_plan_set_local(mcast_plan_t *plan, int rank, size_t seg_bytes, int window,
                          int max_sends, mcast_discipline_t discipline)
{
    const kb_tree_t *t = plan->tree;
    plan->local.parent = t->parent[rank];
    plan->local.nchildren = t->child_off[rank + 1] - t->child_off[rank];
    plan->local.children = (NULL != t->children) ? t->children + t->child_off[rank] : NULL;
    plan->local.seg_bytes = seg_bytes;
    plan->local.window = window;
    plan->local.max_sends = max_sends;
    plan->local.discipline = discipline;
}

void mcast_plan_free(mcast_plan_t *plan)
{
    if (NULL != plan) {
        kb_tree_free(plan->tree);
        free(plan->chain);
        free(plan);
    }
}

void mcast_plan_cache_insert(mcast_plan_cache_t *cache, mcast_plan_t *plan)
{
    plan->next = cache->head;
    cache->head = plan;
    if (++cache->count <= MCAST_PLAN_CACHE_CAP) {
        return;
    }
    mcast_plan_t *p = cache->head;
    while (NULL != p->next && NULL != p->next->next) {
        p = p->next;
    }
    mcast_plan_free(p->next);
    p->next = NULL;
    cache->count--;
}

void mcast_plan_cache_clear(mcast_plan_cache_t *cache)
{
    mcast_plan_t *p = cache->head;
    while (NULL != p) {
        mcast_plan_t *next = p->next;
        mcast_plan_free(p);
        p = next;
    }
    cache->head = NULL;
    cache->count = 0;
}
