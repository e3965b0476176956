/*
 * k-binomial theory: N(s,k), L1(n,k), T(n,m,k) and the optimal k for m segments.
 * A k-binomial tree doubles like a binomial tree but caps every fan-out at k.
 *
 * Cost model (seed 001 sec. 4.3, Kesavan & Panda; FPFS pipelining, unit steps):
 *   N(s,k) = 2^s                                   s <= k
 *          = 1 + N(s-1,k) + ... + N(s-k,k)         s >  k        (Lemma 4)
 *   L1(n,k) = min{ s : N(s,k) >= n }                one-packet latency
 *   T(n,m,k) = L1(n,k) + (m-1) k   steps            m packets    (Theorems 2-3)
 * The planner chooses k and the segment size by evaluating the FPFS schedule of each
 * candidate on the machine model (mcast_planner.h), not by a closed form.
 *
 *   N(s,k)   s = 0  1  2  3  4  5  6
 *     k = 1      1  2  3  4  5  6  7      (chain)
 *     k = 2      1  2  4  7 12 20 33
 *     k = 3      1  2  4  8 15 28 52
 *
 *   n = 10: L1 = 9, 4, 4, 4 for k = 1..4;  T(10,m,k) = L1 + (m-1)k:
 *        m:   1   2   3   4   5   6   7          optimal k
 *     k = 1   9  10  11  12  13  14  15          2 2 2 2 2 1 1
 *     k = 2   4   6   8  10  12  14  16          (m = 6 ties -> k = 1)
 *     k = 3   4   7  10  13  16  19  22
 *   (the k = 2 tree on 10 nodes is drawn in tree.cpp)
 */
#include "base/kb_core.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

namespace kb {

namespace {

uint64_t sat_add(uint64_t a, uint64_t b)
{
    return (a > UINT64_MAX - b) ? UINT64_MAX : a + b;
}

/* N(0..), stopping after index s_max or at the first value >= target. */
std::vector<uint64_t> N_prefix(int k, int s_max, uint64_t target)
{
    std::vector<uint64_t> t;
    for (int s = 0; s <= s_max; ++s) {
        uint64_t v;
        if (s <= k) {
            v = (s >= 64) ? UINT64_MAX : (uint64_t(1) << s);
        } else {
            v = 1;
            for (int i = 1; i <= k; ++i) {
                v = sat_add(v, t[s - i]);
            }
        }
        t.push_back(v);
        if (v >= target) {
            break;
        }
    }
    return t;
}

} // namespace

uint64_t N(int s, int k)
{
    if (s < 0 || k < 0) {
        return 0;
    }
    if (k == 0) {
        return 1;
    }
    if (s <= k) {
        return (s >= 64) ? UINT64_MAX : (uint64_t(1) << s);
    }
    if (k == 1) {
        return uint64_t(s) + 1; /* N(s,1) = s + 1: the chain */
    }
    /* k >= 2 grows at least like Fibonacci: saturates within ~93 steps. */
    return N_prefix(k, s, UINT64_MAX).back();
}

std::vector<uint64_t> N_table(int n, int k)
{
    require(n >= 1 && k >= 1, "N_table needs n >= 1, k >= 1");
    /* N(n-1,k) >= n for every k >= 1, so the table stops by index n-1. */
    return N_prefix(k, n - 1, uint64_t(n));
}

int L1(int n, int k)
{
    require(n >= 1 && k >= 1, "L1 needs n >= 1, k >= 1");
    if (k == 1) {
        return n - 1;
    }
    return int(N_table(n, k).size()) - 1;
}

int ceil_log2(int n)
{
    require(n >= 1, "ceil_log2 needs n >= 1");
    int s = 0;
    while ((uint64_t(1) << s) < uint64_t(n)) {
        ++s;
    }
    return s;
}

int max_k(int n)
{
    return std::max(1, ceil_log2(n));
}

long steps(int n, long m, int k)
{
    require(n >= 1 && k >= 1 && m >= 1, "steps needs n >= 1, k >= 1, m >= 1");
    const long L = L1(n, k);
    if (m - 1 > (LONG_MAX - L) / k) {
        return LONG_MAX;
    }
    return L + (m - 1) * k;
}

int optimal_k(int n, long m)
{
    require(n >= 1 && m >= 1, "optimal_k needs n >= 1, m >= 1");
    int best_k = 1;
    long best = steps(n, m, 1);
    for (int k = 2; k <= max_k(n); ++k) {
        const long t = steps(n, m, k);
        if (t < best) {
            best = t;
            best_k = k;
        }
    }
    return best_k;
}

} // namespace kb
