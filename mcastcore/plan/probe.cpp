/*
 * Self-calibration across nodes (mcast_planner.h, "Self-calibration"): which ranks probe
 * one another, the sizes they time, and the network model fitted from what they measured.
 * No clock and no communication here: the glue (mcast_calib.c) times ping-pongs between
 * the pairs and makes every rank hold the same measurements before the fit, so every rank
 * fits the same model.
 */
#include "mcast_planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#define MC_API extern "C" __attribute__((visibility("default")))

namespace {

/* Small sizes give the per-message intercept; the streams (of eager blocks: below TCP's
 * default eager limit of 64 KiB, so that no rendezvous mixes in) the per-byte cost. */
const size_t kSizes[MCAST_PROBE_SIZES] = {0, 1024, 4096};

double median_of(std::vector<double> v)
{
    if (v.empty()) {
        return NAN;
    }
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

} // namespace

MC_API size_t mcast_probe_size(int i)
{
    return i >= 0 && i < MCAST_PROBE_SIZES ? kSizes[i] : 0;
}

MC_API double mcast_probe_median(const double *v, int n)
{
    if (v == nullptr || n <= 0) {
        return NAN;
    }
    return median_of(std::vector<double>(v, v + n));
}

MC_API int mcast_probe_pairs(int n, const int *node_of, int max_pairs, mcast_probe_pair_t *pairs)
{
    if (n <= 0 || node_of == nullptr || pairs == nullptr || max_pairs <= 0) {
        return 0;
    }
    /* one rank per node, the lowest, nodes in the order of their first rank */
    std::vector<int> leader;
    std::vector<int> seen;
    for (int r = 0; r < n; r++) {
        if (std::find(seen.begin(), seen.end(), node_of[r]) == seen.end()) {
            seen.push_back(node_of[r]);
            leader.push_back(r);
        }
    }
    const int nodes = (int) leader.size();
    const int half = nodes / 2, far = (nodes + 1) / 2;
    const int np = std::min({max_pairs, half, MCAST_PROBE_MAX_PAIRS});
    /* node i with node i + ceil(N/2): disjoint pairs (no host in two pairs, so pairs that
     * run at once share no host link), spread over the communicator's nodes */
    for (int k = 0; k < np; k++) {
        const int i = (int) ((long) k * half / np);
        pairs[k].a = leader[i];
        pairs[k].b = leader[i + far];
    }
    return np;
}

MC_API int mcast_probe_fit(const mcast_probe_sample_t *s, int npairs, mcast_machine_t *m,
                           char *why, size_t len)
{
    auto fail = [&](const char *text) {
        if (why != nullptr && len > 0) {
            std::snprintf(why, len, "%s", text);
        }
        return KB_ERR_ARG;
    };
    if (s == nullptr || m == nullptr || npairs <= 0) {
        return fail("no pair of nodes measured");
    }
    /* per size: the median over the pairs (a pair slowed by other traffic does not move it) */
    double pp[MCAST_PROBE_SIZES];
    std::vector<double> post;
    for (int j = 0; j < MCAST_PROBE_SIZES; j++) {
        std::vector<double> v;
        for (int p = 0; p < npairs; p++) {
            if (!(s[p].half_rtt_us[j] > 0.0) || !std::isfinite(s[p].half_rtt_us[j])) {
                return fail("a pair measured no time");
            }
            v.push_back(s[p].half_rtt_us[j]);
        }
        pp[j] = median_of(v);
    }
    for (int p = 0; p < npairs; p++) {
        if (!(s[p].post_us >= 0.0) || !std::isfinite(s[p].post_us)) {
            return fail("a pair measured no send overhead");
        }
        post.push_back(s[p].post_us);
    }
    /* per-byte cost: what the long stream took beyond the short one, per byte */
    std::vector<double> shorts, longs;
    for (int p = 0; p < npairs; p++) {
        if (!(s[p].stream_us[0] > 0.0) || !std::isfinite(s[p].stream_us[0]) ||
            !(s[p].stream_us[1] > 0.0) || !std::isfinite(s[p].stream_us[1])) {
            return fail("a pair measured no stream");
        }
        shorts.push_back(s[p].stream_us[0]);
        longs.push_back(s[p].stream_us[1]);
    }
    const double slope = (median_of(longs) - median_of(shorts)) /
                         ((double) (MCAST_PROBE_STREAM_LONG - MCAST_PROBE_STREAM_SHORT) *
                          (double) MCAST_PROBE_STREAM_BYTES);
    if (!(slope > 0.0) || !std::isfinite(slope)) {
        return fail("the time did not grow with the bytes");
    }
    std::vector<double> icpt;
    for (int j = 0; j < MCAST_PROBE_SIZES; j++) {
        icpt.push_back(pp[j] - slope * (double) kSizes[j]);
    }
    const double intercept = median_of(icpt);
    if (!(intercept > 0.0)) {
        return fail("no time per message left after the per-byte cost");
    }
    /* A send is posted and, over TCP, completed inside the MPI library's progress: the
     * receiver's overhead is taken equal to the sender's (mcast-calibrate's rule for a
     * transport that moves data only inside progress); the rest of the intercept is the
     * wire.  The sender's port is taken as busy for the whole per-byte cost (one link per
     * host: its copies leave one after the other). */
    const double o = std::min(median_of(post), 0.5 * intercept);
    m->net.o_send_us = o;
    m->net.o_recv_us = o;
    m->net.latency_us = intercept - 2.0 * o;
    m->net.wire_ns_per_byte = 1000.0 * slope;
    m->net.gap_ns_per_byte = 1000.0 * slope;
    m->net.recv_ns_per_byte = 0.0;
    m->net.shared_flows = 0;
    std::snprintf(m->source, sizeof(m->source),
                  "self-calibrated (%d pair%s of nodes): o %.2f us, latency %.2f us, %.3f ns/B",
                  npairs, npairs == 1 ? "" : "s", o, intercept - 2.0 * o, 1000.0 * slope);
    return KB_OK;
}
