/*
 * Cyclic multicast on IBFT(m, n) (seed 004 secs 2.2-3.3): node LIDs, cyclic
 * path selection, one-to-one tables (eqs. 1, 2), multicast tables by union,
 * OpenSM's single spanning tree for comparison, and the forwarding check.
 *
 *   Algorithm: P(s) reaches P(p) on the LID of rank = its own digits below the
 *   lca level; that LID's up ports at every level are the same digits, so all
 *   of P(s)'s routes share one ascending chain and the MFT is their union.
 *   Cost: one route is 2(n - alpha) switch hops; an MFT for G members costs
 *   O(G n); the check forwards one packet, O(links of the tree).
 *
 *   P(000) -> {P(200), P(201), P(210), P(211)} on IBFT(4, 3) (Figs. 6, 7):
 *
 *                       SW<00,0>            one chain up (port 3 at every level)
 *                      /3       \           then the union of the down routes
 *              SW<00,1>          SW<20,1>   SW<20,1> = {1, 2}
 *             /3                 /1    \2
 *       SW<00,2>           SW<20,2>   SW<21,2>   SW<20,2> = SW<21,2> = {1, 2}
 *        |1               /1   \2     /1   \2
 *      P(000)          P(200) P(201) P(210) P(211)
 */
#include <algorithm>
#include <cstring>
#include <deque>
#include <new>
#include <string>
#include <vector>

#include "topo/pm_ft_internal.h"

