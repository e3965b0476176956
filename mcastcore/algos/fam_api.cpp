/*
 * C API of the bandwidth families (mcast_families.h): argument checks, dispatch over
 * levels, the TREE level (kb shapes with FPFS forwarding and its cost model), the machine
 * model helpers and the search for the best block count.  Every C++ exception stops here.
 *
 * TREE level cost model (FPFS, every rank forwards block j to its d children in order,
 * then block j + 1).  With g = send_gap(B) and h = hop(B) (fam_core.hpp), a child c that
 * is the i-th child (i = 1..d) of v gets its first block at
 *     A(c) = A(v) + (i - 1) g + h,      A(root) = 0,
 * and then one block every P(c) = max(P(v), d(v) g) (P(root) = 0: the root holds all):
 *     T = max over ranks v of A(v) + (m - 1) P(v).
 * In unit steps (g = h = 1) this is exactly the FPFS simulation (kb_sim_steps): for the
 * k-binomial tree L1 + (m - 1) k when the root has the largest fan-out (seed 001, Thm. 2).
 */
#include "algos/fam_core.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <new>
#include <vector>

namespace mc {
namespace fam {

int clog2(uint64_t x)
{
    int l = 0;
    while ((uint64_t(1) << l) < x) {
        ++l;
    }
    return l;
}

Chain chain_of(int n, int root, int rank, const int *ordering)
{
    kb::require(rank >= 0 && rank < n, "rank out of range");
    Chain c;
    c.rank_at = kb::make_chain(n, root, ordering);
    c.pos = int(std::find(c.rank_at.begin(), c.rank_at.end(), rank) - c.rank_at.begin());
    return c;
}

std::unique_ptr<mcast_sched> list_sched(const Chain &c, uint32_t nblocks, Ops recvs, Ops sends)
{
    const int n = int(c.rank_at.size());
    auto s = std::make_unique<ListSched>();
    s->n = n;
    s->rank = c.rank_at[size_t(c.pos)];
    s->nblocks = nblocks;
    s->lists[MCAST_OP_RECV] = std::move(recvs);
    s->lists[MCAST_OP_SEND] = std::move(sends);
    for (Ops &ops : s->lists) {
        for (mcast_op_t &o : ops) {
            o.peer = c.rank_at[size_t(o.peer)];
        }
        check_ops(n, s->rank, nblocks, ops);
        mark_last(ops);
    }
    return s;
}

void check_model(const mcast_loggp_t *net, int window, int max_sends)
{
    kb::require(net != nullptr, "machine model is NULL");
    const double v[] = {net->o_send_us, net->o_recv_us, net->latency_us, net->gap_ns_per_byte,
                        net->wire_ns_per_byte};
    for (double x : v) {
        kb::require(std::isfinite(x) && x >= 0.0, "machine model: negative or non-finite field");
    }
    kb::require(window >= 1 && max_sends >= 1, "window and max_sends must be >= 1");
    kb::require(net->shared_flows == 0 || net->shared_flows == 1, "machine model: shared_flows is 0 or 1");
}

double Model::hop(double b) const
{
    return net.o_send_us + net.latency_us + b * std::max(net.gap_ns_per_byte, net.wire_ns_per_byte) * 1e-3 +
           net.o_recv_us;
}

double Model::inj(double b) const
{
    return net.o_send_us + b * net.gap_ns_per_byte * 1e-3;
}

double Model::slot(double b) const
{
    return b > double(net.eager_bytes) ? hop(b) : inj(b);
}

double Model::send_gap(double b) const
{
    return std::max(inj(b), slot(b) / max_sends);
}

double Model::flight_gap(double b) const
{
    if (sync_in_flight()) {
        return std::max({net.o_send_us, b * net.gap_ns_per_byte * 1e-3, slot(b) / double(max_sends)});
    }
    return send_gap(b);
}

/* ---- TREE level --------------------------------------------------------- */

namespace {

kb::Tree build(const mcast_level_t &lvl, int n, int root, const int *ordering)
{
    return kb::build_tree(lvl.shape, n, root, ordering, &lvl.tree);
}

/* max over ranks of A(v) + (m - 1) P(v) (header), walking the tree in BFS order. */
double fpfs_time(const kb::Tree &t, uint32_t m, double g, double h)
{
    std::vector<double> A(size_t(t.n), 0.0), P(size_t(t.n), 0.0);
    std::vector<int> order{t.root};
    double T = 0.0;
    for (size_t i = 0; i < order.size(); ++i) {
        const int v = order[i];
        const int d = t.child_off[size_t(v) + 1] - t.child_off[size_t(v)];
        for (int j = 0; j < d; ++j) {
            const int c = t.children[size_t(t.child_off[size_t(v)] + j)];
            A[size_t(c)] = A[size_t(v)] + j * g + h;
            P[size_t(c)] = std::max(P[size_t(v)], d * g);
            T = std::max(T, A[size_t(c)] + double(m - 1) * P[size_t(c)]);
            order.push_back(c);
        }
    }
    return T;
}

} // namespace

std::unique_ptr<mcast_sched> tree_level(const mcast_level_t &lvl, int n, int root, int rank,
                                        const int *ordering, uint32_t m)
{
    kb::require(rank >= 0 && rank < n, "rank out of range");
    const kb::Tree t = build(lvl, n, root, ordering);
    auto s = std::make_unique<TreeSched>();
    s->n = n;
    s->rank = rank;
    s->nblocks = m;
    s->parent = t.parent[size_t(rank)];
    s->disc = KB_DISC_FPFS;
    for (int v = rank; t.parent[size_t(v)] != KB_NO_PEER; v = t.parent[size_t(v)]) {
        ++s->depth;
    }
    s->children.assign(t.children.begin() + t.child_off[size_t(rank)],
                       t.children.begin() + t.child_off[size_t(rank) + 1]);
    return s;
}

long tree_rounds(const mcast_level_t &lvl, int n, uint32_t m)
{
    if (m == 0 || n == 1) {
        return 0;
    }
    return long(std::lround(fpfs_time(build(lvl, n, 0, nullptr), m, 1.0, 1.0)));
}

double tree_predict(const mcast_level_t &lvl, int n, size_t M, uint32_t m, const Model &md)
{
    if (m == 0 || n == 1) {
        return 0.0;
    }
    const double B = block_len(M, m, 0);
    return fpfs_time(build(lvl, n, 0, nullptr), m, md.send_gap(B), md.hop(B));
}

/* ---- dispatch ------------------------------------------------------------ */

void check_level(const mcast_level_t *lvl, int n, uint32_t m)
{
    kb::require(lvl != nullptr, "level is NULL");
    kb::require(n >= 1, "n must be >= 1");
    kb::require(m <= MCAST_MAX_BLOCKS, "too many blocks");
    switch (lvl->family) {
    case MCAST_FAM_SCATTER_ALLGATHER:
        kb::require(lvl->variant == MCAST_SAG_RING || lvl->variant == MCAST_SAG_RD,
                    "scatter_allgather: unknown variant");
        kb::require(m <= uint32_t(n), "scatter_allgather: more blocks than ranks");
        return;
    case MCAST_FAM_TWOTREE:
    case MCAST_FAM_CIRCULANT:
        kb::require(lvl->variant == 0, "family has no variants");
        return;
    case MCAST_FAM_TREE:
        return; /* the shape and its parameters are checked by kb::build_tree */
    case MCAST_FAM_NODE_SEGMENT:
        break; /* not a level of its own (two_level's intra only) */
    }
    throw kb::ArgError("unknown family");
}

std::unique_ptr<mcast_sched> level_sched(const mcast_level_t &lvl, int n, int root, int rank,
                                         const int *ordering, uint32_t m)
{
    check_level(&lvl, n, m);
    if (lvl.family == MCAST_FAM_TREE) {
        return tree_level(lvl, n, root, rank, ordering, m);
    }
    const Chain c = chain_of(n, root, rank, ordering);
    switch (lvl.family) {
    case MCAST_FAM_SCATTER_ALLGATHER:
        return scatter_allgather(c, n, m, lvl.variant);
    case MCAST_FAM_TWOTREE:
        return twotree(c, n, m);
    default:
        return circulant(c, n, m);
    }
}

long level_rounds(const mcast_level_t &lvl, int n, uint32_t m)
{
    check_level(&lvl, n, m);
    switch (lvl.family) {
    case MCAST_FAM_SCATTER_ALLGATHER:
        return scatter_allgather_rounds(n, m, lvl.variant);
    case MCAST_FAM_TWOTREE:
        return twotree_rounds(n, m);
    case MCAST_FAM_CIRCULANT:
        return circulant_rounds(n, m);
    default:
        return tree_rounds(lvl, n, m);
    }
}

double level_predict(const mcast_level_t &lvl, int n, size_t M, uint32_t m, const Model &md)
{
    check_level(&lvl, n, m);
    kb::require(m == 0 ? M == 0 : nblocks_of(M, (M + m - 1) / m) == m,
                "nblocks is not ceil(bytes / block_bytes) for any block size");
    switch (lvl.family) {
    case MCAST_FAM_SCATTER_ALLGATHER:
        return scatter_allgather_predict(n, M, m, lvl.variant, md);
    case MCAST_FAM_TWOTREE:
        return twotree_predict(n, M, m, md);
    case MCAST_FAM_CIRCULANT:
        return circulant_predict(n, M, m, md);
    default:
        return tree_predict(lvl, n, M, m, md);
    }
}

} // namespace fam
} // namespace mc

