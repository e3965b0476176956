#!/usr/bin/env python3
"""One rank's sends in the last broadcast of a sim_bcast --trace (stderr) file: when the
send was posted, when its receiver had posted the matching receive, when it completed,
and the transfer time (completion - max(send post, receive post)).

usage: sends.py TRACE RANK [BROADCASTS]   (BROADCASTS: how many the trace holds, default 2)
"""
import collections
import sys


def main():
    path, rank = sys.argv[1], int(sys.argv[2])
    nbc = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    ops = collections.defaultdict(list)
    posted = {}
    for line in open(path):
        f = line.split()
        if not f or f[0] != 'T':
            continue
        t, r, slot = float(f[2]), int(f[3]), int(f[4])
        if f[1] == 'post':
            posted[(r, slot)] = dict(post=t, kind=f[5], peer=int(f[6]), off=int(f[7]),
                                     len=int(f[8]), rank=r)
        else:
            o = posted.pop((r, slot))
            o['done'] = t
            ops[r].append(o)
    last = []
    for r, lst in ops.items():
        per = len(lst) // nbc
        last += lst[len(lst) - per:]
    t0 = min(o['post'] for o in last)
    recv = {(o['rank'], o['peer'], o['off']): o for o in last if o['kind'] == 'R'}
    slow = 0
    sends = sorted((o for o in last if o['rank'] == rank and o['kind'] == 'S'),
                   key=lambda o: o['post'])
    print("send       block  posted  recv-posted  done    transfer")
    for o in sends:
        m = recv[(o['peer'], rank, o['off'])]
        start = max(o['post'], m['post'])
        xfer = o['done'] - start
        slow += xfer > 1.2 * min(x['done'] - max(x['post'], recv[(x['peer'], rank, x['off'])]['post'])
                                 for x in sends)
        print("%3d -> %-3d %5d %8.3f %8.3f %8.3f %8.3f" % (rank, o['peer'], o['off'] // max(1, o['len']),
                                                    o['post'] - t0, m['post'] - t0, o['done'] - t0, xfer))
    print("# %d sends, %d take more than 1.2x the fastest's transfer time" % (len(sends), slow))
    # every rank: the most transfers arriving at once (a send's transfer runs from
    # max(send post, receive post) to the send's completion)
    inbound = collections.defaultdict(list)
    for o in last:
        if o['kind'] == 'S':
            m = recv[(o['peer'], o['rank'], o['off'])]
            inbound[o['peer']] += [(max(o['post'], m['post']), 1), (o['done'], -1)]
    most, where = 0, -1
    for r, ev in inbound.items():
        cur = 0
        for _, d in sorted(ev, key=lambda e: (e[0], e[1])):
            cur += d
            if cur > most:
                most, where = cur, r
    print("# most transfers arriving at one rank at once: %d (rank %d)" % (most, where))


main()
