/*
 * The per-communicator cache of plans.
 *
 * The planner's decision for a size class (algorithm, k, segment, lambda) is made once
 * per communicator and class, on the chain of root 0, and kept; the plan for a root is
 * that decision built on the root's chain (one tree, O(n)) and kept in a move-to-front
 * list of at most MCAST_PLAN_CACHE_CAP plans.  A call looks its plan up by (class,
 * root); a miss costs one tree build, never a new search.
 */
#ifndef MCAST_PLAN_H
#define MCAST_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include "mcast_planner.h"

#define MCAST_PLAN_CACHE_CAP 256
#define MCAST_MAX_CLASSES 260 /* size classes of a size_t (mcast_size_class: at most 256) */

/* A schedule shared by the memo and the calls that run it (schedules are read-only while
 * an engine runs them): freed when the last holder lets go (a nonblocking call may end
 * after the memo moved on to another size, on another thread). */
typedef struct mcast_sched_ref {
    mcast_sched_t *sched;
    int32_t holders;
} mcast_sched_ref_t;
mcast_sched_ref_t *mcast_sched_ref_take(mcast_sched_ref_t *r); /* one more holder */
void mcast_sched_ref_release(mcast_sched_ref_t *r);            /* NULL: nothing */

/* This rank's schedule and engine parameters of a plan at one exact size, kept for the
 * next call of that size, blocking or not: a call that finds it allocates no schedule,
 * so a rank short of memory still knows its peers (mcast_pml.h). */
typedef struct mcast_sched_memo {
    mcast_sched_ref_t *ref; /* NULL: none yet */
    size_t bytes;
    mcast_engine_params_t ep;
} mcast_sched_memo_t;

typedef struct mcast_cached_plan {
    struct mcast_cached_plan *next;
    int cls;
    int root;
    mcast_plan_t *plan;
    mcast_sched_memo_t memo;
    mcast_plan_info_t info; /* the plan's, read once (a plan does not change; its pointers
                               live as long as the plan) */
    bool printed[3]; /* verbose line printed for bcast / ibcast / bcast_init */
} mcast_cached_plan_t;

typedef struct mcast_decision {
    bool made;
    bool failed;   /* no plan for this class (the fallback policy applies) */
    mcast_class_choice_t choice; /* what the planner chose for the class on root 0's chain
                                    (choice.defer: the module below serves it: a "previous"
                                    rule, or pathmc under auto when kbinomial's plan is better) */
    char *why;            /* the planner's reason when failed (malloc'ed) */
    bool verifying;       /* the choice is checked on live blocking calls (verify) */
    mcast_verify_t verify;
    bool has_runner_up;   /* verify has a third candidate: our runner_up plan */
    mcast_class_choice_t runner_up; /* (mcast_decide_runner_up) */
} mcast_decision_t;

typedef struct mcast_plan_cache {
    mcast_cached_plan_t *head;
    int count;
    /* [MCAST_MAX_CLASSES] (allocated at the first bcast), each allocated at its class's
     * first decision: a communicator decides a few classes, and a whole table (520 B a
     * class) was mapped and unmapped with each module (E-FIRST-3) */
    mcast_decision_t **decisions;
} mcast_plan_cache_t;

/* Look a plan up (moves it to the front); NULL if absent. */
mcast_cached_plan_t *mcast_plan_cache_find(mcast_plan_cache_t *cache, int cls, int root);
/* Insert at the front (takes the plan), evicting the least recently used beyond the cap.
 * NULL on ENOMEM (the plan is freed). */
mcast_cached_plan_t *mcast_plan_cache_insert(mcast_plan_cache_t *cache, int cls, int root,
                                             mcast_plan_t *plan);
/* Class cls's decision, to be written (NULL: no memory for it; the cache's table
 * allocated). */
mcast_decision_t *mcast_plan_cache_decision(mcast_plan_cache_t *cache, int cls);
void mcast_plan_cache_clear(mcast_plan_cache_t *cache);
/* Plans and decisions gone, the decisions' memory kept (a decision made again allocates
 * nothing, so nothing that can fail on one rank only). */
void mcast_plan_cache_forget(mcast_plan_cache_t *cache);

#endif /* MCAST_PLAN_H */
