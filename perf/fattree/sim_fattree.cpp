/*
 * sim_fattree: packet-level simulation of multicast on IBFT(m, n) (seed 004 sec 4).
 *
 *   Schemes: cyclic (one cyclic MFT per source, the seed's), cyclic-group (one
 *   MLID per group as the OpenSM plugin builds it), opensm (one shared spanning
 *   tree over members and senders, OpenSM 3.3's tree), unicast (a separate copy
 *   per member on the cyclic LFTs).  Tables come from the core (pm_fattree.h).
 *
 *   Model (the seed's numbers): a packet crosses a link in 20 ns of flight plus
 *   bytes x 4 ns (1X SDR, 2.5 Gb/s); a switch spends 100 ns routing the head packet
 *   of an input port, then moves it to every output port of its table at once,
 *   waiting in the input buffer while any of those output queues is full (the
 *   seed's flow control: "the packet must wait in the input port buffer until the
 *   output port buffer is available").  Input buffers hold IN packets (credits:
 *   a link transmits only into a free slot), output queues OUT packets; hosts
 *   sink at line rate.  Messages are cut into MTU-byte packets; a source injects
 *   its messages back to back (unicast: one copy per member, members in PID order
 *   starting after the source).  Deterministic: events ordered by (time, sequence).
 *
 *        host --inject--> [IN] switch: 100 ns route, all outputs free? --> [OUT] --link--> ...
 *                           ^ credit returned when the packet leaves the input buffer
 *
 *   Cost: one event per packet per link; an all-to-all unicast on 128 nodes with
 *   64-packet messages is ~6 M link traversals (seconds).
 *
 * Output: CSV rows (see the header line), one per (case, scheme, size, draw):
 *   completion time of the last delivery and the analytic per-link loads
 *   (pm_ft_scheme_load: packets per directed link when every source sends one
 *   packet), the quantity that explains the completion times.
 *
 *   sim_fattree --fat-tree 8,3 --sources-pct 40 --group-pct 10 --sizes 32,131072 \
 *               [--draws 3] [--seed 1] [--mtu 2048] [--in-buf 4] [--out-buf 2] [--schemes all]
 */
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <queue>
#include <stdexcept>
#include <string>
#include <vector>

#include <getopt.h>

#include "pm_fattree.h"

