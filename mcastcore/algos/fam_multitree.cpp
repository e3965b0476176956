/*
 * Several trees at once (mcast_sched_multitree): T spanning trees with one root, block j
 * down tree j mod T, every rank forwarding each block of tree t to its children in t
 * (FPFS).  The planner feeds it coll_pathmc's four arc-disjoint trees of a 2D torus
 * (pathmc.h, pm_torus_edst: `edst`), where the trees share no link and a rank sends
 * at most as many blocks as it receives: the pipeline then runs at up to T links' rate
 * into every rank (a chain or a single tree: one link's).
 *
 * Order.  The lists are a greedy unit-step execution of all ranks (every rank computes
 * the same one from the same trees): in every round each rank sends one block it held
 * before the round to a child in that block's tree; a rank's receives in the order they
 * came.  Which copy: while the fill is a large part of the rounds (m <= 2 T D, D the
 * tallest tree's height) the most urgent, the least slack j / T + D_t - h_t(c) for block
 * j of tree t to child c (h_t(c) the height of c's subtree: a copy to a deep subtree goes
 * first, an older block before a newer one at the same depth), among equals the one held
 * longest; beyond, the one held longest (arrival order; the root: blocks in order either
 * way).  The most urgent copy first takes no more unit-step rounds, mostly fewer; but in
 * a long stream a rank's sends then run up to T D blocks out of arrival order and wait on
 * the real network for blocks the unit steps had on time (larger windows did not help),
 * hence the bound m <= 2 T D (evidence E-EDST-2).
 *
 * Lag.  The engine sends a rank's list strictly in order, so on a real network a rank's
 * next send waits for its block.  In the greedy above a block may leave the step after it
 * came, and executed so every step waits for a hop (a send's overhead, the wire, the
 * link): a rank sits idle between arrivals, a block waiting about as long from its
 * arrival to its send as on the wire.  With a lag L the greedy lets a copy leave no
 * sooner than L steps after it came (the rank sends other held copies meanwhile): every
 * link of the fill costs L steps, but a hop has L steps' time; the time falls up to a
 * small lag and rises beyond (evidence E-EDST-1).
 *   model          with synchronous sends in flight only (standard ones keep lag 1: with
 *                  them a lag loses, E-EDST-1): the least over L of
 *                  L = 1      max(the closed form below, rounds(1) max(R, 0.8 h'))
 *                  L >= 2     rounds(L) max(R, 1.7 h' / L)   (up to the first L with
 *                             1.7 h' / L <= R: longer lags only add fill)
 *                  rounds(L) the lagged greedy's unit steps (at <= 256 blocks, beyond at
 *                  the unit-step period), R a rank's period per block, its sends' gaps
 *                  and overheads S(v) / T (g, o_send) without o_recv, h' = hop(B) -
 *                  o_recv: a synchronous message's receiver overhead is its sender's wait
 *                  (sync_wait, which the planner folds into o_send; SMPI charges none).
 *                  1.7: a hop with its queueing behind the rank's other sends is about
 *                  1.7 model hops; 0.8: lag 1 keeps some slack of the greedy's (both
 *                  fitted: fitted.hpp, evidence E-EDST-1).
 *   rounds         the greedy's are remembered per process for the planner's grid of
 *                  block sizes (greedy_rounds: exact keys, the same answer on every rank).
 *
 * Cost model (g = send_gap(B), h = hop(B), B = ceil(M / m); S(v) = children of v over
 * all trees, the blocks v sends per T blocks; c_t(v) its children in tree t):
 *   first arrival  A_t(root) = g * sum_{u < t} c_u(root)   (the root serves the trees in
 *                  turn), A_t(c) = A_t(v) + i g + h for the i-th child c of v (i from 0)
 *   period         P = g * max_v S(v) per T blocks (a rank's sends for one block of
 *                  every tree)
 *   T              = max over trees t with k_t > 0 blocks of D_t + (k_t - 1) P,
 *                  D_t = max_v A_t(v), k_t = |{j < m : j mod T = t}|
 *   shared flows   where the network shares a sender's link among its messages in flight
 *                  (mcast_loggp_t.shared_flows = 1: SimGrid) and blocks are eager, a rank
 *                  starts a block every o_send + o_recv while the first is still on the
 *                  wire, the blocks share its port and the first arrives late, at every
 *                  hop of the fill: h = hop(B) + 1/2 min(W - 1, B w / (o_send + o_recv),
 *                  k - 1) B w (k = ceil(m / T), a tree's blocks: no more behind the first
 *                  on a connection; evidence E-BURST-1),
 *                  the two-tree's burst (fam_twotree.cpp) at half weight, W the window:
 *                  closer to what runs than h = hop(B) + B w (evidence E-EDST-2).
 *                  Above the eager limit the planner does not run edst across such a
 *                  network (larger blocks ran slower: E-EDST-2).  A connection's FIFO:
 *                  none.
 *   synchronous sends  (the planner's edge model has eager_bytes = 0, max_sends >= 2;
 *                  it evaluates them beside standard ones where flows share a link,
 *                  plan_candidates.cpp edst_sync_options): a send holds its slot until delivery,
 *                  so a rank's blocks no longer leave in a burst that shares its link;
 *                  h = hop(B), g = max(o_send, B gap, slot(B) / max_sends) (the
 *                  two-tree's, fam_twotree.cpp "sends in flight"), and a rank's period is
 *                  also at least its overheads for T blocks, T o_recv + S(v) o_send
 *                  (where a block's overheads exceed its wire time the rank's CPU, not
 *                  its link, paces small blocks; evidence E-EDST-2).  This closed form
 *                  is lag 1's and low for long streams: a rank's next send waits for its
 *                  block, which the lag above models (E-EDST-1).
 *   queueing       + Q g: where a rank's sends of different trees meet, blocks wait; Q is
 *                  the greedy unit-step execution's rounds (the schedule's, below) over
 *                  the unit-step T, at min(m, 256) blocks (it stops growing after a few
 *                  dozen blocks)
 * In unit steps (g = h = 1) on edst's trees P = 4: 64 blocks take 75 rounds on an 8 x 8
 * torus (trees 9 links deep; in arrival order 77; the spine trees, 15 deep, took
 * m + X + Y + 4 = 84) and 83 on 16 x 16 (17 deep; arrival order 94, spine trees 110),
 * against m + XY - 2 for a chain and about 2 m for one pipelined binary tree.
 * mcast_multitree_rounds is that greedy execution; the unit tests check it against every
 * rank's schedule executed together (tests/unit/test_pm_edst.c).
 * Window.  The streams' real arrivals drift from the unit-step order by up to the spread
 * of a rank's first arrivals over the trees: the engine keeps that many blocks' receives
 * posted (spread / (P / T)) plus T + 2, at most 64 (mcast_multitree_window).
 *
 *   E, N, W, S: the four trees of a 3 x 3 torus, root R at (0, 0); block j in tree j mod 4
 *   rank (1, 1): receives E's blocks from (1, 0), N's from (2, 1), W's from (1, 2),
 *   S's from (0, 1), and sends each tree's on to its child there (at most four in all)
 */
