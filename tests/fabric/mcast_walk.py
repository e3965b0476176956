#!/usr/bin/env python3
"""mcast_walk.py -- the path a multicast packet takes from one end port to another, read
from the fabric's live state: the links of `ibnetdiscover` and the switches' multicast
forwarding tables of `dump_fts -M` (both queried from the switches over SMPs, nothing
from our generator).  Used by tests/fabric/run.sh where `ibtracert -m` cannot run
(Debian 13's infiniband-diags 56.1 dies of SIGSEGV in it); prints the route in the form
`mcast-inspect --path` prints ("route SRC SW:IN>OUT ... DST"), or "no route" and exit 1.

    mcast_walk.py IBNETDISCOVER_OUTPUT DUMP_FTS_M_OUTPUT MLID SRC_NAME DST_NAME

A switch forwards a packet of the group out of every port of its table's row except the
one it came in on; the walk follows those ports breadth-first from the source's switch.
"""
import re
import sys
from collections import deque


def read_links(path):
    """(switch guid, port) -> (peer guid, peer port); guid -> node description."""
    links, names, switches = {}, {}, set()
    sw = None
    head = re.compile(r'^Switch\s+\d+\s+"S-([0-9a-fA-F]+)".*#\s+"([^"]*)"')
    port = re.compile(r'^\[(\d+)\]\s+"([SH])-([0-9a-fA-F]+)"\[(\d+)\].*#\s+"([^"]*)"')
    with open(path) as f:
        for line in f:
            m = head.match(line)
            if m:
                sw = int(m.group(1), 16)
                names[sw] = m.group(2)
                switches.add(sw)
                continue
            if not line.strip():
                sw = None
                continue
            m = port.match(line)
            if m and sw is not None:
                peer = int(m.group(3), 16)
                links[(sw, int(m.group(1)))] = (peer, int(m.group(4)))
                names.setdefault(peer, m.group(5))
    return links, names, switches


def read_mfts(path, mlid):
    """switch guid -> set of ports in the row of mlid."""
    rows, sw, cols = {}, None, []
    guid = re.compile(r'guid 0x([0-9a-fA-F]+)')
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            m = guid.search(line) if line.startswith('Multicast mlids') else None
            if m:
                sw, cols = int(m.group(1), 16), []
                continue
            if line.strip().startswith('Ports:'):
                # the column of each port number: the index of its last digit
                cols = [(mm.end() - 1, int(mm.group())) for mm in re.finditer(r'\d+', line)
                        if mm.start() >= line.index(':')]
                continue
            parts = line.split()
            if sw is not None and parts and parts[0].startswith('0x') and int(parts[0], 16) == mlid:
                ports = set()
                for i, ch in enumerate(line):
                    if ch == 'x' and i > len(parts[0]):
                        near = [p for c, p in cols if c == i]
                        if near:
                            ports.add(near[0])
                rows[sw] = ports
    return rows


def main(argv):
    if len(argv) != 6:
        sys.stderr.write(__doc__)
        return 2
    links, names, switches = read_links(argv[1])
    mlid = int(argv[3], 0)
    rows = read_mfts(argv[2], mlid)
    src, dst = argv[4], argv[5]
    start = [(sw, p) for (sw, p), (peer, _) in links.items()
             if sw in switches and names.get(peer) == src and peer not in switches]
    if not start:
        print("no route (source %s not found)" % src)
        return 1
    queue = deque((sw, p, [names[sw] + ':%d' % p]) for sw, p in start[:1])
    seen = set()
    while queue:
        sw, inport, hops = queue.popleft()
        if sw in seen:
            continue
        seen.add(sw)
        for out in sorted(rows.get(sw, ())):
            if out == inport or (sw, out) not in links:
                continue
            peer, pport = links[(sw, out)]
            path = hops[:-1] + [hops[-1] + '>%d' % out]
            if peer in switches:
                queue.append((peer, pport, path + [names[peer] + ':%d' % pport]))
            elif names.get(peer) == dst:
                print(' '.join(['route', src] + path + [dst]))
                return 0
    print("no route")
    return 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
