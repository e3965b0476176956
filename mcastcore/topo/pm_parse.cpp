/*
 * Topology parsers: native format (grammar in pathmc.h), ibnetdiscover /
 * ibsim net files, Slurm topology.conf.  Every error is "file:line: message".
 *
 *   ibnetdiscover                               Slurm topology.conf
 *   Switch 24 "S-0002c9"  # "desc" lid 2        SwitchName=s0 Nodes=tux[01-04]
 *   [1] "H-0002c8"[1](2c8) # "node01 HCA-1"     SwitchName=s1 Nodes=tux[05-08,10]
 *   [2] "S-0002ca"[3]      # "desc"             SwitchName=top Switches=s[0-1]
 *   Ca 2 "H-0002c8"        # "node01 HCA-1"
 *   [1](2c8) "S-0002c9"[1] # lid 4 ...
 *
 * ibnet: a host (Ca/Hca) is named after the first word of its description
 * ("node01"), else its id without "H-"; its id is an alias.  Switches and
 * routers are named by their id.  Links to nodes that are never declared are
 * ignored (partial discoveries); a link listed at both ends must agree; every
 * host needs a link to a declared switch (a Ca block without one is an error at
 * its line), and a link between two hosts is an error.
 *
 * Bounds (pm_limits.h): every count is checked before the thing is built -- a
 * declared port count before its ports, a Slurm host list counted (and its
 * longest name measured) before it is expanded -- and every pass is linear in
 * the input plus what it builds.
 */
#include <algorithm>
#include <cctype>
#include <climits>
#include <cstring>
#include <set>
#include <sstream>

#include "topo/pm_internal.h"