#include "algos/fam_core.hpp"
#include "model/fitted.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <tuple>

namespace mc {
namespace fam {

namespace {

constexpr uint32_t MULTITREE_QUEUE_BLOCKS = 256;
using mcast_fit::MULTITREE_LAG_HOPS; /* header, "Lag": fitted (fitted.hpp) */
using mcast_fit::MULTITREE_LAG1_HOP;

struct Multi {
    int n = 0, root = 0, T = 0;
    std::vector<const kb_tree_t *> t;
};

Multi multi_of(const kb_tree_t *const *trees, int ntrees)
{
    kb::require(trees != nullptr && ntrees >= 1 && ntrees <= MCAST_MULTITREE_MAX,
                "multitree: 1 to 16 trees");
    Multi m;
    m.T = ntrees;
    for (int i = 0; i < ntrees; ++i) {
        kb::require(kb_tree_check(trees[i]) == KB_OK, "multitree: invalid tree");
        if (i == 0) {
            m.n = trees[0]->n;
            m.root = trees[0]->root;
        }
        kb::require(trees[i]->n == m.n && trees[i]->root == m.root,
                    "multitree: trees of different sizes or roots");
        m.t.push_back(trees[i]);
    }
    return m;
}

int nchildren(const kb_tree_t *t, int v)
{
    return t->child_off[v + 1] - t->child_off[v];
}

/* First arrival of tree t's first block at every rank (start at the root). */
std::vector<double> arrivals(const kb_tree_t *t, double start, double g, double h)
{
    std::vector<double> A(size_t(t->n), 0.0);
    std::vector<int> stack{t->root};
    A[size_t(t->root)] = start;
    while (!stack.empty()) {
        const int v = stack.back();
        stack.pop_back();
        for (int i = t->child_off[v]; i < t->child_off[v + 1]; ++i) {
            const int c = t->children[i];
            A[size_t(c)] = A[size_t(v)] + double(i - t->child_off[v]) * g + h;
            stack.push_back(c);
        }
    }
    return A;
}

struct Timing {
    std::vector<std::vector<double>> A; /* [tree][rank] */
    double P = 0.0;
};

/* o_send, o_recv > 0: a rank's period is also at least its overheads for T blocks, its
 * T receives and S(v) sends (header, "synchronous sends"). */
Timing timing(const Multi &mt, double g, double h, double o_send = 0.0, double o_recv = 0.0)
{
    Timing tm;
    double start = 0.0;
    int most = 0;
    std::vector<int> S(size_t(mt.n), 0);
    for (const kb_tree_t *t : mt.t) {
        tm.A.push_back(arrivals(t, start, g, h));
        start += double(nchildren(t, mt.root)) * g;
        for (int v = 0; v < mt.n; ++v) {
            S[size_t(v)] += nchildren(t, v);
        }
    }
    double cpu = 0.0;
    for (int v = 0; v < mt.n; ++v) {
        const int s = S[size_t(v)];
        most = std::max(most, s);
        cpu = std::max(cpu, double(s) * o_send + (v == mt.root ? 0.0 : double(mt.T) * o_recv));
    }
    tm.P = std::max(double(std::max(1, most)) * g, cpu);
    return tm;
}

double total(const Multi &mt, const Timing &tm, uint32_t m)
{
    double T = 0.0;
    for (int t = 0; t < mt.T; ++t) {
        const uint32_t k = m / uint32_t(mt.T) + (uint32_t(t) < m % uint32_t(mt.T) ? 1u : 0u);
        if (k == 0) {
            continue;
        }
        const double D = *std::max_element(tm.A[size_t(t)].begin(), tm.A[size_t(t)].end());
        T = std::max(T, D + double(k - 1) * tm.P);
    }
    return T;
}

/* A block's hop (header, "shared flows"); k: the blocks of a tree (at most k - 1 behind
 * the first on a connection, evidence E-BURST-1). */
double multitree_hop(double B, uint32_t k, const Model &md)
{
    const bool eager = B <= double(md.net.eager_bytes);
    if (md.net.shared_flows != 1 || !eager) {
        return md.hop(B);
    }
    const double bw = B * md.net.wire_ns_per_byte * 1e-3;
    const double spacing = md.net.o_send_us + md.net.o_recv_us;
    const double W = double(std::max(1, md.window));
    return md.hop(B) +
           0.5 * std::min({W - 1.0, spacing > 0.0 ? bw / spacing : W - 1.0, double(k) - 1.0}) * bw;
}

/* Height of every rank's subtree in t (links below it; a leaf 0). */
std::vector<int> heights(const kb_tree_t *t)
{
    std::vector<int> h(size_t(t->n), 0), order;
    order.reserve(size_t(t->n));
    order.push_back(t->root);
    for (size_t i = 0; i < order.size(); ++i) {
        const int v = order[i];
        for (int c = t->child_off[v]; c < t->child_off[v + 1]; ++c) {
            order.push_back(t->children[c]);
        }
    }
    for (size_t i = order.size(); i-- > 0;) {
        const int v = order[i];
        for (int c = t->child_off[v]; c < t->child_off[v + 1]; ++c) {
            h[size_t(v)] = std::max(h[size_t(v)], 1 + h[size_t(t->children[c])]);
        }
    }
    return h;
}

/* The tallest tree's height: where m <= 2 T of it the fill is a large part of the rounds
 * and the greedy takes the most urgent copy first, beyond it the one held longest
 * (header, "Order"). */
bool urgent_order(const Multi &mt, uint32_t m)
{
    int tallest = 0;
    for (const kb_tree_t *t : mt.t) {
        tallest = std::max(tallest, t->depth);
    }
    return uint64_t(m) <= 2u * uint64_t(mt.T) * uint64_t(tallest);
}

/* Unit-step greedy execution of all ranks: in every round each rank sends one block it
 * held before the round to one child in that block's tree, a rank receives any number.
 * Which copy (header, "Order"): with `urgent`, the least slack j / T + D_t - h_t(c) for
 * block j of tree t to child c (D_t the tree's height, h_t(c) the child's subtree's),
 * among equals the one held longest; without, the one held longest (the root: blocks in
 * order either way).  Records every rank's receive and send order (the schedule's lists)
 * and returns the rounds.  A rank's copies wait in lanes, one per (tree, child), FIFO
 * within a lane: a lane's blocks come in order, so its head is its most urgent. */
long greedy(const Multi &mt, uint32_t m, bool urgent, int lag, int want, Ops *recvs, Ops *sends)
{
    kb::require(lag >= 1 && lag <= MCAST_MULTITREE_LAG_MAX, "multitree: lag out of range");
    struct Copy {
        uint32_t block;
        uint64_t seq; /* when the rank got the block (the root: block order) */
        long ready;   /* the first round it may leave in (header, "Lag") */
    };
    struct Lane {
        int child = 0, offset = 0; /* D_t - h_t(child) */
        std::vector<Copy> q;
        size_t head = 0;
    };
    const int n = mt.n;
    std::vector<std::vector<int>> height;
    for (const kb_tree_t *t : mt.t) {
        height.push_back(heights(t));
    }
    /* lanes[v]: rank v's lanes; lane_of[t][c]: the lane of tree t's copies to child c
     * (index into lanes[parent]) */
    std::vector<std::vector<Lane>> lanes(static_cast<size_t>(n));
    std::vector<std::vector<int>> lane_of(size_t(mt.T), std::vector<int>(size_t(n), -1));
    for (int t = 0; t < mt.T; ++t) {
        const kb_tree_t *tr = mt.t[size_t(t)];
        for (int v = 0; v < n; ++v) {
            for (int i = tr->child_off[v]; i < tr->child_off[v + 1]; ++i) {
                const int c = tr->children[i];
                lane_of[size_t(t)][size_t(c)] = int(lanes[size_t(v)].size());
                Lane l;
                l.child = c;
                l.offset = height[size_t(t)][size_t(tr->root)] - height[size_t(t)][size_t(c)];
                lanes[size_t(v)].push_back(std::move(l));
            }
        }
    }
    uint64_t seq = 0;
    long round = 0;
    const auto hold = [&](int v, uint32_t j) {
        const kb_tree_t *tr = mt.t[j % uint32_t(mt.T)];
        for (int i = tr->child_off[v]; i < tr->child_off[v + 1]; ++i) {
            const int lane = lane_of[j % uint32_t(mt.T)][size_t(tr->children[i])];
            lanes[size_t(v)][size_t(lane)].q.push_back(Copy{j, seq, v == mt.root ? 0 : round + lag});
        }
        ++seq;
    };
    uint64_t pending = 0; /* copies still to send: every tree edge once per block */
    for (uint32_t j = 0; j < m; ++j) {
        hold(mt.root, j);
        const kb_tree_t *t = mt.t[j % uint32_t(mt.T)];
        pending += uint64_t(t->child_off[n]);
    }
    struct Arrival {
        int to;
        uint32_t block;
    };
    std::vector<Arrival> arrived;
    while (pending > 0) {
        ++round;
        arrived.clear();
        for (int v = 0; v < n; ++v) {
            Lane *best = nullptr;
            int64_t best_key = 0; /* T x the slack: exact */
            for (Lane &l : lanes[size_t(v)]) {
                if (l.head == l.q.size() || l.q[l.head].ready > round) {
                    continue; /* empty, or its head arrived less than `lag` rounds ago */
                }
                const int64_t key =
                    urgent ? int64_t(l.q[l.head].block) + int64_t(mt.T) * l.offset : 0;
                if (best == nullptr || key < best_key ||
                    (key == best_key && l.q[l.head].seq < best->q[best->head].seq)) {
                    best = &l;
                    best_key = key;
                }
            }
            if (best == nullptr) {
                continue;
            }
            const uint32_t j = best->q[best->head++].block;
            if (best->head >= 64 && 2 * best->head >= best->q.size()) { /* bounded memory */
                best->q.erase(best->q.begin(), best->q.begin() + std::ptrdiff_t(best->head));
                best->head = 0;
            }
            if (v == want && sends != nullptr) {
                sends->push_back(mcast_op_t{best->child, j, 1, uint32_t(round), 0, 0});
            }
            arrived.push_back(Arrival{best->child, j});
            --pending;
        }
        for (const Arrival &a : arrived) {
            const kb_tree_t *t = mt.t[a.block % uint32_t(mt.T)];
            if (a.to == want && recvs != nullptr) {
                recvs->push_back(mcast_op_t{t->parent[a.to], a.block, 1, uint32_t(round), 0, 0});
            }
            hold(a.to, a.block);
        }
    }
    return round;
}

} // namespace

std::unique_ptr<mcast_sched> multitree(const kb_tree_t *const *trees, int ntrees, int rank,
                                       uint32_t m, int lag)
{
    const Multi mt = multi_of(trees, ntrees);
    kb::require(rank >= 0 && rank < mt.n, "multitree: rank out of range");
    kb::require(m <= MCAST_MAX_BLOCKS, "too many blocks");
    Ops recvs, sends;
    greedy(mt, m, urgent_order(mt, m), lag, rank, &recvs, &sends);
    auto s = std::make_unique<ListSched>();
    s->n = mt.n;
    s->rank = rank;
    s->nblocks = m;
    s->lists[MCAST_OP_RECV] = std::move(recvs);
    s->lists[MCAST_OP_SEND] = std::move(sends);
    for (Ops &ops : s->lists) {
        check_ops(mt.n, rank, m, ops);
        mark_last(ops);
    }
    return s;
}

long multitree_rounds(const kb_tree_t *const *trees, int ntrees, uint32_t m, int lag)
{
    const Multi mt = multi_of(trees, ntrees);
    return m == 0 ? 0 : greedy(mt, m, urgent_order(mt, m), lag, -1, nullptr, nullptr);
}

namespace {

/* Synchronous sends with a lag (header, "Lag"): the lag taking the least predicted time
 * and that time. */
struct Lagged {
    int lag = 1;
    double t = 0.0;
};

/* The greedy's rounds, remembered per process: the planner asks for the same trees at
 * the same (blocks, order, lag) for every block size of its grid that has more than
 * MULTITREE_QUEUE_BLOCKS blocks, and again for each message's lag (planning 16 x 16
 * stays where it was before the lag: evidence E-EDST-1).  Keyed by the trees exactly
 * (sizes, root, every child list in order), so the answer is the computation's on every
 * rank whatever each process asked before; at most MULTITREE_CACHE_TREES sets of trees
 * kept. */
constexpr size_t MULTITREE_CACHE_TREES = 8;

long greedy_rounds(const Multi &mt, uint32_t m, bool urgent, int lag)
{
    static std::mutex lock;
    using Key = std::tuple<uint32_t, bool, int>;
    static std::vector<std::pair<std::vector<int>, std::map<Key, long>>> cache; /* newest last */
    std::vector<int> trees{mt.n, mt.root, mt.T};
    for (const kb_tree_t *t : mt.t) {
        trees.insert(trees.end(), t->child_off, t->child_off + t->n + 1);
        trees.insert(trees.end(), t->children, t->children + t->child_off[t->n]);
    }
    const Key key{m, urgent, lag};
    {
        std::lock_guard<std::mutex> g(lock);
        for (auto &e : cache) {
            if (e.first == trees) {
                const auto it = e.second.find(key);
                if (it != e.second.end()) {
                    return it->second;
                }
                break;
            }
        }
    }
    const long r = greedy(mt, m, urgent, lag, -1, nullptr, nullptr);
    std::lock_guard<std::mutex> g(lock);
    auto e = std::find_if(cache.begin(), cache.end(), [&](const auto &x) { return x.first == trees; });
    if (e == cache.end()) {
        if (cache.size() >= MULTITREE_CACHE_TREES) {
            cache.erase(cache.begin());
        }
        cache.emplace_back(std::move(trees), std::map<Key, long>{});
        e = cache.end() - 1;
    }
    e->second[key] = r;
    return r;
}

Lagged lagged(const Multi &mt, size_t M, uint32_t m, const Model &md, double t1)
{
    const double B = double((M + m - 1) / m);
    const double g = md.flight_gap(B);
    /* a synchronous message's receiver overhead is what its sender waits for (sync_wait,
     * folded into o_send by the caller's edge model): a hop and a rank's period without
     * o_recv */
    const double h = md.hop(B) - md.net.o_recv_us;
    const double R = timing(mt, g, h, md.net.o_send_us, 0.0).P / double(mt.T);
    /* unit-step rounds: at most MULTITREE_QUEUE_BLOCKS blocks run, the rest at the
     * unit-step period (a rank's sends for one block of every tree, over T) */
    const uint32_t mq = std::min<uint32_t>(m, MULTITREE_QUEUE_BLOCKS);
    const double unit = timing(mt, 1.0, 1.0).P / double(mt.T);
    const auto rounds_of = [&](int L) {
        return double(greedy_rounds(mt, mq, urgent_order(mt, m), L)) + double(m - mq) * unit;
    };
    Lagged best;
    best.t = std::max(t1, rounds_of(1) * std::max(R, MULTITREE_LAG1_HOP * h));
    for (int L = 2; L <= MCAST_MULTITREE_LAG_MAX; ++L) {
        const double rounds = rounds_of(L);
        const double wait = MULTITREE_LAG_HOPS * h / double(L);
        const double t = rounds * std::max(R, wait);
        if (t < best.t) {
            best.lag = L;
            best.t = t;
        }
        if (wait <= R) {
            break; /* longer lags only add fill */
        }
    }
    return best;
}

} // namespace

double multitree_predict(const kb_tree_t *const *trees, int ntrees, size_t M, uint32_t m,
                         const Model &md)
{
    return multitree_predict_lag(trees, ntrees, M, m, md, nullptr);
}

int multitree_lag(const kb_tree_t *const *trees, int ntrees, size_t M, uint32_t m, const Model &md)
{
    int lag = 1;
    multitree_predict_lag(trees, ntrees, M, m, md, &lag);
    return lag;
}

double multitree_predict_lag(const kb_tree_t *const *trees, int ntrees, size_t M, uint32_t m,
                             const Model &md, int *lag)
{
    const Multi mt = multi_of(trees, ntrees);
    if (lag != nullptr) {
        *lag = 1;
    }
    if (M == 0 || m == 0) {
        return 0.0;
    }
    const double B = double((M + m - 1) / m);
    const double g = md.flight_gap(B); /* header, "synchronous sends" */
    const double h = multitree_hop(B, (m + uint32_t(mt.T) - 1) / uint32_t(mt.T), md);
    /* the queueing the closed form misses: a rank's sends of different trees meet
     * (greedy unit-step rounds over the closed form's; it stops growing after a few
     * dozen blocks: taken at <= MULTITREE_QUEUE_BLOCKS) */
    const uint32_t mq = std::min<uint32_t>(m, MULTITREE_QUEUE_BLOCKS);
    const double extra =
        std::max(0.0, double(greedy_rounds(mt, mq, urgent_order(mt, m), 1)) - total(mt, timing(mt, 1.0, 1.0), mq));
    const double t1 =
        total(mt, md.sync_in_flight() ? timing(mt, g, h, md.net.o_send_us, md.net.o_recv_us) : timing(mt, g, h), m) +
        extra * g;
    if (!md.sync_in_flight()) {
        return t1;
    }
    const Lagged lg = lagged(mt, M, m, md, t1);
    if (lag != nullptr) {
        *lag = lg.lag;
    }
    return lg.t;
}

int multitree_window(const kb_tree_t *const *trees, int ntrees, size_t M, uint32_t m,
                     const Model &md)
{
    const Multi mt = multi_of(trees, ntrees);
    if (M == 0 || m == 0) {
        return mt.T + 2;
    }
    const double B = double((M + m - 1) / m);
    const Timing tm = timing(mt, md.send_gap(B), md.hop(B));
    double spread = 0.0;
    for (int v = 0; v < mt.n; ++v) {
        double lo = tm.A[0][size_t(v)], hi = lo;
        for (int t = 1; t < mt.T; ++t) {
            lo = std::min(lo, tm.A[size_t(t)][size_t(v)]);
            hi = std::max(hi, tm.A[size_t(t)][size_t(v)]);
        }
        spread = std::max(spread, hi - lo);
    }
    const double per_block = tm.P / double(mt.T);
    const double w = double(mt.T + 2) + (per_block > 0.0 ? std::ceil(spread / per_block) : 0.0);
    return int(std::min(double(MCAST_MULTITREE_WINDOW_MAX), w));
}

} // namespace fam
} // namespace mc
