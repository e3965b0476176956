/*
 * Scatter + allgather broadcast (MCAST_FAM_SCATTER_ALLGATHER, variants RING and RD).
 *
 * Algorithm: a binomial scatter leaves block i at position i (m <= n blocks, position i
 * owns block i, positions >= m own none), then an allgather gives every position every
 * block: around a ring (RING) or by recursive doubling (RD).  No block is ever sent to a
 * rank that holds it (the scatter's interior ranks keep their subtree's blocks), so every
 * rank receives every block exactly once.
 *
 * Papers: M. Barnett, S. Gupta, D. Payne, L. Shuler, R. van de Geijn, J. Watts,
 * "Interprocessor collective communication library (InterCom)", SHPCC 1994 (scatter +
 * allgather broadcast); R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective
 * communication operations in MPICH", IJHPCA 19(1), 2005 (ring and recursive doubling).
 * Non-powers of two in RD as MPICH's and Open MPI's bcast do it (learnt from
 * bcast_intra_scatter_recursive_doubling_allgather.c and coll_base_bcast.c): after a
 * level's exchange, the ranks whose partner does not exist get the missing part from the
 * ranks of their half that had a partner, by recursive halving inside the half.
 *
 * Scatter: position r > 0 with lowest set bit l receives blocks [r, min(r + l, n, m)) from
 * r - l, then sends [c, min(c + l', n, m)) to c = r + l' for l' = l/2, l/4, ..., 1 (the root:
 * l' = 2^(L-1), ..., 1 with L = ceil(log2 n)); empty ranges are no op.
 * Ring: in ring step i = 1..n-1 position r sends block (r - i + 1) mod n to r + 1 unless
 * r + 1 holds it or it does not exist; the receiver's list is the same sequence.
 * RD, level l = 1, 2, 4, ...: position x exchanges its half [x & ~(l-1), +l) with x ^ l
 * (what the partner lacks; nothing when the partner's scatter range covers it); if x ^ l
 * >= n, x is in the lower half of a group whose upper half U = [G + l, n) is partial:
 * with c = n - G - l ranks in U, the first c ranks of the lower half had partners and hold U,
 * and in substeps l' = l/2, ..., 1 rank u (relative to G) with (u mod 2l') < l', < c and
 * >= c - l' sends U to u + l'.
 *
 * Cost model.  Unit steps (one send per rank per step):
 *   RING  T = ceil(log2 m) + n - 1      (the root's scatter sends, then block 0 travels the
 *                                         whole ring; every rank keeps up: exact)
 *   RD    T = ceil(log2 m) + log2 n for n = 2^j; for other n the fix-ups of different
 *         levels overlap (a group that idles at the next level absorbs its delay), so the
 *         model is the critical path itself: every rank's (data ready, port free) times,
 *         level by level, with its sends in list order (rd_time, O(n log n)): exact.
 * LogGP with b = ceil(M/m) bytes per block, h(x) = hop(x bytes), g(x) = send_gap(x bytes):
 *   RING     T = Ts + (n - 1) max(h(b), g(b)), Ts = the root's scatter sends (2^(L-1) b, ...,
 *            b bytes, g each) or their last hop (block 0 then hops n - 1 times)
 *   RD       rd_time with g and h: sends of x bytes occupy the port g(x), arrive h(x) later
 * i.e. about 2 M beta + (log2 n + n - 1) alpha (ring) and 2 M beta + 2 log2 n alpha (RD).
 * Tests: ring within 5 %, RD within 1 % of mcast_simnet_run (flat-1024 parameters).
 *
 * n = 10, m = 10 ([j] = step of the unit-step execution):
 *
 *   scatter   0 -[1] 8,9-> 8 -[2] 9-> 9
 *             0 -[2] 4..7-> 4 -[3] 6,7-> 6 -[4] 7-> 7
 *                              4 -[4] 5-> 5
 *             0 -[3] 2,3-> 2 -[4] 3-> 3
 *             0 -[4] 1-> 1
 *   ring      steps 5..13: r -> r+1 sends block r, r-1, r-2, ... (skipping what r+1 holds)
 *   RD        l=1: 0<->1 (0 sends 0)  2<->3  ... 8<->9      l=2: 0<->2 1<->3 4<->6 5<->7
 *             l=4: 0<->4 1<->5 2<->6 3<->7                   l=8: 0<->8 1<->9, then
 *             U = {8,9} to 2..7: 0->4 1->5, then 0->2 1->3 4->6 5->7
 */
#include "algos/fam_core.hpp"

#include <algorithm>

