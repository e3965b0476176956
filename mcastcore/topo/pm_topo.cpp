/*
 * Topology model and routing.
 *
 *   DOR (k-ary n-cubes): correct dimension 0 first, then 1, ...  Mesh: towards
 *   the destination; unidirectional torus: always +; bidirectional torus: the
 *   shorter way round, ties -> +.  Routes are shortest for the link set used.
 *
 *   up*-down* (seed 001 sec 2.2): BFS spanning tree of the switches from the
 *   root (lowest switch id = first declared, unless set).  The "up" end of a
 *   link is the switch closer to the root, ties -> lower id.  A legal route
 *   never goes up after going down; we take a shortest legal route by BFS over
 *   (switch, has-gone-down) states, neighbours in port order (deterministic).
 *
 *        level 0        s0            s1 -- s2 is a cross link whose up end is
 *                      /  \           s1 (same level, lower id).  Route s3 -> s4:
 *        level 1     s1 -- s2         s3 ^ s1 v s2 v s4 (up, down, down).
 *                   /        \        Route s4 -> s3: s4 ^ s2 ^ s1 v s3 (s2 -> s1
 *        level 2  s3          s4      is up); s3 -> s1 -> s2 -> s1 never happens:
 *                                     no up after down.
 *
 *   Fat-tree up/down on IBFT(m,n) (seed 004 sec 2.2): ascend from the leaf
 *   switch to level gcp(src,dst) choosing parent digit d[l+1] mod (m/2)
 *   (destination based, like d-mod-k), then descend along the destination's
 *   label digits.
 */
#include <algorithm>
#include <deque>
#include <queue>
#include <tuple>
#include <mutex>
#include <sstream>

#include "topo/pm_internal.h"

