/*
 * mcast-inspect --fat-tree M,N: the cyclic multicast of seed 004 on IBFT(M, N)
 * (core: mcastcore/include/pm_fattree.h).
 *
 *   --lids NODE         LID set of P(NODE), space-separated (NODE as its digits: 300)
 *   --path SRC DST      the DLID P(SRC) uses for P(DST) (cyclic path selection) and
 *                       the route through the one-to-one tables, switch by switch
 *   --groups NODE       the cyclic groups of destination P(NODE)
 *   --group NODES       multicast tables of a member set for every scheme (cyclic per
 *                       source, cyclic InfiniBand group, OpenSM's shared tree, unicast),
 *                       the forwarding check and per-link loads; --picture draws one
 *   --write-ibnet/--write-guid2lid/--write-lfts/--write-mfts FILE
 *                       files for ibsim, OpenSM and comparison with dump_fts
 *   --compare-fts A B   two dump_fts (-M) files entry for entry (a fabric against the model)
 *   --trace-route FILE  an ibtracert trace in the --path route format
 *
 *   labels: P(300) and SW<20,1> as in the seed; --names prints p3-0-0 / sw2-0.1
 *   (the node descriptions of our net files, what ibtracert shows).
 *
 * Exit status as mcast-inspect: 0 success, 1 internal failure, 2 bad input;
 * --compare-fts: 3 when the tables differ.
 */
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <getopt.h>

#include "pm_fattree.h"

extern char **environ;

int mcast_inspect_fattree(int argc, char **argv);