namespace pm {

namespace {

[[noreturn]] void fail(const std::string &f, int line, const std::string &msg)
{
    throw ParseError(f + ":" + std::to_string(line) + ": " + msg);
}

std::string limit(const std::string &what, long lim)
{
    return what + " (limit " + std::to_string(lim) + ")";
}

/* Lines of a text, one at a time ('\r' dropped), each at most PM_MAX_LINE_BYTES. */
struct Lines {
    const std::string &text;
    const std::string &f;
    size_t at = 0;
    int ln = 0;   /* number of the line last returned */
    Lines(const std::string &t, const std::string &name) : text(t), f(name) {}
    bool next(std::string &line)
    {
        if (at >= text.size()) return false;
        size_t e = text.find('\n', at);
        if (e == std::string::npos) e = text.size();
        if (ln == INT_MAX) fail(f, ln, "too many lines");
        ++ln;
        if (e - at > (size_t) PM_MAX_LINE_BYTES) fail(f, ln, limit("line too long", PM_MAX_LINE_BYTES));
        line.assign(text, at, e - at);
        line.erase(std::remove(line.begin(), line.end(), '\r'), line.end());
        at = e + 1;
        return true;
    }
};

std::string strip_comment(const std::string &s)
{
    size_t p = s.find('#');
    return p == std::string::npos ? s : s.substr(0, p);
}

std::vector<std::string> tokens(const std::string &s)
{
    std::istringstream is(s);
    std::vector<std::string> out;
    std::string t;
    while (is >> t) out.push_back(t);
    return out;
}

bool parse_int(const std::string &s, long lo, long hi, long *v)
{
    if (s.empty() || s.size() > 12) return false;
    size_t i = 0;
    bool neg = false;
    if (s[0] == '-') { neg = true; i = 1; }
    if (i == s.size()) return false;
    long x = 0;
    for (; i < s.size(); ++i) {
        if (!isdigit((unsigned char)s[i])) return false;
        x = x * 10 + (s[i] - '0');
    }
    if (neg) x = -x;
    if (x < lo || x > hi) return false;
    *v = x;
    return true;
}

bool valid_name(const std::string &s)
{
    if (s.empty()) return false;
    for (char c : s)
        if (!isalnum((unsigned char)c) && !strchr("_.:/-", c)) return false;
    return true;
}

/* ------------------------------------------------------------- native */
std::unique_ptr<Topology> parse_native(Lines &L, const std::string &f)
{
    auto t = std::make_unique<Topology>();
    enum { NONE, TORUS, GRAPH, FAT } mode = NONE;
    std::map<int, int> host_line;
    int last = 0, routing_line = 0;
    for (std::string text; L.next(text);) {
        const int ln = L.ln;
        auto tk = tokens(strip_comment(text));
        if (tk.empty()) continue;
        last = ln;
        const std::string &kw = tk[0];
        try {
            if (kw == "torus") {
                if (mode != NONE) fail(f, ln, "'torus' must be the first statement");
                if (tk.size() < 2 || tk.size() > 4) fail(f, ln, "usage: torus KxK... [mesh|torus] [unidirectional|bidirectional]");
                std::vector<int> dims;
                std::string ds = tk[1];
                size_t p = 0;
                while (true) {
                    size_t q = ds.find('x', p);
                    long v;
                    if (!parse_int(ds.substr(p, q == std::string::npos ? std::string::npos : q - p), 2, 4096, &v))
                        fail(f, ln, "bad dimensions '" + ds + "' (expected e.g. 4x4, sizes 2..4096)");
                    dims.push_back((int)v);
                    if (dims.size() > PM_MAX_DIMS) fail(f, ln, "more than " + std::to_string(PM_MAX_DIMS) + " dimensions");
                    if (q == std::string::npos) break;
                    p = q + 1;
                }
                bool wrap = true, bidir = true;
                for (size_t k = 2; k < tk.size(); ++k) {
                    if (tk[k] == "mesh") wrap = false;
                    else if (tk[k] == "torus") wrap = true;
                    else if (tk[k] == "unidirectional") bidir = false;
                    else if (tk[k] == "bidirectional") bidir = true;
                    else fail(f, ln, "unknown torus option '" + tk[k] + "'");
                }
                if (!wrap && !bidir) fail(f, ln, "a unidirectional mesh is not connected");
                build_torus(*t, dims, wrap, bidir);
                mode = TORUS;
            } else if (kw == "fattree") {
                if (mode != NONE) fail(f, ln, "'fattree' must be the first statement");
                long m, n;
                if (tk.size() != 3 || !parse_int(tk[1], 2, 256, &m) || !parse_int(tk[2], 1, 8, &n))
                    fail(f, ln, "usage: fattree M N (even M >= 2, 1 <= N <= 8)");
                build_fattree(*t, (int)m, (int)n);
                mode = FAT;
            } else if (kw == "host") {
                if (tk.size() < 2 || !valid_name(tk[1])) fail(f, ln, "usage: host NAME [coords...]");
                if (mode == TORUS) {
                    size_t nd = t->dims.size();
                    if (tk.size() != 2 + nd) fail(f, ln, "host needs " + std::to_string(nd) + " coordinates");
                    std::vector<int> c(nd);
                    for (size_t d = 0; d < nd; ++d) {
                        long v;
                        if (!parse_int(tk[2 + d], 0, t->dims[d] - 1, &v))
                            fail(f, ln, "coordinate '" + tk[2 + d] + "' out of range 0.." + std::to_string(t->dims[d] - 1));
                        c[d] = (int)v;
                    }
                    if (t->find(tk[1]) >= 0) fail(f, ln, "duplicate name '" + tk[1] + "'");
                    int h = t->add_node(tk[1], true, 1);
                    t->nodes[h].coord = c;
                    t->add_link(h, t->router_of_coord[t->linear(c)], PM_LINK_HOST);
                } else if (mode == NONE || mode == GRAPH) {
                    if (tk.size() != 2) fail(f, ln, "host coordinates are only allowed in torus files");
                    if (t->find(tk[1]) >= 0) fail(f, ln, "duplicate name '" + tk[1] + "'");
                    host_line[t->add_node(tk[1], true, 1)] = ln;
                    mode = GRAPH;
                } else {
                    fail(f, ln, "'host' is not allowed in fattree files");
                }
            } else if (kw == "switch") {
                if (mode != NONE && mode != GRAPH) fail(f, ln, "'switch' is only allowed in graph files");
                long ports = 0;
                if (tk.size() < 2 || tk.size() > 3 || !valid_name(tk[1]) ||
                    (tk.size() == 3 && !parse_int(tk[2], 1, 4096, &ports)))
                    fail(f, ln, "usage: switch NAME [PORTS]");
                if (t->find(tk[1]) >= 0) fail(f, ln, "duplicate name '" + tk[1] + "'");
                t->add_node(tk[1], false, (int)ports);
                mode = GRAPH;
            } else if (kw == "routing") {
                if (mode == TORUS || mode == FAT) fail(f, ln, "'routing' is only allowed in graph files");
                if (tk.size() != 2 || (tk[1] != "updown" && tk[1] != "minhop"))
                    fail(f, ln, "usage: routing updown|minhop");
                if (routing_line) fail(f, ln, "second 'routing' statement");
                routing_line = ln;
                t->graph_routing = tk[1] == "minhop" ? PM_ROUTE_MINHOP : PM_ROUTE_UPDOWN;
                mode = GRAPH;
            } else if (kw == "link") {
                if (mode != NONE && mode != GRAPH) fail(f, ln, "'link' is only allowed in graph files");
                long cls = -1;
                if (tk.size() < 3 || tk.size() > 4 || (tk.size() == 4 && !parse_int(tk[3], 0, 1000000, &cls)))
                    fail(f, ln, "usage: link NAME NAME [CLASS]");
                int a = t->find(tk[1]), b = t->find(tk[2]);
                if (a < 0) fail(f, ln, "unknown node '" + tk[1] + "'");
                if (b < 0) fail(f, ln, "unknown node '" + tk[2] + "'");
                if (a == b) fail(f, ln, "link from '" + tk[1] + "' to itself");
                for (int v : {a, b}) {
                    const Node &nd = t->nodes[v];
                    if (nd.is_host && std::count_if(nd.ports.begin(), nd.ports.end(), [](int l) { return l >= 0; }))
                        fail(f, ln, "host '" + nd.name + "' already has a link");
                }
                bool hostlink = t->nodes[a].is_host || t->nodes[b].is_host;
                if (t->nodes[a].is_host && t->nodes[b].is_host) fail(f, ln, "link between two hosts");
                for (int v : {a, b}) {
                    const Node &nd = t->nodes[v];
                    if (!nd.is_host && nd.fixed_ports && t->free_port(v) < 0)
                        fail(f, ln, "switch '" + nd.name + "' has no free port");
                }
                t->add_link(a, b, cls >= 0 ? (int)cls : hostlink ? PM_LINK_HOST : PM_LINK_SWITCH);
                mode = GRAPH;
            } else {
                fail(f, ln, "unknown statement '" + kw + "'");
            }
        } catch (const ArgError &e) {
            fail(f, ln, e.what());
        }
    }
    if (mode == NONE) fail(f, last ? last : 1, "empty topology: no torus, fattree, switch or host statement");
    if (mode == TORUS && t->hosts.empty()) {
        for (size_t i = 0; i < t->router_of_coord.size(); ++i) {
            int r = t->router_of_coord[i];
            std::vector<int> c = t->nodes[r].coord;
            std::string nm = "n";
            for (size_t d = 0; d < c.size(); ++d) nm += (d ? "-" : "") + std::to_string(c[d]);
            int h = t->add_node(nm, true, 1);
            t->nodes[h].coord = c;
            t->add_link(h, r, PM_LINK_HOST);
        }
    }
    if (mode == GRAPH) {
        if (t->switches.empty()) fail(f, last, "graph topology without switches");
        for (auto &hl : host_line)
            if (t->host_switch(hl.first) < 0) fail(f, hl.second, "host '" + t->nodes[hl.first].name + "' has no link");
    }
    return t;
}

/* ------------------------------------------------------------- ibnetdiscover */
bool is_ib_header(const std::vector<std::string> &tk)
{
    static const std::set<std::string> kinds{"Switch", "Ca", "Hca", "Rt"};
    long v;
    return tk.size() >= 3 && kinds.count(tk[0]) && parse_int(tk[1], 0, 100000, &v) && tk[2][0] == '"';
}

/* Read a quoted string at s[p] == '"'; returns position after the closing quote. */
size_t read_quoted(const std::string &s, size_t p, std::string *out)
{
    size_t q = s.find('"', p + 1);
    if (q == std::string::npos) return std::string::npos;
    *out = s.substr(p + 1, q - p - 1);
    return q + 1;
}

std::unique_ptr<Topology> parse_ibnet(Lines &L, const std::string &f)
{
    struct IbNode { std::string id, desc; bool host; int nports, line; };
    struct IbPort { int node; int port; std::string peer; int peer_port; int line; };
    std::vector<IbNode> nodes;
    std::map<std::string, size_t> idx;
    std::vector<IbPort> ports;
    std::map<std::pair<int, int>, size_t> port_at;   /* (node index, port) -> ports[] */
    long nhosts = 0, nswitches = 0, nports_total = 0;
    int cur = -1, last = 0;
    for (std::string s; L.next(s);) {
        const int ln = L.ln;
        size_t b = s.find_first_not_of(" \t");
        if (b == std::string::npos || s[b] == '#') continue;
        s = s.substr(b);
        auto tk = tokens(s);
        if (tk.empty()) continue;   /* only other white space (\v, \f): found by fuzzing */
        last = ln;
        size_t eq = tk[0].find('=');
        if (eq != std::string::npos && eq > 0 && isalpha((unsigned char)tk[0][0])) continue; /* vendid=, ... */
        if (is_ib_header(tk)) {
            IbNode nd;
            size_t p = s.find('"');
            p = read_quoted(s, p, &nd.id);
            if (p == std::string::npos || nd.id.empty()) fail(f, ln, "unterminated or empty node id");
            if (nd.id.size() > PM_MAX_NAME_BYTES) fail(f, ln, limit("node id too long", PM_MAX_NAME_BYTES));
            size_t h = s.find('#', p);
            if (h != std::string::npos) {
                size_t q = s.find('"', h);
                if (q != std::string::npos && read_quoted(s, q, &nd.desc) == std::string::npos)
                    fail(f, ln, "unterminated node description");
            }
            nd.host = tk[0] == "Ca" || tk[0] == "Hca";
            nd.nports = atoi(tk[1].c_str());
            nd.line = ln;
            if (nd.host ? ++nhosts > PM_MAX_HOSTS : ++nswitches > PM_MAX_SWITCHES)
                fail(f, ln, limit(nd.host ? "too many hosts" : "too many switches",
                                  nd.host ? PM_MAX_HOSTS : PM_MAX_SWITCHES));
            if (nd.nports > PM_MAX_DECLARED_PORTS)
                fail(f, ln, limit(std::to_string(nd.nports) + " ports declared", PM_MAX_DECLARED_PORTS));
            if ((nports_total += nd.nports) > PM_MAX_PORTS) fail(f, ln, limit("too many ports", PM_MAX_PORTS));
            if (idx.count(nd.id)) fail(f, ln, "duplicate node \"" + nd.id + "\"");
            idx[nd.id] = nodes.size();
            cur = (int)nodes.size();
            nodes.push_back(nd);
            continue;
        }
        if (s[0] == '[') {
            if (cur < 0) fail(f, ln, "port line before any Switch/Ca block");
            size_t rb = s.find(']');
            long port, pport;
            if (rb == std::string::npos || !parse_int(s.substr(1, rb - 1), 1, 100000, &port))
                fail(f, ln, "bad port number");
            size_t p = rb + 1;
            if (p < s.size() && s[p] == '(') {
                p = s.find(')', p);
                if (p == std::string::npos) fail(f, ln, "unterminated port guid");
                ++p;
            }
            p = s.find_first_not_of(" \t", p);
            if (p == std::string::npos || s[p] != '"') fail(f, ln, "expected \"peer\"[port] after the port number");
            IbPort ip;
            p = read_quoted(s, p, &ip.peer);
            if (p == std::string::npos || ip.peer.empty()) fail(f, ln, "unterminated or empty peer id");
            if (p >= s.size() || s[p] != '[') fail(f, ln, "expected [port] after the peer id");
            rb = s.find(']', p);
            if (rb == std::string::npos || !parse_int(s.substr(p + 1, rb - p - 1), 1, 100000, &pport))
                fail(f, ln, "bad peer port number");
            if (port > nodes[cur].nports)
                fail(f, ln, "port " + std::to_string(port) + " exceeds the " + std::to_string(nodes[cur].nports) +
                                " ports of \"" + nodes[cur].id + "\"");
            ip.node = cur;
            ip.port = (int)port;
            ip.peer_port = (int)pport;
            ip.line = ln;
            auto key = std::make_pair(cur, ip.port);
            if (port_at.count(key)) fail(f, ln, "port " + std::to_string(port) + " listed twice");
            port_at[key] = ports.size();
            ports.push_back(std::move(ip));
            continue;
        }
        fail(f, ln, "unrecognized line (expected Switch/Ca block or [port] line)");
    }
    if (nodes.empty()) fail(f, last ? last : 1, "empty topology: no Switch or Ca block");
    auto t = std::make_unique<Topology>();
    std::vector<int> nid(nodes.size());
    for (int pass = 0; pass < 2; ++pass) {   /* switches first: lowest switch id = first switch */
        for (size_t i = 0; i < nodes.size(); ++i) {
            const IbNode &nd = nodes[i];
            if (nd.host != (pass == 1)) continue;
            std::string name = nd.id;
            if (nd.host) {
                auto words = tokens(nd.desc);
                if (!words.empty()) name = words[0];
                else if (name.rfind("H-", 0) == 0 && name.size() > 2) name = name.substr(2);
                if (t->find(name) >= 0) name = nd.id;
            }
            if (t->find(name) >= 0) fail(f, nd.line, "duplicate node name '" + name + "'");
            try {
                nid[i] = t->add_node(name, nd.host, nd.nports);
            } catch (const ArgError &e) {
                fail(f, nd.line, e.what());
            }
            if (name != nd.id && t->find(nd.id) < 0) t->by_name[nd.id] = nid[i];
        }
    }
    std::set<std::pair<int, int>> done;   /* (node index, port) already linked */
    for (const IbPort &ip : ports) {
        if (done.count({ip.node, ip.port})) continue;
        auto pi = idx.find(ip.peer);
        if (pi == idx.end()) continue;
        const int peer_i = (int)pi->second;
        const IbNode &me = nodes[ip.node], &peer = nodes[peer_i];
        if (ip.peer_port > peer.nports)
            fail(f, ip.line, "peer port " + std::to_string(ip.peer_port) + " exceeds the ports of \"" + peer.id + "\"");
        auto back = port_at.find({peer_i, ip.peer_port});
        if (back != port_at.end()) {
            const IbPort &bp = ports[back->second];
            if (bp.peer != me.id || bp.peer_port != ip.port)
                fail(f, std::max(ip.line, bp.line), "inconsistent link: \"" + me.id + "\"[" + std::to_string(ip.port) +
                                                        "] and \"" + peer.id + "\"[" + std::to_string(bp.port) + "]");
        }
        if (peer_i == ip.node) fail(f, ip.line, "link from a node to itself");
        if (me.host && peer.host) fail(f, ip.line, "link between two hosts \"" + me.id + "\" and \"" + peer.id + "\"");
        done.insert({ip.node, ip.port});
        done.insert({peer_i, ip.peer_port});
        int cls = (me.host || peer.host) ? PM_LINK_HOST : PM_LINK_SWITCH;
        try {
            t->add_link(nid[ip.node], nid[peer_i], cls, ip.port - 1, ip.peer_port - 1);
        } catch (const ArgError &e) {
            fail(f, ip.line, e.what());
        }
    }
    for (size_t i = 0; i < nodes.size(); ++i)   /* the orderings and routes need every host linked */
        if (nodes[i].host && t->host_switch(nid[i]) < 0)
            fail(f, nodes[i].line, "host \"" + nodes[i].id + "\" has no link to a declared switch");
    return t;
}

/* ------------------------------------------------------------- Slurm */
/* A Slurm host list, "tux[01-03,7],a[1-2]b[0-1]": items separated by commas
 * outside brackets; an item is literal text with at most PM_MAX_SLURM_BRACKETS
 * bracket groups of numbers and ranges A-B (a zero-padded A sets the width).
 * Parsed into ranges first: count() and longest() say how many names and how long
 * before each() makes one (the first group varies slowest). */
struct HostList {
    struct Range { long lo, hi; size_t width; };
    struct Group { std::string lit; std::vector<Range> ranges; };   /* text, then a bracket group (or none) */
    std::vector<std::vector<Group>> items;

