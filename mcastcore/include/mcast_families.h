/*
 * Bandwidth families of broadcast schedules and their cost models (pure C++17 core, C API).
 *
 * Every generator returns rank `rank`'s schedule (mcast_engine.h) for one broadcast of
 * `nblocks` blocks from `root` over n group ranks.  The family is laid out along the CHAIN:
 * `ordering` (a permutation of 0..n-1, NULL = identity) rotated so that `root` comes first,
 * exactly as kb_tree_build does; "position i" below is the i-th rank of that chain.  So an
 * ordering from topology discovery applies to every family.  nblocks 0 gives an empty
 * schedule.  A rank's schedule costs O(nblocks + log n) memory at most (the circulant and
 * two-tree schedules O(log n) and O(1): their ops are computed on demand).
 *
 *   family                 variant             rounds with one send per rank and round
 *   ---------------------  ------------------  ----------------------------------------------
 *   SCATTER_ALLGATHER      MCAST_SAG_RING      ceil(log2 m) + n - 1           (m <= n blocks)
 *                          MCAST_SAG_RD        ceil(log2 m) + log2 n for n = 2^j; other n
 *                                              add the non-power-of-two fix-ups' substeps
 *   TWOTREE                0                   max_t D_t + 2 (k_t - 1), k_0 = ceil(m/2),
 *                                              k_1 = floor(m/2), D_t <= 2 ceil(log2 n)
 *   CIRCULANT              0                   m - 1 + ceil(log2 n)           (optimal)
 *   TREE (kb_tree shape)   shape + params      L1 + (m - 1) k (FPFS, k-binomial)
 *
 * Files: fam_scatter.cpp, fam_twotree.cpp, fam_circulant.cpp, fam_twolevel.cpp (each opens
 * with its algorithm, cost model, paper and picture), fam_api.cpp (this API).
 */
#ifndef MCAST_FAMILIES_H
#define MCAST_FAMILIES_H

#include <stddef.h>
#include <stdint.h>
#include "kbinomial.h"
#include "mcast_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mcast_family {
    MCAST_FAM_SCATTER_ALLGATHER = 0, /* binomial scatter + allgather (variant below) */
    MCAST_FAM_TWOTREE = 1,           /* Sanders, Speck, Traff 2009 */
    MCAST_FAM_CIRCULANT = 2,         /* Traff 2023-2024, round-optimal pipeline */
    MCAST_FAM_TREE = 3,              /* a kb_tree shape with FPFS forwarding (for levels) */
    MCAST_FAM_NODE_SEGMENT = 4       /* two-level's intra level only: the node's ranks share
                                        a segment the glue runs (mcast_shm.h); the schedule
                                        has no op inside a node */
} mcast_family_t;

/* Variants of MCAST_FAM_SCATTER_ALLGATHER. */
#define MCAST_SAG_RING 0 /* ring allgather */
#define MCAST_SAG_RD 1   /* recursive-doubling allgather (any n) */

/* One level of a plan: a family with its variant, or a tree shape. */
typedef struct mcast_level {
    mcast_family_t family;
    int variant;             /* SCATTER_ALLGATHER: MCAST_SAG_*; others 0 */
    kb_shape_t shape;        /* TREE only */
    kb_tree_params_t tree;   /* TREE only: k (KBINOMIAL), lambda (POSTAL) */
} mcast_level_t;

/* ---------------------------------------------------------------------------
 * Generators.  KB_OK and *out (free with mcast_sched_free), or KB_ERR_ARG (n < 1, root or
 * rank out of range, ordering not a permutation, bad variant, nblocks > MCAST_MAX_BLOCKS,
 * SCATTER_ALLGATHER with nblocks > n), KB_ERR_NOMEM, KB_ERR_INTERNAL.
 * ------------------------------------------------------------------------- */

/* Binomial scatter (position i receives block i, blocks [i, i + subtree) pass through it),
 * then ring or recursive-doubling allgather; no block is ever sent to a rank that holds it.
 * nblocks <= n (block i belongs to position i; positions >= nblocks own none).  Ops carry
 * block ranges. */