namespace {

constexpr int EXIT_INTERNAL = 1;
constexpr int EXIT_INPUT = 2;

struct Fail : std::runtime_error {
    int status;
    Fail(int s, const std::string &m) : std::runtime_error(m), status(s) {}
};

int status_of(int rc)
{
    return (PM_ERR_NOMEM == rc || PM_ERR_INTERNAL == rc) ? EXIT_INTERNAL : EXIT_INPUT;
}

void core(int rc, const std::string &what)
{
    if (rc < 0) throw Fail(status_of(rc), what + " (core status " + std::to_string(rc) + ")");
}

struct Options {
    int m = 0, n = 0;
    std::string layout;                 /* "", seed, iba */
    std::string lids, groups_of;        /* NODE */
    std::string path_src, path_dst;
    std::string group, sources, scheme = "all", picture;
    std::string write_ibnet, write_guid2lid, write_lfts, write_mfts, mcast_groups, switch_lids;
    std::string compare_a, compare_b, trace;   /* --compare-fts A B, --trace-route FILE */
    bool names = false;
};

void usage(FILE *f)
{
    fprintf(f,
            "Usage: mcast-inspect --fat-tree M,N [--lid-layout seed|iba] [--names] ACTION\n"
            "Cyclic multicast on the m-port n-tree IBFT(M,N) (seed 004).  ACTION is one of:\n"
            "  --lids NODE            LID set of P(NODE), space-separated (NODE: 300, 3.0.0 or p3-0-0)\n"
            "  --path SRC DST         DLID SRC uses for DST and the route through the tables\n"
            "  --groups NODE          cyclic groups of destination P(NODE)\n"
            "  --group NODES          tables, forwarding check and link loads of a member set\n"
            "        [--sources NODES] senders (default: the first member)\n"
            "        [--scheme NAME]   cyclic|cyclic-group|opensm|unicast|all (default all)\n"
            "        [--picture OUT]   draw the loads of one scheme (cyclic if all): .dot, .svg, .png\n"
            "  --write-ibnet FILE     ibsim net file (deterministic GUIDs, names p3-0-0 / sw2-0.1)\n"
            "  --write-guid2lid FILE  OpenSM guid2lid with the model's LIDs\n"
            "  --write-lfts FILE      unicast tables in dump_fts format\n"
            "  --write-mfts FILE --mcast-groups SPEC   multicast tables in dump_fts -M format;\n"
            "                         SPEC lines: MLID MEMBERS [SOURCES] (comma lists or 'all');\n"
            "                         --scheme opensm writes OpenSM's own trees instead of the plugin's\n"
            "  --switch-lids GUID2LID switch LIDs for the written tables (default: after the nodes)\n"
            "  --compare-fts EXPECTED ACTUAL   two dump_fts (or dump_fts -M) files entry for entry,\n"
            "                         keyed by (switch GUID, LID); exit 0 equal, 3 different\n"
            "  --trace-route FILE     an ibtracert (-m) trace as a --names --path route line\n"
            "NODES: comma-separated nodes or 'all'.  LID layout: seed (BaseLID = 2^LMC PID + 1,\n"
            "the default for the analysis actions) or iba (BaseLID = 2^LMC (PID + 1), LMC-aligned:\n"
            "what OpenSM can assign; the default and the only choice for the --write actions).\n");
}

Options parse(int argc, char **argv)
{
    enum { O_FT = 1000, O_LAYOUT, O_NAMES, O_LIDS, O_PATH, O_GROUPS, O_GROUP, O_SOURCES, O_SCHEME, O_PICTURE,
           O_WNET, O_WG2L, O_WLFT, O_WMFT, O_MGROUPS, O_SWLIDS, O_COMPARE, O_TRACE };
    static const struct option longopts[] = {
        {"fat-tree", required_argument, nullptr, O_FT},     {"lid-layout", required_argument, nullptr, O_LAYOUT},
        {"names", no_argument, nullptr, O_NAMES},          {"lids", required_argument, nullptr, O_LIDS},
        {"path", required_argument, nullptr, O_PATH},      {"groups", required_argument, nullptr, O_GROUPS},
        {"group", required_argument, nullptr, O_GROUP},    {"sources", required_argument, nullptr, O_SOURCES},
        {"scheme", required_argument, nullptr, O_SCHEME},  {"picture", required_argument, nullptr, O_PICTURE},
        {"write-ibnet", required_argument, nullptr, O_WNET}, {"write-guid2lid", required_argument, nullptr, O_WG2L},
        {"write-lfts", required_argument, nullptr, O_WLFT}, {"write-mfts", required_argument, nullptr, O_WMFT},
        {"mcast-groups", required_argument, nullptr, O_MGROUPS},
        {"switch-lids", required_argument, nullptr, O_SWLIDS}, {"help", no_argument, nullptr, 'h'},
        {"compare-fts", required_argument, nullptr, O_COMPARE}, {"trace-route", required_argument, nullptr, O_TRACE},
        {nullptr, 0, nullptr, 0}};
    Options o;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, nullptr)) != -1) {
        switch (c) {
        case O_FT:
            if (sscanf(optarg, "%d,%d", &o.m, &o.n) != 2)
                throw Fail(EXIT_INPUT, std::string("--fat-tree: expected M,N, got '") + optarg + "'");
            break;
        case O_LAYOUT: o.layout = optarg; break;
        case O_NAMES: o.names = true; break;
        case O_LIDS: o.lids = optarg; break;
        case O_PATH:
            o.path_src = optarg;
            if (optind >= argc) throw Fail(EXIT_INPUT, "--path needs SRC and DST");
            o.path_dst = argv[optind++];
            break;
        case O_GROUPS: o.groups_of = optarg; break;
        case O_GROUP: o.group = optarg; break;
        case O_SOURCES: o.sources = optarg; break;
        case O_SCHEME: o.scheme = optarg; break;
        case O_PICTURE: o.picture = optarg; break;
        case O_WNET: o.write_ibnet = optarg; break;
        case O_WG2L: o.write_guid2lid = optarg; break;
        case O_WLFT: o.write_lfts = optarg; break;
        case O_WMFT: o.write_mfts = optarg; break;
        case O_MGROUPS: o.mcast_groups = optarg; break;
        case O_SWLIDS: o.switch_lids = optarg; break;
        case O_COMPARE:
            o.compare_a = optarg;
            if (optind >= argc) throw Fail(EXIT_INPUT, "--compare-fts needs EXPECTED and ACTUAL");
            o.compare_b = argv[optind++];
            break;
        case O_TRACE: o.trace = optarg; break;
        case 'h': usage(stdout); exit(0);
        default: throw Fail(EXIT_INPUT, std::string("unknown or incomplete option '") + argv[optind - 1] + "'");
        }
    }
    if (optind < argc) throw Fail(EXIT_INPUT, std::string("unexpected argument '") + argv[optind] + "'");
    return o;
}

/* ------------------------------------------------------------------ helpers */
struct Ctx {
    Options o;
    pm_ft_t ft;
};

std::string node_str(const Ctx &c, int pid)
{
    char b[64];
    if (c.o.names) {
        core(pm_ft_node_name(&c.ft, pid, b, sizeof(b)), "node name");
        return b;
    }
    core(pm_ft_node_label(&c.ft, pid, b, sizeof(b)), "node label");
    return std::string("P(") + b + ")";
}

std::string switch_str(const Ctx &c, int sw)
{
    char b[64];
    core(c.o.names ? pm_ft_switch_name(&c.ft, sw, b, sizeof(b)) : pm_ft_switch_label(&c.ft, sw, b, sizeof(b)),
         "switch label");
    return b;
}

int parse_node(const Ctx &c, const std::string &s)
{
    int pid = pm_ft_node_parse(&c.ft, s.c_str());
    if (pid < 0)
        throw Fail(EXIT_INPUT, "'" + s + "' is not a node of IBFT(" + std::to_string(c.ft.m) + "," +
                                   std::to_string(c.ft.n) + ")");
    return pid;
}