    HostList(const std::string &s, const std::string &f, int ln)
    {
        size_t i = 0;
        if (s.empty()) fail(f, ln, "empty host list");
        while (i <= s.size()) {
            std::vector<Group> item(1);
            size_t start = i;
            while (i < s.size() && s[i] != ',') {
                char c = s[i];
                if (c == ']') fail(f, ln, "unmatched ']' in '" + s + "'");
                if (c != '[') {
                    if (!isalnum((unsigned char)c) && !strchr("_.:/-", c)) fail(f, ln, "bad host name in '" + s + "'");
                    item.back().lit += c;
                    ++i;
                    continue;
                }
                size_t rb = s.find(']', i);
                if (rb == std::string::npos) fail(f, ln, "unterminated '[' in '" + s + "'");
                if (s.find('[', i + 1) < rb) fail(f, ln, "nested '[' in '" + s + "'");
                if (item.size() > PM_MAX_SLURM_BRACKETS)
                    fail(f, ln, limit("too many [] groups in '" + s + "'", PM_MAX_SLURM_BRACKETS));
                parse_ranges(s.substr(i + 1, rb - i - 1), item.back().ranges, s, f, ln);
                item.emplace_back();
                i = rb + 1;
            }
            if (i == start) fail(f, ln, "empty item in host list '" + s + "'");
            if (item.back().lit.empty() && item.size() > 1) item.pop_back();
            items.push_back(std::move(item));
            ++i;   /* past the ',' (or the end) */
            if (i == s.size()) fail(f, ln, "empty item in host list '" + s + "'");
        }
    }

