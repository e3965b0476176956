/*
 * Two-tree broadcast (MCAST_FAM_TWOTREE).
 *
 * Algorithm: two binary trees T0, T1 over positions 1..n-1 in which every rank is interior
 * in at most one; the root sends the even blocks down T0 and the odd blocks down T1,
 * alternating, and every interior rank forwards each block of its tree to its (<= 2)
 * children, pipelined: about twice the bandwidth of one pipelined binary tree.
 *
 * Paper: P. Sanders, J. Speck, J. L. Traff, "Two-tree algorithms for full bandwidth
 * broadcast, reduction and scan", Parallel Computing 35(12), 2009.
 *
 * Trees.  T0 is the in-order binary tree on 1..N (N = n - 1): the perfect in-order tree on
 * 1..2^h - 1 (node i has height = trailing zeros of i, root the largest power of two <= N)
 * with the nodes > N contracted (a node's parent is its first ancestor <= N).  Its leaves
 * are the odd positions, so T1 takes the same shape MIRRORED (position i plays node
 * N + 1 - i) when N is even, SHIFTED (position i plays node i + 1, position N plays node 1)
 * when N is odd: T1's interior ranks are odd, T0's even.
 * Locality.  A subtree of T0 of height h fills positions inside the aligned block
 * [j - 2^h, j + 2^h) of its top node j; shifted down by one, T1's subtrees fill aligned
 * blocks too (node j = 2^h odd at position j - 1: [j - 2^h, j + 2^h - 1)), so ranks that
 * share a switch or a node in the ordering (consecutive positions) exchange their leaf
 * and low edges inside it.  Shifted up instead (position i plays node i - 1), T1's leaf
 * edges cross every fourth position, and the crossing leaf edges meet T0's top edges on
 * the same uplink under destination-mod-k routes.  Shifting down crosses fewer switch
 * boundaries, runs faster on switch networks and tori and takes no more unit-step rounds
 * for more than one block (evidence E-2TREE-1).
 * Colouring.  A rank should receive T0 blocks and T1 blocks in alternate rounds.  Edges get
 * a parity (the parity of the rounds they carry blocks in); constraints "differ" between a
 * rank's two in-edges, between the two out-edges of a rank with two children, and between
 * the out-edge and the in-edge of a rank with one child (that child is served one round
 * after the block arrives).  The constraint graph has degree <= 3; a BFS 2-colouring that
 * skips the few conflicting constraints orders each rank's two children (the child whose
 * edge has the other parity first).  For n <= 1100 at most 2 ranks (only for some
 * n = 3 mod 4) then receive from both trees in the same rounds.  O(n) time per rank, done once per plan; the schedule
 * itself keeps O(1) numbers.
 *
 * Cost model (every rank sends block j of its tree to child 1, then child 2):
 *   first arrival  A(T0 root) = h, A(T1 root) = g + h (the root alternates),
 *                  A(c) = A(v) + (i - 1) g + h for the i-th child c of v
 *   period         2g per tree (the root serves both trees, an interior rank 2 children)
 *   T              = max over trees t with k_t > 0 blocks of D_t + 2 (k_t - 1) g,
 *                    D_t = max A over T_t, k_0 = ceil(m/2), k_1 = floor(m/2)
 *   window         a rank's receive list interleaves its two streams by unit-step
 *                  arrival; when h/g differs from 1 the streams' real offset differs by up
 *                  to s blocks, and the engine needs window >= 2 + ceil(s) receives posted
 *                  or the early stream waits for the late one (mcast_level_window; the
 *                  model assumes that window: a smaller one runs well above the model,
 *                  evidence E-2TREE-3); the planner posts at least the depth in rounds
 *                  + 2 (mcast_planner.h, "Two-tree window")
 *   shared flows   where the network shares a sender's link among its messages in flight
 *                  (mcast_loggp_t.shared_flows = 1, a flow-level network: SimGrid) and
 *                  blocks are eager, every receive posted ahead lets one more block of a
 *                  connection start at once, and the first of them arrives late: every
 *                  first arrival above (tree roots included) gets
 *                    b = 1/2 min(W - 1, B w / (o_send + o_recv), ceil(m / 2) - 1) * B w
 *                  more (the 1/2 fitted: fitted.hpp, E-LAST-1), W the window the engine posts (at least the one above), B w the
 *                  block's wire time, o_send + o_recv what spaces a connection's blocks
 *                  apart, ceil(m / 2) a T0 connection's blocks (no more behind the first:
 *                  a block a tree has alone arrives on time; E-BURST-1).  The form is
 *                  fitted (evidence E-2TREE-2).  With sends held
 *                  until delivery (synchronous, max_sends >= 2) W is at most max_sends and
 *                  the spacing o_send (a rank's sends in flight are one overhead apart;
 *                  the term still brings the model closer to what runs, E-2TREE-2).
 *                  With a connection's FIFO (shared_flows = 0, TCP, InfiniBand) b = 0.
 *   sends in flight  where every send holds its slot until delivery (synchronous sends:
 *                  the planner's edge model has eager_bytes = 0) and max_sends >= 2, the
 *                  next send's overhead overlaps the wire of the ones in flight (rendezvous
 *                  blocks above a real eager limit keep send_gap: not measured): g = max(o_send, B gap, slot(B) /
 *                  max_sends) instead of send_gap(B) = max(o_send + B gap, ...): with
 *                  enough in flight a rank with two children posts its sends nearly at
 *                  the wire's pace (evidence E-2TREE-2)
 * with g = that gap, h = hop(B), B = ceil(M / m) (fam_core.hpp).  In unit steps
 * (g = h = 1): T = max_t D_t + 2 (k_t - 1), D_t <= 2 ceil(log2 n) (n <= 3000 checked);
 * e.g. n = 1024, m = 64: 82 rounds, against m - 1 + log2 n = 73 for the circulant schedule
 * and L1 + 2 (m - 1) = 140 for one pipelined binary (2-binomial) tree.
 *
 * n = 10 (N = 9 is odd: T1 is T0 shifted down by one, node 1 to position 9):
 *
 *      T0: even blocks              T1: odd blocks
 *            8                            7
 *          /   \                        /   \
 *         4     9                      3     8
 *        / \                          / \
 *       2   6                        1   5
 *      / \ / \                      / \ / \
 *     1  3 5  7                    9  2 4  6
 *
 *   root 0:  block 0 -> 8, block 1 -> 7, block 2 -> 8, ...  (one block per round)
 */