namespace pm {
namespace ft {

long ipow(long b, int e)
{
    long r = 1;
    while (e-- > 0) r *= b;
    return r;
}

void check_ft(const pm_ft_t *ft)
{
    if (!ft || ft->m < 2 || ft->half * 2 != ft->m || ft->n < 1 || ft->n > PM_FT_MAX_N ||
        ft->nnodes <= 0 || ft->nswitches <= 0)
        throw ArgError(PM_ERR_ARG, "fat-tree model not initialised (pm_ft_init)");
}

void check_node(const pm_ft_t *ft, int pid)
{
    if (pid < 0 || pid >= ft->nnodes)
        throw ArgError(PM_ERR_ARG, "node id " + std::to_string(pid) + " out of range 0.." +
                                       std::to_string(ft->nnodes - 1));
}

void check_switch(const pm_ft_t *ft, int sw)
{
    if (sw < 0 || sw >= ft->nswitches)
        throw ArgError(PM_ERR_ARG, "switch id " + std::to_string(sw) + " out of range 0.." +
                                       std::to_string(ft->nswitches - 1));
}

void init(pm_ft_t *ft, int m, int n, pm_ft_lid_layout_t layout)
{
    if (!ft) throw ArgError(PM_ERR_ARG, "NULL model");
    if (m < 2 || m > PM_FT_MAX_M || m % 2)
        throw ArgError(PM_ERR_ARG, "IBFT(m, n) needs an even m in 2.." + std::to_string(PM_FT_MAX_M));
    int h = m / 2;
    if (h & (h - 1)) throw ArgError(PM_ERR_ARG, "m/2 must be a power of two (LMC = log2((m/2)^(n-1)))");
    if (n < 1 || n > PM_FT_MAX_N) throw ArgError(PM_ERR_ARG, "n must be 1.." + std::to_string(PM_FT_MAX_N));
    if (layout != PM_FT_LIDS_SEED && layout != PM_FT_LIDS_IBA) throw ArgError(PM_ERR_ARG, "unknown LID layout");
    double nodes = 2.0;
    for (int i = 0; i < n; ++i) nodes *= h;
    if (nodes > PM_FT_MAX_NODES) throw ArgError(PM_ERR_ARG, "fat-tree larger than 2^20 nodes");
    int lg = 0;
    while ((1 << lg) < h) ++lg;
    pm_ft_t f;
    f.m = m;
    f.n = n;
    f.half = h;
    f.lmc = lg * (n - 1);
    f.lids_per_node = 1 << f.lmc;
    f.nnodes = (int)nodes;
    f.nswitches = (2 * n - 1) * (int)ipow(h, n - 1);
    f.layout = layout;
    f.lid_origin = layout == PM_FT_LIDS_SEED ? 1 : f.lids_per_node;
    *ft = f;
}

void digits_of(const pm_ft_t *ft, int pid, int *d)
{
    for (int i = ft->n - 1; i >= 1; --i) {
        d[i] = pid % ft->half;
        pid /= ft->half;
    }
    d[0] = pid;
}

int pid_of(const pm_ft_t *ft, const int *d)
{
    if (d[0] < 0 || d[0] >= ft->m) throw ArgError(PM_ERR_ARG, "digit p0 out of range 0..m-1");
    long v = d[0];
    for (int i = 1; i < ft->n; ++i) {
        if (d[i] < 0 || d[i] >= ft->half) throw ArgError(PM_ERR_ARG, "digit out of range 0..m/2-1");
        v = v * ft->half + d[i];
    }
    return (int)v;
}

int switches_at(const pm_ft_t *ft, int level)
{
    long top = ipow(ft->half, ft->n - 1);
    return (int)(level == 0 ? top : 2 * top);
}

int switch_id(const pm_ft_t *ft, int level, const int *w)
{
    if (level < 0 || level >= ft->n) throw ArgError(PM_ERR_ARG, "switch level out of range");
    int nw = ft->n - 1;
    long idx = 0;
    for (int i = 0; i < nw; ++i) {
        int radix = (i == 0 && level > 0) ? ft->m : ft->half;
        if (w[i] < 0 || w[i] >= radix) throw ArgError(PM_ERR_ARG, "switch digit out of range");
        idx = idx * radix + w[i];
    }
    long off = level == 0 ? 0 : switches_at(ft, 0) + (long)(level - 1) * switches_at(ft, 1);
    return (int)(off + idx);
}

void switch_coords(const pm_ft_t *ft, int sw, int *level, int *w)
{
    int l = 0, idx = sw;
    while (idx >= switches_at(ft, l)) {
        idx -= switches_at(ft, l);
        ++l;
    }
    for (int i = ft->n - 2; i >= 0; --i) {
        int radix = (i == 0 && l > 0) ? ft->m : ft->half;
        w[i] = idx % radix;
        idx /= radix;
    }
    *level = l;
}

bool port_is_up(const pm_ft_t *ft, int level, int port)
{
    return level > 0 && port > ft->half;
}

pm_ft_peer_t port_peer(const pm_ft_t *ft, int sw, int port)
{
    if (port < 1 || port > ft->m) throw ArgError(PM_ERR_ARG, "port out of range 1..m");
    int l, w[PM_FT_MAX_N];
    switch_coords(ft, sw, &l, w);
    pm_ft_peer_t p;
    if (!port_is_up(ft, l, port)) {
        int v = port - 1;
        if (l == ft->n - 1) {
            int d[PM_FT_MAX_N];
            for (int i = 0; i < ft->n - 1; ++i) d[i] = w[i];
            d[ft->n - 1] = v;
            p.is_node = 1;
            p.id = pid_of(ft, d);
            p.port = 1;
        } else {
            int up_digit = w[l];
            w[l] = v;
            p.is_node = 0;
            p.id = switch_id(ft, l + 1, w);
            p.port = up_digit + ft->half + 1;
        }
    } else {
        int u = port - ft->half - 1;
        int down_digit = w[l - 1];
        w[l - 1] = u;
        p.is_node = 0;
        p.id = switch_id(ft, l - 1, w);
        p.port = down_digit + 1;
    }
    return p;
}

void node_attach(const pm_ft_t *ft, int pid, int *sw, int *port)
{
    int d[PM_FT_MAX_N];
    digits_of(ft, pid, d);
    *sw = switch_id(ft, ft->n - 1, d);
    *port = d[ft->n - 1] + 1;
}

int gcp(const pm_ft_t *ft, int a, int b)
{
    int da[PM_FT_MAX_N], db[PM_FT_MAX_N];
    digits_of(ft, a, da);
    digits_of(ft, b, db);
    int k = 0;
    while (k < ft->n && da[k] == db[k]) ++k;
    return k;
}

long gcpg_rank(const pm_ft_t *ft, int pid, int alpha)
{
    int d[PM_FT_MAX_N];
    digits_of(ft, pid, d);
    long r = 0;
    for (int i = alpha; i < ft->n; ++i) r = r * (i == 0 ? ft->m : ft->half) + d[i];
    return r;
}

int select_rank(const pm_ft_t *ft, int src, int dst)
{
    int alpha = gcp(ft, src, dst);
    return alpha >= ft->n - 1 ? 0 : (int)gcpg_rank(ft, src, alpha + 1);
}

int lft_port(const pm_ft_t *ft, int sw, int dst, int rank)
{
    int l, w[PM_FT_MAX_N], p[PM_FT_MAX_N];
    switch_coords(ft, sw, &l, w);
    digits_of(ft, dst, p);
    bool below = true;
    for (int i = 0; i < l && below; ++i) below = w[i] == p[i];
    if (below) return p[l] + 1;                                        /* eq. (1) */
    long digit = (rank / ipow(ft->half, ft->n - 1 - l)) % ft->half;    /* eq. (2) */
    return (int)digit + ft->half + 1;
}

void lid_owner(const pm_ft_t *ft, int lid, int *pid, int *rank)
{
    long off = (long)lid - ft->lid_origin;
    if (off < 0 || off >= (long)ft->nnodes * ft->lids_per_node)
        throw ArgError(PM_ERR_NOTFOUND, "LID " + std::to_string(lid) + " belongs to no processing node");
    *pid = (int)(off / ft->lids_per_node);
    *rank = (int)(off % ft->lids_per_node);
}

std::vector<pm_ft_hop_t> route(const pm_ft_t *ft, int src, int lid)
{
    int dst, rank;
    lid_owner(ft, lid, &dst, &rank);
    std::vector<pm_ft_hop_t> hops;
    if (dst == src) return hops;
    int sw, in;
    node_attach(ft, src, &sw, &in);
    for (int guard = 0; guard <= 2 * ft->n; ++guard) {
        int out = lft_port(ft, sw, dst, rank);
        hops.push_back({sw, in, out});
        pm_ft_peer_t pe = port_peer(ft, sw, out);
        if (pe.is_node) {
            if (pe.id != dst) throw ArgError(PM_ERR_INTERNAL, "route ended at the wrong node");
            return hops;
        }
        sw = pe.id;
        in = pe.port;
    }
    throw ArgError(PM_ERR_INTERNAL, "route does not terminate");
}

std::vector<int> switch_distances(const pm_ft_t *ft, int target)
{
    std::vector<int> dist(ft->nswitches, -1);
    std::deque<int> q{target};
    dist[target] = 0;
    while (!q.empty()) {
        int u = q.front();
        q.pop_front();
        for (int k = 1; k <= ft->m; ++k) {
            pm_ft_peer_t pe = port_peer(ft, u, k);
            if (pe.is_node || dist[pe.id] >= 0) continue;
            dist[pe.id] = dist[u] + 1;
            q.push_back(pe.id);
        }
    }
    return dist;
}

/* Lowest port of sw whose peer switch is one hop closer to the target. */
int toward(const pm_ft_t *ft, const std::vector<int> &dist, int sw)
{
    for (int k = 1; k <= ft->m; ++k) {
        pm_ft_peer_t pe = port_peer(ft, sw, k);
        if (!pe.is_node && dist[pe.id] == dist[sw] - 1) return k;
    }
    throw ArgError(PM_ERR_INTERNAL, "switch graph is disconnected");
}

void mft_cyclic(const pm_ft_t *ft, int src, const std::vector<int> &members, pm_ft_mft_form_t form,
                uint64_t *mft)
{
    std::fill(mft, mft + ft->nswitches, 0);
    for (int d : members) {
        if (d == src) continue;
        for (const pm_ft_hop_t &hp : route(ft, src, ft->lid_origin + d * ft->lids_per_node + select_rank(ft, src, d))) {
            mft[hp.sw] |= 1ULL << hp.out_port;
            if (form == PM_FT_MFT_TREE) mft[hp.sw] |= 1ULL << hp.in_port;
        }
    }
}

pm_ft_check_t mft_check(const pm_ft_t *ft, const uint64_t *mft, int src, const std::vector<int> &members,
                        long *load)
{
    pm_ft_check_t res;
    std::memset(&res, 0, sizeof(res));
    std::vector<int> recv(ft->nnodes, 0), visits(ft->nswitches, 0);
    std::vector<char> member(ft->nnodes, 0);
    for (int d : members) member[d] = 1;
    int sw, in;
    node_attach(ft, src, &sw, &in);
    if (load) ++load[(long)ft->nswitches * ft->m + src];
    res.copies = 1;
    std::deque<std::pair<int, int>> q{{sw, in}};
    long arrivals = 0, bound = ((long)ft->nswitches + ft->nnodes) * ft->m;
    while (!q.empty()) {
        std::pair<int, int> a = q.front();
        q.pop_front();
        if (++arrivals > bound) {
            res.loop = 1;
            break;
        }
        int level, w[PM_FT_MAX_N];
        switch_coords(ft, a.first, &level, w);
        if (++visits[a.first] > 1) ++res.revisits;
        uint64_t out = mft[a.first] & ~(1ULL << a.second);
        int ups = 0;
        for (int k = 1; k <= ft->m; ++k) {
            if (!(out >> k & 1)) continue;
            if (port_is_up(ft, level, k)) ++ups;
            if (load) ++load[(long)a.first * ft->m + k - 1];
            ++res.copies;
            pm_ft_peer_t pe = port_peer(ft, a.first, k);
            if (pe.is_node)
                ++recv[pe.id];
            else
                q.push_back({pe.id, pe.port});
        }
        if (ups > 1) ++res.up_splits;
        if (ups > 0 && port_is_up(ft, level, a.second)) ++res.down_up;
    }
    for (int v = 0; v < ft->nnodes; ++v) {
        bool want = member[v] && v != src;
        if (want && recv[v] == 1) ++res.reached;
        if (want && recv[v] == 0) ++res.missed;
        if (want && recv[v] > 1) ++res.duplicated;
        if (!want && recv[v] > 0) ++res.spurious;
    }
    return res;
}

bool check_ok(const pm_ft_check_t &c)
{
    return !c.missed && !c.duplicated && !c.spurious && !c.up_splits && !c.down_up && !c.revisits && !c.loop;
}

int mft_group(const pm_ft_t *ft, const std::vector<int> &sources, const std::vector<int> &members, uint64_t *mft)
{
    if (sources.empty()) throw ArgError(PM_ERR_ARG, "a group needs at least one source");
    std::vector<uint64_t> one(ft->nswitches);
    std::fill(mft, mft + ft->nswitches, 0);
    for (int s : sources) {
        mft_cyclic(ft, s, members, PM_FT_MFT_TREE, one.data());
        for (int i = 0; i < ft->nswitches; ++i) mft[i] |= one[i];
    }
    bool ok = true;
    for (int s : sources) ok = ok && check_ok(mft_check(ft, mft, s, members, nullptr));
    if (ok) return -1;
    int first = *std::min_element(sources.begin(), sources.end());
    mft_cyclic(ft, first, members, PM_FT_MFT_TREE, mft);
    return first;
}

int mft_opensm(const pm_ft_t *ft, const std::vector<int> &members, uint64_t *mft)
{
    std::fill(mft, mft + ft->nswitches, 0);
    std::vector<int> leaves;
    for (int d : members) {
        int sw, port;
        node_attach(ft, d, &sw, &port);
        leaves.push_back(sw);
    }
    std::vector<int> uniq = leaves;
    std::sort(uniq.begin(), uniq.end());
    uniq.erase(std::unique(uniq.begin(), uniq.end()), uniq.end());
    std::vector<std::vector<int>> dist(ft->nswitches);
    for (int L : uniq) dist[L] = switch_distances(ft, L);
    int root = -1, best = 0;
    for (int s = 0; s < ft->nswitches; ++s) {
        int worst = 0;
        for (int L : uniq) worst = std::max(worst, dist[L][s] + 1);   /* members are nodes: +1 */
        if (root < 0 || worst < best) {
            root = s;
            best = worst;
        }
    }
    for (size_t i = 0; i < members.size(); ++i) {
        int L = leaves[i], sw = root, in = 0;
        for (;;) {
            if (in) mft[sw] |= 1ULL << in;
            if (sw == L) {
                int s2, port;
                node_attach(ft, members[i], &s2, &port);
                mft[sw] |= 1ULL << port;
                break;
            }
            int k = toward(ft, dist[L], sw);
            mft[sw] |= 1ULL << k;
            pm_ft_peer_t pe = port_peer(ft, sw, k);
            sw = pe.id;
            in = pe.port;
        }
    }
    return root;
}

namespace {
void add_check(pm_ft_check_t &t, const pm_ft_check_t &c)
{
    t.reached += c.reached;
    t.missed += c.missed;
    t.duplicated += c.duplicated;
    t.spurious += c.spurious;
    t.up_splits += c.up_splits;
    t.down_up += c.down_up;
    t.revisits += c.revisits;
    t.loop |= c.loop;
    t.copies += c.copies;
}
}  // namespace

pm_ft_check_t scheme_load(const pm_ft_t *ft, pm_ft_scheme_t scheme, const std::vector<int> &sources,
                          const std::vector<int> &members, long *load)
{
    pm_ft_check_t total;
    std::memset(&total, 0, sizeof(total));
    std::vector<uint64_t> mft(ft->nswitches);
    std::vector<int> ports = members;   /* a shared tree spans members and senders */
    ports.insert(ports.end(), sources.begin(), sources.end());
    std::sort(ports.begin(), ports.end());
    ports.erase(std::unique(ports.begin(), ports.end()), ports.end());
    switch (scheme) {
    case PM_FT_SCHEME_CYCLIC:
        for (int s : sources) {
            mft_cyclic(ft, s, members, PM_FT_MFT_UNION, mft.data());
            add_check(total, mft_check(ft, mft.data(), s, members, load));
        }
        break;
    case PM_FT_SCHEME_CYCLIC_GROUP:
        mft_group(ft, sources, ports, mft.data());
        for (int s : sources) add_check(total, mft_check(ft, mft.data(), s, members, load));
        break;
    case PM_FT_SCHEME_OPENSM:
        mft_opensm(ft, ports, mft.data());
        for (int s : sources) add_check(total, mft_check(ft, mft.data(), s, members, load));
        break;
    case PM_FT_SCHEME_UNICAST:
        for (int s : sources)
            for (int d : members) {
                if (d == s) continue;
                std::vector<pm_ft_hop_t> r = route(ft, s, ft->lid_origin + d * ft->lids_per_node + select_rank(ft, s, d));
                if (load) {
                    ++load[(long)ft->nswitches * ft->m + s];
                    for (const pm_ft_hop_t &h : r) ++load[(long)h.sw * ft->m + h.out_port - 1];
                }
                ++total.reached;
                total.copies += 1 + (long)r.size();
            }
        break;
    default:
        throw ArgError(PM_ERR_ARG, "unknown multicast scheme");
    }
    return total;
}

}  // namespace ft
}  // namespace pm