/* ---- C API ---------------------------------------------------------------- */

#define MC_API extern "C" __attribute__((visibility("default")))

using namespace mc::fam;

namespace {

using kb::guarded;

int make(const mcast_level_t &lvl, int n, int root, int rank, const int *ordering, uint32_t m,
         mcast_sched_t **out)
{
    if (out == nullptr) {
        return KB_ERR_ARG;
    }
    *out = nullptr;
    return guarded([&] { *out = level_sched(lvl, n, root, rank, ordering, m).release(); });
}

mcast_level_t family(mcast_family_t f, int variant)
{
    mcast_level_t l{};
    l.family = f;
    l.variant = variant;
    return l;
}

Model model_of(const mcast_loggp_t *net, int window, int max_sends)
{
    check_model(net, window, max_sends);
    Model md;
    md.net = *net;
    md.max_sends = max_sends;
    md.window = window;
    return md;
}

} // namespace

MC_API int mcast_sched_scatter_allgather(int n, int root, int rank, const int *ordering,
                                         uint32_t nblocks, int variant, mcast_sched_t **out)
{
    return make(family(MCAST_FAM_SCATTER_ALLGATHER, variant), n, root, rank, ordering, nblocks, out);
}

MC_API int mcast_sched_twotree(int n, int root, int rank, const int *ordering, uint32_t nblocks,
                               int variant, mcast_sched_t **out)
{
    return make(family(MCAST_FAM_TWOTREE, variant), n, root, rank, ordering, nblocks, out);
}

