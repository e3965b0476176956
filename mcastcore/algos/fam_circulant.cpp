/*
 * Round-optimal pipelined broadcast on a circulant graph (MCAST_FAM_CIRCULANT).
 *
 * Algorithm: skips s_q = n, s_k = ceil(s_{k+1} / 2) (q = ceil(log2 n)); in round t, with
 * k = t mod q, position r sends one block to r + s_k and receives one from r - s_k (mod n).
 * Each rank computes which block from its receive and send schedules of q entries each.
 *
 * Paper: J. L. Traff, "Optimal broadcast schedules in logarithmic time with applications to
 * broadcast, all-broadcast, reduction and all-reduction" (arXiv:2407.18004, 2024; ACM TOPC
 * 2025) and "Round-optimal n-block broadcast schedules in logarithmic time" (arXiv:2312.11236).
 * The receive schedule is the paper's depth-first search; we learnt it from MPICH's first
 * circ_qvring commit (8384a67, 2025).  (MPICH main's rewritten search, in our reading,
 * gives schedules where a rank sends a block in the round it receives it: n = 33 with 6
 * blocks; the search here passes mcast_sched_check for every n <= 257 and m <= 64.)
 *
 * Schedules.  The baseblock b(r) of position r > 0 is the index of the smallest skip in the
 * greedy decomposition r = s_e1 + s_e2 + ... + s_b (e1 > e2 > ... > b); b(0) = q.  Blocks
 * are numbered virtually: phase j = rounds jq .. jq + q - 1.  In one phase r receives q
 * blocks: its baseblock of this phase, and the blocks e - q (e != b(r), e < q) of the
 * previous phase.  R[k] is found for k = 0, 1, ..., q-1 in turn: the search walks the sums
 * of skips (largest skip first, the unused skip indices in a linked list) below r + n and
 * takes for round k the first sum in (r + n - s_{k+1}, r + n - s_k]; its last skip index e
 * is the block (e = q: the baseblock) and is removed from the list.  O(log n) steps.
 * S[k] of r is R[k] of r + s_k (the root sends block k in round k): one partial search per
 * k, O(log^2 n) steps (about 1000 search steps at n = 2^20).
 *
 * Execution with m blocks: x = (q - (m-1) mod q) mod q rounds are skipped at the front so
 * that the last phase ends the broadcast; round i (i = x .. x + m - 2 + q) carries virtual
 * block v = R[i mod q] + q floor(i/q) - x: v < 0 is no op (only in the first two phases),
 * v >= m - 1 is block m - 1 (only in the last phase, at the baseblock's round: each rank
 * receives every block exactly once).  Sends to the root are dropped.  A schedule stores
 * O(q) numbers; op i is computed in O(1).
 *
 * Cost model (rounds are optimal: a block received in round t is forwarded from t + 1):
 *   unit steps   T = m - 1 + q                                      (any n, not only 2^j)
 *   LogGP        T = q h + (m - 1) max(g, (0.6 - 0.9/q) h),   B = ceil(M / m),
 *                h = hop(B), g = send_gap(B) (fam_core.hpp): the first block crosses q
 *                hops; then a rank sends one block per round, at its port's pace g unless
 *                the blocks it forwards arrived too recently.  The share of such rounds on
 *                the critical path grows with q, and 0.6 - 0.9/q is fitted to it on the
 *                core's simulated network (tests: the model within 20 % of
 *                mcast_simnet_run; fitted.hpp, evidence E-CIRC-2).
 *   best m       minimises that over m (mcast_level_best_nblocks): about
 *                sqrt((q - 1) M b / a) with a = o_s + latency + o_r, b = max(gap, wire).
 *
 * n = 10: q = 4, skips 1 2 3 5 (10).  Baseblocks and receive schedule ([b] = own baseblock
 * of this phase, -e = block e of the previous phase written e - q):
 *
 *   r           0   1   2   3   4   5   6   7   8   9
 *   b(r)        -   0   1   2   0   3   0   1   2   0
 *   k=0 (r-1)   .  [0] -4  -3  -2  -4  -1  -4  -3  -2
 *   k=1 (r-2)   .  -2  [1] -4  -3  -2  -2  -1  -4  -3
 *   k=2 (r-3)   .  -3  -2  [2] [0] -3  -3  -2  -1  -1
 *   k=3 (r-5)   .  -1  -1  -1  -1  [3] [0] [1] [2] [0]
 *
 * One block (m = 1) is the first phase: the tree of the baseblocks,
 *   round 1: 0->1   round 2: 0->2   round 3: 0->3 1->4   round 4: 0->5 1->6 2->7 3->8 4->9
 * and with m blocks every rank receives one block in every round from round ~q on:
 * m - 1 + 4 rounds, against m * 4 for a binomial tree of whole blocks.
 */