std::vector<int> parse_nodes(const Ctx &c, const std::string &list)
{
    std::vector<int> v;
    if (list == "all") {
        for (int i = 0; i < c.ft.nnodes; ++i) v.push_back(i);
        return v;
    }
    std::stringstream ss(list);
    std::string tok;
    while (std::getline(ss, tok, ','))
        if (!tok.empty()) v.push_back(parse_node(c, tok));
    if (v.empty()) throw Fail(EXIT_INPUT, "empty node list '" + list + "'");
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

std::string port_set(uint64_t set)
{
    std::string s = "{";
    for (int k = 0; k < 64; ++k)
        if (set >> k & 1) s += (s.size() > 1 ? ", " : "") + std::to_string(k);
    return s + "}";
}

void write_file(const std::string &path, const char *text)
{
    std::ofstream f(path);
    f << text;
    if (!f) throw Fail(EXIT_INTERNAL, "cannot write " + path);
}

std::string slurp(const std::string &path)
{
    std::ifstream f(path);
    if (!f) throw Fail(EXIT_INPUT, "cannot read " + path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::string dlink_str(const Ctx &c, int dl)
{
    int is_node, id, port;
    core(pm_ft_dlink_info(&c.ft, dl, &is_node, &id, &port), "link");
    if (is_node) {
        int sw, p;
        pm_ft_node_attach(&c.ft, id, &sw, &p);
        return node_str(c, id) + " -> " + switch_str(c, sw) + ":" + std::to_string(p);
    }
    pm_ft_peer_t pe;
    pm_ft_port_peer(&c.ft, id, port, &pe);
    return switch_str(c, id) + ":" + std::to_string(port) + " -> " +
           (pe.is_node ? node_str(c, pe.id) : switch_str(c, pe.id) + ":" + std::to_string(pe.port));
}

/* ------------------------------------------------------------------ actions */
void do_lids(const Ctx &c)
{
    int pid = parse_node(c, c.o.lids), base = pm_ft_base_lid(&c.ft, pid);
    for (int r = 0; r < c.ft.lids_per_node; ++r) printf("%s%d", r ? " " : "", base + r);
    printf("\n");
}

void do_path(const Ctx &c)
{
    int s = parse_node(c, c.o.path_src), d = parse_node(c, c.o.path_dst);
    if (s == d) throw Fail(EXIT_INPUT, "--path: source and destination are the same node");
    int lid = pm_ft_select_lid(&c.ft, s, d), level, suffix, len;
    core(lid, "select LID");
    std::vector<pm_ft_hop_t> hops(2 * PM_FT_MAX_N);
    int nh = 0;
    core(pm_ft_route(&c.ft, s, lid, hops.data(), (int) hops.size(), &nh), "route");
    core(pm_ft_cyclic_group(&c.ft, d, s, &level, &suffix, &len), "cyclic group");
    printf("dlid %d\n", lid);
    printf("route %s", node_str(c, s).c_str());
    for (int i = 0; i < nh; ++i)
        printf(" %s:%d>%d", switch_str(c, hops[i].sw).c_str(), hops[i].in_port, hops[i].out_port);
    printf(" %s\n", node_str(c, d).c_str());
    std::string y;
    for (int i = len - 1; i >= 0; --i) {
        int digit = suffix;
        for (int k = 0; k < i; ++k) digit /= c.ft.half;
        y += std::to_string(digit % c.ft.half) + (c.ft.m > 10 && i ? "." : "");
    }
    int base = pm_ft_base_lid(&c.ft, d);
    printf("lca level %d, cyclic group CG(%s, %d, %s), LID rank %d of %d..%d\n", level, node_str(c, d).c_str(), level,
           y.empty() ? "e" : y.c_str(), lid - base, base, base + c.ft.lids_per_node - 1);
}

void do_groups(const Ctx &c)
{
    int d = parse_node(c, c.o.groups_of);
    std::vector<int> out(c.ft.nnodes);
    printf("cyclic groups of destination %s (LIDs %d..%d):\n", node_str(c, d).c_str(), pm_ft_base_lid(&c.ft, d),
           pm_ft_base_lid(&c.ft, d) + c.ft.lids_per_node - 1);
    for (int level = 0; level < c.ft.n; ++level) {
        long groups = level == c.ft.n - 1 ? 1 : pm_ft_gcpg_size(&c.ft, level + 1);
        for (int y = 0; y < groups; ++y) {
            int count = 0;
            core(pm_ft_cyclic_group_members(&c.ft, d, level, y, out.data(), c.ft.nnodes, &count), "groups");
            if (!count) continue;
            printf("  level %d suffix %d -> LID %d:", level, y, pm_ft_base_lid(&c.ft, d) + y);
            for (int i = 0; i < count; ++i) printf(" %s", node_str(c, out[i]).c_str());
            printf("\n");
        }
    }
}

struct SchemeResult {
    int scheme;
    std::vector<long> load;
    pm_ft_check_t check;
};

void print_mft(const Ctx &c, const std::vector<uint64_t> &mft)
{
    for (int s = 0; s < c.ft.nswitches; ++s)
        if (mft[s]) printf("    %-12s %s\n", switch_str(c, s).c_str(), port_set(mft[s]).c_str());
}

void print_check(const pm_ft_check_t &k)
{
    printf("    check: %d reached, %d missed, %d duplicated, %d spurious, %d up-splits, %d down-up turns, "
           "%d revisits, loop %d; %ld link traversals\n",
           k.reached, k.missed, k.duplicated, k.spurious, k.up_splits, k.down_up, k.revisits, k.loop, k.copies);
}

std::string make_dot(const Ctx &c, const SchemeResult &r, const std::vector<int> &members,
                     const std::vector<int> &sources)
{
    std::ostringstream d;
    d << "digraph fattree {\n  graph [rankdir=TB, splines=line, nodesep=0.15, ranksep=0.9, fontname=\"Helvetica\", "
         "labelloc=t, newrank=true, label=\"IBFT("
      << c.ft.m << "," << c.ft.n << "): scheme " << pm_ft_scheme_name((pm_ft_scheme_t) r.scheme) << ", "
      << sources.size() << " source(s), " << members.size()
      << " members; edge label = packets on that link (one packet per source)\"];\n"
         "  node [fontname=\"Helvetica\", fontsize=9, shape=box, style=filled, fillcolor=\"#eeeeee\"];\n"
         "  edge [fontname=\"Helvetica\", fontsize=8, arrowsize=0.5];\n";
    std::vector<char> is_member(c.ft.nnodes, 0), is_source(c.ft.nnodes, 0);
    for (int v : members) is_member[v] = 1;
    for (int v : sources) is_source[v] = 1;
    /* one row per level, left to right in id order (invisible edges keep the order) */
    for (int l = 0; l <= c.ft.n; ++l) {
        std::vector<std::string> row;
        d << "  { rank=same;";
        if (l < c.ft.n) {
            for (int s = 0; s < c.ft.nswitches; ++s) {
                int lv;
                pm_ft_switch_coords(&c.ft, s, &lv, nullptr);
                if (lv != l) continue;
                row.push_back("s" + std::to_string(s));
                d << " \"s" << s << "\" [label=\"" << switch_str(c, s) << "\"];";
            }
        } else {
            for (int v = 0; v < c.ft.nnodes; ++v) {
                row.push_back("p" + std::to_string(v));
                d << " \"p" << v << "\" [shape=ellipse, label=\"" << node_str(c, v) << "\", fillcolor=\""
                  << (is_source[v] ? "#ffb366" : is_member[v] ? "#9ecae1" : "#ffffff") << "\"];";
            }
        }
        for (size_t i = 1; i < row.size(); ++i) d << " \"" << row[i - 1] << "\" -> \"" << row[i] << "\" [style=invis];";
        d << " }\n";
    }
    long top = 1;
    for (long x : r.load) top = std::max(top, x);
    for (int s = 0; s < c.ft.nswitches; ++s) {
        for (int k = 1; k <= c.ft.m; ++k) {
            pm_ft_peer_t pe;
            pm_ft_port_peer(&c.ft, s, k, &pe);
            long down = r.load[(size_t) s * c.ft.m + k - 1], up;
            if (pe.is_node) {
                up = r.load[(size_t) c.ft.nswitches * c.ft.m + pe.id];
            } else {
                if (pm_ft_port_is_up(&c.ft, s, k)) continue;   /* each physical link once, from above */
                up = r.load[(size_t) pe.id * c.ft.m + pe.port - 1];
            }
            std::string peer = (pe.is_node ? "p" : "s") + std::to_string(pe.id);
            if (!down && !up) {
                d << "  \"s" << s << "\" -> \"" << peer << "\" [dir=none, color=\"#cccccc\"];\n";
                continue;
            }
            if (down)
                d << "  \"s" << s << "\" -> \"" << peer << "\" [color=\"" << (down == top && top > 1 ? "#d62728" : "#1f77b4")
                  << "\", penwidth=" << 1 + 3.0 * down / top << ", label=\"" << down << "\"];\n";
            if (up)
                d << "  \"" << peer << "\" -> \"s" << s << "\" [color=\"" << (up == top && top > 1 ? "#d62728" : "#ff7f0e")
                  << "\", penwidth=" << 1 + 3.0 * up / top << ", label=\"" << up << "\"];\n";
        }
    }
    d << "}\n";
    return d.str();
}

void draw(const std::string &out, const std::string &dot)
{
    std::string ext = out.substr(out.find_last_of('.') + 1);
    if (ext == "dot") return write_file(out, dot.c_str());
    if (ext != "svg" && ext != "png") throw Fail(EXIT_INPUT, "--picture " + out + ": expected .dot, .svg or .png");
    std::string tmp = out + ".dot";
    write_file(tmp, dot.c_str());
    std::string fmt = "-T" + ext, dst = "-o" + out;
    char *args[] = {const_cast<char *>("dot"), const_cast<char *>(fmt.c_str()), const_cast<char *>(dst.c_str()),
                    const_cast<char *>(tmp.c_str()), nullptr};
    pid_t pid;
    int st = 0, rc = posix_spawnp(&pid, "dot", nullptr, nullptr, args, environ);
    if (rc == 0 && waitpid(pid, &st, 0) < 0) rc = errno;
    remove(tmp.c_str());
    if (rc) throw Fail(EXIT_INTERNAL, std::string("cannot run dot (graphviz): ") + strerror(rc));
    if (!WIFEXITED(st) || WEXITSTATUS(st)) throw Fail(EXIT_INTERNAL, "dot failed for " + out);
}

void do_group(const Ctx &c)
{
    std::vector<int> members = parse_nodes(c, c.o.group);
    std::vector<int> sources = c.o.sources.empty() ? std::vector<int>{members[0]} : parse_nodes(c, c.o.sources);
    std::vector<int> schemes;
    if (c.o.scheme == "all") {
        for (int s = 0; s < PM_FT_NSCHEMES; ++s) schemes.push_back(s);
    } else {
        int s = pm_ft_scheme_lookup(c.o.scheme.c_str());
        if (s < 0) throw Fail(EXIT_INPUT, "--scheme: unknown scheme '" + c.o.scheme + "'");
        schemes.push_back(s);
    }
    printf("IBFT(%d,%d): %d switches, %d nodes, LMC %d (%d LIDs per node, %s layout)\n", c.ft.m, c.ft.n,
           c.ft.nswitches, c.ft.nnodes, c.ft.lmc, c.ft.lids_per_node, c.ft.layout == PM_FT_LIDS_SEED ? "seed" : "iba");
    printf("group: %zu members:", members.size());
    for (int v : members) printf(" %s", node_str(c, v).c_str());
    printf("\nsources: %zu:", sources.size());
    for (int v : sources) printf(" %s", node_str(c, v).c_str());
    printf("\n");
    std::vector<uint64_t> mft(c.ft.nswitches);
    std::vector<int> ports = members;
    ports.insert(ports.end(), sources.begin(), sources.end());
    std::sort(ports.begin(), ports.end());
    ports.erase(std::unique(ports.begin(), ports.end()), ports.end());
    std::vector<SchemeResult> results;
    const int L = pm_ft_ndlinks(&c.ft);
    for (int sc : schemes) {
        printf("\n== scheme %s ==\n", pm_ft_scheme_name((pm_ft_scheme_t) sc));
        switch (sc) {
        case PM_FT_SCHEME_CYCLIC:
            for (int s : sources) {
                printf("  source %s: its own table (seed sec 3.3.2)\n", node_str(c, s).c_str());
                core(pm_ft_mft_cyclic(&c.ft, s, members.data(), (int) members.size(), PM_FT_MFT_UNION, mft.data()),
                     "cyclic MFT");
                print_mft(c, mft);
            }
            break;
        case PM_FT_SCHEME_CYCLIC_GROUP: {
            int tree = -1;
            core(pm_ft_mft_group(&c.ft, sources.data(), (int) sources.size(), ports.data(), (int) ports.size(),
                                 mft.data(), &tree),
                 "group MFT");
            printf("  one MLID: %s\n", tree < 0 ? "the union of the sources' cyclic trees"
                                               : ("the cyclic tree of " + node_str(c, tree) +
                                                  " (the union would duplicate)").c_str());
            print_mft(c, mft);
            break;
        }
        case PM_FT_SCHEME_OPENSM: {
            int root = -1;
            core(pm_ft_mft_opensm(&c.ft, ports.data(), (int) ports.size(), mft.data(), &root), "OpenSM MFT");
            printf("  one spanning tree rooted at %s (smallest largest hop count)\n", switch_str(c, root).c_str());
            print_mft(c, mft);
            break;
        }
        default:
            printf("  one unicast copy per member, DLID by cyclic path selection\n");
        }
        SchemeResult r;
        r.scheme = sc;
        r.load.assign(L, 0);
        core(pm_ft_scheme_load(&c.ft, (pm_ft_scheme_t) sc, sources.data(), (int) sources.size(), members.data(),
                               (int) members.size(), r.load.data(), &r.check),
             "loads");
        print_check(r.check);
        results.push_back(r);
    }
    printf("\n== link loads (packets per directed link, each source sending one packet) ==\n");
    printf("  %-13s %8s %10s %10s %10s %8s\n", "scheme", "max", "max-core", "max-eject", "max-inject", "total");
    const int sw_links = c.ft.nswitches * c.ft.m;
    for (const SchemeResult &r : results) {
        long mx = 0, core_mx = 0, ej = 0, inj = 0, tot = 0;
        for (int dl = 0; dl < L; ++dl) {
            long x = r.load[dl];
            tot += x;
            mx = std::max(mx, x);
            if (dl >= sw_links) {
                inj = std::max(inj, x);
                continue;
            }
            pm_ft_peer_t pe;
            pm_ft_port_peer(&c.ft, dl / c.ft.m, dl % c.ft.m + 1, &pe);
            if (pe.is_node) ej = std::max(ej, x);
            else core_mx = std::max(core_mx, x);
        }
        printf("  %-13s %8ld %10ld %10ld %10ld %8ld\n", pm_ft_scheme_name((pm_ft_scheme_t) r.scheme), mx, core_mx, ej,
               inj, tot);
    }
    for (const SchemeResult &r : results) {
        std::vector<int> order(L);
        for (int i = 0; i < L; ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return r.load[a] > r.load[b]; });
        printf("  busiest links, %s:", pm_ft_scheme_name((pm_ft_scheme_t) r.scheme));
        for (int i = 0; i < 3 && r.load[order[i]] > 0; ++i)
            printf("%s %s (%ld)", i ? ";" : "", dlink_str(c, order[i]).c_str(), r.load[order[i]]);
        printf("\n");
    }
    fflush(stdout);
    if (!c.o.picture.empty()) {
        const SchemeResult &r = results.size() == 1 ? results[0] : results[PM_FT_SCHEME_CYCLIC];
        draw(c.o.picture, make_dot(c, r, members, sources));
    }
}

std::vector<int> switch_lids(const Ctx &c)
{
    std::vector<int> lids(c.ft.nswitches);
    if (c.o.switch_lids.empty()) {
        for (int s = 0; s < c.ft.nswitches; ++s) lids[s] = c.ft.lid_origin + c.ft.nnodes * c.ft.lids_per_node + s;
        return lids;
    }
    char err[512] = "";
    int rc = pm_ft_read_guid2lid(&c.ft, slurp(c.o.switch_lids).c_str(), lids.data(), err, sizeof(err));
    if (rc < 0) throw Fail(status_of(rc), c.o.switch_lids + ": " + err);
    return lids;
}

void do_writes(const Ctx &c)
{
    std::vector<int> lids = switch_lids(c);
    char *text = nullptr;
    auto emit = [&](int rc, const std::string &path, const char *what) {
        core(rc, std::string("cannot generate the ") + what);
        write_file(path, text);
        free(text);
        text = nullptr;
    };
    if (!c.o.write_ibnet.empty()) emit(pm_ft_write_ibnet(&c.ft, &text), c.o.write_ibnet, "net file");
    if (!c.o.write_guid2lid.empty())
        emit(pm_ft_write_guid2lid(&c.ft, lids.data(), &text), c.o.write_guid2lid, "guid2lid file");
    if (!c.o.write_lfts.empty()) emit(pm_ft_write_lfts(&c.ft, lids.data(), &text), c.o.write_lfts, "unicast tables");
    if (!c.o.write_mfts.empty()) {
        if (c.o.mcast_groups.empty()) throw Fail(EXIT_INPUT, "--write-mfts needs --mcast-groups SPEC");
        bool opensm = c.o.scheme == "opensm";
        if (!opensm && c.o.scheme != "all" && c.o.scheme != "cyclic-group")
            throw Fail(EXIT_INPUT, "--write-mfts: --scheme must be cyclic-group (the plugin's, default) or opensm");
        std::istringstream spec(slurp(c.o.mcast_groups));
        std::string line;
        std::vector<int> mlids;
        std::vector<uint64_t> all;
        while (std::getline(spec, line)) {
            std::istringstream ls(line);
            std::string mlid, mem, src;
            if (!(ls >> mlid) || mlid[0] == '#') continue;
            if (!(ls >> mem)) throw Fail(EXIT_INPUT, c.o.mcast_groups + ": '" + line + "': expected MLID MEMBERS [SOURCES]");
            ls >> src;
            std::vector<int> members = parse_nodes(c, mem);
            std::vector<int> sources = src.empty() || src == "all" ? members : parse_nodes(c, src);
            std::vector<int> keep;   /* sources that did not join are ignored, as the plugin does */
            for (int s : sources)
                if (std::binary_search(members.begin(), members.end(), s)) keep.push_back(s);
            if (keep.empty()) keep = members;
            std::vector<uint64_t> mft(c.ft.nswitches, 0);
            if (members.size() >= 2 && opensm)
                core(pm_ft_mft_opensm(&c.ft, members.data(), (int) members.size(), mft.data(), nullptr), "OpenSM MFT");
            else if (members.size() >= 2)
                core(pm_ft_mft_group(&c.ft, keep.data(), (int) keep.size(), members.data(), (int) members.size(),
                                     mft.data(), nullptr),
                     "group MFT");
            mlids.push_back((int) strtol(mlid.c_str(), nullptr, 0));
            all.insert(all.end(), mft.begin(), mft.end());
        }
        emit(pm_ft_write_mfts(&c.ft, lids.data(), (int) mlids.size(), mlids.data(), all.data(), &text), c.o.write_mfts,
             "multicast tables");
    }
}

/* ------------------------------------------------------------------ dumps of a running fabric */
constexpr int EXIT_DIFFER = 3;

/* dump_fts / dump_fts -M text -> {(switch GUID, LID): port, or port set as a bit mask}. */
struct Dump {
    bool multicast = false;
    std::map<std::pair<uint64_t, int>, uint64_t> entries;
};

Dump read_dump(const std::string &path)
{
    std::istringstream in(slurp(path));
    std::string line;
    Dump d;
    bool have_switch = false, any = false;
    uint64_t guid = 0;
    std::vector<std::pair<int, size_t>> columns;   /* port, column of its last digit */
    int lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        std::string where = path + ":" + std::to_string(lineno) + ": ";
        bool uni = line.rfind("Unicast lids", 0) == 0, multi = line.rfind("Multicast mlids", 0) == 0;
        if (uni || multi) {
            size_t g = line.find(" guid 0x");
            if (g == std::string::npos) throw Fail(EXIT_INPUT, where + "switch header without a GUID");
            guid = strtoull(line.c_str() + g + 8, nullptr, 16);
            if (any && d.multicast != multi) throw Fail(EXIT_INPUT, where + "unicast and multicast sections mixed");
            d.multicast = multi;
            have_switch = any = true;
            columns.clear();
            continue;
        }
        if (!have_switch) continue;
        size_t ports = line.find("Ports:");
        if (d.multicast && ports != std::string::npos) {
            for (size_t i = ports + 6; i < line.size(); ++i) {
                if (!isdigit((unsigned char) line[i])) continue;
                size_t j = i;
                while (j + 1 < line.size() && isdigit((unsigned char) line[j + 1])) ++j;
                columns.push_back({atoi(line.c_str() + i), j});
                i = j;
            }
            continue;
        }
        if (line.rfind("0x", 0) != 0) continue;
        char *end = nullptr;
        int lid = (int) strtol(line.c_str() + 2, &end, 16);
        uint64_t value = 0;
        if (!d.multicast) {
            char *p2 = nullptr;
            long port = strtol(end, &p2, 10);
            if (p2 == end) throw Fail(EXIT_INPUT, where + "unicast row without a port");
            value = (uint64_t) port;
        } else {
            if (columns.empty()) throw Fail(EXIT_INPUT, where + "multicast row before a Ports: header");
            for (const auto &c : columns)
                if (c.second < line.size() && line[c.second] == 'x' && c.first < 64) value |= 1ULL << c.first;
        }
        d.entries[{guid, lid}] = value;
    }
    if (!any) throw Fail(EXIT_INPUT, path + ": no dump_fts section found");
    return d;
}

int do_compare(const Ctx &c)
{
    Dump a = read_dump(c.o.compare_a), b = read_dump(c.o.compare_b);
    if (a.multicast != b.multicast) {
        printf("compare: %s is %s, %s is %s\n", c.o.compare_a.c_str(), a.multicast ? "multicast" : "unicast",
               c.o.compare_b.c_str(), b.multicast ? "multicast" : "unicast");
        return EXIT_DIFFER;
    }
    std::map<std::pair<uint64_t, int>, std::pair<long, long>> all;   /* -1 = absent */
    for (const auto &e : a.entries) all[e.first] = {(long) e.second, -1};
    for (const auto &e : b.entries) {
        auto it = all.find(e.first);
        if (it == all.end()) all[e.first] = {-1, (long) e.second};
        else it->second.second = (long) e.second;
    }
    long differ = 0, missing = 0, extra = 0;
    std::vector<std::string> shown;
    auto show = [&](long v) {
        if (v < 0) return std::string("-");
        return a.multicast ? port_set((uint64_t) v) : std::to_string(v);
    };
    for (const auto &e : all) {
        if (e.second.first == e.second.second) continue;
        ++differ;
        missing += e.second.second < 0;
        extra += e.second.first < 0;
        if (shown.size() < 10) {
            char b2[160];
            snprintf(b2, sizeof(b2), "  switch 0x%016llx lid 0x%04x: expected %s, got %s",
                     (unsigned long long) e.first.first, e.first.second, show(e.second.first).c_str(),
                     show(e.second.second).c_str());
            shown.push_back(b2);
        }
    }
    printf("%s: %zu entries, %ld differ (%ld missing, %ld extra)\n", a.multicast ? "multicast" : "unicast", all.size(),
           differ, missing, extra);
    for (const std::string &x : shown) printf("%s\n", x.c_str());
    return differ ? EXIT_DIFFER : 0;
}

/* ibtracert output: "From ca ... "NAME"", hops "[OUT] -> switch ...[IN] ... "NAME"", "To ca ... "NAME"". */
void do_trace(const Ctx &c)
{
    std::istringstream in(slurp(c.o.trace));
    std::string line, src, dst;
    std::vector<std::string> hop_name, hop_in, hop_out;
    auto last_quoted = [](const std::string &l) {
        size_t e = l.rfind('"'), b = e == std::string::npos || e == 0 ? std::string::npos : l.rfind('"', e - 1);
        return b == std::string::npos ? std::string() : l.substr(b + 1, e - b - 1);
    };
    while (std::getline(in, line)) {
        if (line.rfind("From ca", 0) == 0) src = last_quoted(line);
        else if (line.rfind("To ca", 0) == 0) dst = last_quoted(line);
        else if (line.size() > 2 && line[0] == '[' && line.find("] -> ") != std::string::npos) {
            std::string out = line.substr(1, line.find(']') - 1);
            if (!hop_name.empty()) hop_out.back() = out;
            if (line.find("-> switch") == std::string::npos) continue;
            size_t b = line.find('[', line.find("-> switch")), e = line.find(']', b);
            if (b == std::string::npos || e == std::string::npos)
                throw Fail(EXIT_INPUT, c.o.trace + ": unexpected trace line '" + line + "'");
            hop_name.push_back(last_quoted(line));
            hop_in.push_back(line.substr(b + 1, e - b - 1));
            hop_out.push_back("?");
        }
    }
    if (src.empty() || dst.empty()) throw Fail(EXIT_INPUT, c.o.trace + ": not an ibtracert trace");
    printf("route %s", src.c_str());
    for (size_t i = 0; i < hop_name.size(); ++i)
        printf(" %s:%s>%s", hop_name[i].c_str(), hop_in[i].c_str(), hop_out[i].c_str());
    printf(" %s\n", dst.c_str());
}

int run(int argc, char **argv)
{
    Ctx c;
    c.o = parse(argc, argv);
    bool writes = !c.o.write_ibnet.empty() || !c.o.write_guid2lid.empty() || !c.o.write_lfts.empty() ||
                  !c.o.write_mfts.empty();
    int actions = !c.o.lids.empty() + !c.o.path_src.empty() + !c.o.groups_of.empty() + !c.o.group.empty() + writes +
                  !c.o.compare_a.empty() + !c.o.trace.empty();
    if (actions != 1)
        throw Fail(EXIT_INPUT, "give exactly one action (--lids, --path, --groups, --group, --write-*, --compare-fts "
                               "or --trace-route)");
    pm_ft_lid_layout_t layout = writes ? PM_FT_LIDS_IBA : PM_FT_LIDS_SEED;
    if (c.o.layout == "iba") layout = PM_FT_LIDS_IBA;
    else if (c.o.layout == "seed") layout = PM_FT_LIDS_SEED;
    else if (!c.o.layout.empty()) throw Fail(EXIT_INPUT, "--lid-layout: expected seed or iba");
    int rc = pm_ft_init(&c.ft, c.o.m, c.o.n, layout);
    if (rc < 0)
        throw Fail(EXIT_INPUT, "--fat-tree " + std::to_string(c.o.m) + "," + std::to_string(c.o.n) +
                                   ": not an IBFT(m,n) the model supports (even m <= 62 with m/2 a power of two, "
                                   "1 <= n <= 8, at most 2^20 nodes)");
    if (!c.o.compare_a.empty()) return do_compare(c);
    if (!c.o.trace.empty()) do_trace(c);
    else if (!c.o.lids.empty()) do_lids(c);
    else if (!c.o.path_src.empty()) do_path(c);
    else if (!c.o.groups_of.empty()) do_groups(c);
    else if (!c.o.group.empty()) do_group(c);
    else do_writes(c);
    return 0;
}

}  // namespace

int mcast_inspect_fattree(int argc, char **argv)
{
    try {
        return run(argc, argv);
    } catch (const Fail &f) {
        fflush(stdout);
        fprintf(stderr, "mcast-inspect: %s\n", f.what());
        return f.status;
    } catch (const std::exception &e) {
        fprintf(stderr, "mcast-inspect: internal error: %s\n", e.what());
        return EXIT_INTERNAL;
    }
}