int mcast_sched_scatter_allgather(int n, int root, int rank, const int *ordering,
                                  uint32_t nblocks, int variant, mcast_sched_t **out);

/* Two binary trees over positions 1..n-1 (in-order numbered; the second mirrored or
 * shifted so that every rank is interior in at most one), even blocks down the first, odd
 * blocks down the second, the root alternating; children ordered by a 2-edge-colouring
 * so that a rank receives from its two parents in alternate rounds (all ranks but at most
 * 2 for some n = 3 mod 4).  One block per op.  variant must be 0.  Run it with a receive
 * window of at least mcast_level_window's. */
int mcast_sched_twotree(int n, int root, int rank, const int *ordering, uint32_t nblocks,
                        int variant, mcast_sched_t **out);

/* Round-optimal pipelined broadcast on the circulant graph with skips
 * s_q = n, s_k = ceil(s_{k+1} / 2): in round t (k = t mod q) position r sends one block
 * to r + s_k and receives one from r - s_k; m - 1 + q rounds, q = ceil(log2 n).  Each rank
 * computes its receive schedule in O(log n) and its send schedule in O(log^2 n) steps.
 * One block per op.  variant must be 0. */
int mcast_sched_circulant(int n, int root, int rank, const int *ordering, uint32_t nblocks,
                          int variant, mcast_sched_t **out);

/* Any level (a family or a TREE shape with FPFS forwarding). */
int mcast_sched_level(const mcast_level_t *level, int n, int root, int rank,
                      const int *ordering, uint32_t nblocks, mcast_sched_t **out);

/* Two-level composition.  node_of_rank[r] names rank r's node (any int; ranks with equal
 * values share a node).  Nodes are ordered by their first rank along the chain; a node's
 * LEADER is its first rank on the chain (the root leads its node).  The leaders run
 * `inter` over the nodes (position j = leader of the j-th node); inside each node the
 * node's ranks, in chain order with the leader first, form the tree `intra` (family
 * MCAST_FAM_TREE), and every block a rank holds is forwarded down that tree as soon as it
 * is held (FPFS).  A leader's send list merges its inter-node and local sends by step
 * (inter-node first on ties).  Ops name communicator (group) ranks.  A rank's schedule
 * costs O(nblocks * (1 + local children)) memory. */
int mcast_sched_two_level(int n, int root, int rank, const int *ordering,
                          const int *node_of_rank, const mcast_level_t *inter,
                          const mcast_level_t *intra, uint32_t nblocks, mcast_sched_t **out);

/* The plain two-level tree: a k-binomial tree (inter_k >= 1) over the node leaders (as
 * above) and a tree of shape intra_shape (with intra params) inside every node; each
 * leader's children are its inter-node children first, then its local ones. */
int mcast_tree_two_level(int n, int root, const int *ordering, const int *node_of_rank,
                         int inter_k, kb_shape_t intra_shape, const kb_tree_params_t *intra,
                         kb_tree_t **out);

/* ---------------------------------------------------------------------------
 * Cost models (pure functions of n, the level, nblocks and the machine model).
 * ------------------------------------------------------------------------- */

/* Rounds of the unit-step execution (mcast_loggp_t {o_send 1, all else 0}: one send per
 * rank per round, a block received in round t forwarded from round t + 1, any number of
 * receives per round) = mcast_simnet_run's finish time there, and = mcast_sched_check's
 * rounds with max_sends 1 and window >= 2.  -1 on bad input. */
long mcast_level_rounds(const mcast_level_t *level, int n, uint32_t nblocks);

/* Predicted time (us) of one broadcast of `bytes` bytes in nblocks blocks
 * (block_bytes = ceil(bytes / nblocks), so nblocks must equal ceil(bytes / block_bytes))
 * on the machine model, run by the engine with `window` and `max_sends` (window at least
 * mcast_level_window's).  The formulas are in the header of each family's file; on the
 * unit-step machine they give mcast_level_rounds exactly.  Against mcast_simnet_run with
 * LogGP timing (tests/unit/test_mc_families.c, flat-1024 parameters, n <= 257): trees and
 * RD within 1 %, ring within 5 %, two-tree within 8 %, circulant within 20 %.  -1 on bad input. */