#include "algos/fam_core.hpp"
#include "model/fitted.hpp"

#include <algorithm>

namespace mc {
namespace fam {

namespace {

struct Skips {
    int p = 1, q = 0;
    std::vector<long> s; /* s[0..q], s[q] = p */

    explicit Skips(int n) : p(n), q(clog2(uint64_t(n))), s(size_t(q) + 1)
    {
        s[size_t(q)] = p;
        for (int k = q - 1; k >= 0; --k) {
            s[size_t(k)] = (s[size_t(k) + 1] + 1) / 2;
        }
    }
    /* Index of the last skip of r's greedy decomposition (1 <= r < p); q for r = 0. */
    int baseblock(long r) const
    {
        if (r == 0) {
            return q;
        }
        for (int k = q - 1; k >= 0; --k) {
            if (r >= s[size_t(k)]) {
                r -= s[size_t(k)];
                if (r == 0) {
                    return k;
                }
            }
        }
        throw kb::ArgError("circulant: no greedy skip decomposition"); /* cannot happen */
    }
};

/* The depth-first search for the receive schedule of position r > 0. */
class RecvSearch {
public:
    RecvSearch(const Skips &sk, long r) : sk_(sk), top_(r + sk.p), b_(sk.baseblock(r))
    {
        const int q = sk.q;
        /* unused skip indices q, q-1, ..., 0 in a circular list through the sentinel -1 */
        down_.resize(size_t(q) + 2);
        up_.resize(size_t(q) + 2);
        for (int e = -1; e <= q; ++e) {
            set_down(e, e == -1 ? q : e - 1);
            set_up(e, e == q ? -1 : e + 1);
        }
        drop(b_); /* the baseblock arrives as "q" (the root's sum), never as itself */
    }
    /* Virtual blocks of rounds 0 .. upto-1: b(r), or e - q for block e of the last phase. */
    void run(int upto, int *block)
    {
        upto_ = upto;
        k_ = 0;
        idx_ = block;
        visit(0, 2L * sk_.p, sk_.q);
        kb::require(k_ >= upto_, "circulant: receive search left a round empty");
        for (int k = 0; k < upto_; ++k) {
            block[k] = block[k] == sk_.q ? b_ : block[k] - sk_.q;
        }
    }

private:
    const Skips &sk_;
    long top_;
    int b_;
    int upto_ = 0, k_ = 0;
    int *idx_ = nullptr;
    std::vector<int> down_, up_; /* indexed e + 1 */

    int down(int e) const { return down_[size_t(e + 1)]; }
    void set_down(int e, int v) { down_[size_t(e + 1)] = v; }
    void set_up(int e, int v) { up_[size_t(e + 1)] = v; }
    void drop(int e)
    {
        const int hi = up_[size_t(e + 1)], lo = down_[size_t(e + 1)];
        set_down(hi, lo);
        set_up(lo, hi);
    }
    long lower(int k) const { return top_ - sk_.s[size_t(k) + 1]; } /* round k's interval */
    long upper(int k) const { return top_ - sk_.s[size_t(k)]; }     /*  is (lower, upper] */

    /* Extends `sum` by skips e, down(e), ... (a skip may repeat); `bound`: sums taken so
     * far are above it. */
    void visit(long sum, long bound, int e)
    {
        for (; e != -1 && k_ < upto_; e = down(e)) {
            const long c = sum + sk_.s[size_t(e)];
            if (c > upper(k_) || c >= bound) {
                continue;
            }
            if (c <= lower(k_)) { /* below this round's interval: extend it first */
                visit(c, bound, e);
                if (k_ >= upto_) {
                    return;
                }
            }
            if (sum > lower(k_)) { /* this prefix already lies above the current interval */
                return;
            }
            bound = c;
            idx_[k_++] = e;
            drop(e);
        }
    }
};

/* Receive (or, for the root, send) blocks of one phase for position r. */
std::vector<int> recv_blocks(const Skips &sk, long r, int upto)
{
    std::vector<int> v(size_t(std::max(upto, 0)));
    if (upto > 0) {
        RecvSearch(sk, r).run(upto, v.data());
    }
    return v;
}

constexpr int NONE = -(1 << 30);

/* Rank's part of the circulant schedule (O(q) numbers). */
struct CircSched final : mcast_sched {
    int q = 0, x = 0;
    long first_round = 0, end_round = 0; /* global rounds [first_round, end_round) */
    long nphases = 0;                    /* phases 0 .. nphases-1 */
    int base[2][64];                     /* per kind and k: virtual block of phase 0, NONE */
    int peer[2][64];                     /* per kind and k: group rank */
    Ops head[2];                         /* ops of phases 0 and 1 */
    std::vector<int> kidx[2];            /* k with an op in phases >= 2 */
    long nfull = 0;                      /* phases >= 2 */

