/*
 * coll_kbinomial core: broadcast trees, pipelined schedules and cost models.
 *
 * Pure C++17 behind this C API: no MPI header, no communicator.  Every
 * builder is f(n, root, ordering, params) -> status + flat struct.  C++
 * exceptions never cross this boundary (each entry point catches and returns
 * KB_ERR_*).  Positions are group ranks 0..n-1.
 */
#ifndef KBINOMIAL_H
#define KBINOMIAL_H

#include <stddef.h>
#include <stdint.h>

#include "mcast_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes: the cores' one enum (mcast_status.h) under this header's names. */
typedef enum {
    KB_OK = MCAST_OK,
    KB_ERR_ARG = MCAST_ERR_ARG,          /* invalid parameter (n < 1, k < 1, S < 1, bad root, ...) */
    KB_ERR_NOMEM = MCAST_ERR_NOMEM,      /* allocation failed */
    KB_ERR_INTERNAL = MCAST_ERR_INTERNAL /* unexpected exception in the core */
} kb_status_t;

/* The one "no peer" value (root's parent). */
#define KB_NO_PEER (-1)

/* ---------------------------------------------------------------------------
 * Trees.  A tree is flat data in CSR form:
 *   parent[v]                      parent of group rank v, KB_NO_PEER for root
 *   children[child_off[v] .. child_off[v+1]-1]
 *                                  v's children, in send order
 *   depth                          max number of edges root -> leaf
 * ------------------------------------------------------------------------- */
typedef struct kb_tree {
    int n;
    int root;
    int depth;
    int *parent;     /* [n]   */
    int *child_off;  /* [n+1] */
    int *children;   /* [n-1] (NULL allowed when n == 1) */
} kb_tree_t;

/* Tree shapes the core builds. */
typedef enum {
    KB_SHAPE_LINEAR = 0,   /* root sends to everyone (separate addressing), ordering order */
    KB_SHAPE_BINOMIAL,     /* binomial tree on the chain (k = ceil(log2 n)) */
    KB_SHAPE_KBINOMIAL,    /* k-binomial tree on the chain (seed 001 sec. 4.3.4) */
    KB_SHAPE_POSTAL,       /* Bar-Noy/Kipnis greedy optimal tree for lambda (seed 003) */
    KB_SHAPE_CHAIN,        /* 0 -> 1 -> 2 ... along the chain */
    KB_SHAPE_KNOMIAL       /* k-nomial tree of radix k >= 2 on the chain (MPICH, MVAPICH, tuned) */
} kb_shape_t;

typedef struct kb_tree_params {
    int k;           /* KB_SHAPE_KBINOMIAL: fan-out bound, >= 1; KB_SHAPE_KNOMIAL: radix, >= 2 */
    double lambda;   /* KB_SHAPE_POSTAL: lambda >= 1 */
} kb_tree_params_t;

/*
 * Build a tree of shape `shape` over n group ranks with source `root`.
 * `ordering` is a permutation of 0..n-1 (NULL = identity).  The chain the
 * builders use is the ordering rotated cyclically so that `root` comes first.
 * On success *out owns its arrays; free with kb_tree_free().
 */
int kb_tree_build(kb_shape_t shape, int n, int root, const int *ordering,
                  const kb_tree_params_t *params, kb_tree_t **out);
void kb_tree_free(kb_tree_t *tree);

/* Number of children of v (0 if out of range). */
int kb_tree_nchildren(const kb_tree_t *tree, int v);

/* Added: checks a tree's consistency (n >= 1, root in range with no parent,
 * child_off monotone from 0 to n-1, every child names its parent back, all n
 * ranks reachable from root exactly once, depth field correct).
 * KB_OK or KB_ERR_ARG.  The simulators run this check on their input. */
int kb_tree_check(const kb_tree_t *tree);

/* ---------------------------------------------------------------------------
 * k-binomial theory (seed 001 sec. 4.3, Lemma 4 / Theorems 2-3).
 * ------------------------------------------------------------------------- */
/* N(s,k): nodes covered in s steps by a k-binomial tree; saturates at UINT64_MAX.
 * N(s,0) = 1. Returns 0 for s < 0 or k < 0. */
uint64_t kb_N(int s, int k);
/* L1(n,k) = min{s : N(s,k) >= n}; -1 on bad input (n < 1, k < 1). */
int kb_L1(int n, int k);
/* ceil(log2 n) for n >= 1 (0 for n == 1); -1 for n < 1. */
int kb_ceil_log2(int n);
/* T(n,m,k) = L1 + (m-1)k steps; -1 on bad input (n < 1, k < 1, m < 1);
 * saturates at LONG_MAX. */
long kb_steps(int n, long m, int k);
/* Optimal k in [1, max(1,ceil(log2 n))] minimising T(n,m,k), ties -> smaller k.
 * -1 on bad input (n < 1, m < 1). */
int kb_optimal_k(int n, long m);


/* Step-time model t(S) = alpha + beta*S of one pipelined step of S bytes (the
 * worm renderer's segment choice, pm_worms.h). */
typedef struct kb_linear_model {
    double alpha_us;         /* per step latency, microseconds */
    double beta_ns_per_byte; /* per byte, nanoseconds */
} kb_linear_model_t;