namespace {

constexpr double kFlightNs = 20.0, kRouteNs = 100.0, kNsPerByte = 4.0;

struct Packet {
    int bytes;
    int table;   /* multicast: index into Sim::tables; unicast: -1 */
    int dlid;    /* unicast destination LID */
    int src;
    int flow;    /* index into the flows (source, member set) */
};

struct Event {
    double t;
    long seq;
    int kind;   /* 0 TX_DONE(link), 1 ROUTE_READY(switch input), 2 ARRIVE */
    int a, b;   /* link / (switch, port) */
    int pkt;
    bool operator>(const Event &o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

struct Sim {
    const pm_ft_t *ft;
    int in_cap, out_cap;
    std::vector<std::vector<uint64_t>> tables;   /* multicast tables in use */
    std::vector<Packet> pkts;                    /* packet copies share a descriptor */
    /* directed links: pm_ft dlink ids */
    std::vector<std::deque<int>> outq;           /* output queue (host links: the send queue) */
    std::vector<char> busy;
    std::vector<int> in_used;                    /* per link: packets in / reserved for the receiver's input buffer */
    std::vector<std::deque<int>> inbuf;          /* per link: the receiver's input FIFO */
    std::vector<char> routed;                    /* head of inbuf has finished routing */
    std::vector<int> rr;                         /* per switch: round-robin start for retries */
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> ev;
    long seq = 0;
    double now = 0, last_delivery = 0;
    long deliveries = 0, spurious = 0;
    std::vector<std::vector<char>> member;       /* per flow */

    int m() const { return ft->m; }
    int sw_links() const { return ft->nswitches * ft->m; }
    bool host_link(int l) const { return l >= sw_links(); }

    /* link l = out of (switch s, port k) or host; its receiver and the receiver's in-port */
    void endpoint(int l, int *is_node, int *id, int *port) const
    {
        if (host_link(l)) {
            int sw, p;
            pm_ft_node_attach(ft, l - sw_links(), &sw, &p);
            *is_node = 0;
            *id = sw;
            *port = p;
            return;
        }
        pm_ft_peer_t pe;
        pm_ft_port_peer(ft, l / m(), l % m() + 1, &pe);
        *is_node = pe.is_node;
        *id = pe.id;
        *port = pe.port;
    }
    int in_link(int sw, int port) const
    {
        /* the directed link arriving at (sw, port): out of the peer */
        pm_ft_peer_t pe;
        pm_ft_port_peer(ft, sw, port, &pe);
        return pe.is_node ? sw_links() + pe.id : pe.id * m() + pe.port - 1;
    }

    void push(double t, int kind, int a, int b, int pkt) { ev.push({t, seq++, kind, a, b, pkt}); }

    void try_start(int l)
    {
        if (busy[l] || outq[l].empty()) return;
        int is_node, id, port;
        endpoint(l, &is_node, &id, &port);
        if (!is_node && in_used[l] >= in_cap) return;   /* no credit */
        int p = outq[l].front();
        outq[l].pop_front();
        if (!is_node) ++in_used[l];
        busy[l] = 1;
        push(now + pkts[p].bytes * kNsPerByte, 0, l, 0, p);
        if (!host_link(l)) wake(l / m());   /* an output slot freed */
    }

    uint64_t out_ports(int sw, int in_port, const Packet &p) const
    {
        if (p.table >= 0) return tables[p.table][sw] & ~(1ULL << in_port);
        return 1ULL << pm_ft_lft_port_lid(ft, sw, p.dlid);
    }

    /* move the routed head packet of input (sw, port) if every output has room */
    bool try_forward(int sw, int port)
    {
        int l = in_link(sw, port);
        if (inbuf[l].empty() || !routed[l]) return false;
        int p = inbuf[l].front();
        uint64_t outs = out_ports(sw, port, pkts[p]);
        for (int k = 1; k <= m(); ++k)
            if ((outs >> k & 1) && (int)outq[sw * m() + k - 1].size() >= out_cap) return false;
        inbuf[l].pop_front();
        routed[l] = 0;
        --in_used[l];
        for (int k = 1; k <= m(); ++k)
            if (outs >> k & 1) outq[sw * m() + k - 1].push_back(p);
        if (!inbuf[l].empty()) push(now + kRouteNs, 1, sw, port, -1);
        try_start(l);   /* credit back to the upstream link */
        for (int k = 1; k <= m(); ++k)
            if (outs >> k & 1) try_start(sw * m() + k - 1);
        return true;
    }

    /* switches whose blocked inputs may move now (an output slot freed or a head routed) */
    std::vector<int> wakeq;
    std::vector<char> queued;
    void wake(int sw)
    {
        if (!queued[sw]) {
            queued[sw] = 1;
            wakeq.push_back(sw);
        }
    }
    void drain()
    {
        while (!wakeq.empty()) {
            int sw = wakeq.back();
            wakeq.pop_back();
            queued[sw] = 0;
            for (bool moved = true; moved;) {
                moved = false;
                for (int i = 0; i < m(); ++i) {
                    int port = (rr[sw] + i) % m() + 1;
                    if (try_forward(sw, port)) {
                        rr[sw] = port % m();
                        moved = true;
                    }
                }
            }
        }
    }

    void run()
    {
        while (!ev.empty()) {
            Event e = ev.top();
            ev.pop();
            now = e.t;
            if (e.kind == 0) {   /* transmission done: the packet flies to the receiver */
                busy[e.a] = 0;
                int is_node, id, port;
                endpoint(e.a, &is_node, &id, &port);
                push(now + kFlightNs, 2, e.a, 0, e.pkt);
                try_start(e.a);
            } else if (e.kind == 2) {   /* arrival */
                int is_node, id, port;
                endpoint(e.a, &is_node, &id, &port);
                if (is_node) {
                    ++deliveries;
                    if (!member[pkts[e.pkt].flow][id] || id == pkts[e.pkt].src) ++spurious;
                    last_delivery = std::max(last_delivery, now);
                    continue;
                }
                inbuf[e.a].push_back(e.pkt);
                if (inbuf[e.a].size() == 1) push(now + kRouteNs, 1, id, port, -1);
            } else {   /* routing of the head packet done */
                routed[in_link(e.a, e.b)] = 1;
                wake(e.a);
            }
            drain();
        }
    }
};

struct Options {
    int m = 8, n = 3;
    double sources_pct = 1, group_pct = 100;
    int nsources = 0, ngroup = 0;   /* absolute counts win when set */
    std::vector<int> sizes{32, 131072};
    int draws = 1, mtu = 2048, in_buf = 4, out_buf = 2;
    uint64_t seed = 1;
    std::string schemes = "all", label = "";
    bool shared = false;   /* one member set for every source, or one per source */
};

std::vector<int> parse_ints(const char *s)
{
    std::vector<int> v;
    for (const char *p = s; *p;) {
        char *end;
        long x = strtol(p, &end, 10);
        if (end == p) throw std::runtime_error(std::string("bad number list '") + s + "'");
        v.push_back((int)x);
        p = *end == ',' ? end + 1 : end;
    }
    return v;
}

uint64_t splitmix(uint64_t &s)
{
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

std::vector<int> sample(int N, int k, uint64_t &rng)
{
    std::vector<int> all(N);
    for (int i = 0; i < N; ++i) all[i] = i;
    for (int i = 0; i < k; ++i) std::swap(all[i], all[i + (int)(splitmix(rng) % (uint64_t)(N - i))]);
    std::vector<int> out(all.begin(), all.begin() + k);
    std::sort(out.begin(), out.end());
    return out;
}

struct Flow {
    int src;
    std::vector<int> members;
};

struct Loads {
    long max = 0, core = 0, eject = 0, inject = 0, total = 0;
};

/* The tables a scheme installs for these flows: one per flow, or one shared by all
 * (shared member set: the group's MLID).  table_of[f] = index into tables (-1: unicast). */
void build_tables(const pm_ft_t *ft, pm_ft_scheme_t sc, const std::vector<Flow> &flows, bool shared,
                  std::vector<std::vector<uint64_t>> &tables, std::vector<int> &table_of)
{
    tables.clear();
    table_of.assign(flows.size(), -1);
    if (sc == PM_FT_SCHEME_UNICAST) return;
    auto ports_of = [&](size_t first, size_t last) {
        std::vector<int> p;
        for (size_t f = first; f < last; ++f) {
            p.insert(p.end(), flows[f].members.begin(), flows[f].members.end());
            p.push_back(flows[f].src);
        }
        std::sort(p.begin(), p.end());
        p.erase(std::unique(p.begin(), p.end()), p.end());
        return p;
    };
    std::vector<uint64_t> t(ft->nswitches);
    if (sc == PM_FT_SCHEME_CYCLIC || !shared) {
        for (size_t f = 0; f < flows.size(); ++f) {
            const Flow &fl = flows[f];
            std::vector<int> ports = ports_of(f, f + 1);
            int rc = sc == PM_FT_SCHEME_CYCLIC
                         ? pm_ft_mft_cyclic(ft, fl.src, fl.members.data(), (int)fl.members.size(), PM_FT_MFT_UNION,
                                            t.data())
                     : sc == PM_FT_SCHEME_OPENSM
                         ? pm_ft_mft_opensm(ft, ports.data(), (int)ports.size(), t.data(), nullptr)
                         : pm_ft_mft_group(ft, &fl.src, 1, ports.data(), (int)ports.size(), t.data(), nullptr);
            if (rc) throw std::runtime_error("table construction failed");
            tables.push_back(t);
            table_of[f] = (int)f;
        }
        return;
    }
    std::vector<int> ports = ports_of(0, flows.size()), srcs;
    for (const Flow &fl : flows) srcs.push_back(fl.src);
    int rc = sc == PM_FT_SCHEME_OPENSM
                 ? pm_ft_mft_opensm(ft, ports.data(), (int)ports.size(), t.data(), nullptr)
                 : pm_ft_mft_group(ft, srcs.data(), (int)srcs.size(), ports.data(), (int)ports.size(), t.data(), nullptr);
    if (rc) throw std::runtime_error("table construction failed");
    tables.push_back(t);
    table_of.assign(flows.size(), 0);
}

/* Per-link loads when every flow's source sends one packet (the forwarding check). */
Loads loads(const pm_ft_t *ft, const std::vector<Flow> &flows, const std::vector<std::vector<uint64_t>> &tables,
            const std::vector<int> &table_of)
{
    std::vector<long> load(pm_ft_ndlinks(ft), 0);
    for (size_t f = 0; f < flows.size(); ++f) {
        const Flow &fl = flows[f];
        if (table_of[f] < 0) {
            for (int d : fl.members)
                if (d != fl.src) pm_ft_route_load(ft, fl.src, pm_ft_select_lid(ft, fl.src, d), load.data());
            continue;
        }
        pm_ft_check_t chk;
        pm_ft_mft_check(ft, tables[table_of[f]].data(), fl.src, fl.members.data(), (int)fl.members.size(), &chk,
                        load.data());
    }
    Loads r;
    int swl = ft->nswitches * ft->m;
    for (int l = 0; l < (int)load.size(); ++l) {
        r.total += load[l];
        r.max = std::max(r.max, load[l]);
        if (l >= swl) {
            r.inject = std::max(r.inject, load[l]);
            continue;
        }
        pm_ft_peer_t pe;
        pm_ft_port_peer(ft, l / ft->m, l % ft->m + 1, &pe);
        if (pe.is_node) r.eject = std::max(r.eject, load[l]);
        else r.core = std::max(r.core, load[l]);
    }
    return r;
}

double simulate(const pm_ft_t *ft, const Options &o, const std::vector<Flow> &flows,
                const std::vector<std::vector<uint64_t>> &tables, const std::vector<int> &table_of, int bytes,
                long *deliv, long *spur)
{
    Sim s;
    s.ft = ft;
    s.in_cap = o.in_buf;
    s.out_cap = o.out_buf;
    int L = pm_ft_ndlinks(ft);
    s.outq.assign(L, {});
    s.busy.assign(L, 0);
    s.in_used.assign(L, 0);
    s.inbuf.assign(L, {});
    s.routed.assign(L, 0);
    s.rr.assign(ft->nswitches, 0);
    s.queued.assign(ft->nswitches, 0);
    s.tables = tables;
    s.member.assign(flows.size(), std::vector<char>(ft->nnodes, 0));
    int npk = (bytes + o.mtu - 1) / o.mtu;
    long expect = 0;
    for (size_t f = 0; f < flows.size(); ++f) {
        const Flow &fl = flows[f];
        for (int v : fl.members) s.member[f][v] = 1;
        int hl = ft->nswitches * ft->m + fl.src;
        auto add = [&](int table, int dlid) {
            for (int k = 0; k < npk; ++k) {
                int b = k + 1 < npk ? o.mtu : bytes - (npk - 1) * o.mtu;
                s.pkts.push_back({b, table, dlid, fl.src, (int)f});
                s.outq[hl].push_back((int)s.pkts.size() - 1);
            }
        };
        if (table_of[f] >= 0) {
            add(table_of[f], 0);
        } else {
            std::vector<int> order = fl.members;   /* members in PID order, starting after the source */
            std::rotate(order.begin(), std::upper_bound(order.begin(), order.end(), fl.src), order.end());
            for (int d : order)
                if (d != fl.src) add(-1, pm_ft_select_lid(ft, fl.src, d));
        }
        expect += (long)(fl.members.size() - std::count(fl.members.begin(), fl.members.end(), fl.src)) * npk;
    }
    for (const Flow &fl : flows) s.try_start(ft->nswitches * ft->m + fl.src);
    s.drain();
    s.run();
    long member_deliveries = s.deliveries - s.spurious;
    if (member_deliveries != expect)
        throw std::runtime_error("delivered " + std::to_string(member_deliveries) + " of " + std::to_string(expect) +
                                 " member packets (stuck or duplicated)");
    *deliv = s.deliveries;
    *spur = s.spurious;
    return s.last_delivery / 1000.0;
}

}  // namespace

int main(int argc, char **argv)
{
    Options o;
    static const struct option longopts[] = {
        {"fat-tree", required_argument, nullptr, 'f'}, {"sources-pct", required_argument, nullptr, 's'},
        {"group-pct", required_argument, nullptr, 'g'}, {"sources", required_argument, nullptr, 'S'},
        {"group", required_argument, nullptr, 'G'},    {"sizes", required_argument, nullptr, 'z'},
        {"draws", required_argument, nullptr, 'd'},    {"seed", required_argument, nullptr, 'r'},
        {"mtu", required_argument, nullptr, 'u'},      {"in-buf", required_argument, nullptr, 'i'},
        {"out-buf", required_argument, nullptr, 'o'},  {"schemes", required_argument, nullptr, 'c'},
        {"label", required_argument, nullptr, 'l'},    {"header", no_argument, nullptr, 'H'},
        {"groups", required_argument, nullptr, 'm'},
        {nullptr, 0, nullptr, 0}};
    bool header = false;
    int c;
    try {
        while ((c = getopt_long(argc, argv, "", longopts, nullptr)) != -1) {
            switch (c) {
            case 'f':
                if (sscanf(optarg, "%d,%d", &o.m, &o.n) != 2) throw std::runtime_error("--fat-tree M,N");
                break;
            case 's': o.sources_pct = atof(optarg); break;
            case 'g': o.group_pct = atof(optarg); break;
            case 'S': o.nsources = atoi(optarg); break;
            case 'G': o.ngroup = atoi(optarg); break;
            case 'z': o.sizes = parse_ints(optarg); break;
            case 'd': o.draws = atoi(optarg); break;
            case 'r': o.seed = strtoull(optarg, nullptr, 0); break;
            case 'u': o.mtu = atoi(optarg); break;
            case 'i': o.in_buf = atoi(optarg); break;
            case 'o': o.out_buf = atoi(optarg); break;
            case 'c': o.schemes = optarg; break;
            case 'l': o.label = optarg; break;
            case 'H': header = true; break;
            case 'm':
                if (strcmp(optarg, "shared") && strcmp(optarg, "per-source"))
                    throw std::runtime_error("--groups shared|per-source");
                o.shared = !strcmp(optarg, "shared");
                break;
            default: return 2;
            }
        }
        pm_ft_t ft;
        if (pm_ft_init(&ft, o.m, o.n, PM_FT_LIDS_IBA)) throw std::runtime_error("not a supported IBFT(m,n)");
        if (o.mtu < 1 || o.in_buf < 1 || o.out_buf < 1 || o.draws < 1) throw std::runtime_error("bad parameters");
        int N = ft.nnodes;
        int ns = o.nsources ? o.nsources : std::max(1, (int)(N * o.sources_pct / 100.0 + 0.5));
        int ng = o.ngroup ? o.ngroup : std::max(1, (int)(N * o.group_pct / 100.0 + 0.5));
        if (ns > N || ng > N) throw std::runtime_error("more sources or members than nodes");
        std::vector<int> schemes;
        for (int k = 0; k < PM_FT_NSCHEMES; ++k)
            if (o.schemes == "all" || ("," + o.schemes + ",").find("," + std::string(pm_ft_scheme_name((pm_ft_scheme_t)k)) + ",") != std::string::npos)
                schemes.push_back(k);
        if (header)
            printf("case,fattree,nodes,groups,sources,members,draw,scheme,size_bytes,packets,completion_us,deliveries,"
                   "spurious,max_load,max_core_load,max_eject_load,max_inject_load,total_load\n");
        for (int d = 0; d < o.draws; ++d) {
            uint64_t rng = o.seed * 1000003ULL + (uint64_t)d;
            std::vector<Flow> flows;
            std::vector<int> src = sample(N, ns, rng), shared_mem = sample(N, ng, rng);
            for (int v : src) flows.push_back({v, o.shared ? shared_mem : sample(N, ng, rng)});
            for (int sc : schemes) {
                std::vector<std::vector<uint64_t>> tables;
                std::vector<int> table_of;
                build_tables(&ft, (pm_ft_scheme_t)sc, flows, o.shared, tables, table_of);
                Loads ld = loads(&ft, flows, tables, table_of);
                for (int bytes : o.sizes) {
                    long deliv = 0, spur = 0;
                    double us = simulate(&ft, o, flows, tables, table_of, bytes, &deliv, &spur);
                    printf("%s,IBFT(%d;%d),%d,%s,%d,%d,%d,%s,%d,%d,%.3f,%ld,%ld,%ld,%ld,%ld,%ld,%ld\n", o.label.c_str(),
                           o.m, o.n, N, o.shared ? "shared" : "per-source", ns, ng, d,
                           pm_ft_scheme_name((pm_ft_scheme_t)sc), bytes, (bytes + o.mtu - 1) / o.mtu, us, deliv, spur,
                           ld.max, ld.core, ld.eject, ld.inject, ld.total);
                    fflush(stdout);
                }
            }
        }
    } catch (const std::exception &e) {
        fprintf(stderr, "sim_fattree: %s\n", e.what());
        return 2;
    }
    return 0;
}
