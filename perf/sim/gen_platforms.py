#!/usr/bin/env python3
"""Seeded platforms nobody tuned on (issue 47): perf/sim's generator.

    perf/sim/make_platforms.py --generate SEED[,SEED...] --out DIR --topo-routes BIN
    perf/sim/run.sh --generate SEED[,SEED...]      (or --only gen-FAMILY-SEED)

Per seed and family, a platform gen-FAMILY-SEED with make_platforms.py's file set
(.xml, .hosts, .topo, .machine, .env).  random.Random(f"{family}:{seed}") draws the
family's parameters from the ranges below, so a seed gives byte-identical files and one
family's draw does not move when another family changes.

family     network (explicit routes in one routing="Full" zone)        ranges drawn
---------  -----------------------------------------------------------  --------------------------
dragonfly  G groups of A routers, H hosts per router; routers of a      G 4-8, A 2-4, H 2-6
           group all-to-all (local links), one global link between     (48-144 hosts); host and
           every two groups (group i's link to its j-th other group     local links 0.1-0.3 us,
           on its router j mod A); minimal routes: local, global,       global 0.5-2.0 us; every
           local                                                        link 100 Gb/s
torus3d    a X x Y x Z torus, a host per node, dimension-order routes   X, Y, Z 3-6 (27-128 hosts),
           (shortest way round each ring, + on a tie); every node's     0.05-0.3 us per hop, 100
           in and out share a limiter of 2 links (as torus-8x8)         Gb/s
torus2d    an X x Y torus (X != Y), as torus3d: where edst (pathmc's    X, Y 4-12 (20-144 hosts),
           four trees of a 2-D torus) runs, beside perf/sim's two       0.05-0.3 us per hop, 100
           square tori                                                  Gb/s
fattree    two levels, oversubscribed: leaves of D hosts with D/R       R 2-4 (R:1), D 4-16 (a
           uplinks, one to each spine; the last leaf partly filled;    multiple of R, >= 2 spines),
           routes host-leaf-spine(D-mod-k: destination mod spines)-     48-144 hosts, 10/25/40/100
           leaf-host                                                    Gb/s, 0.2-2.0 us per link
flat       one non-blocking switch: every route the source's and the   40-130 hosts (never a power
           destination's private link                                   of two), 4-12 us host to host
mixed      leaves of different generations: each leaf's hosts on        3-8 leaves of 5-20 hosts,
           25/50/100/200 Gb/s links, leaves to 2-4 spines on 100/200/   0.1-0.5 us per link
           400 Gb/s, routes as the fat-tree's

Non-power-of-two host counts: the flat family never draws one; the other families'
counts are products or partly filled leaves and mostly are not.

The .topo is what the components parse: the tori a native torus file ("torus XxYxZ",
"torus XxY", host coordinates), flat a Slurm topology.conf (one switch), the others a native switch
graph (switch/host/link; no format the components read carries link speeds or latencies,
so the mixed family's speeds are not in its .topo; the dragonfly's says "routing minhop"
and gives its global links class 3, which makes the planner's routes its minimal ones:
pm_route's PM_ROUTE_MINHOP, the least sum of classes, each local link 1).

The .machine is make_platforms.machine_text of the generated network: latency_us = the mean
over ALL ordered pairs of distinct hosts of the route latency written in the XML;
latency_links = the mean number of links of those routes (host links included, as pm_route
counts them; torus: hops + 2, as make_platforms.torus); hop_latency_us = the torus's hop
latency, elsewhere latency_us / latency_links (flat: no route keys, every route alike, as
flat-1024); gap and wire per byte from the host links' bandwidth (mixed: the slowest host
link's); net.switch_links = the slowest link between switches over that, where it differs
(the mixed family's uplinks; not on a torus).  The lower bound's facts follow make_platforms.py's header: FAR = the shortest
path latency (Dijkstra over the links) from rank 0's host to the farthest host, NEAR = the
smallest route latency from rank 0, B_root = rank 0's host link (torus: its limiter),
B_agg = the slowest host link (every host receives M through it; torus: the limiters'
2 (p - 1) M / (p B_lim)).
"""
import heapq
import os
import random