    bool at(mcast_op_kind_t kind, long i, mcast_op_t *o) const
    {
        const int k = int(i % q);
        if (base[kind][k] == NONE) {
            return false;
        }
        const long v = long(base[kind][k]) + (i / q) * q - x;
        if (v < 0) {
            return false;
        }
        o->peer = peer[kind][k];
        o->block = uint32_t(std::min<long>(v, long(nblocks) - 1));
        o->nblocks = 1;
        o->step = uint32_t(i - x + 1);
        o->last = 0;
        return true;
    }
    size_t count(mcast_op_kind_t kind) const override
    {
        return head[kind].size() + size_t(nfull) * kidx[kind].size();
    }
    mcast_op_t op(mcast_op_kind_t kind, size_t i) const override
    {
        if (i < head[kind].size()) {
            return head[kind][i];
        }
        const size_t j = i - head[kind].size(), per = kidx[kind].size();
        const long phase = 2 + long(j / per);
        mcast_op_t o{};
        at(kind, phase * q + kidx[kind][j % per], &o);
        o.last = phase == nphases - 1 ? 1 : 0;
        return o;
    }
};

} // namespace

std::unique_ptr<mcast_sched> circulant(const Chain &c, int n, uint32_t m)
{
    if (n == 1 || m == 0) {
        return list_sched(c, m, {}, {});
    }
    const Skips sk(n);
    const int q = sk.q;
    kb::require(q < 64, "circulant: n too large");
    auto s = std::make_unique<CircSched>();
    s->n = n;
    s->rank = c.rank_at[size_t(c.pos)];
    s->nblocks = m;
    s->q = q;
    s->x = int((q - long(m - 1) % q) % q);
    s->first_round = s->x;
    s->end_round = s->x + long(m) - 1 + q;
    s->nphases = s->end_round / q; /* end_round is a multiple of q */
    const long r = c.pos;
    std::vector<int> recv = r == 0 ? std::vector<int>() : recv_blocks(sk, r, q);
    for (int k = 0; k < q; ++k) {
        const long src = ((r - sk.s[size_t(k)]) % n + n) % n;
        const long dst = (r + sk.s[size_t(k)]) % n;
        s->peer[MCAST_OP_RECV][k] = c.rank_at[size_t(src)];
        s->peer[MCAST_OP_SEND][k] = c.rank_at[size_t(dst)];
        s->base[MCAST_OP_RECV][k] = r == 0 ? NONE : recv[size_t(k)];
        if (dst == 0) {
            s->base[MCAST_OP_SEND][k] = NONE;
        } else if (r == 0) {
            s->base[MCAST_OP_SEND][k] = k;
        } else {
            s->base[MCAST_OP_SEND][k] = recv_blocks(sk, dst, k + 1)[size_t(k)];
        }
    }
    const long head_end = std::min(s->end_round, 2L * q);
    s->nfull = s->nphases > 2 ? s->nphases - 2 : 0;
    for (int kind = 0; kind < 2; ++kind) {
        for (long i = s->first_round; i < head_end; ++i) {
            mcast_op_t o{};
            if (s->at(mcast_op_kind_t(kind), i, &o)) {
                s->head[kind].push_back(o);
            }
        }
        for (int k = 0; k < q; ++k) {
            if (s->base[kind][k] != NONE) {
                s->kidx[kind].push_back(k);
            }
        }
        if (s->nfull == 0) {
            mark_last(s->head[kind]);
        }
    }
    return s;
}

long circulant_rounds(int n, uint32_t m)
{
    return n == 1 || m == 0 ? 0 : long(m) - 1 + clog2(uint64_t(n));
}

double circulant_predict(int n, size_t M, uint32_t m, const Model &md)
{
    if (n == 1 || m == 0) {
        return 0.0;
    }
    const double B = block_len(M, m, 0);
    const double h = md.hop(B), g = md.send_gap(B);
    const int q = clog2(uint64_t(n));
    return double(q) * h +
           double(m - 1) * std::max(g, (mcast_fit::CIRCULANT_ROUND_A - mcast_fit::CIRCULANT_ROUND_B / q) * h);
}

} // namespace fam
} // namespace mc
