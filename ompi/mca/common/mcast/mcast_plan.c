/* Plan cache: see mcast_plan.h. */
#include "mcast_plan.h"

#include <stdlib.h>
#include <string.h>

#include "opal/sys/atomic.h"

mcast_sched_ref_t *mcast_sched_ref_take(mcast_sched_ref_t *r)
{
    opal_atomic_add_fetch_32(&r->holders, 1);
    return r;
}

void mcast_sched_ref_release(mcast_sched_ref_t *r)
{
    if (NULL != r && 0 == opal_atomic_add_fetch_32(&r->holders, -1)) {
        mcast_sched_free(r->sched);
        free(r);
    }
}

mcast_cached_plan_t *mcast_plan_cache_find(mcast_plan_cache_t *cache, int cls, int root)
{
    mcast_cached_plan_t *prev = NULL;
    for (mcast_cached_plan_t *p = cache->head; NULL != p; prev = p, p = p->next) {
        if (p->cls == cls && p->root == root) {
            if (NULL != prev) { /* move to front */
                prev->next = p->next;
                p->next = cache->head;
                cache->head = p;
            }
            return p;
        }
    }
    return NULL;
}

mcast_cached_plan_t *mcast_plan_cache_insert(mcast_plan_cache_t *cache, int cls, int root,
                                             mcast_plan_t *plan)
{
    mcast_cached_plan_t *e = calloc(1, sizeof(*e));
    if (NULL == e) {
        mcast_plan_free(plan);
        return NULL;
    }
    e->cls = cls;
    e->root = root;
    e->plan = plan;
    mcast_plan_get_info(plan, &e->info);
    e->next = cache->head;
    cache->head = e;
    if (++cache->count > MCAST_PLAN_CACHE_CAP) {
        mcast_cached_plan_t *p = cache->head;
        while (NULL != p->next && NULL != p->next->next) {
            p = p->next;
        }
        mcast_plan_free(p->next->plan);
        mcast_sched_ref_release(p->next->memo.ref);
        free(p->next);
        p->next = NULL;
        cache->count--;
    }
    return e;
}

static void drop_plans(mcast_plan_cache_t *cache)
{
    mcast_cached_plan_t *p = cache->head;
    while (NULL != p) {
        mcast_cached_plan_t *next = p->next;
        mcast_plan_free(p->plan);
        mcast_sched_ref_release(p->memo.ref);
        free(p);
        p = next;
    }
    cache->head = NULL;
    cache->count = 0;
}

void mcast_plan_cache_forget(mcast_plan_cache_t *cache)
{
    drop_plans(cache);
    for (int i = 0; NULL != cache->decisions && i < MCAST_MAX_CLASSES; i++) {
        mcast_decision_t *d = cache->decisions[i];
        if (NULL != d) {
            free(d->why);
            memset(d, 0, sizeof(*d));
        }
    }
}

mcast_decision_t *mcast_plan_cache_decision(mcast_plan_cache_t *cache, int cls)
{
    if (NULL == cache->decisions[cls]) {
        cache->decisions[cls] = calloc(1, sizeof(mcast_decision_t));
    }
    return cache->decisions[cls];
}

void mcast_plan_cache_clear(mcast_plan_cache_t *cache)
{
    drop_plans(cache);
    for (int i = 0; NULL != cache->decisions && i < MCAST_MAX_CLASSES; i++) {
        if (NULL != cache->decisions[i]) {
            free(cache->decisions[i]->why);
            free(cache->decisions[i]);
        }
    }
    free(cache->decisions);
    cache->decisions = NULL;
}