double mcast_level_predict_us(const mcast_level_t *level, int n, size_t bytes, uint32_t nblocks,
                              const mcast_loggp_t *net, int window, int max_sends);

/* The receive window the engine needs for mcast_level_predict_us to hold: 1 for every
 * level but TWOTREE, whose ranks interleave two streams whose relative offset depends on
 * the machine model (2 + the largest skew in blocks).  -1 on bad input. */
int mcast_level_window(const mcast_level_t *level, int n, size_t bytes, uint32_t nblocks,
                       const mcast_loggp_t *net, int max_sends);

/* The block count minimising mcast_level_predict_us over 1 <= nblocks <= max_nblocks (and
 * <= n for SCATTER_ALLGATHER, <= bytes; only counts that are ceil(bytes / block_bytes) for
 * some block size).  Exact for CIRCULANT (O(1) per count, O(sqrt bytes) counts) and when at
 * most 512 counts are possible; otherwise (models costing O(n) per count) counts 5 % apart,
 * then every count within 10 % of the best of those.  *nblocks, *block_bytes and (if not
 * NULL) *predicted_us.  bytes == 0 gives 0 blocks of 1 byte.  KB_OK or KB_ERR_ARG. */
int mcast_level_best_nblocks(const mcast_level_t *level, int n, size_t bytes,
                             const mcast_loggp_t *net, int window, int max_sends,
                             uint32_t max_nblocks, uint32_t *nblocks, size_t *block_bytes,
                             double *predicted_us);

/* Two-level model: `net` between nodes, `local` inside a node (shared memory), both levels
 * overlapping per block (separate resources).  nodes = number of nodes, ppn = largest number
 * of ranks on one node.  -1 on bad input. */
double mcast_two_level_predict_us(const mcast_level_t *inter, const mcast_level_t *intra,
                                  int nodes, int ppn, size_t bytes, uint32_t nblocks,
                                  const mcast_loggp_t *net, const mcast_loggp_t *local,
                                  int window, int max_sends);

/* ---- Several trees at once (fam_multitree.cpp) ---------------------------
 * T spanning trees over group ranks with one root (coll_pathmc's four arc-disjoint trees
 * of a 2D torus, pm_torus_edst): block j travels down tree j mod T, every rank forwards
 * each block of a tree to its children there (FPFS).  The trees are the caller's; every
 * rank must pass the same ones.  lag (1 .. MCAST_MULTITREE_LAG_MAX): a rank sends a block
 * no sooner than `lag` unit steps after it arrived (fam_multitree.cpp, "Lag"; 1: as soon as
 * held).  rounds: the unit-step cost model (g = h = 1);
 * predict_us: the LogGP one (file header), at the lag mcast_multitree_lag takes; window:
 * the receives to keep posted for the streams' drift (T + 2 ..
 * MCAST_MULTITREE_WINDOW_MAX). */
#define MCAST_MULTITREE_MAX 16
#define MCAST_MULTITREE_WINDOW_MAX 64
#define MCAST_MULTITREE_LAG_MAX 16
int mcast_sched_multitree(const kb_tree_t *const *trees, int ntrees, int rank,
                          uint32_t nblocks, int lag, mcast_sched_t **out);
long mcast_multitree_rounds(const kb_tree_t *const *trees, int ntrees, uint32_t nblocks,
                            int lag);
/* The lag the model takes (1: none; above 1 only with synchronous sends in flight, the
 * edge model without an eager limit and max_sends >= 2); -1 on bad input. */
int mcast_multitree_lag(const kb_tree_t *const *trees, int ntrees, size_t bytes,
                        uint32_t nblocks, const mcast_loggp_t *net, int window, int max_sends);
double mcast_multitree_predict_us(const kb_tree_t *const *trees, int ntrees, size_t bytes,
                                  uint32_t nblocks, const mcast_loggp_t *net, int window,
                                  int max_sends);
int mcast_multitree_window(const kb_tree_t *const *trees, int ntrees, size_t bytes,
                           uint32_t nblocks, const mcast_loggp_t *net, int max_sends);

#ifdef __cplusplus
}
#endif
#endif /* MCAST_FAMILIES_H */