    static void parse_ranges(const std::string &body, std::vector<Range> &out, const std::string &s,
                             const std::string &f, int ln)
    {
        size_t p = 0;
        do {
            size_t c = body.find(',', p);
            std::string part = body.substr(p, c == std::string::npos ? std::string::npos : c - p);
            size_t dash = part.find('-');
            std::string a = part.substr(0, dash), bstr = dash == std::string::npos ? a : part.substr(dash + 1);
            long lo, hi;
            if (!parse_int(a, 0, 99999999, &lo) || !parse_int(bstr, 0, 99999999, &hi) || hi < lo || a[0] == '-')
                fail(f, ln, "bad range '" + part + "' in '" + s + "'");
            out.push_back({lo, hi, a.size() > 1 && a[0] == '0' ? a.size() : 0});
            p = c == std::string::npos ? c : c + 1;
        } while (p != std::string::npos);
    }

    /* Names in the list, or cap + 1 when more than cap. */
    long count(long cap) const
    {
        long total = 0;
        for (const auto &item : items) {
            long prod = 1;
            for (const Group &g : item) {
                if (g.ranges.empty()) continue;
                long sum = 0;
                for (const Range &r : g.ranges) sum = std::min(cap + 1, sum + (r.hi - r.lo + 1));
                prod = prod > (cap + 1) / sum ? cap + 1 : prod * sum;
            }
            total = std::min(cap + 1, total + prod);
        }
        return total;
    }

