/*
 * k-binomial theory: N(s,k), L1(n,k), optimal k, and the (k, segment) choice.
 * A k-binomial tree doubles like a binomial tree but caps every fan-out at k.
 *
 * Cost model (seed 001 sec. 4.3, Kesavan & Panda; FPFS pipelining, unit steps):
 *   N(s,k) = 2^s                                   s <= k
 *          = 1 + N(s-1,k) + ... + N(s-k,k)         s >  k        (Lemma 4)
 *   L1(n,k) = min{ s : N(s,k) >= n }                one-packet latency
 *   T(n,m,k) = L1(n,k) + (m-1) k   steps            m packets    (Theorems 2-3)
 * With segments of S bytes and a step time t(S) = alpha_us + beta_ns*S/1000:
 *   cost(k,S) = (L1(n,k) + (ceil(M/S) - 1) k) * t(S)   microseconds
 * minimised over k in [1, max(1, ceil(log2 n))], S in [min_seg, min(max_seg, max(M, min_seg))];
 * ties go to the smaller k, then to the larger S.
 *
 * Segment search.  For a fixed k and m = ceil(M/S) the cost grows with S, so
 * only the smallest S of each m matters (S = max(min_seg, ceil(M/m)); with
 * beta == 0 all S of one m cost the same and the largest wins the tie).
 * With A = L1 - k and beta' = beta_ns/1000, the real function
 * g(m) = (A + k m)(alpha + beta' M / m) is a lower bound of the cost and is
 * unimodal (convex for A >= 0, non-decreasing for A < 0), minimal at
 * m* = sqrt(A beta' M / (k alpha)).  We walk the
 * distinct m outward from m* in both directions and stop a direction as soon
 * as g exceeds the best cost found: exact, and only a few steps for sane models.
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
#include "kb_core.hpp"

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

/* m = max(1, ceil(M/S)) without overflow. */
uint64_t segments(size_t M, size_t S)
{
    const uint64_t q = uint64_t(M / S) + ((M % S) ? 1 : 0);
    return std::max<uint64_t>(q, 1);
}

void check_model(const kb_linear_model_t *model)
{
    require(model != nullptr, "model is NULL");
    require(std::isfinite(model->alpha_us) && model->alpha_us >= 0, "alpha_us must be >= 0");
    require(std::isfinite(model->beta_ns_per_byte) && model->beta_ns_per_byte >= 0,
            "beta_ns_per_byte must be >= 0");
}