namespace mc {
namespace fam {

namespace {

struct Range {
    long lo = 0, hi = 0; /* [lo, hi) */
    bool empty() const { return hi <= lo; }
};

Range clip(long lo, long hi, long n, long m)
{
    return Range{lo, std::min({hi, n, m})};
}

long lowbit(long x)
{
    return x & -x;
}

/* Scatter range of position r (the root: everything). */
Range scatter_range(long r, long n, long m)
{
    return r == 0 ? Range{0, m} : clip(r, r + lowbit(r), n, m);
}

/* a \ b where the result must be one range (true for the ranges used here). */
Range minus(Range a, Range b)
{
    if (a.empty() || b.empty() || b.hi <= a.lo || b.lo >= a.hi) {
        return a;
    }
    if (b.lo <= a.lo && b.hi >= a.hi) {
        return Range{0, 0};
    }
    if (b.lo <= a.lo) {
        return Range{b.hi, a.hi};
    }
    kb::require(b.hi >= a.hi, "scatter_allgather: a difference splits a range");
    return Range{a.lo, b.lo};
}

void add(Ops &ops, long peer, Range r, long step)
{
    if (r.empty()) {
        return;
    }
    mcast_op_t o{};
    o.peer = int(peer);
    o.block = uint32_t(r.lo);
    o.nblocks = uint32_t(r.hi - r.lo);
    o.step = uint32_t(step);
    ops.push_back(o);
}

/* Top mask of position r's scatter children (the root: 2^(L-1)). */
long top_mask(long r, long n)
{
    if (r == 0) {
        long t = 1;
        while (t * 2 < n) {
            t *= 2;
        }
        return n > 1 ? t : 0;
    }
    return lowbit(r) / 2;
}

/* Unit step in which position r receives its scatter range (0 for the root). */
long scatter_arrival(long r, long n, long m)
{
    long v = 0, a = 0;
    for (long mask = top_mask(0, n); mask >= 1 && v != r; mask /= 2) {
        if (!(r & mask)) {
            continue;
        }
        /* v's sends before (and including) the one to v + mask */
        for (long l = top_mask(v, n); l >= mask; l /= 2) {
            a += (v + l < n && v + l < m) ? 1 : 0;
        }
        v += mask;
    }
    return a;
}

void scatter_ops(long r, long n, long m, Ops &recv, Ops &send, long *last_step)
{
    const long a = scatter_arrival(r, n, m);
    if (r != 0) {
        add(recv, r - lowbit(r), clip(r, r + lowbit(r), n, m), a);
    }
    long s = a;
    for (long l = top_mask(r, n); l >= 1; l /= 2) {
        const long c = r + l;
        if (c < n && c < m) {
            add(send, c, clip(c, c + l, n, m), ++s);
        }
    }
    *last_step = s;
}

/* Ring: blocks position `to` lacks from its left neighbour, in ring-step order. */
template <class F> void ring_needs(long to, long n, long m, F &&f)
{
    const Range have = scatter_range(to, n, m);
    for (long i = 1; i < n; ++i) {
        const long b = ((to - i) % n + n) % n;
        if (b < m && !(b >= have.lo && b < have.hi)) {
            f(i, b);
        }
    }
}

void ring_ops(long r, long n, long m, long base, Ops &recv, Ops &send)
{
    const long left = (r - 1 + n) % n, right = (r + 1) % n;
    ring_needs(r, n, m, [&](long i, long b) { add(recv, left, Range{b, b + 1}, base + i); });
    ring_needs(right, n, m, [&](long i, long b) { add(send, right, Range{b, b + 1}, base + i); });
}

/* RD helpers */
Range half_of(long x, long l, long n, long m)
{
    const long h = x & ~(l - 1);
    return clip(h, h + l, n, m);
}

/* What position y lacks of x's half at level l. */
Range exchange(long x, long y, long l, long n, long m)
{
    return minus(half_of(x, l, n, m), scatter_range(y, n, m));
}

/* Fixup of level l for the group of x (lower half), or an empty range. */
Range fixup_range(long G, long l, long n, long m, long *c)
{
    *c = n - G - l;
    if (*c <= 0 || G + 2 * l <= n) {
        return Range{0, 0};
    }
    return clip(G + l, n, n, m);
}

/* Substeps of level l's fixup that move data (only the last group can be partial): those
 * l' = l/2, ..., 1 with 2 l' > c; 0 without a fixup. */
int fixup_substeps(long l, long n, long m)
{
    long c;
    const long G = (n - 1) & ~(2 * l - 1);
    if (fixup_range(G, l, n, m, &c).empty()) {
        return 0;
    }
    int k = 0;
    for (long hl = l / 2; hl >= 1; hl /= 2) {
        k += 2 * hl > c ? 1 : 0;
    }
    return k;
}

void rd_ops(long x, long n, long m, long base, Ops &recv, Ops &send)
{
    long step = base;
    for (long l = 1; l < n; l *= 2) {
        const long y = x ^ l;
        ++step;
        if (y < n) {
            add(send, y, exchange(x, y, l, n, m), step);
            add(recv, y, exchange(y, x, l, n, m), step);
        }
        const int fix = fixup_substeps(l, n, m);
        const long G = x & ~(2 * l - 1);
        long c = 0;
        const Range U = (x & l) ? Range{0, 0} : fixup_range(G, l, n, m, &c);
        long sub = step;
        for (long hl = l / 2; hl >= 1 && fix > 0; hl /= 2) {
            if (2 * hl <= c) {
                continue; /* no rank of any group moves data in this substep */
            }
            ++sub;
            if (U.empty()) {
                continue;
            }
            const long u = x - G, w = u % (2 * hl);
            if (w < hl && w < c && w + hl >= c) {
                add(send, x + hl, U, sub);
            } else if (w >= hl && w - hl < c && w >= c) {
                add(recv, x - hl, U, sub);
            }
        }
        step += fix;
    }
}

} // namespace

std::unique_ptr<mcast_sched> scatter_allgather(const Chain &c, int n, uint32_t m, int variant)
{
    Ops recv, send;
    if (n > 1 && m > 0) {
        const long r = c.pos;
        long last = 0;
        scatter_ops(r, n, m, recv, send, &last);
        const long base = clog2(m); /* the root's scatter sends */
        if (variant == MCAST_SAG_RING) {
            ring_ops(r, n, m, base, recv, send);
        } else {
            rd_ops(r, n, m, base, recv, send);
        }
        /* keep steps nondecreasing where a rank's scatter ends after `base` */
        for (Ops *ops : {&recv, &send}) {
            uint32_t prev = 0;
            for (mcast_op_t &o : *ops) {
                o.step = std::max(o.step, prev);
                prev = o.step;
            }
        }
    }
    return list_sched(c, m, std::move(recv), std::move(send));
}

namespace {

/* Critical path of scatter + RD: every rank's (data ready, send port free) times, level by
 * level, with sends in list order; g(bytes) = time between two sends of a rank, h(bytes) =
 * from a send's start until its receiver may forward.  Exact for the unit-step execution
 * (g = h = 1). */
template <class Gap, class Hop> double rd_time(long n, long m, double b, Gap &&g, Hop &&h)
{
    std::vector<double> ready(size_t(n), 0.0), port(size_t(n), 0.0), snap;
    auto send = [&](long from, long to, Range r, double start) {
        const double bytes = b * double(r.hi - r.lo);
        port[size_t(from)] = start + g(bytes);
        ready[size_t(to)] = std::max(ready[size_t(to)], start + h(bytes));
    };
    for (long r = 0; r < n; ++r) { /* a parent (r - lowbit(r)) comes before its children */
        for (long l = top_mask(r, n); l >= 1; l /= 2) {
            const long c = r + l;
            if (c < n && c < m) {
                send(r, c, clip(c, c + l, n, m), std::max(ready[size_t(r)], port[size_t(r)]));
            }
        }
    }
    for (long l = 1; l < n; l *= 2) {
        snap = ready; /* a half is sent with what was held before this level */
        for (long x = 0; x < n; ++x) {
            const long y = x ^ l;
            const Range r = y < n ? exchange(x, y, l, n, m) : Range{0, 0};
            if (!r.empty()) {
                send(x, y, r, std::max(snap[size_t(x)], port[size_t(x)]));
            }
        }
        long c;
        const long G = (n - 1) & ~(2 * l - 1);
        const Range U = fixup_range(G, l, n, m, &c);
        for (long hl = l / 2; hl >= 1 && !U.empty(); hl /= 2) {
            snap = ready;
            for (long u = 0; u < l && G + u < n; ++u) {
                const long w = u % (2 * hl);
                if (w < hl && w < c && w + hl >= c) {
                    const long z = G + u;
                    send(z, z + hl, U, std::max(snap[size_t(z)], port[size_t(z)]));
                }
            }
        }
    }
    double T = 0.0;
    for (long r = 0; r < n; ++r) {
        T = std::max({T, ready[size_t(r)], port[size_t(r)]});
    }
    return T;
}

} // namespace

long scatter_allgather_rounds(int n, uint32_t m, int variant)
{
    if (n == 1 || m == 0) {
        return 0;
    }
    if (variant == MCAST_SAG_RING) {
        return clog2(m) + n - 1;
    }
    auto one = [](double) { return 1.0; };
    return long(rd_time(n, m, 1.0, one, one) + 0.5);
}

double scatter_allgather_predict(int n, size_t M, uint32_t m, int variant, const Model &md)
{
    if (n == 1 || m == 0) {
        return 0.0;
    }
    const double b = block_len(M, m, 0);
    auto g = [&](double x) { return md.send_gap(x); };
    auto h = [&](double x) { return md.hop(x); };
    if (variant == MCAST_SAG_RD) {
        return rd_time(n, m, b, g, h);
    }
    /* scatter: the root's sends, largest first; the last one's hop ends the scatter */
    double Ts = 0.0, t = 0.0;
    for (long l = top_mask(0, n); l >= 1; l /= 2) {
        if (l < long(m)) {
            const double bytes = b * double(std::min<long>(l, long(m) - l));
            Ts = std::max(Ts, t + h(bytes));
            t += g(bytes);
        }
    }
    return std::max(Ts, t) + double(n - 1) * std::max(h(b), g(b));
}

} // namespace fam
} // namespace mc