MC_API int mcast_sched_circulant(int n, int root, int rank, const int *ordering, uint32_t nblocks,
                                 int variant, mcast_sched_t **out)
{
    return make(family(MCAST_FAM_CIRCULANT, variant), n, root, rank, ordering, nblocks, out);
}

MC_API int mcast_sched_level(const mcast_level_t *level, int n, int root, int rank,
                             const int *ordering, uint32_t nblocks, mcast_sched_t **out)
{
    if (level == nullptr) {
        return KB_ERR_ARG;
    }
    return make(*level, n, root, rank, ordering, nblocks, out);
}

MC_API int mcast_sched_two_level(int n, int root, int rank, const int *ordering,
                                 const int *node_of_rank, const mcast_level_t *inter,
                                 const mcast_level_t *intra, uint32_t nblocks, mcast_sched_t **out)
{
    if (out == nullptr) {
        return KB_ERR_ARG;
    }
    *out = nullptr;
    return guarded([&] {
        kb::require(inter != nullptr && intra != nullptr && node_of_rank != nullptr,
                    "two_level: NULL argument");
        *out = two_level(n, root, rank, ordering, node_of_rank, *inter, *intra, nblocks).release();
    });
}

MC_API int mcast_tree_two_level(int n, int root, const int *ordering, const int *node_of_rank,
                                int inter_k, kb_shape_t intra_shape, const kb_tree_params_t *intra,
                                kb_tree_t **out)
{
    if (out == nullptr) {
        return KB_ERR_ARG;
    }
    *out = nullptr;
    kb_tree_t *t = nullptr;
    const int rc = guarded([&] {
        kb::require(node_of_rank != nullptr, "two_level: node_of_rank is NULL");
        const kb::Tree tree = two_level_tree(n, root, ordering, node_of_rank, inter_k, intra_shape, intra);
        t = static_cast<kb_tree_t *>(std::calloc(1, sizeof(kb_tree_t)));
        if (t == nullptr) {
            throw std::bad_alloc();
        }
        t->n = tree.n;
        t->root = tree.root;
        t->depth = tree.depth;
        auto copy = [](const std::vector<int> &v) {
            int *p = static_cast<int *>(std::malloc(std::max<size_t>(1, v.size()) * sizeof(int)));
            if (p == nullptr) {
                throw std::bad_alloc();
            }
            std::copy(v.begin(), v.end(), p);
            return p;
        };
        t->parent = copy(tree.parent);
        t->child_off = copy(tree.child_off);
        t->children = copy(tree.children);
    });
    if (rc != KB_OK) {
        kb_tree_free(t);
        return rc;
    }
    *out = t;
    return KB_OK;
}