/* The cost formula; the single place both predict and choose evaluate. */
double cost_us(int L, int k, uint64_t m, size_t S, const kb_linear_model_t &mod)
{
    const double steps_ = double(L) + double(m - 1) * double(k);
    return steps_ * (mod.alpha_us + mod.beta_ns_per_byte * double(S) / 1000.0);
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

double predict_us(int n, size_t M, int k, size_t seg_bytes, const kb_linear_model_t *model)
{
    require(n >= 1 && k >= 1 && seg_bytes >= 1, "predict needs n >= 1, k >= 1, S >= 1");
    check_model(model);
    return cost_us(L1(n, k), k, segments(M, seg_bytes), seg_bytes, *model);
}

namespace {

/* Exact search over S for one k; updates (best, best_S) when strictly better,
 * or equal with a larger S. */
struct SegSearch {
    size_t M, lo, hi;
    int L, k;
    const kb_linear_model_t &mod;
    double b; /* us per byte */

    /* Smallest S (>= lo) of the bucket of m, and that bucket's m. */
    void canon(uint64_t m, uint64_t &q, size_t &S) const
    {
        S = std::max<size_t>(lo, size_t(segments(M, size_t(m))));
        q = segments(M, S);
    }
    /* S evaluated for bucket (q, S_min): with beta == 0 the largest S ties and wins. */
    size_t eval_S(uint64_t q, size_t S_min) const
    {
        if (b > 0) {
            return S_min;
        }
        if (q == 1) {
            return hi;
        }
        return std::min<size_t>(hi, size_t((M - 1) / (q - 1)));
    }
    double g(uint64_t q) const
    {
        return (double(L - k) + double(k) * double(q)) *
               (mod.alpha_us + b * double(M) / double(q));
    }
    void offer(uint64_t q, size_t S_min, double &best, size_t &best_S, bool &found) const
    {
        const size_t S = eval_S(q, S_min);
        const double c = cost_us(L, k, q, S, mod);
        if (!found || c < best || (c == best && S > best_S)) {
            found = true;
            best = c;
            best_S = S;
        }
    }
    void run(double &best, size_t &best_S, bool &found) const
    {
        const uint64_t m_lo = segments(M, hi);
        const uint64_t m_hi = segments(M, lo);
        const double A = double(L - k);
        const double B = b * double(M);
        double m_star;
        if (A <= 0 || B == 0) {
            m_star = double(m_lo);
        } else if (mod.alpha_us == 0) {
            m_star = double(m_hi);
        } else {
            m_star = std::sqrt(A * B / (double(k) * mod.alpha_us));
        }
        m_star = std::min(std::max(m_star, double(m_lo)), double(m_hi));
        const uint64_t m0 = std::min<uint64_t>(m_hi, std::max<uint64_t>(m_lo, uint64_t(m_star)));

        uint64_t q0;
        size_t S0;
        canon(m0, q0, S0);
        /* Left: larger S, g non-increasing towards m*; equal cost may still win (larger S). */
        uint64_t q = q0;
        size_t S = S0;
        for (;;) {
            if (found && g(q) > best) {
                break;
            }
            offer(q, S, best, best_S, found);
            if (q <= m_lo) {
                break;
            }
            canon(q - 1, q, S);
        }
        /* Right: smaller S, g non-decreasing; an equal cost never wins here. */
        q = q0;
        S = S0;
        while (S > lo) {
            canon(segments(M, S - 1), q, S);
            if (g(q) >= best) {
                break;
            }
            offer(q, S, best, best_S, found);
        }
    }
};

} // namespace

void choose_k_segment(int n, size_t M, const kb_linear_model_t *model, size_t min_seg,
                      size_t max_seg, int *k_out, size_t *seg_out)
{
    require(n >= 1, "n must be >= 1");
    require(min_seg >= 1 && max_seg >= min_seg, "need 1 <= min_seg <= max_seg");
    require(k_out != nullptr && seg_out != nullptr, "output pointers are NULL");
    check_model(model);
    if (M == 0) {
        *k_out = optimal_k(n, 1);
        *seg_out = min_seg;
        return;
    }
    const size_t hi = std::min(max_seg, std::max(M, min_seg));
    double best = 0;
    size_t best_S = min_seg;
    int best_k = 1;
    bool found = false;
    for (int k = 1; k <= max_k(n); ++k) {
        double kbest = best;
        size_t kS = best_S;
        bool kfound = found;
        const SegSearch srch{M, min_seg, hi, L1(n, k), k, *model,
                             model->beta_ns_per_byte / 1000.0};
        srch.run(kbest, kS, kfound);
        /* Ties across k keep the smaller k: only a strictly better cost moves. */
        if (!found || kbest < best) {
            best = kbest;
            best_S = kS;
            best_k = k;
            found = true;
        }
    }
    *k_out = best_k;
    *seg_out = best_S;
}

/* Overheads decide only whether to segment at all (kbinomial.h says why). */
void choose_k_segment_ov(int n, size_t M, const kb_linear_model_t *model, double overhead_us,
                         size_t min_seg, size_t max_seg, int *k_out, size_t *seg_out)
{
    require(overhead_us >= 0.0, "overhead_us must be >= 0");
    check_model(model);
    if (overhead_us > 0.0 && M > 0) {
        kb_linear_model_t with = *model;
        with.alpha_us += overhead_us;
        int k1 = 1;
        size_t s1 = 0;
        choose_k_segment(n, M, &with, min_seg, max_seg, &k1, &s1);
        if (s1 >= M) {
            *k_out = k1;
            *seg_out = s1;
            return;
        }
    }
    choose_k_segment(n, M, model, min_seg, max_seg, k_out, seg_out);
}

} // namespace kb
