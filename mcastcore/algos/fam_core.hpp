/*
 * Internal C++ interface of the bandwidth families (mcast_families.h is the C API).
 *
 * Every generator works on chain POSITIONS (root = position 0) and maps peers to group
 * ranks through the chain at the end; every cost model is a pure function of n, the
 * block count and the machine model.
 */
#ifndef FAM_CORE_HPP
#define FAM_CORE_HPP

#include "sched/mc_core.hpp"
#include "mcast_families.h"

#include <memory>
#include <vector>

namespace mc {
namespace fam {

/* The chain (ordering rotated so the root is first) and rank's position on it. */
struct Chain {
    std::vector<int> rank_at; /* position -> group rank */
    int pos = 0;              /* position of the rank asked for */
};
Chain chain_of(int n, int root, int rank, const int *ordering);

/* A stored-list schedule from position-space ops (peers are positions; mapped here). */
std::unique_ptr<mcast_sched> list_sched(const Chain &c, uint32_t nblocks, Ops recvs, Ops sends);

/* ceil(log2 x) for x >= 1 (0 for x = 1). */
int clog2(uint64_t x);

/* ---- machine-model helpers (times in us) ---------------------------------
 *   hop(b)  = o_send + latency + b*max(gap, wire) + o_recv: from the start of a send of b
 *             bytes until its receiver may forward them
 *   inj(b)  = o_send + b*gap: the sender's port
 *   slot(b) = how long a send keeps its engine slot: inj(b) if eager, else hop(b)
 *             (rendezvous: the send completes at delivery)
 *   gap(b)  = the shortest time between two sends of one rank: max(inj(b), slot(b)/max_sends)
 */
struct Model {
    mcast_loggp_t net{};
    int max_sends = 1;
    int window = 1; /* receives the engine keeps posted */
    double hop(double b) const;
    double inj(double b) const;
    double slot(double b) const;
    double send_gap(double b) const;
    /* Synchronous sends in flight: every send holds its slot until delivery (the edge
     * model has no eager limit) and a rank keeps at least two in flight. */
    bool sync_in_flight() const { return net.eager_bytes == 0 && max_sends >= 2; }
    /* The gap between a rank's sends: with sync_in_flight() the next send's overhead
     * overlaps the wire of those in flight, max(o_send, b gap, slot(b) / max_sends)
     * (fam_twotree.cpp, "sends in flight"); else send_gap(b). */
    double flight_gap(double b) const;
};
void check_model(const mcast_loggp_t *net, int window, int max_sends);

/* Block bytes of block j for an M-byte message in m blocks of ceil(M/m) bytes. */
inline double block_len(size_t M, uint32_t m, uint32_t j)
{
    const size_t B = (M + m - 1) / m;
    const size_t lo = size_t(j) * B;
    return lo >= M ? 0.0 : double(std::min(B, M - lo));
}

/* ---- families (one file each) ------------------------------------------- */
std::unique_ptr<mcast_sched> scatter_allgather(const Chain &c, int n, uint32_t m, int variant);
long scatter_allgather_rounds(int n, uint32_t m, int variant);
double scatter_allgather_predict(int n, size_t M, uint32_t m, int variant, const Model &md);

std::unique_ptr<mcast_sched> twotree(const Chain &c, int n, uint32_t m);
long twotree_rounds(int n, uint32_t m);
double twotree_predict(int n, size_t M, uint32_t m, const Model &md);
int twotree_window(int n, size_t M, uint32_t m, const Model &md);

std::unique_ptr<mcast_sched> circulant(const Chain &c, int n, uint32_t m);
long circulant_rounds(int n, uint32_t m);
double circulant_predict(int n, size_t M, uint32_t m, const Model &md);

/* Several trees at once (fam_multitree.cpp). */
std::unique_ptr<mcast_sched> multitree(const kb_tree_t *const *trees, int ntrees, int rank,
                                       uint32_t m, int lag);
long multitree_rounds(const kb_tree_t *const *trees, int ntrees, uint32_t m, int lag);
double multitree_predict(const kb_tree_t *const *trees, int ntrees, size_t M, uint32_t m,
                         const Model &md);
/* the prediction and the lag it was made for (header, "Lag"; lag may be NULL) */
double multitree_predict_lag(const kb_tree_t *const *trees, int ntrees, size_t M, uint32_t m,
                             const Model &md, int *lag);
int multitree_lag(const kb_tree_t *const *trees, int ntrees, size_t M, uint32_t m, const Model &md);
int multitree_window(const kb_tree_t *const *trees, int ntrees, size_t M, uint32_t m,
                     const Model &md);
/* TREE levels (kb shapes, FPFS). */
std::unique_ptr<mcast_sched> tree_level(const mcast_level_t &lvl, int n, int root, int rank,
                                        const int *ordering, uint32_t m);
long tree_rounds(const mcast_level_t &lvl, int n, uint32_t m);
double tree_predict(const mcast_level_t &lvl, int n, size_t M, uint32_t m, const Model &md);

/* Dispatch over levels (fam_api.cpp). */
void check_level(const mcast_level_t *lvl, int n, uint32_t m);
std::unique_ptr<mcast_sched> level_sched(const mcast_level_t &lvl, int n, int root, int rank,
                                         const int *ordering, uint32_t m);
long level_rounds(const mcast_level_t &lvl, int n, uint32_t m);
double level_predict(const mcast_level_t &lvl, int n, size_t M, uint32_t m, const Model &md);

/* Two-level (fam_twolevel.cpp). */
std::unique_ptr<mcast_sched> two_level(int n, int root, int rank, const int *ordering,
                                       const int *node_of_rank, const mcast_level_t &inter,
                                       const mcast_level_t &intra, uint32_t m);
kb::Tree two_level_tree(int n, int root, const int *ordering, const int *node_of_rank,
                        int inter_k, kb_shape_t intra_shape, const kb_tree_params_t *intra);
double two_level_predict(const mcast_level_t &inter, const mcast_level_t &intra, int nodes,
                         int ppn, size_t M, uint32_t m, const Model &net, const Model &local);

} // namespace fam
} // namespace mc

#endif /* FAM_CORE_HPP */