    size_t longest() const
    {
        size_t best = 0;
        for (const auto &item : items) {
            size_t len = 0;
            for (const Group &g : item) {
                size_t w = 0;
                for (const Range &r : g.ranges) w = std::max({w, r.width, std::to_string(r.hi).size()});
                len += g.lit.size() + w;
            }
            best = std::max(best, len);
        }
        return best;
    }

    template <class F> void each(F &&fn) const
    {
        for (const auto &item : items) {
            /* odometer: per group the range index and the value, last group fastest */
            std::vector<std::pair<size_t, long>> at(item.size());
            for (size_t g = 0; g < item.size(); ++g) at[g] = {0, item[g].ranges.empty() ? 0 : item[g].ranges[0].lo};
            for (;;) {
                std::string name;
                for (size_t g = 0; g < item.size(); ++g) {
                    name += item[g].lit;
                    if (item[g].ranges.empty()) continue;
                    std::string num = std::to_string(at[g].second);
                    size_t w = item[g].ranges[at[g].first].width;
                    if (num.size() < w) name.append(w - num.size(), '0');
                    name += num;
                }
                fn(name);
                size_t g = item.size();
                while (g-- > 0) {
                    const auto &rs = item[g].ranges;
                    if (rs.empty()) continue;
                    if (at[g].second < rs[at[g].first].hi) { ++at[g].second; break; }
                    if (at[g].first + 1 < rs.size()) { ++at[g].first; at[g].second = rs[at[g].first].lo; break; }
                    at[g] = {0, rs[0].lo};
                }
                if (g == (size_t)-1) break;
            }
        }
    }
};

std::string lower(std::string s)
{
    for (auto &c : s) c = (char)tolower((unsigned char)c);
    return s;
}

std::unique_ptr<Topology> parse_slurm(Lines &L, const std::string &f)
{
    /* Host lists are counted and measured here, and expanded only while building. */
    struct Sw { std::string name; std::vector<HostList> subs, nodes; int line; };
    std::vector<Sw> sws;
    std::map<std::string, size_t> idx;
    long nhosts = 0, nlinks = 0;
    int last = 0;
    for (std::string text; L.next(text);) {
        const int ln = L.ln;
        auto tk = tokens(strip_comment(text));
        if (tk.empty()) continue;
        last = ln;
        Sw sw;
        sw.line = ln;
        for (auto &tok : tk) {
            size_t eq = tok.find('=');
            if (eq == std::string::npos || eq == 0) fail(f, ln, "expected Key=Value, got '" + tok + "'");
            std::string key = lower(tok.substr(0, eq)), val = tok.substr(eq + 1);
            if (key == "switchname") {
                if (!valid_name(val)) fail(f, ln, "bad switch name '" + val + "'");
                if (val.size() > PM_MAX_NAME_BYTES) fail(f, ln, limit("switch name too long", PM_MAX_NAME_BYTES));
                sw.name = val;
            } else if (key == "switches" || key == "nodes") {
                HostList hl(val, f, ln);
                bool hosts = key == "nodes";
                long &used = hosts ? nhosts : nlinks;
                long cap = hosts ? PM_MAX_HOSTS : PM_MAX_LINKS;
                long n = hl.count(cap - used);
                if (n > cap - used)
                    fail(f, ln, limit(hosts ? "too many hosts" : "too many switch links", cap));
                if (hl.longest() > PM_MAX_NAME_BYTES) fail(f, ln, limit("host name too long", PM_MAX_NAME_BYTES));
                used += n;
                (hosts ? sw.nodes : sw.subs).push_back(std::move(hl));
            }   /* LinkSpeed= and other keys are ignored */
        }
        if (sw.name.empty()) fail(f, ln, "line without SwitchName=");
        if (idx.count(sw.name)) fail(f, ln, "duplicate switch '" + sw.name + "'");
        if ((long)sws.size() >= PM_MAX_SWITCHES) fail(f, ln, limit("too many switches", PM_MAX_SWITCHES));
        idx[sw.name] = sws.size();
        sws.push_back(std::move(sw));
    }
    if (sws.empty()) fail(f, last ? last : 1, "empty topology: no SwitchName= line");
    auto t = std::make_unique<Topology>();
    for (auto &sw : sws) t->add_node(sw.name, false, 0);
    for (auto &sw : sws) {
        int a = t->find(sw.name);
        try {
            for (auto &hl : sw.subs)
                hl.each([&](const std::string &sub) {
                    if (!idx.count(sub)) fail(f, sw.line, "unknown switch '" + sub + "'");
                    if (sub == sw.name) fail(f, sw.line, "switch '" + sub + "' lists itself");
                    t->add_link(a, t->find(sub), PM_LINK_SWITCH);
                });
            for (auto &hl : sw.nodes)
                hl.each([&](const std::string &hn) {
                    int h = t->find(hn);
                    if (h >= 0 && !t->nodes[h].is_host) fail(f, sw.line, "'" + hn + "' is a switch name");
                    if (h >= 0) fail(f, sw.line, "node '" + hn + "' is attached to two switches");
                    h = t->add_node(hn, true, 1);
                    t->add_link(h, a, PM_LINK_HOST);
                });
        } catch (const ArgError &e) {
            fail(f, sw.line, e.what());
        }
    }
    return t;
}

}  // namespace

std::unique_ptr<Topology> parse_topology(const std::string &text, pm_format_t fmt, const std::string &fname)
{
    if (fmt == PM_FMT_AUTO) {
        fmt = PM_FMT_NATIVE;
        Lines D(text, fname);
        for (std::string line; D.next(line);) {
            auto tk = tokens(line);
            if (tk.empty() || tk[0][0] == '#') continue;
            std::string low = lower(tk[0]);
            if (low.rfind("switchname=", 0) == 0) fmt = PM_FMT_SLURM;
            else if (is_ib_header(tk) || low.find('=') != std::string::npos) fmt = PM_FMT_IBNET;
            break;
        }
    }
    Lines L(text, fname);
    std::unique_ptr<Topology> t;
    switch (fmt) {
    case PM_FMT_NATIVE: t = parse_native(L, fname); break;
    case PM_FMT_IBNET: t = parse_ibnet(L, fname); break;
    case PM_FMT_SLURM: t = parse_slurm(L, fname); break;
    default: throw ArgError(PM_ERR_ARG, "unknown format");
    }
    /* Computed now, so that a parsed topology only changes through
     * pm_topology_set_updown_root and routing caches: pm_order_hosts and the
     * queries read it without writing (several threads may share it). */
    if (!t->switches.empty()) updown_prepare(*t);
    return t;
}

}  // namespace pm