import make_platforms as mp

FAMILIES = ["dragonfly", "torus3d", "fattree", "flat", "mixed", "torus2d"]


class Net:
    """Hosts and links (a, b, bandwidth in GB/s, latency in us, sharing policy); hop(a, b)
    is (link index, 'UP' when a is the link's first end, else 'DOWN')."""

    def __init__(self):
        self.hosts = []
        self.links = []   # (a, b, gbps, lat_us, policy)
        self.index = {}   # (a, b) -> link index, both orders

    def link(self, a, b, gbps, lat_us, policy="SPLITDUPLEX"):
        self.index[(a, b)] = self.index[(b, a)] = len(self.links)
        self.links.append((a, b, gbps, lat_us, policy))

    def hop(self, a, b):
        i = self.index[(a, b)]
        return (i, "UP" if self.links[i][0] == a else "DOWN")

    def path(self, nodes):
        return [self.hop(nodes[k], nodes[k + 1]) for k in range(len(nodes) - 1)]


def gbps(gbit):
    return gbit / 8.0


def fmt_bw(gb_per_s):
    return f"{gb_per_s:g}GBps"


def fmt_lat(us):
    return f"{us:g}us"


def draw_lat(rng, lo, hi):
    # 0.01 us steps: short, exact decimal strings in the XML
    return round(rng.uniform(lo, hi), 2)


# ---------------------------------------------------------------- families
def dragonfly(rng):
    while True:
        g, a, h = rng.randint(4, 8), rng.randint(2, 4), rng.randint(2, 6)
        if 48 <= g * a * h <= 144:
            break
    lat_host, lat_local, lat_global = draw_lat(rng, 0.1, 0.3), draw_lat(rng, 0.1, 0.3), draw_lat(rng, 0.5, 2.0)
    bw = gbps(100)
    net = Net()
    R = lambda gi, ri: f"g{gi}r{ri}"
    host_router = []
    for gi in range(g):
        for ri in range(a):
            for k in range(h):
                name = f"d{len(net.hosts)}"
                net.hosts.append(name)
                host_router.append((gi, ri))
                net.link(name, R(gi, ri), bw, lat_host)
    for gi in range(g):
        for r1 in range(a):
            for r2 in range(r1 + 1, a):
                net.link(R(gi, r1), R(gi, r2), bw, lat_local)

    def gate(gi, gj):  # group gi's router holding the global link to gj
        others = [x for x in range(g) if x != gi]
        return others.index(gj) % a

    for gi in range(g):
        for gj in range(gi + 1, g):
            net.link(R(gi, gate(gi, gj)), R(gj, gate(gj, gi)), bw, lat_global)

    def route(s, d):
        (gs, rs), (gd, rd) = host_router[s], host_router[d]
        nodes = [net.hosts[s], R(gs, rs)]
        if gs != gd:
            x, y = gate(gs, gd), gate(gd, gs)
            if x != rs:
                nodes.append(R(gs, x))
            nodes.append(R(gd, y))
            if y != rd:
                nodes.append(R(gd, rd))
        elif rd != rs:
            nodes.append(R(gd, rd))
        return net.path(nodes + [net.hosts[d]])

    what = (f"dragonfly {g} groups x {a} routers x {h} hosts, local all-to-all, one global link per "
            f"group pair, minimal routes, 100 Gb/s, host {lat_host} us, local {lat_local} us, "
            f"global {lat_global} us per link")
    # its minimal routes: one global link, the fewest local ones (a global link weighs 3,
    # more than two local ones at their default 1): the file says so, and the planner
    # routes as the platform does (up*/down*, the default, crossed other links: E-SWL-1)
    def link_class(a, b):
        return 3 if a[0] == "g" and b[0] == "g" and a.split("r")[0] != b.split("r")[0] else None
    return dict(net=net, route=route, what=what,
                topo=graph_topo(net, "dragonfly routers", "minhop", link_class))


