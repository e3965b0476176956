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
 * ignored (partial discoveries); a link listed at both ends must agree.
 */
#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>
#include <sstream>

#include "pm_internal.h"

namespace pm {

namespace {

struct Lines {
    std::vector<std::string> v;
    explicit Lines(const std::string &text)
    {
        std::string cur;
        for (char ch : text) {
            if (ch == '\n') { v.push_back(cur); cur.clear(); }
            else if (ch != '\r') cur += ch;
        }
        if (!cur.empty()) v.push_back(cur);
    }
};

[[noreturn]] void fail(const std::string &f, int line, const std::string &msg)
{
    throw ParseError(f + ":" + std::to_string(line) + ": " + msg);
}

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
std::unique_ptr<Topology> parse_native(const Lines &L, const std::string &f)
{
    auto t = std::make_unique<Topology>();
    enum { NONE, TORUS, GRAPH, FAT } mode = NONE;
    std::map<int, int> host_line;
    int last = 0;
    for (size_t i = 0; i < L.v.size(); ++i) {
        int ln = (int)i + 1;
        auto tk = tokens(strip_comment(L.v[i]));
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
                    if (!nd.is_host && nd.fixed_ports &&
                        std::none_of(nd.ports.begin(), nd.ports.end(), [](int l) { return l < 0; }))
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

std::unique_ptr<Topology> parse_ibnet(const Lines &L, const std::string &f)
{
    struct IbNode { std::string id, desc; bool host; int nports, line; };
    struct IbPort { std::string node; int port; std::string peer; int peer_port; int line; };
    std::vector<IbNode> nodes;
    std::map<std::string, size_t> idx;
    std::vector<IbPort> ports;
    std::map<std::pair<std::string, int>, size_t> port_at;
    int cur = -1, last = 0;
    for (size_t i = 0; i < L.v.size(); ++i) {
        int ln = (int)i + 1;
        std::string s = L.v[i];
        size_t b = s.find_first_not_of(" \t");
        if (b == std::string::npos || s[b] == '#') continue;
        s = s.substr(b);
        last = ln;
        auto tk = tokens(s);
        size_t eq = tk[0].find('=');
        if (eq != std::string::npos && eq > 0 && isalpha((unsigned char)tk[0][0])) continue; /* vendid=, ... */
        if (is_ib_header(tk)) {
            IbNode nd;
            size_t p = s.find('"');
            p = read_quoted(s, p, &nd.id);
            if (p == std::string::npos || nd.id.empty()) fail(f, ln, "unterminated or empty node id");
            size_t h = s.find('#', p);
            if (h != std::string::npos) {
                size_t q = s.find('"', h);
                if (q != std::string::npos && read_quoted(s, q, &nd.desc) == std::string::npos)
                    fail(f, ln, "unterminated node description");
            }
            nd.host = tk[0] == "Ca" || tk[0] == "Hca";
            nd.nports = atoi(tk[1].c_str());
            nd.line = ln;
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
            ip.node = nodes[cur].id;
            ip.port = (int)port;
            ip.peer_port = (int)pport;
            ip.line = ln;
            auto key = std::make_pair(ip.node, ip.port);
            if (port_at.count(key)) fail(f, ln, "port " + std::to_string(port) + " listed twice");
            port_at[key] = ports.size();
            ports.push_back(ip);
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
                if (!nd.desc.empty()) name = tokens(nd.desc).empty() ? nd.id : tokens(nd.desc)[0];
                else if (name.rfind("H-", 0) == 0 && name.size() > 2) name = name.substr(2);
                if (t->find(name) >= 0) name = nd.id;
            }
            if (t->find(name) >= 0) fail(f, nd.line, "duplicate node name '" + name + "'");
            nid[i] = t->add_node(name, nd.host, nd.nports);
            if (name != nd.id && t->find(nd.id) < 0) t->by_name[nd.id] = nid[i];
        }
    }
    std::set<std::pair<std::string, int>> done;
    for (const IbPort &ip : ports) {
        if (done.count({ip.node, ip.port})) continue;
        auto pi = idx.find(ip.peer);
        if (pi == idx.end()) continue;
        const IbNode &peer = nodes[pi->second];
        if (ip.peer_port > peer.nports)
            fail(f, ip.line, "peer port " + std::to_string(ip.peer_port) + " exceeds the ports of \"" + peer.id + "\"");
        auto back = port_at.find({ip.peer, ip.peer_port});
        if (back != port_at.end()) {
            const IbPort &bp = ports[back->second];
            if (bp.peer != ip.node || bp.peer_port != ip.port)
                fail(f, std::max(ip.line, bp.line), "inconsistent link: \"" + ip.node + "\"[" + std::to_string(ip.port) +
                                                        "] and \"" + bp.node + "\"[" + std::to_string(bp.port) + "]");
        }
        if (ip.peer == ip.node) fail(f, ip.line, "link from a node to itself");
        done.insert({ip.node, ip.port});
        done.insert({ip.peer, ip.peer_port});
        const IbNode &me = nodes[idx[ip.node]];
        int cls = (me.host || peer.host) ? PM_LINK_HOST : PM_LINK_SWITCH;
        try {
            t->add_link(nid[idx[ip.node]], nid[pi->second], cls, ip.port - 1, ip.peer_port - 1);
        } catch (const ArgError &e) {
            fail(f, ip.line, e.what());
        }
    }
    return t;
}

/* ------------------------------------------------------------- Slurm */
/* Expand a Slurm hostlist: "tux[01-03,7],a[1-2]b[0-1]" */
void expand_one(const std::string &item, std::vector<std::string> &out, const std::string &f, int ln)
{
    size_t lb = item.find('[');
    if (lb == std::string::npos) {
        if (item.find(']') != std::string::npos || !valid_name(item)) fail(f, ln, "bad host name '" + item + "'");
        out.push_back(item);
        return;
    }
    size_t rb = item.find(']', lb);
    if (rb == std::string::npos) fail(f, ln, "unterminated '[' in '" + item + "'");
    std::string pre = item.substr(0, lb), body = item.substr(lb + 1, rb - lb - 1), post = item.substr(rb + 1);
    std::vector<std::string> rest;
    if (post.empty()) rest.push_back("");
    else expand_one(post, rest, f, ln);
    std::stringstream bs(body);
    std::string part;
    bool any = false;
    while (std::getline(bs, part, ',')) {
        any = true;
        size_t dash = part.find('-');
        std::string a = part.substr(0, dash), bstr = dash == std::string::npos ? a : part.substr(dash + 1);
        long lo, hi;
        if (!parse_int(a, 0, 99999999, &lo) || !parse_int(bstr, 0, 99999999, &hi) || hi < lo || hi - lo > 1000000)
            fail(f, ln, "bad range '" + part + "' in '" + item + "'");
        size_t width = a.size() > 1 && a[0] == '0' ? a.size() : 0;
        for (long v = lo; v <= hi; ++v) {
            std::string num = std::to_string(v);
            if (num.size() < width) num = std::string(width - num.size(), '0') + num;
            for (auto &r : rest) out.push_back(pre + num + r);
        }
    }
    if (!any) fail(f, ln, "empty range in '" + item + "'");
}

std::vector<std::string> expand_hostlist(const std::string &s, const std::string &f, int ln)
{
    std::vector<std::string> out;
    int depth = 0;
    std::string cur;
    for (char c : s) {
        if (c == '[') ++depth;
        if (c == ']') --depth;
        if (c == ',' && depth == 0) {
            if (cur.empty()) fail(f, ln, "empty item in host list '" + s + "'");
            expand_one(cur, out, f, ln);
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (cur.empty()) fail(f, ln, "empty host list");
    expand_one(cur, out, f, ln);
    return out;
}

std::string lower(std::string s)
{
    for (auto &c : s) c = (char)tolower((unsigned char)c);
    return s;
}

std::unique_ptr<Topology> parse_slurm(const Lines &L, const std::string &f)
{
    struct Sw { std::string name; std::vector<std::string> subs, nodes; int line; };
    std::vector<Sw> sws;
    std::map<std::string, size_t> idx;
    int last = 0;
    for (size_t i = 0; i < L.v.size(); ++i) {
        int ln = (int)i + 1;
        auto tk = tokens(strip_comment(L.v[i]));
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
                sw.name = val;
            } else if (key == "switches") {
                sw.subs = expand_hostlist(val, f, ln);
            } else if (key == "nodes") {
                sw.nodes = expand_hostlist(val, f, ln);
            }   /* LinkSpeed= and other keys are ignored */
        }
        if (sw.name.empty()) fail(f, ln, "line without SwitchName=");
        if (idx.count(sw.name)) fail(f, ln, "duplicate switch '" + sw.name + "'");
        idx[sw.name] = sws.size();
        sws.push_back(sw);
    }
    if (sws.empty()) fail(f, last ? last : 1, "empty topology: no SwitchName= line");
    auto t = std::make_unique<Topology>();
    for (auto &sw : sws) t->add_node(sw.name, false, 0);
    for (auto &sw : sws) {
        int a = t->find(sw.name);
        for (auto &sub : sw.subs) {
            if (!idx.count(sub)) fail(f, sw.line, "unknown switch '" + sub + "'");
            if (sub == sw.name) fail(f, sw.line, "switch '" + sub + "' lists itself");
            t->add_link(a, t->find(sub), PM_LINK_SWITCH);
        }
        for (auto &hn : sw.nodes) {
            int h = t->find(hn);
            if (h >= 0 && !t->nodes[h].is_host) fail(f, sw.line, "'" + hn + "' is a switch name");
            if (h >= 0) fail(f, sw.line, "node '" + hn + "' is attached to two switches");
            h = t->add_node(hn, true, 1);
            t->add_link(h, a, PM_LINK_HOST);
        }
    }
    return t;
}

}  // namespace

std::unique_ptr<Topology> parse_topology(const std::string &text, pm_format_t fmt, const std::string &fname)
{
    Lines L(text);
    if (fmt == PM_FMT_AUTO) {
        fmt = PM_FMT_NATIVE;
        for (auto &line : L.v) {
            auto tk = tokens(line);
            if (tk.empty() || tk[0][0] == '#') continue;
            std::string low = lower(tk[0]);
            if (low.rfind("switchname=", 0) == 0) fmt = PM_FMT_SLURM;
            else if (is_ib_header(tk) || low.find('=') != std::string::npos) fmt = PM_FMT_IBNET;
            break;
        }
    }
    switch (fmt) {
    case PM_FMT_NATIVE: return parse_native(L, fname);
    case PM_FMT_IBNET: return parse_ibnet(L, fname);
    case PM_FMT_SLURM: return parse_slurm(L, fname);
    default: throw ArgError(PM_ERR_ARG, "unknown format");
    }
}

}  // namespace pm