/* ---------------------------------------------------------------------------
 * Postal model (seed 003 sec. 4; Bar-Noy & Kipnis).
 * ------------------------------------------------------------------------- */
/* F_lambda(t): nodes reached by time t (real lambda >= 1, t >= 0). Saturates.
 * 0 for t < 0 and on bad input (lambda < 1, NaN or infinite; t NaN).  Times
 * within 1e-12 relative of an event time a + b*lambda count as that time. */
uint64_t kb_postal_F(double lambda, double t);
/* min{t : F_lambda(t) >= n} -- completion time of the optimal tree; -1 bad input. */
double kb_postal_completion(int n, double lambda);

/* lambda from the model for one segment of S bytes:
 *   send_us(S)  = o_send_us + S * gap_ns_per_byte / 1000    (sender busy per copy)
 *   latency(S)  = send_us(S) + alpha_us + S*beta_ns/1000 + o_recv_us  (start of send ->
 *                 receiver ready to re-send)
 *   lambda      = max(1, latency / send_us). */
typedef struct kb_postal_model {
    double o_send_us;          /* per-copy sender overhead */
    double o_recv_us;          /* receiver processing before it can re-send */
    double alpha_us;           /* wire latency */
    double beta_ns_per_byte;   /* wire time per byte */
    double gap_ns_per_byte;    /* sender time per byte per copy */
} kb_postal_model_t;
double kb_postal_lambda(size_t seg_bytes, const kb_postal_model_t *model);
/* (kb_postal_lambda returns -1 on bad input: model NULL, a negative/NaN field,
 * or send_us(S) == 0.) */

/* ---------------------------------------------------------------------------
 * Simulators (for tests, the inspector and the tuner).
 * ------------------------------------------------------------------------- */
typedef enum { KB_DISC_FPFS = 0, KB_DISC_FCFS = 1 } kb_discipline_t;

/* Unit-step simulation: each node sends at most one packet per step; a packet
 * sent in step t is usable by its receiver from step t+1.  Returns the number of
 * steps until every node has all m packets, or -1 on bad input (m < 1, a tree
 * failing kb_tree_check, or n*m > KB_SIM_MAX_CELLS: the simulator keeps one
 * arrival step per rank and packet). */
#define KB_SIM_MAX_CELLS ((uint64_t)1 << 25)
long kb_sim_steps(const kb_tree_t *tree, long m, kb_discipline_t disc);

/* Postal-model event simulation of one packet: a node that receives at time t
 * starts its i-th send (i = 0..) at t + i; the child receives at start + lambda.
 * Returns the time the last node receives it, -1 on bad input (lambda < 1 or
 * not finite, a tree failing kb_tree_check). */
double kb_sim_postal(const kb_tree_t *tree, double lambda);

/* ---------------------------------------------------------------------------
 * Decision rules (src/rules.cpp): a table that overrides the model's choice.
 *
 *   # comment
 *   RANKS  BYTES  ALGORITHM  [k=K] [segment_bytes=S] [where=node|net|any]
 *
 * RANKS, BYTES: '*', N, 'A-B' or 'A-' (inclusive); byte values take k/K (KiB) and
 * m/M (MiB) suffixes.  where=node matches communicators inside one node, net those
 * across nodes.  The first matching line wins.  ALGORITHM is not checked here (the
 * component knows its names).  Errors name "file:line".
 * Limits (docs/limits.md): the file is read with kb_file_read() (kb_file.h:
 * regular files only, "path:0: cannot open file: <strerror>"), at most
 * KB_RULES_MAX_FILE_BYTES; a line at most KB_RULES_MAX_LINE_BYTES; at most
 * KB_RULES_MAX_RULES rules.
 * ------------------------------------------------------------------------- */
#define KB_RULES_MAX_FILE_BYTES (1L << 20)
#define KB_RULES_MAX_LINE_BYTES 4096
#define KB_RULES_MAX_RULES 10000
typedef struct kb_rules kb_rules_t;   /* opaque */
typedef struct kb_rule {
    int line;                /* line of the file */
    const char *algorithm;   /* owned by the table */
    int k;                   /* 0: not given */
    size_t segment_bytes;    /* 0: not given */
} kb_rule_t;
int kb_rules_parse(const char *text, const char *name, kb_rules_t **rules, char *errbuf,
                   size_t errlen);
int kb_rules_load(const char *path, kb_rules_t **rules, char *errbuf, size_t errlen);
int kb_rules_count(const kb_rules_t *rules);
int kb_rules_get(const kb_rules_t *rules, int i, kb_rule_t *rule);
/* 1 and *rule filled when a line matches, 0 when none does, KB_ERR_ARG on bad input. */
int kb_rules_match(const kb_rules_t *rules, int n, size_t bytes, int single_node, kb_rule_t *rule);
/* The same from line index `from` on (0 = first); *index (may be NULL) gets the matching
 * line's index, so a caller can skip a line it cannot use and look further. */
int kb_rules_match_from(const kb_rules_t *rules, int from, int n, size_t bytes, int single_node,
                        kb_rule_t *rule, int *index);
/* Digest of the table's content (comments and spacing ignored), to check that every
 * rank read the same rules. */
uint64_t kb_rules_checksum(const kb_rules_t *rules);
void kb_rules_free(kb_rules_t *rules);

#ifdef __cplusplus
}
#endif
#endif /* KBINOMIAL_H */
