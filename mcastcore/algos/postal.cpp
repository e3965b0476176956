/*
 * Postal-model broadcast: F_lambda(t), optimal completion time, lambda from a
 * LogP-like model, the greedy optimal tree (new/old queues) and its simulation.
 *
 * Cost model (postal, Bar-Noy & Kipnis): a sender is busy 1 time unit per copy,
 * a copy started at time x is usable by its receiver at x + lambda (lambda >= 1).
 *   F(t) = 1                        0 <= t < lambda
 *        = F(t-1) + F(t-lambda)     t >= lambda
 * Unrolled: a node reached through b edges, its ancestors' send indices summing
 * to a, is informed at a + b*lambda, so
 *   F(t) = sum_{b >= 0, b*lambda <= t} C(floor(t - b*lambda) + b, b).
 * Completion of the optimal tree: min{ t : F(t) >= n } over the event times a + b*lambda.
 * Paper: seed 003 sec. 4 (NIC-assisted multicast, greedy top-down tree of [4]).
 *
 * Greedy tree on the chain p0 = root, p1, p2, ...: queue "new" holds (node,
 * time it can first send), "old" holds senders that sent before; for each next
 * p take the earliest head (tie: "old"; each queue FIFO), make p its next child,
 * push p to new at t + lambda and the sender to old at t + 1.
 * Times are kept as (a, b) = a + b*lambda; values of different (a, b) are equal
 * when they differ by at most 1e-12 relative (so lambda = 1.5 sees 3 = 2*1.5).
 *
 * n = 10, lambda = 2 (completion 6 = min{t : F_2(t) >= 10}, F_2 = Fibonacci;
 * [x] = time the child has the packet; the root sends at 0, 1, 2, 3, 4):
 *
 *   0 -+-[2]-> 1 -+-[4]-> 4
 *      |          +-[5]-> 6
 *      |          +-[6]-> 9
 *      +-[3]-> 2 --[5]-> 7
 *      +-[4]-> 3
 *      +-[5]-> 5
 *      +-[6]-> 8
 */
#include "base/kb_core.hpp"

#include <algorithm>
#include <cmath>