def torus3d(rng):
    while True:
        dims = [rng.randint(3, 6) for _ in range(3)]
        if dims[0] * dims[1] * dims[2] <= 128:
            break
    return torus_of(dims, draw_lat(rng, 0.05, 0.3))


def torus2d(rng):
    while True:
        dims = [rng.randint(4, 12) for _ in range(2)]
        if dims[0] != dims[1] and dims[0] * dims[1] <= 144:
            break
    return torus_of(dims, draw_lat(rng, 0.05, 0.3))


def torus_of(dims, lat):
    bw = mp.BW_GBPS
    n = 1
    for k in dims:
        n *= k
    net = Net()
    coords = []
    for i in range(n):  # dimension 0 fastest, as make_platforms.torus
        c, x = [], i
        for k in dims:
            c.append(x % k)
            x //= k
        coords.append(c)
        net.hosts.append(f"t{i}")

    def lin(c):
        i = 0
        for k in reversed(range(len(dims))):
            i = i * dims[k] + c[k]
        return i
    for i in range(n):  # the node's limiter: in and out share 2 links' worth
        net.link(f"t{i}", f"lim{i}", 2 * bw, 0.0, "SHARED")
    for i, c in enumerate(coords):
        for d in range(len(dims)):
            nb = list(c)
            nb[d] = (c[d] + 1) % dims[d]
            net.link(f"t{i}", f"t{lin(nb)}", bw, lat)

    def route(s, d):
        cur, dst = list(coords[s]), coords[d]
        lim = lambda i: net.hop(f"t{i}", f"lim{i}")
        out = [lim(s)]
        for k in range(len(dims)):
            fwd = (dst[k] - cur[k]) % dims[k]
            step = 1 if fwd <= dims[k] - fwd else -1
            while cur[k] != dst[k]:
                a = lin(cur)
                cur[k] = (cur[k] + step) % dims[k]
                b = lin(cur)
                out += [net.hop(f"t{a}", f"t{b}"), lim(b)]
        return out

    name = "x".join(map(str, dims))
    topo = [f"# torus {name}: host coordinates, dimension 0 fastest",
            f"torus {name} torus bidirectional"]
    topo += [f"host t{i} " + " ".join(map(str, c)) for i, c in enumerate(coords)]
    what = (f"{len(dims)}-D torus {name}, dimension-order routes, {lat} us per hop, 100 Gb/s links, "
            f"node limiter 25 GB/s")
    return dict(net=net, route=route, what=what, topo="\n".join(topo) + "\n",
                torus=dict(hop_us=lat, lim_gbps=2 * bw, dims=name))


def leaf_spine(net, leaf_hosts, leaf_bw, n_spines, up_bw, lat):
    """Hosts h<i> on leaves (leaf_hosts[l] hosts on leaf l, their links leaf_bw[l]); every
    leaf linked to every spine at up_bw; route: the destination's index mod spines."""
    leaf_of = []
    for l, nh in enumerate(leaf_hosts):
        for _ in range(nh):
            name = f"h{len(net.hosts)}"
            net.hosts.append(name)
            leaf_of.append(l)
            net.link(name, f"leaf{l}", leaf_bw[l], lat)
    for l in range(len(leaf_hosts)):
        for s in range(n_spines):
            net.link(f"leaf{l}", f"spine{s}", up_bw, lat)

    def route(s, d):
        ls, ld = f"leaf{leaf_of[s]}", f"leaf{leaf_of[d]}"
        mid = [ls] if ls == ld else [ls, f"spine{d % n_spines}", ld]
        return net.path([net.hosts[s]] + mid + [net.hosts[d]])
    return route