namespace pm {

static std::string limit(const char *what, long lim)
{
    return std::string(what) + " (limit " + std::to_string(lim) + ")";
}

/* Grows a node's port table by `more` slots, within PM_MAX_PORTS. */
static void grow_ports(Topology &t, Node &nd, size_t more)
{
    if (more > (size_t) PM_MAX_PORTS - t.port_slots) throw ArgError(PM_ERR_ARG, limit("too many ports", PM_MAX_PORTS));
    nd.ports.resize(nd.ports.size() + more, -1);
    t.port_slots += more;
}

int Topology::add_node(const std::string &name, bool is_host, int nports)
{
    if (name.size() > PM_MAX_NAME_BYTES)
        throw ArgError(PM_ERR_ARG, limit(("name '" + name.substr(0, 32) + "...' too long").c_str(), PM_MAX_NAME_BYTES));
    if (by_name.count(name)) throw ArgError(PM_ERR_ARG, "duplicate node name '" + name + "'");
    if (is_host && hosts.size() >= (size_t) PM_MAX_HOSTS) throw ArgError(PM_ERR_ARG, limit("too many hosts", PM_MAX_HOSTS));
    if (!is_host && switches.size() >= (size_t) PM_MAX_SWITCHES)
        throw ArgError(PM_ERR_ARG, limit("too many switches", PM_MAX_SWITCHES));
    if (nports > PM_MAX_DECLARED_PORTS)
        throw ArgError(PM_ERR_ARG, limit(("'" + name + "' declares too many ports").c_str(), PM_MAX_DECLARED_PORTS));
    Node nd;
    nd.name = name;
    nd.is_host = is_host;
    nd.fixed_ports = nports > 0;
    grow_ports(*this, nd, nports > 0 ? (size_t) nports : 0);
    nodes.push_back(std::move(nd));
    int id = (int)nodes.size() - 1;
    by_name[name] = id;
    (is_host ? hosts : switches).push_back(id);
    ud_valid = false;
    return id;
}

int Topology::free_port(int node)
{
    Node &nd = nodes[node];
    while (nd.first_free < nd.ports.size() && nd.ports[nd.first_free] >= 0) ++nd.first_free;
    return nd.first_free < nd.ports.size() ? (int) nd.first_free : -1;
}

/* A free port (want < 0: the lowest; grown on demand unless the count was declared)
 * or port `want`.  Ports are never freed, so the first_free scan is O(1) amortised. */
static int take_port(Topology &t, int node, int want)
{
    Node &nd = t.nodes[node];
    if (want < 0) {
        int p = t.free_port(node);
        if (p >= 0) return p;
        if (nd.fixed_ports) throw ArgError(PM_ERR_ARG, "'" + nd.name + "' has no free port");
        grow_ports(t, nd, 1);
        return (int)nd.ports.size() - 1;
    }
    if ((size_t)want >= nd.ports.size()) grow_ports(t, nd, (size_t) want + 1 - nd.ports.size());
    if (nd.ports[want] >= 0)
        throw ArgError(PM_ERR_ARG, "port " + std::to_string(want + 1) + " of '" + nd.name +
                                       "' is already connected");
    return want;
}

int Topology::add_link(int a, int b, int cls, int pa, int pb)
{
    if (a == b) throw ArgError(PM_ERR_ARG, "link from '" + nodes[a].name + "' to itself");
    if (links.size() >= (size_t) PM_MAX_LINKS) throw ArgError(PM_ERR_ARG, limit("too many links", PM_MAX_LINKS));
    Link l;
    l.a = a; l.b = b; l.cls = cls;
    l.pa = take_port(*this, a, pa);
    nodes[a].ports[l.pa] = (int)links.size();
    l.pb = take_port(*this, b, pb);
    nodes[b].ports[l.pb] = (int)links.size();
    links.push_back(l);
    ud_valid = false;
    return (int)links.size() - 1;
}

int Topology::find(const std::string &name) const
{
    auto it = by_name.find(name);
    return it == by_name.end() ? -1 : it->second;
}

int Topology::host_switch(int host) const
{
    for (int l : nodes[host].ports)
        if (l >= 0) return links[l].a == host ? links[l].b : links[l].a;
    return -1;
}

int Topology::linear(const std::vector<int> &c) const
{
    int idx = 0, stride = 1;
    for (size_t d = 0; d < dims.size(); ++d) {
        idx += c[d] * stride;
        stride *= dims[d];
    }
    return idx;
}

static std::string coord_name(const char *prefix, const std::vector<int> &c)
{
    std::string s = prefix;
    for (size_t d = 0; d < c.size(); ++d) s += (d ? "-" : "") + std::to_string(c[d]);
    return s;
}

void build_torus(Topology &t, const std::vector<int> &dims, bool wrap, bool bidir)
{
    if (dims.empty() || dims.size() > PM_MAX_DIMS) throw ArgError(PM_ERR_ARG, "1 to 8 dimensions");
    long total = 1;
    for (int k : dims) {
        if (k < 2 || k > 4096) throw ArgError(PM_ERR_ARG, "dimension size must be 2..4096");
        total *= k;
        if (total > PM_MAX_SWITCHES) throw ArgError(PM_ERR_ARG, limit("torus with too many routers", PM_MAX_SWITCHES));
    }
    t.kind = PM_TOPO_TORUS;
    t.dims = dims;
    t.wrap = wrap;
    t.bidir = bidir;
    int nd = (int)dims.size();
    t.router_of_coord.assign(total, -1);
    std::vector<int> c(nd, 0);
    for (long i = 0; i < total; ++i) {
        long r = i;
        for (int d = 0; d < nd; ++d) { c[d] = (int)(r % dims[d]); r /= dims[d]; }
        int id = t.add_node(coord_name("r", c), false, 0);
        t.nodes[id].coord = c;
        t.router_of_coord[i] = id;
    }
    t.torus_dlink.assign(total * nd * 2, -1);
    for (long i = 0; i < total; ++i) {
        int a = t.router_of_coord[i];
        for (int d = 0; d < nd; ++d) {
            std::vector<int> cc = t.nodes[a].coord;
            bool edge = cc[d] + 1 == dims[d];
            if (edge && (!wrap || dims[d] == 2)) continue;
            cc[d] = (cc[d] + 1) % dims[d];
            int b = t.router_of_coord[t.linear(cc)];
            int l = t.add_link(a, b, PM_LINK_TORUS + d);
            t.torus_dlink[(size_t)a * nd * 2 + d * 2 + 1] = 2 * l;      /* a +d -> b */
            t.torus_dlink[(size_t)b * nd * 2 + d * 2 + 0] = 2 * l + 1;  /* b -d -> a */
            if (wrap && dims[d] == 2) {                                 /* k = 2: one link */
                t.torus_dlink[(size_t)b * nd * 2 + d * 2 + 1] = 2 * l + 1;
                t.torus_dlink[(size_t)a * nd * 2 + d * 2 + 0] = 2 * l;
            }
        }
    }
}

void build_fattree(Topology &t, int m, int n)
{
    if (m < 2 || m % 2 || n < 1 || n > 8) throw ArgError(PM_ERR_ARG, "fattree needs even m >= 2, 1 <= n <= 8");
    double hosts = 2.0;
    for (int i = 0; i < n; ++i) hosts *= m / 2.0;
    if (hosts > PM_MAX_HOSTS) throw ArgError(PM_ERR_ARG, limit("fat-tree with too many hosts", PM_MAX_HOSTS));
    t.kind = PM_TOPO_FATTREE;
    t.ft_m = m;
    t.ft_n = n;
    int h = m / 2, nw = n - 1;
    auto sw_name = [&](const std::vector<int> &w, int l) {
        return coord_name("sw", w).append(".").append(std::to_string(l));
    };
    /* enumerate labels with per-digit radices */
    auto enumerate = [](const std::vector<int> &radix) {
        std::vector<std::vector<int>> out;
        std::vector<int> v(radix.size(), 0);
        for (;;) {
            out.push_back(v);
            int d = (int)radix.size() - 1;
            while (d >= 0 && ++v[d] == radix[d]) v[d--] = 0;
            if (d < 0) break;
        }
        return out;
    };
    for (int l = 0; l < n; ++l) {
        std::vector<int> radix(nw, h);
        if (l > 0 && nw > 0) radix[0] = m;
        for (auto &w : enumerate(radix)) {
            int id = t.add_node(sw_name(w, l), false, m);
            t.nodes[id].coord = w;
            t.nodes[id].level = l;
        }
    }
    for (int l = 0; l + 1 < n; ++l) {
        std::vector<int> radix(nw, h);
        if (l > 0) radix[0] = m;
        for (auto &w : enumerate(radix)) {
            int up = t.find(sw_name(w, l));
            int vmax = l == 0 ? m : h;
            for (int v = 0; v < vmax; ++v) {
                std::vector<int> w2 = w;
                w2[l] = v;
                int down = t.find(sw_name(w2, l + 1));
                t.add_link(up, down, PM_LINK_SWITCH, v, w[l] + h);
            }
        }
    }
    std::vector<int> radix(n, h);
    radix[0] = m;
    for (auto &p : enumerate(radix)) {
        int id = t.add_node(coord_name("p", p), true, 1);
        t.nodes[id].coord = p;
        std::vector<int> w(p.begin(), p.begin() + nw);
        t.add_link(id, t.find(sw_name(w, n - 1)), PM_LINK_HOST, 0, p[n - 1]);
    }
}

/* ---------------------------------------------------------------- DOR */
static void route_dor(const Topology &t, int s, int d, std::vector<int> &out)
{
    if (t.kind != PM_TOPO_TORUS) throw ArgError(PM_ERR_UNSUPPORTED, "DOR needs a torus or mesh");
    int nd = (int)t.dims.size();
    std::vector<int> cur = t.nodes[s].coord;
    const std::vector<int> &dst = t.nodes[d].coord;
    for (int dim = 0; dim < nd; ++dim) {
        int k = t.dims[dim];
        int dir;
        if (!t.wrap) {
            dir = dst[dim] > cur[dim] ? 1 : 0;
        } else if (!t.bidir) {
            dir = 1;
        } else {
            int fwd = ((dst[dim] - cur[dim]) % k + k) % k;
            dir = fwd <= k - fwd ? 1 : 0;
        }
        while (cur[dim] != dst[dim]) {
            int r = t.router_of_coord[t.linear(cur)];
            int dl = t.torus_dlink[(size_t)r * nd * 2 + dim * 2 + dir];
            if (dl < 0) throw ArgError(PM_ERR_INTERNAL, "torus link table");
            out.push_back(dl);
            cur[dim] = ((cur[dim] + (dir ? 1 : -1)) % k + k) % k;
        }
    }
}

/* ---------------------------------------------------------------- up*-down* */
void updown_prepare(const Topology &t)
{
    if (t.ud_valid) return;
    int N = (int)t.nodes.size();
    t.ud_level.assign(N, -1);
    t.ud_cache.clear();
    int root = t.ud_root;
    if (root < 0) {
        if (t.switches.empty()) throw ArgError(PM_ERR_UNSUPPORTED, "no switches");
        root = t.switches[0];
        for (int s : t.switches) root = std::min(root, s);
    }
    std::deque<int> q{root};
    t.ud_level[root] = 0;
    while (!q.empty()) {
        int u = q.front();
        q.pop_front();
        for (int l : t.nodes[u].ports) {
            if (l < 0) continue;
            int v = t.links[l].a == u ? t.links[l].b : t.links[l].a;
            if (t.nodes[v].is_host || t.ud_level[v] >= 0) continue;
            t.ud_level[v] = t.ud_level[u] + 1;
            q.push_back(v);
        }
    }
    t.ud_valid = true;
}

bool updown_is_up(const Topology &t, int dlink)
{
    updown_prepare(t);
    int u = t.from_end(dlink), v = t.other_end(dlink);
    if (t.nodes[u].is_host) return true;
    if (t.nodes[v].is_host) return false;
    int lu = t.ud_level[u], lv = t.ud_level[v];
    return lv < lu || (lv == lu && v < u);
}

/* BFS over states (node, gone_down) from switch s; cached per source.
 * Layout: [0,2N) link into the state, [2N,4N) distance, [4N,6N) previous state. */
/* ud_cache fills as routes are asked for, from any thread that shares the topology
 * (the components' planners and pm_order_hosts' tour): one lock.  An entry never
 * changes once in, and std::map keeps it where it is. */
static std::mutex ud_cache_lock;

static const std::vector<int> &updown_bfs(const Topology &t, int s)
{
    std::lock_guard<std::mutex> guard(ud_cache_lock);
    auto it = t.ud_cache.find(s);
    if (it != t.ud_cache.end()) return it->second;
    size_t N = t.nodes.size();
    std::vector<int> res(6 * N, -1);
    std::deque<int> q{2 * s};
    res[2 * N + 2 * s] = 0;
    while (!q.empty()) {
        int st = q.front();
        q.pop_front();
        int u = st / 2, down = st % 2;
        for (int l : t.nodes[u].ports) {
            if (l < 0) continue;
            int dl = t.links[l].a == u ? 2 * l : 2 * l + 1;
            int v = t.other_end(dl);
            if (t.nodes[v].is_host) continue;
            bool up = updown_is_up(t, dl);
            if (up && down) continue;
            int ns = 2 * v + (up ? 0 : 1);
            if (res[2 * N + ns] >= 0) continue;
            res[2 * N + ns] = res[2 * N + st] + 1;
            res[ns] = dl;
            res[4 * N + ns] = st;
            q.push_back(ns);
        }
    }
    return t.ud_cache.emplace(s, std::move(res)).first->second;
}

/* Up*-down* route from switch s to switch d.  key < 0: the BFS tree's route (the first
 * shortest legal path found).  key >= 0: among all shortest legal paths, the one chosen
 * backwards from d, taking at each hop the predecessor (key + hop) mod (number of
 * shortest-path predecessors), in port order: destinations spread over the parallel
 * paths (a fat-tree's spines) as OpenSM's up*-down* and min-hop routing balance them,
 * instead of every route from s leaving through the same spine. */
static void route_updown(const Topology &t, int s, int d, std::vector<int> &out, long key = -1)
{
    updown_prepare(t);
    const std::vector<int> &r = updown_bfs(t, s);
    size_t N = t.nodes.size();
    int d0 = r[2 * N + 2 * d], d1 = r[2 * N + 2 * d + 1];
    if (d0 < 0 && d1 < 0)
        throw ArgError(PM_ERR_UNSUPPORTED, "no up*/down* route from '" + t.nodes[s].name + "' to '" +
                                               t.nodes[d].name + "'");
    int st = (d1 < 0 || (d0 >= 0 && d0 <= d1)) ? 2 * d : 2 * d + 1;
    std::vector<int> rev;
    long hop = 0;
    while (st != 2 * s) {
        if (key < 0) {
            rev.push_back(r[st]);
            st = r[4 * N + st];
            continue;
        }
        /* every (link into st, previous state) on a shortest legal path */
        int v = st / 2, down = st % 2, dist = r[2 * N + st];
        std::vector<std::pair<int, int>> cand;
        for (int l : t.nodes[v].ports) {
            if (l < 0) continue;
            int dl = (t.links[l].a == v ? 2 * l : 2 * l + 1) ^ 1; /* the direction into v */
            int u = t.from_end(dl);
            if (t.nodes[u].is_host) continue;
            bool up = updown_is_up(t, dl);
            if (up == (down == 1)) continue; /* the move must land in st's phase */
            for (int pd = 0; pd < 2; ++pd) {
                if (up && pd) continue; /* no up move after a down move */
                int ps = 2 * u + pd;
                if (r[2 * N + ps] == dist - 1) cand.emplace_back(dl, ps);
            }
        }
        if (cand.empty()) throw ArgError(PM_ERR_INTERNAL, "up*/down* predecessor missing");
        const auto &c = cand[(size_t)((key + hop) % (long)cand.size())];
        rev.push_back(c.first);
        st = c.second;
        ++hop;
    }
    out.insert(out.end(), rev.rbegin(), rev.rend());
}

/* From switch s over the switches (hosts are not passed through): to every node the least
 * sum of link classes (each link weighs its class, a switch link 1 by default: the hops)
 * and, among the paths of that sum, the fewest hops ([0, N) sum, [N, 2N) hops; -1:
 * unreachable); Dijkstra, cached per source under ud_cache_lock (as updown_bfs). */
static const std::vector<long> &minhop_bfs(const Topology &t, int s)
{
    std::lock_guard<std::mutex> guard(ud_cache_lock);
    auto it = t.mh_cache.find(s);
    if (it != t.mh_cache.end()) return it->second;
    const size_t N = t.nodes.size();
    std::vector<long> r(2 * N, -1);
    using Item = std::tuple<long, long, int>; /* (sum, hops, node) */
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> q;
    r[s] = 0;
    r[N + s] = 0;
    q.emplace(0, 0, s);
    while (!q.empty()) {
        const auto [c, h, u] = q.top();
        q.pop();
        if (c != r[u] || h != r[N + u]) continue; /* stale */
        for (int l : t.nodes[u].ports) {
            if (l < 0) continue;
            int v = t.links[l].a == u ? t.links[l].b : t.links[l].a;
            if (t.nodes[v].is_host) continue;
            const long cv = c + std::max(0, t.links[l].cls), hv = h + 1;
            if (r[v] < 0 || cv < r[v] || (cv == r[v] && hv < r[N + v])) {
                r[v] = cv;
                r[N + v] = hv;
                q.emplace(cv, hv, v);
            }
        }
    }
    return t.mh_cache.emplace(s, std::move(r)).first->second;
}

/* Min-hop route from switch s to switch d (PM_ROUTE_MINHOP): backwards from d, at each
 * hop among the predecessors on a path of the least class sum and, of those, the fewest
 * hops (minhop_bfs; a file's "link A B CLASS": a dragonfly's global links weigh more than
 * its local ones), the (key + hop) mod (their number)-th in port order, as route_updown
 * spreads destinations. */
static void route_minhop(const Topology &t, int s, int d, std::vector<int> &out, long key)
{
    const std::vector<long> &r = minhop_bfs(t, s);
    const size_t N = t.nodes.size();
    if (r[d] < 0)
        throw ArgError(PM_ERR_UNSUPPORTED, "no route from '" + t.nodes[s].name + "' to '" + t.nodes[d].name + "'");
    std::vector<int> rev;
    long hop = 0;
    for (int v = d; v != s; ++hop) {
        std::vector<int> cand; /* links into v on such a path */
        for (int l : t.nodes[v].ports) {
            if (l < 0) continue;
            int dl = (t.links[l].a == v ? 2 * l : 2 * l + 1) ^ 1;
            int u = t.from_end(dl);
            if (!t.nodes[u].is_host && r[u] >= 0 && r[u] + std::max(0, t.links[l].cls) == r[v] &&
                r[N + u] + 1 == r[N + v])
                cand.push_back(dl);
        }
        if (cand.empty()) throw ArgError(PM_ERR_INTERNAL, "min-hop predecessor missing");
        const int dl = cand[(size_t)((key + hop) % (long)cand.size())];
        rev.push_back(dl);
        v = t.from_end(dl);
    }
    out.insert(out.end(), rev.rbegin(), rev.rend());
}

void route_updown_switches(const Topology &t, int s, int d, std::vector<int> &out)
{
    out.clear();
    if (s != d) route_updown(t, s, d, out);
}

/* ---------------------------------------------------------------- fat-tree */
static void route_fattree(const Topology &t, int sh, int dh, std::vector<int> &out)
{
    if (t.kind != PM_TOPO_FATTREE) throw ArgError(PM_ERR_UNSUPPORTED, "fat-tree routing needs a fattree topology");
    int n = t.ft_n, h = t.ft_m / 2;
    const std::vector<int> &sp = t.nodes[sh].coord, &dp = t.nodes[dh].coord;
    int s = t.host_switch(sh);
    int alpha = 0;
    while (alpha < n - 1 && sp[alpha] == dp[alpha]) ++alpha;
    auto link_to = [&](int u, int v) {
        for (int l : t.nodes[u].ports)
            if (l >= 0 && (t.links[l].a == v || t.links[l].b == v)) return t.links[l].a == u ? 2 * l : 2 * l + 1;
        throw ArgError(PM_ERR_INTERNAL, "fat-tree link missing");
    };
    auto sw = [&](const std::vector<int> &w, int l) {
        std::string nm = coord_name("sw", w).append(".").append(std::to_string(l));
        return t.find(nm);
    };
    std::vector<int> w = t.nodes[s].coord;
    int cur = s;
    for (int l = n - 2; l >= alpha; --l) {           /* ascend: level l+1 -> l */
        w[l] = dp[l + 1] % h;
        int nx = sw(w, l);
        out.push_back(link_to(cur, nx));
        cur = nx;
    }
    for (int l = alpha; l < n - 1; ++l) {            /* descend: level l -> l+1 */
        w[l] = dp[l];
        int nx = sw(w, l + 1);
        out.push_back(link_to(cur, nx));
        cur = nx;
    }
}

static int host_dlink_out(const Topology &t, int host)
{
    for (int l : t.nodes[host].ports)
        if (l >= 0) return t.links[l].a == host ? 2 * l : 2 * l + 1;
    throw ArgError(PM_ERR_UNSUPPORTED, "host '" + t.nodes[host].name + "' is not connected");
}

void route(const Topology &t, pm_routing_t r, int src, int dst, std::vector<int> &out)
{
    out.clear();
    if (src == dst) return;
    if (r == PM_ROUTE_DEFAULT)
        r = t.kind == PM_TOPO_TORUS ? PM_ROUTE_DOR : t.kind == PM_TOPO_FATTREE ? PM_ROUTE_FATTREE : t.graph_routing;
    int inj = host_dlink_out(t, src);
    int ej = host_dlink_out(t, dst) ^ 1;
    int s = t.other_end(inj), d = t.from_end(ej);
    out.push_back(inj);
    if (s != d) {
        switch (r) {
        case PM_ROUTE_DOR: route_dor(t, s, d, out); break;
        case PM_ROUTE_UPDOWN: route_updown(t, s, d, out, dst); break;
        case PM_ROUTE_FATTREE: route_fattree(t, src, dst, out); break;
        case PM_ROUTE_MINHOP: route_minhop(t, s, d, out, dst); break;
        default: throw ArgError(PM_ERR_ARG, "unknown routing");
        }
    }
    out.push_back(ej);
}

/* ---------------------------------------------------------------- writer */
std::string write_ibnet(const Topology &t)
{
    std::ostringstream os;
    auto id = [&](int v) { return (t.nodes[v].is_host ? "H-" : "S-") + t.nodes[v].name; };
    auto desc = [&](int v) { return t.nodes[v].is_host ? t.nodes[v].name + " HCA-1" : t.nodes[v].name; };
    os << "#\n# Topology file: generated by coll_pathmc\n#\n";
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t v = 0; v < t.nodes.size(); ++v) {
            const Node &nd = t.nodes[v];
            if (nd.is_host != (pass == 1)) continue;
            os << "\n" << (nd.is_host ? "Ca" : "Switch") << "\t" << nd.ports.size() << " \"" << id((int)v)
               << "\"\t\t# \"" << desc((int)v) << "\"\n";
            for (size_t p = 0; p < nd.ports.size(); ++p) {
                int l = nd.ports[p];
                if (l < 0) continue;
                const Link &L = t.links[l];
                int peer = L.a == (int)v ? L.b : L.a;
                int pp = L.a == (int)v ? L.pb : L.pa;
                os << "[" << p + 1 << "]\t\"" << id(peer) << "\"[" << pp + 1 << "]\t\t# \"" << desc(peer)
                   << "\"\n";
            }
        }
    }
    return os.str();
}

}  // namespace pm