namespace kb {

namespace {

constexpr double kRelTol = 1e-12;

__extension__ typedef unsigned __int128 u128; /* GCC/Clang: exact C(T+b,b) steps */

/* A time a + b*lambda. */
struct Time {
    int64_t a;
    int64_t b;
};

double value(const Time &x, double lambda)
{
    return double(x.a) + double(x.b) * lambda;
}

/* x < y, recognising equal values of different (a, b). */
bool earlier(const Time &x, const Time &y, double lambda)
{
    if (x.b == y.b) {
        return x.a < y.a;
    }
    if (x.a == y.a) {
        return x.b < y.b;
    }
    const double vx = value(x, lambda), vy = value(y, lambda);
    return vx < vy - kRelTol * std::max(1.0, std::max(vx, vy));
}

/* C(T + b, b), saturating. */
uint64_t binom_sat(uint64_t T, int64_t b)
{
    u128 c = 1;
    for (int64_t i = 1; i <= b; ++i) {
        c = c * (T + uint64_t(i)) / uint64_t(i);
        if (c > UINT64_MAX) {
            return UINT64_MAX;
        }
    }
    return uint64_t(c);
}

} // namespace

void check_lambda(double lambda)
{
    require(std::isfinite(lambda) && lambda >= 1.0, "lambda must be a finite number >= 1");
}

uint64_t postal_F(double lambda, double t)
{
    check_lambda(lambda);
    require(!std::isnan(t), "t is NaN");
    if (t < 0) {
        return 0;
    }
    const double tol = kRelTol * std::max(1.0, t);
    uint64_t F = 0;
    /* At most ~66 terms: once t >= 130 lambda the term b = 65 exceeds 2^64. */
    for (int64_t b = 0; double(b) * lambda <= t + tol; ++b) {
        if (b == 0) {
            F = 1;
            continue;
        }
        const double rest = std::floor(t - double(b) * lambda + tol);
        if (rest >= 9.2e18) {
            return UINT64_MAX;
        }
        F = uint64_t(std::min<u128>(UINT64_MAX, u128(F) + binom_sat(uint64_t(rest), b)));
        if (F == UINT64_MAX) {
            break;
        }
    }
    return F;
}

double postal_completion(int n, double lambda)
{
    require(n >= 1, "n must be >= 1");
    check_lambda(lambda);
    if (n == 1) {
        return 0.0;
    }
    /* The flat tree finishes at (n-2) + lambda and is optimal when lambda > n-2
     * (any deeper node needs >= 2 lambda).  Otherwise look for the earliest
     * lattice time a + b*lambda with F >= n: for each b the smallest a. */
    Time best{int64_t(n) - 2, 1};
    if (lambda > double(n - 2)) {
        return value(best, lambda);
    }
    for (int64_t b = 0; double(b) * lambda < value(best, lambda); ++b) {
        const double room = std::max(0.0, value(best, lambda) - double(b) * lambda);
        int64_t lo = 0, hi = int64_t(std::floor(room + kRelTol * std::max(1.0, room)));
        if (postal_F(lambda, value(Time{hi, b}, lambda)) < uint64_t(n)) {
            continue;
        }
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if (postal_F(lambda, value(Time{mid, b}, lambda)) >= uint64_t(n)) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if (earlier(Time{lo, b}, best, lambda)) {
            best = Time{lo, b};
        }
    }
    return value(best, lambda);
}

double postal_lambda(size_t seg_bytes, const kb_postal_model_t *m)
{
    require(m != nullptr, "model is NULL");
    const double fields[] = {m->o_send_us, m->o_recv_us, m->alpha_us, m->beta_ns_per_byte,
                             m->gap_ns_per_byte};
    for (double f : fields) {
        require(std::isfinite(f) && f >= 0, "postal model fields must be finite and >= 0");
    }
    const double S = double(seg_bytes);
    const double send_us = m->o_send_us + S * m->gap_ns_per_byte / 1000.0;
    require(send_us > 0, "send time per copy must be > 0");
    const double latency = send_us + m->alpha_us + S * m->beta_ns_per_byte / 1000.0 + m->o_recv_us;
    return std::max(1.0, latency / send_us);
}

ChainEdges postal_edges(int n, double lambda)
{
    struct Entry {
        int pos;
        Time t;
    };
    ChainEdges edges;
    edges.reserve(size_t(n));
    std::vector<Entry> fresh{{0, {0, 0}}}, old; /* FIFO queues, read from head indices */
    fresh.reserve(size_t(n));
    old.reserve(size_t(n));
    size_t fh = 0, oh = 0;
    for (int p = 1; p < n; ++p) {
        const bool from_new = oh == old.size() ||
                              (fh < fresh.size() && earlier(fresh[fh].t, old[oh].t, lambda));
        const Entry q = from_new ? fresh[fh++] : old[oh++];
        edges.emplace_back(q.pos, p);
        fresh.push_back({p, {q.t.a, q.t.b + 1}});
        old.push_back({q.pos, {q.t.a + 1, q.t.b}});
    }
    return edges;
}

double sim_postal(const kb_tree_t *tree, double lambda)
{
    check_lambda(lambda);
    const std::vector<int> order = checked_bfs_order(tree);
    std::vector<Time> at(size_t(tree->n), Time{0, 0});
    Time last{0, 0};
    for (int v : order) {
        for (int i = tree->child_off[v]; i < tree->child_off[v + 1]; ++i) {
            const Time t{at[size_t(v)].a + (i - tree->child_off[v]), at[size_t(v)].b + 1};
            at[size_t(tree->children[i])] = t;
            if (earlier(last, t, lambda)) {
                last = t;
            }
        }
    }
    return value(last, lambda);
}

} // namespace kb