def fattree(rng):
    ratio = rng.randint(2, 4)
    per_leaf = rng.choice([d for d in range(4, 17) if d % ratio == 0 and d // ratio >= 2])
    n = rng.randint(48, 144)
    bw = gbps(rng.choice([10, 25, 40, 100]))
    lat = draw_lat(rng, 0.2, 2.0)
    leaves, spines = -(-n // per_leaf), per_leaf // ratio
    counts = [per_leaf] * (leaves - 1) + [n - per_leaf * (leaves - 1)]
    net = Net()
    route = leaf_spine(net, counts, [bw] * leaves, spines, bw, lat)
    what = (f"fat-tree {n} hosts, {leaves} leaves x {per_leaf} hosts (last {counts[-1]}), {spines} "
            f"spines ({ratio}:1 oversubscribed), {bw * 8:g} Gb/s, {lat} us per link, D-mod-k routes")
    return dict(net=net, route=route, what=what, topo=graph_topo(net, "leaves and spines"))


def flat(rng):
    while True:
        n = rng.randint(40, 130)
        if n & (n - 1):
            break
    lat = draw_lat(rng, 2.0, 6.0)  # per private link: 4-12 us host to host
    net = Net()
    for i in range(n):
        net.hosts.append(f"f{i}")
        net.link(f"f{i}", "switch", mp.BW_GBPS, lat)

    def route(s, d):
        return net.path([net.hosts[s], "switch", net.hosts[d]])
    what = f"flat {n} hosts on one non-blocking switch, {lat} us per private link ({2 * lat:.2f} us host to host)"
    topo = f"# one switch (Slurm topology.conf)\nSwitchName=s0 Nodes=f[0-{n - 1}]\n"
    return dict(net=net, route=route, what=what, topo=topo, no_route_keys=True)


def mixed(rng):
    leaves, spines = rng.randint(3, 8), rng.randint(2, 4)
    counts = [rng.randint(5, 20) for _ in range(leaves)]
    host_gbit = [rng.choice([25, 50, 100, 200]) for _ in range(leaves)]
    up_gbit = rng.choice([100, 200, 400])
    lat = draw_lat(rng, 0.1, 0.5)
    net = Net()
    route = leaf_spine(net, counts, [gbps(b) for b in host_gbit], spines, gbps(up_gbit), lat)
    what = (f"mixed speeds, {sum(counts)} hosts on {leaves} leaves (hosts {counts}, host links "
            f"{host_gbit} Gb/s), {spines} spines at {up_gbit} Gb/s, {lat} us per link, D-mod-k routes")
    return dict(net=net, route=route, what=what, topo=graph_topo(net, "leaves and spines"))


GENERATORS = {"dragonfly": dragonfly, "torus3d": torus3d, "fattree": fattree, "flat": flat,
              "mixed": mixed, "torus2d": torus2d}


def graph_topo(net, what, routing=None, link_class=None):
    """Native switch graph: every non-host end of a link is a switch (limiters excluded);
    routing: the file's "routing" statement (None: none, the planner's up*/down*);
    link_class(a, b): a link's CLASS (None: the default)."""
    hosts = set(net.hosts)
    deg = {}
    for a, b, _, _, _ in net.links:
        for x in (a, b):
            if x not in hosts:
                deg[x] = deg.get(x, 0) + 1
    lines = [f"# {what}: native switch graph (link speeds and latencies are not in this format)"]
    lines += [f"switch {s} {deg[s]}" for s in deg]
    lines += [f"host {h}" for h in net.hosts]
    cls = (lambda a, b: None) if link_class is None else link_class
    lines += [f"link {a} {b}" + ("" if cls(a, b) is None else f" {cls(a, b)}") for a, b, _, _, _ in net.links]
    if routing:
        lines.append(f"routing {routing}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- facts and files
def shortest_latency(net, src):
    adj = {}
    for a, b, _, lat, _ in net.links:
        adj.setdefault(a, []).append((b, lat))
        adj.setdefault(b, []).append((a, lat))
    dist, todo = {src: 0.0}, [(0.0, src)]
    while todo:
        d, u = heapq.heappop(todo)
        if d > dist[u]:
            continue
        for v, lat in adj.get(u, []):
            if d + lat < dist.get(v, float("inf")):
                dist[v] = d + lat
                heapq.heappush(todo, (d + lat, v))
    return dist


def generate(out, family, seed):
    """Writes gen-FAMILY-SEED.{xml,hosts,topo,machine,env} into out; returns its name."""
    rng = random.Random(f"{family}:{seed}")
    g = GENERATORS[family](rng)
    net, route = g["net"], g["route"]
    name = f"gen-{family}-{seed}"
    # (no double dash: it ends up in an XML comment)
    what = f"generated by seed {seed}, family {family}: {g['what']}"
    n = len(net.hosts)
    routes = {}
    total_lat = total_links = 0.0
    for s in range(n):
        for d in range(n):
            if s != d:
                r = routes[(s, d)] = route(s, d)
                total_lat += sum(net.links[i][3] for i, _ in r)
                total_links += sum(1 for i, _ in r if net.links[i][4] != "SHARED")
    pairs = n * (n - 1)
    mean_lat = total_lat / pairs
    xml = [mp.HEADER.format(what=what), f'<zone id="AS_{name}" routing="Full">']
    xml += [f'  <host id="{h}" speed="1Gf"/>' for h in net.hosts]
    for i, (a, b, bw, lat, pol) in enumerate(net.links):
        xml.append(f'  <link id="L{i}" bandwidth="{fmt_bw(bw)}" latency="{fmt_lat(lat)}" '
                   f'sharing_policy="{pol}"/>  <!-- {a} - {b} -->')
    xml += [f'  <link id="lo{i}" bandwidth="100GBps" latency="0us"/>' for i in range(n)]
    for s in range(n):
        xml.append(f'  <route src="{net.hosts[s]}" dst="{net.hosts[s]}"><link_ctn id="lo{s}"/></route>')
        for d in range(n):
            if s != d:
                ctn = "".join(f'<link_ctn id="L{i}" direction="{dr}"/>' if net.links[i][4] != "SHARED"
                              else f'<link_ctn id="L{i}"/>' for i, dr in routes[(s, d)])
                xml.append(f'  <route src="{net.hosts[s]}" dst="{net.hosts[d]}" symmetrical="NO">{ctn}</route>')
    xml.append("</zone>\n</platform>\n")
    mp.write(os.path.join(out, name + ".xml"), "\n".join(xml))
    mp.write(os.path.join(out, name + ".hosts"), "".join(h + "\n" for h in net.hosts))
    mp.write(os.path.join(out, name + ".topo"), g["topo"])

    hostset = set(net.hosts)
    bw_of = {x: bw for a, b, bw, _, _ in net.links for x in (a, b) if x in hostset}
    host_bw = [bw_of[h] for h in net.hosts]  # (switch networks: a host's one link)
    dist = shortest_latency(net, net.hosts[0])
    far = max(dist[h] for h in net.hosts[1:])
    near = min(sum(net.links[i][3] for i, _ in routes[(0, d)]) for d in range(1, n))
    t = g.get("torus")
    if t:
        route_keys = (t["hop_us"], total_links / pairs + 2)  # pm_route counts 2 host links
        b_node, root, agg = t["lim_gbps"], t["lim_gbps"], t["lim_gbps"] * n / (2.0 * (n - 1))
        link_gbps, extra, switch_gbps = mp.BW_GBPS, {"TORUS": t["dims"]}, None
    else:
        mean_links = total_links / pairs
        route_keys = None if g.get("no_route_keys") else (mean_lat / mean_links, mean_links)
        link_gbps = min(host_bw)
        b_node, root, agg, extra = link_gbps, host_bw[0], min(host_bw), None
        switch_gbps = min((bw for a, b, bw, _, _ in net.links if a not in hostset and b not in hostset),
                          default=None)
    extra = dict(extra or {}, GENERATED=f"family={family} seed={seed}")
    env = mp.platform_env(out, name, n, mean_lat, b_node, what, extra=extra, route=route_keys,
                          bound=(far, near, root, agg), link_gbps=link_gbps, switch_gbps=switch_gbps)
    mp.write(os.path.join(out, name + ".env"), mp.env_text(env))
    return name


def parse_name(p):
    """'gen-FAMILY-SEED' -> (family, seed) or None."""
    parts = p.split("-")
    if len(parts) == 3 and parts[0] == "gen" and parts[1] in GENERATORS and parts[2].isdigit():
        return parts[1], int(parts[2])
    return None
