/*
 * Self-calibration across nodes (mcast_planner.h, "Self-calibration"): which ranks probe
 * one another, the sizes they time, and the network model fitted from what they measured.
 * The measurement runs over the caller's point-to-point calls and clock (mcast_probe_ops_t:
 * the component's PML in mcast_calib.c, MPI in mcast-calibrate --probe); the caller makes
 * every rank hold the same rows before the fit, so every rank fits the same model.
 */
#include "mcast_planner.h"
#include "plan/plan_routes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#define MC_API extern "C" __attribute__((visibility("default")))

namespace {

/* The empty ping-pong gives the per-message intercept, both sizes the time to post a send;
 * the streams (of eager blocks: below TCP's default eager limit of 64 KiB, so that no
 * rendezvous mixes in) the per-byte cost. */
const size_t kSizes[MCAST_PROBE_SIZES] = {0, 1024};

double median_of(std::vector<double> v)
{
    if (v.empty()) {
        return NAN;
    }
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The least disturbed of n repetitions: another process on the host only adds time. */
double min_of(const double *v, int n)
{
    return n > 0 ? *std::min_element(v, v + n) : NAN;
}

/* How far the second least of n repetitions is above the least (0 for one). */
double spread_of(const double *v, int n)
{
    if (n < 2) {
        return 0.0;
    }
    std::vector<double> w(v, v + n);
    std::sort(w.begin(), w.end());
    return w[1] - w[0];
}

/* Per stream (small blocks, large ones) of t: the least over every time into least; returns
 * the larger of the two streams' distances from their least to their second least. */
double least_and_noise(std::vector<double> (&t)[2], double (&least)[2])
{
    double noise = 0.0;
    for (int c = 0; c < 2; c++) {
        std::sort(t[c].begin(), t[c].end());
        least[c] = t[c][0];
        noise = std::max(noise, t[c][1] - t[c][0]);
    }
    return noise;
}

/* One rank per node, the lowest, nodes in the order of their first rank. */
std::vector<int> leaders(int n, const int *node_of)
{
    std::vector<int> leader, seen;
    for (int r = 0; r < n; r++) {
        if (std::find(seen.begin(), seen.end(), node_of[r]) == seen.end()) {
            seen.push_back(node_of[r]);
            leader.push_back(r);
        }
    }
    return leader;
}

/* Route latency (mcast_probe_pairs_routed; E-HOP-1): the per-link latency as the median
 * of the slopes between every two pairs of different route lengths (Theil-Sen: a pair
 * slowed by other traffic moves it little), above 0 and standing out of the pairs'
 * scatter; latency_links the far pairs' median links, whose median half round trip
 * latency_us already is.  Nothing where a far pair's links are unknown or all alike. */
bool fit_route_latency(const mcast_probe_sample_t *s, int npairs, mcast_machine_t *m)
{
    std::vector<double> slopes, far_links;
    for (int i = 0; i < npairs; i++) {
        const double yi = s[i].half_rtt_us[0];
        if (s[i].links <= 0 || !(yi > 0.0) || !std::isfinite(yi)) {
            continue;
        }
        if (!s[i].latency_only) {
            far_links.push_back((double) s[i].links);
        }
        for (int j = i + 1; j < npairs; j++) {
            const double yj = s[j].half_rtt_us[0];
            if (s[j].links <= 0 || s[j].links == s[i].links || !(yj > 0.0) || !std::isfinite(yj)) {
                continue;
            }
            slopes.push_back((yj - yi) / (double) (s[j].links - s[i].links));
        }
    }
    int nfar = 0;
    for (int i = 0; i < npairs; i++) {
        nfar += !s[i].latency_only;
    }
    if (slopes.empty() || (int) far_links.size() != nfar) {
        return false;
    }
    const double hop = median_of(slopes);
    if (!(hop > 0.0) || !std::isfinite(hop)) {
        return false;
    }
    /* only a slope that stands out of the pairs' scatter: over the range of links it must
     * add more than 3 times their median distance from the line and their median spread
     * between repetitions (noise alone, a host's jitter over TCP, fits some slope too) */
    std::vector<double> off, res, spread;
    int lo = 0, hi = 0;
    for (int i = 0; i < npairs; i++) {
        const double y = s[i].half_rtt_us[0];
        if (s[i].links > 0 && y > 0.0 && std::isfinite(y)) {
            off.push_back(y - hop * s[i].links);
            spread.push_back(std::isfinite(s[i].half_rtt_spread_us) ? s[i].half_rtt_spread_us : 0.0);
            lo = lo == 0 ? s[i].links : std::min(lo, s[i].links);
            hi = std::max(hi, s[i].links);
        }
    }
    const double b = median_of(off);
    for (double v : off) {
        res.push_back(std::fabs(v - b));
    }
    if (hop * (double) (hi - lo) <= 3.0 * std::max(median_of(res), median_of(spread))) {
        return false;
    }
    m->hop_latency_us = hop;
    m->latency_links = median_of(far_links);
    const size_t at = std::strlen(m->source);
    std::snprintf(m->source + at, sizeof(m->source) - at, ", %.3f us per link (at %.1f links)",
                  hop, m->latency_links);
    return true;
}

/* The streams' spread over what the bytes added (mcast_probe_fit's noise / signal) from
 * the streaming pairs among s; 0 where none streamed. */
double stream_noise(const std::vector<mcast_probe_sample_t> &s)
{
    std::vector<double> t[2];
    for (const mcast_probe_sample_t &x : s) {
        if (!x.trunk && !x.fan && !x.latency_only && x.stream_us[0] > 0.0 && x.stream_us[1] > 0.0) {
            for (int c = 0; c < 2; c++) {
                t[c].push_back(x.stream_us[c]);
                t[c].push_back(x.stream2_us[c]);
            }
        }
    }
    if (t[0].size() < 2) {
        return 0.0;
    }
    double least[2];
    const double noise = least_and_noise(t, least);
    return least[1] > least[0] ? noise / (least[1] - least[0]) : 0.0;
}

/* Switch links (mcast_probe_pairs_routed; E-SWL-1): the fit of net.switch_links from the
 * trunk pairs' two runs at once; a ratio within 15 % of 1 is 1 (equal links measure a
 * little under 1: a stream's fixed part, flows of unequal shares that end apart; and a
 * few percent moved plans, E-SWL-1), and so is one within the two runs' relative spread
 * and the streams' together (as the host links', E-HOST-1).  Nothing where a pair failed
 * or the runs disagree. */
bool fit_switch_links(const std::vector<mcast_probe_sample_t> &t,
                      const std::vector<mcast_probe_sample_t> &rest, mcast_machine_t *m)
{
    const int k = (int) t.size();
    double run[2] = {0.0, 0.0};
    for (const mcast_probe_sample_t &x : t) {
        for (int r = 0; r < 2; r++) {
            if (!(x.stream_us[r] > 0.0) || !std::isfinite(x.stream_us[r])) {
                return false;
            }
            run[r] = std::max(run[r], x.stream_us[r]);
        }
    }
    const double lo = std::min(run[0], run[1]), hi = std::max(run[0], run[1]);
    const double wire = m->net.wire_ns_per_byte;
    if (k < 2 || hi - lo > 0.5 * lo || !(wire > 0.0)) {
        return false;
    }
    const double bytes = (double) MCAST_PROBE_STREAM_BLOCKS * (double) MCAST_PROBE_STREAM_SMALL;
    double ratio = wire / (1000.0 * lo / ((double) k * bytes));
    const double band = std::max(0.15, (hi - lo) / lo + stream_noise(rest));
    if (std::fabs(std::log(ratio)) < std::log(1.0 + band)) {
        ratio = 1.0;
    }
    m->switch_links = ratio;
    const size_t at = std::strlen(m->source);
    std::snprintf(m->source + at, sizeof(m->source) - at, ", switch links %.2fx (%d streams at once)",
                  m->switch_links, k);
    return true;
}

/* Host links (mcast_probe_pairs_routed; E-HOST-1): the fit of net.host_links from the
 * fan's runs: the per-byte cost of a host sending to several receivers at once is what
 * the large blocks took beyond the small ones (the least run of each) over the bytes
 * between them, as the streams' (the receivers' per-message costs, the same in both,
 * drop out); net.host_links = the one-receiver per-byte cost (net.wire_ns_per_byte)
 * over it, at most the fan's receivers, at least 1; 1 where within 15 % or within the
 * two measurements' relative spread together (the fan's and the streams', E-HOST-1).
 * Nothing where the fan failed or it does not stand out of the runs' noise (as the
 * streams': twice the larger spread of a size's two runs above the difference). */
bool fit_host_links(const std::vector<mcast_probe_sample_t> &f,
                    const std::vector<mcast_probe_sample_t> &rest, mcast_machine_t *m)
{
    const int d = (int) f.size();
    double lo[2], noise = 0.0;
    for (int c = 0; c < 2; c++) {
        const double x0 = c == 0 ? f[0].stream_us[0] : f[0].stream2_us[0];
        const double x1 = c == 0 ? f[0].stream_us[1] : f[0].stream2_us[1];
        if (!(x0 > 0.0) || !(x1 > 0.0) || !std::isfinite(x0) || !std::isfinite(x1)) {
            return false;
        }
        lo[c] = std::min(x0, x1);
        noise = std::max(noise, std::fabs(x1 - x0));
    }
    const double signal = lo[1] - lo[0];
    const double wire = m->net.wire_ns_per_byte;
    if (d < 2 || !(signal > 0.0) || 2.0 * noise > signal || !(wire > 0.0)) {
        return false;
    }
    const double per_byte = 1000.0 * signal / ((double) MCAST_PROBE_STREAM_BLOCKS *
                                               (double) (MCAST_PROBE_STREAM_BYTES - MCAST_PROBE_STREAM_SMALL));
    double ratio = wire / per_byte;
    const double band = std::max(0.15, noise / signal + stream_noise(rest));
    if (std::fabs(std::log(ratio)) < std::log(1.0 + band)) {
        ratio = 1.0;
    }
    m->host_links = std::min((double) d, std::max(1.0, ratio));
    const size_t at = std::strlen(m->source);
    std::snprintf(m->source + at, sizeof(m->source) - at, ", host links %.2fx (%d streams from one host)",
                  m->host_links, d);
    return true;
}

/* Routes looked at to choose the trunk pairs (mcast_planner.h, "Switch links"). */
constexpr long kTrunkRoutes = 16384;

/* The trunk pairs (mcast_planner.h, "Switch links") into out; returns how many. */
int trunk_pairs(mcplan::Routes &routes, const std::vector<int> &leader, mcast_probe_pair_t *out)
{
    const int nodes = (int) leader.size();
    if (nodes < 4) {
        return 0;
    }
    const int nsrc = (int) std::min<long>(nodes, std::max<long>(1, kTrunkRoutes / nodes));
    std::map<int, std::vector<std::pair<int, int>>> across; /* switch link -> node pairs */
    for (int s = 0; s < nsrc; s++) {
        const int i = (int) ((long) s * nodes / nsrc);
        for (int j = 0; j < nodes; j++) {
            if (j == i) {
                continue;
            }
            for (int l : routes.route(leader[(size_t) i], leader[(size_t) j])) {
                if (l >= 0 && !routes.host_link(l)) {
                    across[l].emplace_back(i, j);
                }
            }
        }
    }
    std::vector<std::pair<int, int>> best;
    for (const auto &c : across) {
        std::vector<char> used((size_t) nodes, 0);
        std::vector<std::pair<int, int>> got;
        for (const auto &ij : c.second) {
            if (!used[(size_t) ij.first] && !used[(size_t) ij.second]) {
                used[(size_t) ij.first] = used[(size_t) ij.second] = 1;
                got.push_back(ij);
                if ((int) got.size() == MCAST_PROBE_TRUNK_PAIRS) {
                    break;
                }
            }
        }
        if (got.size() > best.size()) {
            best = got;
        }
    }
    if (best.size() < 2) {
        return 0;
    }
    for (size_t k = 0; k < best.size(); k++) {
        out[k] = mcast_probe_pair_t{leader[(size_t) best[k].first], leader[(size_t) best[k].second], 0, 0, 1, 0};
    }
    return (int) best.size();
}

/* The host links' pairs (mcast_planner.h, "Host links") into out: the first node's
 * lowest rank and the nearest other nodes whose routes from it leave by different
 * links (a torus's directions; on a switch network every route's first link is the
 * host's, and then any near nodes), MCAST_PROBE_FAN_PEERS of them or 2 (the streams'
 * blocks split evenly); returns how many (0 under 2). */
int fan_pairs(mcplan::Routes &routes, const std::vector<int> &leader, mcast_probe_pair_t *out)
{
    const int nodes = (int) leader.size();
    if (nodes < 3) {
        return 0;
    }
    const int a = leader[0];
    std::vector<std::pair<int, int>> near; /* (links, node) */
    for (int j = 1; j < nodes; j++) {
        const int l = routes.links(a, leader[(size_t) j]);
        if (l > 0) {
            near.emplace_back(l, j);
        }
    }
    std::sort(near.begin(), near.end());
    std::vector<int> first_links, got;
    for (const auto &lj : near) {
        const std::vector<int> &r = routes.route(a, leader[(size_t) lj.second]);
        int key = -1;
        for (int l : r) {
            if (l >= 0 && !routes.host_link(l)) {
                key = l;
                break;
            }
        }
        if (key < 0 && !r.empty()) {
            key = -2 - r.back(); /* only host links: the receiver's own */
        }
        if (std::find(first_links.begin(), first_links.end(), key) == first_links.end()) {
            first_links.push_back(key);
            got.push_back(lj.second);
            if ((int) got.size() == MCAST_PROBE_FAN_PEERS) {
                break;
            }
        }
    }
    const int d = (int) got.size() >= MCAST_PROBE_FAN_PEERS ? MCAST_PROBE_FAN_PEERS
                  : got.size() >= 2                        ? 2
                                                           : 0;
    for (int k = 0; k < d; k++) {
        const int b = leader[(size_t) got[(size_t) k]];
        out[k] = mcast_probe_pair_t{a, b, routes.links(a, b), 0, 0, 1};
    }
    return d;
}

} // namespace

MC_API size_t mcast_probe_size(int i)
{
    return i >= 0 && i < MCAST_PROBE_SIZES ? kSizes[i] : 0;
}

MC_API int mcast_probe_pairs(int n, const int *node_of, int max_pairs, mcast_probe_pair_t *pairs)
{
    if (n <= 0 || node_of == nullptr || pairs == nullptr || max_pairs <= 0) {
        return 0;
    }
    const std::vector<int> leader = leaders(n, node_of);
    const int nodes = (int) leader.size();
    const int half = nodes / 2, far = (nodes + 1) / 2;
    const int np = std::min({max_pairs, half, MCAST_PROBE_MAX_PAIRS});
    /* node i with node i + ceil(N/2): disjoint pairs (no host in two pairs, so pairs that
     * run at once share no host link), spread over the communicator's nodes */
    for (int k = 0; k < np; k++) {
        const int i = (int) ((long) k * half / np);
        pairs[k] = mcast_probe_pair_t{leader[i], leader[i + far], 0, 0, 0, 0};
    }
    return np;
}

MC_API int mcast_probe_pairs_routed(int n, const int *node_of, const pm_topology_t *topology,
                                    const char *const *hosts, int max_pairs,
                                    mcast_probe_pair_t *pairs)
{
    const int np = mcast_probe_pairs(n, node_of, max_pairs, pairs);
    if (np <= 0 || topology == nullptr || hosts == nullptr) {
        return np;
    }
    mcast_plan_input_t in{};
    in.n = n;
    in.topology = topology;
    in.hosts = hosts;
    mcplan::Routes routes(in);
    if (!routes.known() || routes.one_switch()) {
        return np; /* every route alike */
    }
    for (int k = 0; k < np; k++) {
        pairs[k].links = routes.links(pairs[k].a, pairs[k].b);
    }
    /* taken: in a latency pair already (any node may be a b: a far pair's a's neighbours
     * are often a's too) */
    const std::vector<int> leader = leaders(n, node_of);
    std::vector<char> taken((size_t) n, 0);
    int total = np;
    for (int k = 0; k < np; k++) {
        const int a = pairs[k].a;
        if (taken[(size_t) a]) {
            continue;
        }
        int best = -1, best_links = 0;
        for (int b : leader) {
            const int l = taken[(size_t) b] || b == a ? 0 : routes.links(a, b);
            if (l > 0 && (best < 0 || l < best_links)) {
                best = b;
                best_links = l;
            }
        }
        if (best < 0) {
            break;
        }
        taken[(size_t) a] = taken[(size_t) best] = 1;
        pairs[total++] = mcast_probe_pair_t{a, best, best_links, 1, 0, 0};
    }
    /* the switch links' (a torus's links join routers, whose hosts' interfaces
     * net.host_links and net.host_transit describe) */
    if (pm_topology_kind(topology) != PM_TOPO_TORUS) {
        total += trunk_pairs(routes, leader, pairs + total);
    }
    /* the host links' (E-HOST-1) */
    total += fan_pairs(routes, leader, pairs + total);
    return total;
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
    /* the pairs of the host links' and of the switch links' enter only their own fit,
     * after the rest's (the host links' first: they are the last pairs) */
    const struct {
        int mcast_probe_sample_t::*flag;
        bool (*fit)(const std::vector<mcast_probe_sample_t> &, const std::vector<mcast_probe_sample_t> &,
                    mcast_machine_t *);
        const char *what, *streams;
    } apart[2] = {{&mcast_probe_sample_t::fan, fit_host_links, "host links", "streams from one host"},
                  {&mcast_probe_sample_t::trunk, fit_switch_links, "switch links", "streams at once"}};
    for (const auto &x : apart) {
        std::vector<mcast_probe_sample_t> rest, own;
        for (int p = 0; p < npairs; p++) {
            (s[p].*x.flag ? own : rest).push_back(s[p]);
        }
        if (own.empty()) {
            continue;
        }
        const int rc = mcast_probe_fit(rest.data(), (int) rest.size(), m, why, len);
        if (rc == KB_OK && !x.fit(own, rest, m)) {
            const size_t at = std::strlen(m->source);
            std::snprintf(m->source + at, sizeof(m->source) - at, ", no %s (%d %s failed or varied)",
                          x.what, (int) own.size(), x.streams);
        }
        return rc;
    }
    /* the pairs of the route latency's enter only its fit, after the others' */
    std::vector<mcast_probe_sample_t> others;
    for (int p = 0; p < npairs; p++) {
        if (!s[p].latency_only) {
            others.push_back(s[p]);
        }
    }
    if ((int) others.size() < npairs) {
        const int rc = mcast_probe_fit(others.data(), (int) others.size(), m, why, len);
        if (rc == KB_OK && !fit_route_latency(s, npairs, m)) {
            const size_t at = std::strlen(m->source);
            std::snprintf(m->source + at, sizeof(m->source) - at,
                          ", no latency per link stood out (%d pair%s more)",
                          npairs - (int) others.size(), npairs - (int) others.size() == 1 ? "" : "s");
        }
        return rc;
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
    /* per-byte cost: what the large-block stream took beyond the small-block one, per
     * byte, each the least over the streaming pairs (mcast_probe_streaming; the others'
     * streams are 0): each pair ran alone, and a disturbed repetition or pair only adds
     * time, so the least of each stream over every repetition of both pairs is the
     * network's */
    std::vector<double> times[2]; /* per stream: every pair's least and second least */
    for (int p = 0; p < npairs; p++) {
        if (!mcast_probe_streaming(npairs, p)) {
            continue;
        }
        for (int c = 0; c < 2; c++) {
            const double t1 = s[p].stream_us[c], t2 = s[p].stream2_us[c];
            if (!(t1 > 0.0) || !std::isfinite(t1) || !(t2 >= t1) || !std::isfinite(t2)) {
                return fail("a pair measured no stream");
            }
            times[c].push_back(t1);
            times[c].push_back(t2);
        }
    }
    double least[2];
    const double noise = least_and_noise(times, least);
    const double signal = least[1] - least[0];
    const double slope = signal / ((double) MCAST_PROBE_STREAM_BLOCKS *
                                   (double) (MCAST_PROBE_STREAM_BYTES - MCAST_PROBE_STREAM_SMALL));
    if (!(slope > 0.0) || !std::isfinite(slope)) {
        return fail("the time did not grow with the bytes");
    }
    /* The least of each stream is the network's only where some repetition ran
     * undisturbed; where even the two least of a stream differ by more than half of what
     * the bytes added, whole streams were slowed (a busy host: E-CAL-3) and the difference
     * of the least says nothing about the link. */
    if (2.0 * noise > signal) {
        if (why != nullptr && len > 0) {
            std::snprintf(why, len,
                          "the streams' repetitions differ by %.0f us, the bytes added %.0f us: "
                          "too noisy to fit",
                          noise, signal);
        }
        return KB_ERR_ARG;
    }
    /* per-message intercept: the empty message's half round trip.  Not the larger sizes'
     * less the streams' per-byte part: a ping-pong inside a token bucket's burst or a TCP
     * window does not pay that part, and subtracting it left a loaded host's fit with no
     * latency at all (evidence E-CAL-3). */
    const double intercept = pp[0];
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
    m->net.shared_flows = mcast_probe_shared_flows(s[0].flow_first, MCAST_PROBE_FLOW_LARGE,
                                                   MCAST_PROBE_FLOW_SMALL, 1000.0 * slope, o);
    /* the synchronous wait: an empty synchronous send takes o_send + L + W, the empty half
     * round trip o_send + L + o_recv; only where every pair measured it (E-SYNC-4) */
    std::vector<double> waits;
    for (int p = 0; p < npairs; p++) {
        if (s[p].sync_us > 0.0 && std::isfinite(s[p].sync_us)) {
            waits.push_back(s[p].sync_us - intercept + o);
        }
    }
    char sync[64] = "";
    if ((int) waits.size() == npairs) {
        m->sync_wait_us = std::max(0.0, median_of(waits));
        std::snprintf(sync, sizeof(sync), ", synchronous wait %.2f us", m->sync_wait_us);
    }
    std::snprintf(m->source, sizeof(m->source),
                  "self-calibrated (%d pair%s of nodes): o %.2f us, latency %.2f us, %.3f ns/B "
                  "+-%.0f%%, %s%s",
                  npairs, npairs == 1 ? "" : "s", o, intercept - 2.0 * o, 1000.0 * slope,
                  100.0 * noise / signal,
                  m->net.shared_flows ? "a sender's messages share its link" : "FIFO", sync);
    return KB_OK;
}

namespace {

int pingpong(const mcast_probe_ops_t *o, int is_a, int peer, void *buf, size_t bytes,
             double *half, double *post)
{
    if (!is_a) {
        int rc = o->recv(o->ctx, peer, buf, bytes);
        return rc != 0 ? rc : o->send(o->ctx, peer, buf, bytes);
    }
    const double t0 = o->now_us(o->ctx);
    int rc = o->isend(o->ctx, peer, buf, bytes, 0);
    const double t1 = o->now_us(o->ctx);
    if (rc == 0) {
        rc = o->waitall(o->ctx, 1);
    }
    if (rc == 0) {
        rc = o->recv(o->ctx, peer, buf, bytes);
    }
    *half = 0.5 * (o->now_us(o->ctx) - t0);
    *post = t1 - t0;
    return rc;
}

/* a: an empty synchronous send to b's posted receive (timed), then b's answer */
int sync_pingpong(const mcast_probe_ops_t *o, int is_a, int peer, void *buf, double *us)
{
    if (!is_a) {
        int rc = o->recv(o->ctx, peer, buf, 0);
        return rc != 0 ? rc : o->send(o->ctx, peer, buf, 0);
    }
    const double t0 = o->now_us(o->ctx);
    int rc = o->ssend(o->ctx, peer, buf, 0);
    *us = o->now_us(o->ctx) - t0;
    return rc != 0 ? rc : o->recv(o->ctx, peer, buf, 0);
}

int stream(const mcast_probe_ops_t *o, int is_a, int peer, void *buf, size_t bytes, double *us)
{
    const int k = MCAST_PROBE_STREAM_BLOCKS;
    int rc = 0;
    if (!is_a) {
        for (int i = 0; i < k && rc == 0; i++) {
            rc = o->recv(o->ctx, peer, buf, bytes);
        }
        return rc != 0 ? rc : o->send(o->ctx, peer, buf, 0);
    }
    const double t0 = o->now_us(o->ctx);
    int posted = 0;
    for (; posted < k && rc == 0; posted++) {
        rc = o->isend(o->ctx, peer, buf, bytes, posted);
    }
    if (rc != 0) {
        posted--; /* (the failed post made no request) */
    }
    const int wrc = posted > 0 ? o->waitall(o->ctx, posted) : 0;
    if (rc == 0) {
        rc = wrc;
    }
    if (rc == 0) {
        rc = o->recv(o->ctx, peer, buf, 0);
    }
    *us = o->now_us(o->ctx) - t0;
    return rc;
}

/* Whether a sender's messages share its link (mcast-calibrate's flow probe, in the core):
 * b posts the receives of a large and a small message and tells a, which sends both at
 * once, large first; b counts the repetitions in which the small one completed first.  On
 * a FIFO connection it never does; where flows share the link (SimGrid) it does.
 * Completion order, not timing: a late receiver finds both done, and waitany reports the
 * first slot (the large one), so noise reads as FIFO. */
int flows(const mcast_probe_ops_t *o, int is_a, int peer, void *buf, double *fraction)
{
    char *const b = static_cast<char *>(buf);
    int rc = 0, first = 0;
    for (int i = 0; i < MCAST_PROBE_FLOW_REPS + 2 && rc == 0; i++) {
        if (is_a) {
            rc = o->recv(o->ctx, peer, buf, 0);
            if (rc == 0) {
                rc = o->isend(o->ctx, peer, b, MCAST_PROBE_FLOW_LARGE, 0);
            }
            if (rc == 0) {
                rc = o->isend(o->ctx, peer, b, MCAST_PROBE_FLOW_SMALL, 1);
                rc = rc != 0 ? rc : o->waitall(o->ctx, 2);
            }
            continue;
        }
        /* (separate buffers: two pending receives never share memory) */
        rc = o->irecv(o->ctx, peer, b, MCAST_PROBE_FLOW_LARGE, 0);
        if (rc == 0) {
            rc = o->irecv(o->ctx, peer, b + MCAST_PROBE_FLOW_LARGE, MCAST_PROBE_FLOW_SMALL, 1);
        }
        if (rc == 0) {
            rc = o->send(o->ctx, peer, buf, 0);
        }
        int idx = 0;
        if (rc == 0) {
            rc = o->waitany(o->ctx, 2, &idx);
            rc = rc != 0 ? rc : o->waitall(o->ctx, 2);
        }
        first += rc == 0 && i >= 2 && idx == 1; /* (two warm-ups) */
    }
    *fraction = (double) first / MCAST_PROBE_FLOW_REPS;
    return rc;
}

/* One side of pair k: ping-pongs, then (a streaming pair only) the streams, after the token
 * from the previous streaming pair's a and before the token to the next one's. */
int run_pair(const mcast_probe_ops_t *ops, int is_a, int peer, bool streams, bool flow,
             int token_from, int token_to, void *buf, double *row)
{
    /* ping-pongs: a warm-up per size (the first also opens the connection), then REPS */
    double post[MCAST_PROBE_REPS * MCAST_PROBE_SIZES], half[MCAST_PROBE_REPS];
    int nposts = 0, rc = 0;
    for (int j = 0; j < MCAST_PROBE_SIZES && rc == 0; j++) {
        for (int r = -1; r < MCAST_PROBE_REPS && rc == 0; r++) {
            double h = 0.0, p = 0.0;
            rc = pingpong(ops, is_a, peer, buf, kSizes[j], &h, &p);
            if (is_a && r >= 0) {
                half[r] = h;
                post[nposts++] = p;
            }
        }
        if (is_a) {
            row[2 + j] = min_of(half, MCAST_PROBE_REPS);
            if (j == 0) {
                row[MCAST_PROBE_ROW_SPREAD] = spread_of(half, MCAST_PROBE_REPS);
            }
        }
    }
    /* the synchronous sends: a warm-up, then REPS (b's receive is posted: it answered the
     * previous one and waits for the next) */
    if (ops->ssend != nullptr) {
        double sync[MCAST_PROBE_REPS];
        for (int r = -1; r < MCAST_PROBE_REPS && rc == 0; r++) {
            double t = 0.0;
            rc = sync_pingpong(ops, is_a, peer, buf, &t);
            if (r >= 0) {
                sync[r] = t;
            }
        }
        if (is_a && rc == 0) {
            row[MCAST_PROBE_ROW - 2] = min_of(sync, MCAST_PROBE_REPS);
        }
    }
    if (streams) {
        if (is_a && token_from >= 0 && rc == 0) {
            rc = ops->recv(ops->ctx, token_from, buf, 0);
        }
        /* streams: of small and of large blocks in turn, STREAM_REPS each (drift over the
         * measurement reaches both alike); the first streaming pair after a warm-up (a TCP
         * window grows with a stream), the later ones without (a slower first stream of
         * theirs is one the least over the pairs leaves out) */
        const size_t sizes[2] = {MCAST_PROBE_STREAM_SMALL, MCAST_PROBE_STREAM_BYTES};
        double t[2][MCAST_PROBE_STREAM_REPS], warm = 0.0;
        if (token_from < 0 && rc == 0) {
            rc = stream(ops, is_a, peer, buf, sizes[0], &warm);
        }
        for (int r = 0; r < MCAST_PROBE_STREAM_REPS && rc == 0; r++) {
            for (int c = 0; c < 2 && rc == 0; c++) {
                rc = stream(ops, is_a, peer, buf, sizes[c], &t[c][r]);
            }
        }
        if (is_a && rc == 0) {
            for (int c = 0; c < 2; c++) {
                std::sort(t[c], t[c] + MCAST_PROBE_STREAM_REPS);
                row[2 + MCAST_PROBE_SIZES + c] = t[c][0];
                row[4 + MCAST_PROBE_SIZES + c] = t[c][MCAST_PROBE_STREAM_REPS > 1 ? 1 : 0];
            }
        }
        /* the first streaming pair: whether its sender's messages share the link (b keeps
         * it: 1 + the fraction, 0 = not measured) */
        if (flow && rc == 0) {
            double fr = 0.0;
            rc = flows(ops, is_a, peer, buf, &fr);
            if (!is_a && rc == 0) {
                row[MCAST_PROBE_ROW - 1] = 1.0 + fr;
            }
        }
        /* the next streaming pair waits for this one, even after a failure here */
        if (is_a && token_to >= 0) {
            const int trc = ops->send(ops->ctx, token_to, buf, 0);
            rc = rc != 0 ? rc : trc;
        }
    }
    if (is_a && rc == 0) {
        row[0] = 1.0;
        row[1] = min_of(post, nposts);
    }
    return rc;
}

/* The trunk pairs pairs[ft .. npairs) (mcast_planner.h, "Switch links"): every rank in a
 * pair tells c, the first trunk pair's a, that its other parts are done (a trunk pair
 * first opens its connection with an empty ping-pong); then c starts the trunk pairs'
 * streams at once, a warm-up and two timed runs, each a telling c when its stream is done.
 * Each a keeps its two times in its row's stream entries. */
int run_trunks(const mcast_probe_ops_t *ops, int me, const mcast_probe_pair_t *pairs, int npairs,
               int ft, void *buf, double *rows)
{
    const int c = pairs[ft].a;
    std::vector<int> who; /* every rank in a pair but c, once */
    for (int k = 0; k < npairs; k++) {
        for (int x : {pairs[k].a, pairs[k].b}) {
            if (x != c && std::find(who.begin(), who.end(), x) == who.end()) {
                who.push_back(x);
            }
        }
    }
    int mine = -1;
    for (int k = ft; k < npairs && mine < 0; k++) {
        mine = me == pairs[k].a || me == pairs[k].b ? k : -1;
    }
    if (me != c && std::find(who.begin(), who.end(), me) == who.end()) {
        return 0;
    }
    const bool is_a = mine >= 0 && me == pairs[mine].a;
    const int peer = mine < 0 ? -1 : is_a ? pairs[mine].b : pairs[mine].a;
    int rc = 0;
    const auto keep = [&rc](int x) { rc = rc != 0 ? rc : x; };
    if (mine >= 0) {
        double h = 0.0, p = 0.0;
        keep(pingpong(ops, is_a, peer, buf, 0, &h, &p));
    }
    if (me != c) {
        keep(ops->send(ops->ctx, c, buf, 0));
    } else {
        for (int x : who) {
            keep(ops->recv(ops->ctx, x, buf, 0));
        }
    }
    if (mine < 0) {
        return rc;
    }
    double t[2] = {0.0, 0.0};
    for (int r = -1; r < 2; r++) {
        double us = 0.0;
        if (!is_a) {
            keep(stream(ops, 0, peer, buf, MCAST_PROBE_STREAM_SMALL, &us));
            continue;
        }
        for (int k = ft + 1; k < npairs; k++) {
            keep(me == c ? ops->send(ops->ctx, pairs[k].a, buf, 0) : 0);
        }
        keep(me != c ? ops->recv(ops->ctx, c, buf, 0) : 0);
        keep(stream(ops, 1, peer, buf, MCAST_PROBE_STREAM_SMALL, &us));
        for (int k = ft + 1; k < npairs; k++) {
            keep(me == c ? ops->recv(ops->ctx, pairs[k].a, buf, 0) : 0);
        }
        keep(me != c ? ops->send(ops->ctx, c, buf, 0) : 0);
        if (r >= 0) {
            t[r] = us;
        }
    }
    if (is_a && rc == 0) {
        double *row = &rows[(size_t) mine * MCAST_PROBE_ROW];
        row[0] = 1.0;
        row[2 + MCAST_PROBE_SIZES] = t[0];
        row[3 + MCAST_PROBE_SIZES] = t[1];
    }
    return rc;
}

/* The host links' pairs pairs[ff .. npairs) (mcast_planner.h, "Host links"), one a for
 * all: every b tells a that its other parts are done (each first opens its connection
 * with an empty ping-pong); then a warm-up with the small blocks and two timed runs of
 * each size: a posts MCAST_PROBE_STREAM_BLOCKS blocks of MCAST_PROBE_STREAM_SMALL (then
 * of MCAST_PROBE_STREAM_BYTES), block i to the (i mod d)-th b, at once, and waits for
 * every b's empty answer after its blocks.  a keeps the four times in every fan pair's
 * row: the small blocks' two runs, then the large blocks'. */
int run_fans(const mcast_probe_ops_t *ops, int me, const mcast_probe_pair_t *pairs, int npairs,
             int ff, void *buf, double *rows)
{
    const int a = pairs[ff].a, d = npairs - ff;
    int mine = -1;
    for (int k = ff; k < npairs && mine < 0; k++) {
        mine = me == pairs[k].b ? k : -1;
    }
    if (me != a && mine < 0) {
        return 0;
    }
    int rc = 0;
    const auto keep = [&rc](int x) { rc = rc != 0 ? rc : x; };
    const int per = MCAST_PROBE_STREAM_BLOCKS / d;
    /* (run -1: the warm-up, small blocks only) */
    const auto bytes_of = [](int run, int c) {
        return c == 0 ? (size_t) MCAST_PROBE_STREAM_SMALL : run < 0 ? (size_t) 0 : (size_t) MCAST_PROBE_STREAM_BYTES;
    };
    if (me != a) {
        double h = 0.0, p = 0.0;
        keep(pingpong(ops, 0, a, buf, 0, &h, &p));
        keep(ops->send(ops->ctx, a, buf, 0));
        for (int r = -1; r < 2; r++) {
            for (int c = 0; c < 2 && bytes_of(r, c) > 0; c++) {
                for (int i = 0; i < per; i++) {
                    keep(ops->recv(ops->ctx, a, buf, bytes_of(r, c)));
                }
                keep(ops->send(ops->ctx, a, buf, 0));
            }
        }
        return rc;
    }
    for (int k = ff; k < npairs; k++) {
        double h = 0.0, p = 0.0;
        keep(pingpong(ops, 1, pairs[k].b, buf, 0, &h, &p));
    }
    for (int k = ff; k < npairs; k++) {
        keep(ops->recv(ops->ctx, pairs[k].b, buf, 0));
    }
    double t[2][2] = {{0.0, 0.0}, {0.0, 0.0}}; /* [size][run] */
    for (int r = -1; r < 2 && rc == 0; r++) {
        for (int c = 0; c < 2 && bytes_of(r, c) > 0 && rc == 0; c++) {
            const double t0 = ops->now_us(ops->ctx);
            int posted = 0;
            for (; posted < per * d && rc == 0; posted++) {
                keep(ops->isend(ops->ctx, pairs[ff + posted % d].b, buf, bytes_of(r, c), posted));
            }
            if (rc != 0) {
                posted--; /* (the failed post made no request) */
            }
            const int wrc = posted > 0 ? ops->waitall(ops->ctx, posted) : 0;
            keep(wrc);
            for (int k = ff; k < npairs && rc == 0; k++) {
                keep(ops->recv(ops->ctx, pairs[k].b, buf, 0));
            }
            if (r >= 0) {
                t[c][r] = ops->now_us(ops->ctx) - t0;
            }
        }
    }
    if (rc == 0) {
        for (int k = ff; k < npairs; k++) {
            double *row = &rows[(size_t) k * MCAST_PROBE_ROW];
            row[0] = 1.0;
            row[2 + MCAST_PROBE_SIZES] = t[0][0];
            row[3 + MCAST_PROBE_SIZES] = t[0][1];
            row[4 + MCAST_PROBE_SIZES] = t[1][0];
            row[5 + MCAST_PROBE_SIZES] = t[1][1];
        }
    }
    return rc;
}

} // namespace

MC_API int mcast_probe_shared_flows(double first, size_t large, size_t small,
                                    double wire_ns_per_byte, double o_send_us)
{
    /* only where the small message, posted o_send later, could finish first on a shared
     * link (else the order says nothing about it); the latency delays both (E-CAL-4) */
    return std::isfinite(first) && first > 0.5 && large > small &&
           1e-3 * (double) (large - small) * wire_ns_per_byte >= o_send_us;
}

MC_API int mcast_probe_streaming(int npairs, int k)
{
    return npairs > 0 && (k == 0 || (npairs >= 2 && k == npairs / 2));
}

MC_API int mcast_probe_run(const mcast_probe_ops_t *ops, int me, const mcast_probe_pair_t *pairs,
                           int npairs, void *buf, double *rows)
{
    if (ops == nullptr || pairs == nullptr || buf == nullptr || rows == nullptr || npairs < 0 ||
        npairs > MCAST_PROBE_MAX_ALL) {
        return -1;
    }
    /* the pairs of the route latency's follow the others, the switch links' come last
     * (mcast_probe_pairs_routed) */
    int nfar = 0;
    while (nfar < npairs && !pairs[nfar].latency_only && !pairs[nfar].trunk && !pairs[nfar].fan) {
        nfar++;
    }
    int nfan = 0;
    while (nfan < npairs && pairs[npairs - 1 - nfan].fan) {
        nfan++;
    }
    const int ff = npairs - nfan; /* the first host links' pair */
    int ntr = 0;
    while (ntr < ff && pairs[ff - 1 - ntr].trunk) {
        ntr++;
    }
    const int ft = ff - ntr; /* the first trunk pair */
    if (nfar > MCAST_PROBE_MAX_PAIRS || ntr > MCAST_PROBE_TRUNK_PAIRS || ntr == 1 ||
        (nfan != 0 && nfan != 2 && nfan != MCAST_PROBE_FAN_PEERS)) {
        return -1;
    }
    for (int k = ff; k < npairs; k++) {
        if (pairs[k].a != pairs[ff].a || pairs[k].b == pairs[k].a) {
            return -1;
        }
    }
    /* first this rank's pair of the route latency's: empty ping-pongs, a warm-up and REPS */
    int rc = 0;
    for (int k = nfar; k < ft && rc == 0; k++) {
        if (me != pairs[k].a && me != pairs[k].b) {
            continue;
        }
        const int is_a = me == pairs[k].a;
        double half[MCAST_PROBE_REPS], post[MCAST_PROBE_REPS];
        for (int r = -1; r < MCAST_PROBE_REPS && rc == 0; r++) {
            double h = 0.0, p = 0.0;
            rc = pingpong(ops, is_a, is_a ? pairs[k].b : pairs[k].a, buf, 0, &h, &p);
            if (r >= 0) {
                half[r] = h;
                post[r] = p;
            }
        }
        if (is_a && rc == 0) {
            double *row = &rows[(size_t) k * MCAST_PROBE_ROW];
            row[0] = 1.0;
            row[1] = min_of(post, MCAST_PROBE_REPS);
            row[2] = min_of(half, MCAST_PROBE_REPS);
            row[MCAST_PROBE_ROW_SPREAD] = spread_of(half, MCAST_PROBE_REPS);
        }
        break; /* (disjoint: one such pair per rank) */
    }
    /* then its pair among the others; the streaming pairs in turn: 0, then nfar / 2 (after
     * a failure above too: its partner there waits no more, this one's would) */
    const int second = nfar >= 2 ? nfar / 2 : -1;
    for (int k = 0; k < nfar; k++) {
        if (me != pairs[k].a && me != pairs[k].b) {
            continue;
        }
        const int is_a = me == pairs[k].a;
        const int from = k == second ? pairs[0].a : -1;
        const int to = k == 0 && second > 0 ? pairs[second].a : -1;
        const int frc = run_pair(ops, is_a, is_a ? pairs[k].b : pairs[k].a,
                                 mcast_probe_streaming(nfar, k) != 0, k == 0, from, to, buf,
                                 &rows[(size_t) k * MCAST_PROBE_ROW]);
        rc = rc != 0 ? rc : frc;
        break;
    }
    /* last the switch links' (after a failure above too: the first trunk pair's a waits
     * for every rank in a pair) */
    if (ntr > 0) {
        const int trc = run_trunks(ops, me, pairs, ff, ft, buf, rows);
        rc = rc != 0 ? rc : trc;
    }
    /* then the host links' (E-HOST-1; their a waits for each of its b's) */
    if (nfan > 0) {
        const int frc = run_fans(ops, me, pairs, npairs, ff, buf, rows);
        rc = rc != 0 ? rc : frc;
    }
    return rc;
}

MC_API int mcast_probe_fit_rows(const double *rows, int npairs, mcast_machine_t *m, char *why,
                                size_t len)
{
    return mcast_probe_fit_pairs(rows, nullptr, npairs, m, why, len);
}

MC_API int mcast_probe_fit_pairs(const double *rows, const mcast_probe_pair_t *pairs, int npairs,
                                 mcast_machine_t *m, char *why, size_t len)
{
    if (rows == nullptr || npairs <= 0 ||
        npairs > (pairs != nullptr ? MCAST_PROBE_MAX_ALL : MCAST_PROBE_MAX_PAIRS)) {
        return mcast_probe_fit(nullptr, 0, m, why, len);
    }
    mcast_probe_sample_t s[MCAST_PROBE_MAX_ALL];
    for (int k = 0; k < npairs; k++) {
        const double *r = rows + (size_t) k * MCAST_PROBE_ROW;
        s[k] = mcast_probe_sample_t{};
        if (pairs != nullptr) {
            s[k].links = pairs[k].links;
            s[k].latency_only = pairs[k].latency_only;
            s[k].trunk = pairs[k].trunk;
            s[k].fan = pairs[k].fan;
        }
        if (s[k].trunk || s[k].fan) {
            /* (a failed one only leaves the switch links or host links out) */
            for (int c = 0; c < 2; c++) {
                s[k].stream_us[c] = r[0] == 1.0 ? r[2 + MCAST_PROBE_SIZES + c] : NAN;
                s[k].stream2_us[c] = !s[k].fan ? 0.0 : r[0] == 1.0 ? r[4 + MCAST_PROBE_SIZES + c] : NAN;
            }
            continue;
        }
        if (s[k].latency_only) {
            /* (a failed one only leaves the route latency out) */
            s[k].post_us = r[1];
            s[k].half_rtt_us[0] = r[0] == 1.0 ? r[2] : NAN;
            s[k].half_rtt_spread_us = r[MCAST_PROBE_ROW_SPREAD];
            continue;
        }
        if (r[0] != 1.0) {
            if (why != nullptr && len > 0) {
                std::snprintf(why, len, "the measurement of pair %d failed", k);
            }
            return KB_ERR_ARG;
        }
        s[k].post_us = r[1];
        for (int j = 0; j < MCAST_PROBE_SIZES; j++) {
            s[k].half_rtt_us[j] = r[2 + j];
        }
        s[k].stream_us[0] = r[2 + MCAST_PROBE_SIZES];
        s[k].stream_us[1] = r[3 + MCAST_PROBE_SIZES];
        s[k].stream2_us[0] = r[4 + MCAST_PROBE_SIZES];
        s[k].stream2_us[1] = r[5 + MCAST_PROBE_SIZES];
        s[k].flow_first = r[MCAST_PROBE_ROW - 1] >= 1.0 ? r[MCAST_PROBE_ROW - 1] - 1.0 : NAN;
        s[k].sync_us = r[MCAST_PROBE_ROW - 2];
        s[k].half_rtt_spread_us = r[MCAST_PROBE_ROW_SPREAD];
    }
    return mcast_probe_fit(s, npairs, m, why, len);
}
