#!/usr/bin/env python3
"""Properties of perf/sim's platform generator (gen_platforms.py), checked from the files it
writes, not from its code:

  * the same seed gives byte-identical files (two runs into two directories);
  * every family writes make_platforms.py's file set (.xml .hosts .topo .machine .env);
  * different seeds draw different parameters (per family, seeds 1-3 not all alike);
  * host counts: NP = the hostfile's lines = the XML's hosts = the .topo's hosts, within
    the family's documented range; the flat family's is never a power of two;
  * every ordered pair of distinct hosts has a route in the XML, every link it names is
    declared, and the route is a walk from the source to the destination (the link ends
    written next to each link);
  * the .machine's net.latency_us is the mean route latency over ALL ordered host pairs,
    recomputed here from the XML; LB_NEAR_US is the smallest route latency from rank 0's
    host and LB_FAR_US is positive and at most the largest.

    perf/sim/test_gen_platforms.py [SEED...]     (default 1 2 3); exits 1 on a failure
"""
import filecmp
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FAMILIES = ["dragonfly", "torus3d", "fattree", "flat", "mixed", "torus2d"]
RANGES = {"dragonfly": (48, 144), "torus3d": (27, 128), "fattree": (48, 144), "flat": (40, 130),
          "mixed": (15, 160), "torus2d": (20, 144)}
SUFFIXES = [".xml", ".hosts", ".topo", ".machine", ".env"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def generate(out, seeds):
    subprocess.run([sys.executable, os.path.join(HERE, "make_platforms.py"), "--out", out,
                    "--generate", ",".join(map(str, seeds))], check=True, stdout=subprocess.DEVNULL)


def read_env(path):
    env = {}
    for line in open(path):
        k, _, v = line.rstrip("\n").partition("=")
        env[k] = v.strip('"')
    return env


def us(text):
    m = re.fullmatch(r"([0-9.eE+-]+)(us|s|ms|ns)?", text)
    return float(m.group(1)) * {"us": 1, "s": 1e6, "ms": 1e3, "ns": 1e-3, None: 1e6}[m.group(2)]


LINK = re.compile(r'<link id="([^"]+)" bandwidth="[^"]+" latency="([^"]+)"(?: sharing_policy="([A-Z]+)")?/>'
                  r'(?:\s*<!-- (\S+) - (\S+) -->)?')
ROUTE = re.compile(r'<route src="([^"]+)" dst="([^"]+)"[^>]*>(.*?)</route>')
CTN = re.compile(r'<link_ctn id="([^"]+)"(?: direction="(UP|DOWN)")?/>')


def check_platform(d, name, family):
    env = read_env(os.path.join(d, name + ".env"))
    hosts = open(os.path.join(d, name + ".hosts")).read().split()
    xml = open(os.path.join(d, name + ".xml")).read()
    xml_hosts = re.findall(r'<host id="([^"]+)"', xml)
    n = int(env["NP"])
    check(n == len(hosts) == len(xml_hosts) == len(set(hosts)) and set(hosts) == set(xml_hosts),
          f"{name}: NP {n}, hostfile {len(hosts)}, XML {len(xml_hosts)} hosts")
    lo, hi = RANGES[family]
    check(lo <= n <= hi, f"{name}: {n} hosts outside {lo}-{hi}")
    if family == "flat":
        check(n & (n - 1) != 0, f"{name}: {n} hosts, a power of two")
    topo = open(os.path.join(d, name + ".topo")).read()
    if family == "flat":
        m = re.search(r"Nodes=f\[0-(\d+)\]", topo)
        check(m and int(m.group(1)) + 1 == n, f"{name}: the Slurm switch does not list the {n} hosts")
    else:
        topo_hosts = re.findall(r"^host (\S+)", topo, re.M)
        check(sorted(topo_hosts) == sorted(hosts), f"{name}: .topo hosts differ from the hostfile")
    if family == "torus3d":
        check(re.search(r"^torus \d+x\d+x\d+ torus bidirectional$", topo, re.M), f"{name}: no 3-D torus line")
    if family == "torus2d":
        m = re.search(r"^torus (\d+)x(\d+) torus bidirectional$", topo, re.M)
        check(m and m.group(1) != m.group(2) and int(m.group(1)) * int(m.group(2)) == n,
              f"{name}: no 2-D torus line of X != Y and X Y = {n} hosts")

    links = {}
    for lid, lat, pol, a, b in LINK.findall(xml):
        links[lid] = (us(lat), pol or "SHARED", a, b)
    routes = {(s, t): CTN.findall(body) for s, t, body in ROUTE.findall(xml)}
    total, pairs, from0 = 0.0, 0, []
    bad_walks = missing = 0
    for s in hosts:
        for t in hosts:
            if s == t:
                continue
            r = routes.get((s, t))
            if r is None or not r:
                missing += 1
                continue
            lat, cur = 0.0, s
            for lid, direction in r:
                if lid not in links:
                    missing += 1
                    break
                l_lat, pol, a, b = links[lid]
                lat += l_lat
                if pol == "SHARED":  # a node's limiter: at the node the walk is at
                    bad_walks += a != cur
                elif direction == "UP":
                    bad_walks += a != cur
                    cur = b
                else:
                    bad_walks += b != cur
                    cur = a
            bad_walks += cur != t
            total += lat
            pairs += 1
            if s == hosts[0]:
                from0.append(lat)
    check(missing == 0, f"{name}: {missing} host pairs without a (declared) route")
    check(bad_walks == 0, f"{name}: {bad_walks} route steps that do not lead from source to destination")
    if pairs == 0:
        return
    mean = total / pairs
    machine = dict(line.split(None, 1) for line in open(os.path.join(d, name + ".machine")) if " " in line)
    got = float(machine["net.latency_us"])
    check(abs(got - mean) < 1e-4, f"{name}: net.latency_us {got}, mean route latency over all pairs {mean:.6f}")
    check(abs(float(env["LB_NEAR_US"]) - min(from0)) < 1e-4,
          f"{name}: LB_NEAR_US {env['LB_NEAR_US']}, smallest route latency from rank 0 {min(from0)}")
    check(0 < float(env["LB_FAR_US"]) <= max(from0) + 1e-4,
          f"{name}: LB_FAR_US {env['LB_FAR_US']} not in (0, {max(from0)}]")


def main():
    seeds = [int(s) for s in sys.argv[1:]] or [1, 2, 3]
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        generate(a, seeds)
        generate(b, list(reversed(seeds)))  # the same seeds, in another order
        names = sorted(os.listdir(a))
        check(names == sorted(os.listdir(b)), "two runs wrote different file sets")
        _, mismatch, errors = filecmp.cmpfiles(a, b, names, shallow=False)
        check(not mismatch and not errors, f"the same seeds gave different files: {mismatch + errors}")
        expect = sorted(f"gen-{f}-{s}{x}" for f in FAMILIES for s in seeds for x in SUFFIXES)
        check(names == expect, f"file set {names} != {expect}")
        for f in FAMILIES:
            descs = set()
            for s in seeds:
                name = f"gen-{f}-{s}"
                if not os.path.exists(os.path.join(a, name + ".env")):
                    continue
                descs.add(read_env(os.path.join(a, name + ".env"))["DESCRIPTION"].split(": ", 1)[1])
                check_platform(a, name, f)
            if len(seeds) > 1:
                check(len(descs) > 1, f"{f}: seeds {seeds} drew the same parameters")
    for m in failures:
        print("FAIL", m)
    print(f"test_gen_platforms: seeds {seeds}, {len(FAMILIES)} families: "
          f"{'failed' if failures else 'passed'} ({len(failures)} failures)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