MC_API long mcast_level_rounds(const mcast_level_t *level, int n, uint32_t nblocks)
{
    long r = -1;
    if (level == nullptr || guarded([&] { r = level_rounds(*level, n, nblocks); }) != KB_OK) {
        return -1;
    }
    return r;
}

MC_API double mcast_level_predict_us(const mcast_level_t *level, int n, size_t bytes,
                                     uint32_t nblocks, const mcast_loggp_t *net, int window,
                                     int max_sends)
{
    double t = -1.0;
    if (level == nullptr ||
        guarded([&] { t = level_predict(*level, n, bytes, nblocks, model_of(net, window, max_sends)); }) != KB_OK) {
        return -1.0;
    }
    return t;
}

MC_API int mcast_level_window(const mcast_level_t *level, int n, size_t bytes, uint32_t nblocks,
                              const mcast_loggp_t *net, int max_sends)
{
    int w = -1;
    if (level == nullptr || guarded([&] {
            const Model md = model_of(net, 1, max_sends);
            check_level(level, n, nblocks);
            w = level->family == MCAST_FAM_TWOTREE ? twotree_window(n, bytes, nblocks, md) : 1;
        }) != KB_OK) {
        return -1;
    }
    return w;
}

MC_API int mcast_level_best_nblocks(const mcast_level_t *level, int n, size_t bytes,
                                    const mcast_loggp_t *net, int window, int max_sends,
                                    uint32_t max_nblocks, uint32_t *nblocks, size_t *block_bytes,
                                    double *predicted_us)
{
    if (level == nullptr || nblocks == nullptr || block_bytes == nullptr) {
        return KB_ERR_ARG;
    }
    return guarded([&] {
        const Model md = model_of(net, window, max_sends);
        check_level(level, n, 0);
        if (bytes == 0) {
            *nblocks = 0;
            *block_bytes = 1;
            if (predicted_us != nullptr) {
                *predicted_us = 0.0;
            }
            return;
        }
        kb::require(max_nblocks >= 1, "max_nblocks must be >= 1");
        uint64_t hi = std::min<uint64_t>({max_nblocks, MCAST_MAX_BLOCKS, bytes});
        if (level->family == MCAST_FAM_SCATTER_ALLGATHER) {
            hi = std::min<uint64_t>(hi, uint64_t(n));
        }
        /* Every block size B gives m = ceil(bytes / B): the distinct m (O(sqrt M) of them). */
        std::vector<uint32_t> cand;
        for (uint64_t m = 1; m <= hi;) {
            const uint64_t B = (bytes + m - 1) / m;
            cand.push_back(uint32_t((bytes + B - 1) / B));
            if (B <= 1) {
                break;
            }
            m = std::max<uint64_t>(m + 1, (bytes + (B - 1) - 1) / (B - 1)); /* block size B - 1 */
        }
        double best = -1.0;
        uint32_t best_m = 1;
        auto eval = [&](uint32_t m) {
            const double t = level_predict(*level, n, bytes, m, md);
            if (best < 0.0 || t < best) {
                best = t;
                best_m = m;
            }
        };
        if (level->family == MCAST_FAM_CIRCULANT || cand.size() <= 512) {
            for (uint32_t m : cand) { /* O(1) each, or few: exact */
                eval(m);
            }
        } else { /* models that cost O(n): 5 % steps, then every count within 10 % of the best */
            double last = 0.0;
            for (uint32_t m : cand) {
                if (m >= last * 1.05 || m == cand.back()) {
                    eval(m);
                    last = m;
                }
            }
            const uint32_t centre = best_m;
            std::vector<uint32_t> near;
            for (uint32_t m : cand) {
                if (m * 1.1 >= centre && m <= centre * 1.1) {
                    near.push_back(m);
                }
            }
            const size_t stride = near.size() / 128 + 1;
            for (size_t k = 0; k < near.size(); k += stride) {
                eval(near[k]);
            }
        }
        *nblocks = best_m;
        *block_bytes = (bytes + best_m - 1) / best_m;
        if (predicted_us != nullptr) {
            *predicted_us = best;
        }
    });
}