#include "algos/fam_core.hpp"
#include "model/fitted.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>

namespace mc {
namespace fam {

namespace {

/* The contracted in-order tree on 1..N. */
struct Shape {
    long N = 0;
    long root = 0;
    explicit Shape(long n) : N(n), root(1)
    {
        while (root * 2 <= N) {
            root *= 2;
        }
    }
    static long low(long i) { return i & -i; }
    long parent(long i) const
    {
        for (;;) {
            if (i == root) {
                return 0;
            }
            const long l = low(i);
            i = (i & (2 * l)) ? i - l : i + l;
            if (i <= N) {
                return i;
            }
        }
    }
    /* children of i in shape numbering (0 = none): left, right */
    void children(long i, long *left, long *right) const
    {
        const long l = low(i);
        *left = *right = 0;
        if (l == 1) {
            return;
        }
        *left = i - l / 2;
        long c = i + l / 2;
        while (c > N && low(c) > 1) {
            c -= low(c) / 2;
        }
        *right = c <= N ? c : 0;
    }
};

/* Whole two-tree plan over positions 0..n-1 (position 0 = root). */
struct Plan {
    int n = 0;
    int top[2] = {0, 0};                 /* tree roots (positions) */
    std::vector<int> parent[2];          /* [t][v] */
    std::vector<std::array<int, 2>> kids; /* children of v in its interior tree, send order */
    std::vector<signed char> tree_of;    /* tree v is interior in, -1 none */
    std::vector<double> A[2];            /* first arrival per tree */
    double D[2] = {0.0, 0.0};
};

long shape_of(const Shape &s, int t, long pos)
{
    if (t == 0) {
        return pos;
    }
    if (s.N % 2 == 0) {
        return s.N + 1 - pos;
    }
    return pos == s.N ? 1 : pos + 1;
}

long pos_of(const Shape &s, int t, long node)
{
    if (t == 0 || node == 0) {
        return node;
    }
    if (s.N % 2 == 0) {
        return s.N + 1 - node;
    }
    return node == 1 ? s.N : node - 1;
}

/* First arrivals A[t][v] and their maximum D[t] for per-send gap g and hop h, top-down
 * over the plan's trees (parents before children: BFS per tree).  Reads only the plan's
 * structure (tops, kids, tree_of), which does not depend on g and h. */
void arrivals(const Plan &S, double g, double h, std::vector<double> (&A)[2], double (&D)[2],
              double burst = 0.0)
{
    const int n = S.n;
    std::vector<int> order;
    for (int t = 0; t < 2; ++t) {
        A[t].assign(size_t(n), 0.0);
        D[t] = 0.0;
        if (n == 1) {
            continue;
        }
        order.assign(1, S.top[t]);
        A[t][size_t(S.top[t])] = t * g + h + burst;
        for (size_t i = 0; i < order.size(); ++i) {
            const int v = order[i];
            D[t] = std::max(D[t], A[t][size_t(v)]);
            if (S.tree_of[size_t(v)] != t) {
                continue;
            }
            for (int j = 0; j < 2; ++j) {
                const int c = S.kids[size_t(v)][size_t(j)];
                if (c >= 0) {
                    A[t][size_t(c)] = A[t][size_t(v)] + j * g + h + burst;
                    order.push_back(c);
                }
            }
        }
    }
}

/* The trees, their colouring and the unit-step arrivals (g = h = 1). */
Plan make_plan(int n)
{
    Plan P;
    P.n = n;
    const Shape s(n - 1);
    for (int t = 0; t < 2; ++t) {
        P.parent[t].assign(size_t(n), -1);
        P.top[t] = int(pos_of(s, t, s.root));
    }
    P.kids.assign(size_t(n), {{-1, -1}});
    P.tree_of.assign(size_t(n), -1);
    /* children lists (unordered yet) */
    std::vector<std::array<int, 2>> ch[2];
    for (int t = 0; t < 2; ++t) {
        ch[t].assign(size_t(n), {{-1, -1}});
        for (long v = 1; v < n; ++v) {
            const long node = shape_of(s, t, v);
            const long pn = s.parent(node);
            P.parent[t][size_t(v)] = pn == 0 ? 0 : int(pos_of(s, t, pn));
            long l, r;
            s.children(node, &l, &r);
            ch[t][size_t(v)] = {{l ? int(pos_of(s, t, l)) : -1, r ? int(pos_of(s, t, r)) : -1}};
            if (l != 0) {
                kb::require(P.tree_of[size_t(v)] == -1, "twotree: a rank is interior in both trees");
                P.tree_of[size_t(v)] = static_cast<signed char>(t);
            }
        }
    }
    /* Colouring: variable (v, t) = parity of the rounds edge parent_t(v) -> v carries. */
    const size_t nv = size_t(n) * 2;
    auto id = [](int v, int t) { return size_t(v) * 2 + size_t(t); };
    std::vector<std::vector<size_t>> adj(nv);
    auto differ = [&](size_t a, size_t b) {
        adj[a].push_back(b);
        adj[b].push_back(a);
    };
    for (int v = 1; v < n; ++v) {
        differ(id(v, 0), id(v, 1));
        const int t = P.tree_of[size_t(v)];
        if (t >= 0) {
            const auto c = ch[t][size_t(v)];
            if (c[1] >= 0) {
                differ(id(c[0], t), id(c[1], t));
            } else {
                differ(id(c[0], t), id(v, t));
            }
        }
    }
    if (n > 2) {
        differ(id(P.top[0], 0), id(P.top[1], 1));
    }
    std::vector<signed char> col(nv, -1);
    auto bfs = [&](size_t start, signed char c0) {
        std::deque<size_t> q{start};
        col[start] = c0;
        while (!q.empty()) {
            const size_t a = q.front();
            q.pop_front();
            for (size_t b : adj[a]) {
                if (col[b] < 0) {
                    col[b] = static_cast<signed char>(1 - col[a]);
                    q.push_back(b);
                }
            }
        }
    };
    if (n > 1) {
        bfs(id(P.top[0], 0), 1); /* the root sends block 0 in round 1 */
        for (int v = 1; v < n; ++v) {
            for (int t = 0; t < 2; ++t) {
                if (col[id(v, t)] < 0) {
                    bfs(id(v, t), 0);
                }
            }
        }
    }
    /* Child order: the child whose edge parity differs from the parent's arrival first. */
    for (int v = 1; v < n; ++v) {
        const int t = P.tree_of[size_t(v)];
        if (t < 0) {
            continue;
        }
        auto c = ch[t][size_t(v)];
        if (c[1] >= 0 && col[id(c[0], t)] == col[id(v, t)] && col[id(c[1], t)] != col[id(v, t)]) {
            std::swap(c[0], c[1]);
        }
        P.kids[size_t(v)] = c;
    }
    arrivals(P, 1.0, 1.0, P.A, P.D);
    return P;
}

/* The unit-step plan of n ranks, kept for the last n asked on this thread: every rank's
 * schedule (and the planner's link bound, which builds all n of them) needs the same
 * O(n) plan; 1024 ranks built it 1024 times per decision (0.3 s). */
const Plan &unit_plan(int n)
{
    thread_local std::unique_ptr<Plan> last;
    if (last == nullptr || last->n != n) {
        last = std::make_unique<Plan>(make_plan(n));
    }
    return *last;
}

/* Rank's part: O(1) numbers. */
struct TwoTreeSched final : mcast_sched {
    bool root = false;
    uint32_t k[2] = {0, 0};  /* blocks per tree */
    int from[2] = {-1, -1};  /* parents (group ranks) */
    long a[2] = {0, 0};      /* first arrival round per tree */
    int tree = -1;           /* tree this rank forwards in */
    int nkids = 0;
    int kid[2] = {-1, -1};   /* children in send order (group ranks); root: tree roots */