MC_API double mcast_two_level_predict_us(const mcast_level_t *inter, const mcast_level_t *intra,
                                         int nodes, int ppn, size_t bytes, uint32_t nblocks,
                                         const mcast_loggp_t *net, const mcast_loggp_t *local,
                                         int window, int max_sends)
{
    double t = -1.0;
    if (inter == nullptr || intra == nullptr ||
        guarded([&] {
            t = two_level_predict(*inter, *intra, nodes, ppn, bytes, nblocks,
                                  model_of(net, window, max_sends), model_of(local, window, max_sends));
        }) != KB_OK) {
        return -1.0;
    }
    return t;
}

MC_API int mcast_sched_multitree(const kb_tree_t *const *trees, int ntrees, int rank,
                                 uint32_t nblocks, int lag, mcast_sched_t **out)
{
    if (out == nullptr) {
        return KB_ERR_ARG;
    }
    *out = nullptr;
    return guarded([&] { *out = multitree(trees, ntrees, rank, nblocks, lag).release(); });
}

MC_API long mcast_multitree_rounds(const kb_tree_t *const *trees, int ntrees, uint32_t nblocks,
                                   int lag)
{
    long r = -1;
    if (guarded([&] { r = multitree_rounds(trees, ntrees, nblocks, lag); }) != KB_OK) {
        return -1;
    }
    return r;
}

MC_API int mcast_multitree_lag(const kb_tree_t *const *trees, int ntrees, size_t bytes,
                               uint32_t nblocks, const mcast_loggp_t *net, int window,
                               int max_sends)
{
    int lag = -1;
    if (guarded([&] { lag = multitree_lag(trees, ntrees, bytes, nblocks, model_of(net, window, max_sends)); }) !=
        KB_OK) {
        return -1;
    }
    return lag;
}

MC_API double mcast_multitree_predict_us(const kb_tree_t *const *trees, int ntrees, size_t bytes,
                                         uint32_t nblocks, const mcast_loggp_t *net, int window,
                                         int max_sends)
{
    double t = -1.0;
    if (guarded([&] {
            t = multitree_predict(trees, ntrees, bytes, nblocks, model_of(net, window, max_sends));
        }) != KB_OK) {
        return -1.0;
    }
    return t;
}

MC_API int mcast_multitree_window(const kb_tree_t *const *trees, int ntrees, size_t bytes,
                                  uint32_t nblocks, const mcast_loggp_t *net, int max_sends)
{
    int w = -1;
    if (guarded([&] {
            w = multitree_window(trees, ntrees, bytes, nblocks, model_of(net, 1, max_sends));
        }) != KB_OK) {
        return -1;
    }
    return w;
}