    /* receive list = merge of tree-0 rounds a0 + 2j (j < k0) and tree-1 rounds a1 + 2j
     * (ties: tree 0 first) */
    long before1(long step) const /* tree-1 receives in rounds < step */
    {
        const long c = (step - a[1] + 1) / 2;
        return step <= a[1] ? 0 : std::min<long>(c, long(k[1]));
    }
    size_t count(mcast_op_kind_t kind) const override
    {
        if (kind == MCAST_OP_RECV) {
            return root ? 0 : size_t(k[0]) + k[1];
        }
        if (root) {
            return nblocks;
        }
        return tree < 0 ? 0 : size_t(nkids) * k[tree];
    }
    mcast_op_t op(mcast_op_kind_t kind, size_t i) const override
    {
        mcast_op_t o{};
        o.nblocks = 1;
        if (kind == MCAST_OP_SEND && root) {
            o.block = uint32_t(i);
            o.peer = kid[i % 2];
            o.step = uint32_t(i + 1);
            o.last = (i + 2 >= nblocks && (kid[0] != kid[1] || i + 1 == nblocks)) ? 1 : 0;
            return o;
        }
        if (kind == MCAST_OP_SEND) {
            const uint32_t j = uint32_t(i / size_t(nkids));
            const int c = int(i % size_t(nkids));
            o.block = 2 * j + uint32_t(tree);
            o.peer = kid[c];
            o.step = uint32_t(a[tree] + 2 * long(j) + c + 1);
            o.last = j + 1 == k[tree] ? 1 : 0;
            return o;
        }
        /* receives: find how many tree-0 receives precede position i */
        long lo = 0, hi = long(k[0]);
        /* merged position of tree-0 op j (a tree-1 op in the same round comes after it) */
        auto pos0 = [&](long j) { return j + before1(a[0] + 2 * j); };
        /* largest j with pos0(j) <= i */
        while (lo < hi) {
            const long mid = (lo + hi) / 2;
            if (pos0(mid) <= long(i)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        /* lo = number of tree-0 ops at merged positions <= i */
        const bool is0 = lo > 0 && pos0(lo - 1) == long(i);
        if (is0) {
            const long j = lo - 1;
            o.block = uint32_t(2 * j);
            o.peer = from[0];
            o.step = uint32_t(a[0] + 2 * j);
            o.last = (j + 1 == long(k[0]) && (from[0] != from[1] || i + 1 == count(kind))) ? 1 : 0;
        } else {
            const long j = long(i) - lo;
            o.block = uint32_t(2 * j + 1);
            o.peer = from[1];
            o.step = uint32_t(a[1] + 2 * j);
            o.last = (j + 1 == long(k[1]) && (from[0] != from[1] || i + 1 == count(kind))) ? 1 : 0;
        }
        return o;
    }
};

} // namespace

std::unique_ptr<mcast_sched> twotree(const Chain &c, int n, uint32_t m)
{
    if (n == 1 || m == 0) {
        return list_sched(c, m, {}, {});
    }
    const Plan &P = unit_plan(n);
    auto s = std::make_unique<TwoTreeSched>();
    s->n = n;
    s->rank = c.rank_at[size_t(c.pos)];
    s->nblocks = m;
    s->k[0] = (m + 1) / 2;
    s->k[1] = m / 2;
    const int v = c.pos;
    auto R = [&](int pos) { return pos < 0 ? -1 : c.rank_at[size_t(pos)]; };
    if (v == 0) {
        s->root = true;
        s->kid[0] = R(P.top[0]);
        s->kid[1] = R(P.top[1]);
        return s;
    }
    for (int t = 0; t < 2; ++t) {
        s->from[t] = R(P.parent[t][size_t(v)]);
        s->a[t] = long(P.A[t][size_t(v)]);
    }
    s->tree = P.tree_of[size_t(v)];
    if (s->tree >= 0 && s->k[s->tree] > 0) {
        for (int j = 0; j < 2; ++j) {
            if (P.kids[size_t(v)][size_t(j)] >= 0) {
                s->kid[s->nkids++] = R(P.kids[size_t(v)][size_t(j)]);
            }
        }
    } else {
        s->tree = -1;
    }
    return s;
}

long twotree_rounds(int n, uint32_t m)
{
    if (n == 1 || m == 0) {
        return 0;
    }
    const Plan &P = unit_plan(n);
    const long k0 = (m + 1) / 2, k1 = m / 2;
    long T = long(P.D[0]) + 2 * (k0 - 1);
    if (k1 > 0) {
        T = std::max(T, long(P.D[1]) + 2 * (k1 - 1));
    }
    return T;
}

int twotree_window(int n, size_t M, uint32_t m, const Model &md)
{
    if (n <= 2 || m < 2) {
        return 1;
    }
    const double B = block_len(M, m, 0);
    const double g = md.flight_gap(B), h = md.hop(B);
    const Plan &U = unit_plan(n);
    std::vector<double> LA[2];
    double LD[2];
    arrivals(U, g, h, LA, LD);
    double skew = 0.0;
    for (int v = 1; v < n; ++v) {
        const double unit = (U.A[1][size_t(v)] - U.A[0][size_t(v)]) / 2.0;
        const double real = (LA[1][size_t(v)] - LA[0][size_t(v)]) / (2.0 * g);
        skew = std::max(skew, std::fabs(real - unit));
    }
    return 2 + int(std::ceil(skew));
}

/* What a burst of eager blocks on one connection costs each level where flows share the
 * sender's link (header, "Shared flows"). */
double twotree_burst(int n, size_t M, uint32_t m, const Model &md)
{
    const double B = block_len(M, m, 0);
    const bool eager = B <= double(md.net.eager_bytes);
    if (md.net.shared_flows == 0 || (!eager && md.max_sends < 2) || n <= 2 || m < 2) {
        return 0.0;
    }
    /* eager: every receive posted ahead lets a block start; sends held until delivery:
     * at most max_sends of them, one send overhead apart */
    int W = std::max(md.window, twotree_window(n, M, m, md));
    if (!eager) {
        W = std::min(W, md.max_sends);
    }
    const double bw = B * md.net.wire_ns_per_byte * 1e-3;
    const double spacing = eager ? md.net.o_send_us + md.net.o_recv_us : md.net.o_send_us;
    const double overlap = spacing > 0.0 ? bw / spacing : double(W - 1);
    /* a connection of T0 carries ceil(m / 2) blocks: at most that many - 1 behind the
     * first (evidence E-BURST-1) */
    const double behind = double((m + 1) / 2) - 1.0;
    /* (fitted: fitted.hpp, evidence E-LAST-1) */
    return mcast_fit::TWOTREE_BURST * std::min({double(W - 1), overlap, behind}) * bw;
}

double twotree_predict(int n, size_t M, uint32_t m, const Model &md)
{
    if (n == 1 || m == 0) {
        return 0.0;
    }
    const double B = block_len(M, m, 0);
    const double g = md.flight_gap(B), h = md.hop(B);
    std::vector<double> A[2];
    double D[2];
    arrivals(unit_plan(n), g, h, A, D, twotree_burst(n, M, m, md));
    const double k0 = double((m + 1) / 2), k1 = double(m / 2);
    double T = D[0] + 2.0 * (k0 - 1.0) * g;
    if (k1 > 0) {
        T = std::max(T, D[1] + 2.0 * (k1 - 1.0) * g);
    }
    return T;
}

} // namespace fam
} // namespace mc
