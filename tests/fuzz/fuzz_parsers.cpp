/*
 * Fuzz targets of the parsers, one per input format, and the replay driver that
 * `make check` runs over the committed corpus (tests/fuzz/README.md).
 *
 *   ibnet   ibnetdiscover / ibsim text  -> pm_topology_parse_string(PM_FMT_IBNET)
 *   slurm   Slurm topology.conf         -> pm_topology_parse_string(PM_FMT_SLURM)
 *   native  native topology, format detected (PM_FMT_AUTO, as pm_topology_load)
 *   coords  coordinates file (coll_pathmc_coords_file): a native torus file, read the
 *           way the pathmc glue reads it, then rebuilt with pm_topology_from_coords
 *           and every torus algorithm built on its hosts
 *   rules   decision rules              -> kb_rules_parse, kb_rules_match
 *   machine machine model file          -> mcast_machine_parse, then the planner on it
 *
 * Each target checks what a caller relies on and aborts when it does not hold:
 * an error is "NAME:LINE: message" with LINE within the input and no object; an
 * accepted topology names every host once, orders its hosts (PM_ORDER_AUTO, the
 * glue's call) into a permutation; trees built on it pass kb_tree_check.
 *
 * Adding a parser: write a `int fuzz_NAME(const uint8_t *, size_t)` below, add one
 * line to kTargets, and add NAME to FUZZ_TARGETS in tests/fuzz/Makefile.am.
 *
 * Built two ways from this one file:
 *   -DFUZZ_TARGET=\"NAME\" -fsanitize=fuzzer,...   libFuzzer binary fuzz_NAME
 *   (no FUZZ_TARGET)                              fuzz_replay TARGET FILE...
 */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kb_file.h"
#include "kbinomial.h"
#include "mcast_planner.h"
#include "pathmc.h"

namespace {

[[noreturn]] void violated(const char *what, const std::string &detail)
{
    std::fprintf(stderr, "fuzz invariant violated: %s: %s\n", what, detail.c_str());
    std::abort();
}

/* The input as the parsers get it from kb_file_read: text without NUL bytes. */
bool as_text(const uint8_t *data, size_t size, std::string *text)
{
    if (std::memchr(data, '\0', size)) return false;
    text->assign((const char *) data, size);
    return true;
}

/* An error message is "NAME:LINE: ..." with 1 <= LINE <= lines + 1. */
void check_error(const std::string &name, const std::string &text, const char *err)
{
    std::string e(err), want = name + ":";
    if (e.compare(0, want.size(), want) != 0) violated("error without the file name", e);
    size_t p = want.size(), q = p;
    while (q < e.size() && e[q] >= '0' && e[q] <= '9') ++q;
    if (q == p || q - p > 10 || q >= e.size() || e[q] != ':') violated("error without a line number", e);
    long line = std::atol(e.substr(p, q - p).c_str());
    long lines = 1;
    for (char c : text) lines += c == '\n';
    if (line < 1 || line > lines) violated("error line outside the input", e);
}

/* Up to kHosts hosts of an accepted topology, each named once, ordered by the
 * glue's call into a permutation with the root first. */
constexpr int kHosts = 256;

void check_topology(const pm_topology_t *t)
{
    int nh = pm_topology_nhosts(t);
    if (nh < 0 || nh > PM_MAX_HOSTS) violated("host count", std::to_string(nh));
    if (pm_topology_nswitches(t) < 0 || pm_topology_nswitches(t) > PM_MAX_SWITCHES) violated("switch count", "");
    int n = nh < kHosts ? nh : kHosts;
    std::vector<const char *> hosts(n);
    for (int i = 0; i < n; ++i) {
        hosts[i] = pm_topology_host_name(t, i);
        if (!hosts[i] || !hosts[i][0] || std::strlen(hosts[i]) > PM_MAX_NAME_BYTES) violated("host name", "");
    }
    if (n == 0) return;
    std::vector<int> ord(n);
    char err[256] = "";
    for (int root : {-1, n - 1}) {
        int rc = pm_order_hosts(t, PM_ORDER_AUTO, n, hosts.data(), root, ord.data(), err, sizeof err);
        if (rc != PM_OK) violated("pm_order_hosts(AUTO) of an accepted topology", err);
        std::vector<char> seen(n, 0);
        for (int r : ord) {
            if (r < 0 || r >= n || seen[r]) violated("ordering is not a permutation", "");
            seen[r] = 1;
        }
        if (root >= 0 && ord[0] != root) violated("ordering does not start at the root", "");
    }
}

/* The input parsed; an error checked and nullptr, or the checked topology. */
pm_topology_t *parse_checked(const uint8_t *data, size_t size, pm_format_t fmt, const char *name)
{
    std::string text;
    if (!as_text(data, size, &text)) return nullptr;
    pm_topology_t *t = (pm_topology_t *) 0x1;
    char err[512] = "";
    int rc = pm_topology_parse_string(text.c_str(), fmt, name, &t, err, sizeof err);
    if (rc != PM_OK) {
        if (t) violated("topology returned with an error", err);
        if (rc == PM_ERR_NOMEM) return nullptr;
        if (rc != PM_ERR_PARSE) violated("status of a malformed input", std::to_string(rc) + " " + err);
        check_error(name, text, err);
        return nullptr;
    }
    check_topology(t);
    return t;
}

int fuzz_topology(const uint8_t *data, size_t size, pm_format_t fmt, const char *name)
{
    pm_topology_free(parse_checked(data, size, fmt, name));
    return 0;
}

int fuzz_ibnet(const uint8_t *d, size_t n) { return fuzz_topology(d, n, PM_FMT_IBNET, "ibnet"); }
int fuzz_slurm(const uint8_t *d, size_t n) { return fuzz_topology(d, n, PM_FMT_SLURM, "slurm"); }
int fuzz_native(const uint8_t *d, size_t n) { return fuzz_topology(d, n, PM_FMT_AUTO, "native"); }

/* The coordinates file: parsed as the pathmc glue does (native, must be a torus;
 * every host's coordinates), rebuilt from those coordinates (the PMIx path,
 * pm_topology_from_coords: same coordinates back), then every torus algorithm on
 * the hosts, root last. */
int fuzz_coords(const uint8_t *data, size_t size)
{
    pm_topology_t *t = parse_checked(data, size, PM_FMT_NATIVE, "coords");
    if (!t) return 0;
    char err[512] = "";
    pm_torus_shape_t shape;
    std::memset(&shape, 0, sizeof shape);
    if (pm_topology_torus_shape(t, &shape.ndims, shape.dims, PM_MAX_DIMS, &shape.wrap, &shape.bidir) != PM_OK) {
        if (pm_topology_kind(t) == PM_TOPO_TORUS) violated("torus without a shape", "");
        pm_topology_free(t);
        return 0;
    }
    const int nd = shape.ndims;
    const int n = pm_topology_nhosts(t) < 64 ? pm_topology_nhosts(t) : 64;
    std::vector<const char *> hosts(n);
    std::vector<int> coords((size_t) n * nd);
    for (int i = 0; i < n; ++i) {
        hosts[i] = pm_topology_host_name(t, i);
        if (pm_topology_host_coords(t, hosts[i], &coords[(size_t) i * nd], nd) != PM_OK)
            violated("torus host without coordinates", hosts[i]);
        for (int d = 0; d < nd; ++d)
            if (coords[(size_t) i * nd + d] < 0 || coords[(size_t) i * nd + d] >= shape.dims[d])
                violated("coordinate outside the torus", hosts[i]);
    }
    if (n > 0) {
        pm_topology_t *u = nullptr;
        int rc = pm_topology_from_coords(n, hosts.data(), nd, coords.data(), shape.wrap ? shape.dims : nullptr, &u,
                                         err, sizeof err);
        if (rc != PM_OK) violated("pm_topology_from_coords of parsed coordinates", err);
        std::vector<int> back(nd);
        for (int i = 0; i < n; ++i)
            if (pm_topology_host_coords(u, hosts[i], back.data(), nd) != PM_OK ||
                !std::equal(back.begin(), back.end(), &coords[(size_t) i * nd]))
                violated("coordinates changed through pm_topology_from_coords", hosts[i]);
        pm_topology_free(u);
        for (int alg = 0; alg < pm_torus_algorithm_count(); ++alg) {
            kb_tree_t *tree = nullptr;
            pm_torus_stats_t st;
            rc = pm_torus_build((pm_torus_alg_t) alg, &shape, n, coords.data(), n - 1, 0, &tree, &st);
            if (rc == PM_OK && (kb_tree_check(tree) != KB_OK || tree->root != n - 1 || st.depth != tree->depth))
                violated("torus tree", pm_torus_algorithm_get(alg)->name);
            if (rc != PM_OK && rc != PM_ERR_ARG && rc != PM_ERR_UNSUPPORTED && rc != PM_ERR_NOMEM)
                violated("torus build status", std::to_string(rc));
            pm_tree_free(tree);
        }
    }
    pm_topology_free(t);
    return 0;
}

int fuzz_rules(const uint8_t *data, size_t size)
{
    std::string text;
    if (!as_text(data, size, &text)) return 0;
    kb_rules_t *r = (kb_rules_t *) 0x1;
    char err[512] = "";
    int rc = kb_rules_parse(text.c_str(), "rules", &r, err, sizeof err);
    if (rc != KB_OK) {
        if (r) violated("rules returned with an error", err);
        if (rc == KB_ERR_NOMEM) return 0;
        if (rc != KB_ERR_ARG) violated("status of malformed rules", std::to_string(rc));
        check_error("rules", text, err);
        return 0;
    }
    int count = kb_rules_count(r);
    if (count < 0 || count > KB_RULES_MAX_RULES) violated("rule count", std::to_string(count));
    kb_rules_t *again = nullptr;
    if (kb_rules_parse(text.c_str(), "rules", &again, err, sizeof err) != KB_OK ||
        kb_rules_checksum(again) != kb_rules_checksum(r))
        violated("checksum is not a function of the text", "");
    kb_rules_free(again);
    long lines = 1;
    for (char c : text) lines += c == '\n';
    for (int n : {1, 2, 3, 64, 1 << 20})
        for (size_t bytes : {(size_t) 0, (size_t) 1, (size_t) 1023, (size_t) 1 << 20, ~(size_t) 0})
            for (int local = 0; local < 2; ++local) {
                kb_rule_t rule;
                int m = kb_rules_match(r, n, bytes, local, &rule);
                if (m != 0 && m != 1) violated("kb_rules_match status", std::to_string(m));
                if (m == 1 && (rule.line < 1 || rule.line > lines || !rule.algorithm || !rule.algorithm[0] ||
                               rule.k < 0 || rule.k > 1024))
                    violated("matched rule", std::to_string(rule.line));
            }
    kb_rules_free(r);
    return 0;
}

/* The machine model file: an accepted file gives finite, non-negative parameters, and
 * the planner decides on it (auto, both components' candidates, a few sizes) with a
 * finite, non-negative prediction. */
int fuzz_machine(const uint8_t *data, size_t size)
{
    std::string text;
    if (!as_text(data, size, &text)) return 0;
    mcast_machine_t m;
    char err[512] = "";
    int rc = mcast_machine_parse(text.c_str(), "machine", &m, err, sizeof err);
    if (rc != KB_OK) {
        if (rc == KB_ERR_NOMEM) return 0;
        check_error("machine", text, err);
        return 0;
    }
    for (const mcast_loggp_t *g : {&m.net, &m.shm}) {
        for (double v : {g->o_send_us, g->o_recv_us, g->latency_us, g->gap_ns_per_byte,
                         g->wire_ns_per_byte, g->recv_ns_per_byte})
            if (!(v >= 0 && v <= 1e12)) violated("machine parameter", std::to_string(v));
    }
    mcast_forced_t f;
    mcast_forced_default(&f);
    for (int n : {2, 7, 64})
        for (size_t bytes : {(size_t) 1, (size_t) 65536, (size_t) 1 << 22}) {
            mcast_plan_input_t in;
            std::memset(&in, 0, sizeof in);
            in.component = MCAST_COMP_KBINOMIAL;
            in.n = n;
            in.root = n / 2;
            in.bytes = bytes;
            in.all_local = n == 7;
            in.nnodes = n == 7 ? 1 : n;
            in.machine = &m;
            in.forced = &f;
            mcast_plan_t *p = nullptr;
            if (mcast_plan_select(&in, &p, err, sizeof err) != KB_OK)
                violated("planner refused an accepted machine", err);
            mcast_plan_info_t info;
            mcast_plan_get_info(p, &info);
            if (!(info.predicted_us >= 0) || !std::isfinite(info.predicted_us))
                violated("prediction", std::to_string(info.predicted_us));
            mcast_plan_free(p);
        }
    return 0;
}

struct Target {
    const char *name;
    int (*run)(const uint8_t *, size_t);
};
const Target kTargets[] = {
    {"ibnet", fuzz_ibnet},
    {"slurm", fuzz_slurm},
    {"native", fuzz_native},
    {"coords", fuzz_coords},
    {"rules", fuzz_rules},
    {"machine", fuzz_machine},
};

const Target *target_named(const char *name)
{
    for (const Target &t : kTargets)
        if (std::strcmp(t.name, name) == 0) return &t;
    return nullptr;
}

}  // namespace

#ifdef FUZZ_TARGET
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const Target *t = target_named(FUZZ_TARGET);
    if (!t) violated("unknown FUZZ_TARGET", FUZZ_TARGET);
    return t->run(data, size);
}
#else
/* fuzz_replay TARGET FILE...: every file through one target; prints the count. */
int main(int argc, char **argv)
{
    const Target *t = argc >= 2 ? target_named(argv[1]) : nullptr;
    if (!t) {
        std::fprintf(stderr, "usage: fuzz_replay TARGET FILE...  (targets:");
        for (const Target &k : kTargets) std::fprintf(stderr, " %s", k.name);
        std::fprintf(stderr, ")\n");
        return 2;
    }
    int n = 0;
    for (int i = 2; i < argc; ++i) {
        char *text = nullptr;
        size_t len = 0;
        char err[512];
        if (kb_file_read(argv[i], 1 << 24, &text, &len, err, sizeof err) == KB_FILE_ERR_IO) {
            std::fprintf(stderr, "fuzz_replay: %s\n", err);
            return 1;
        }
        if (!text) {   /* NUL bytes: feed the raw bytes as libFuzzer would */
            FILE *f = std::fopen(argv[i], "rb");
            std::vector<uint8_t> raw;
            for (int c; f && (c = std::fgetc(f)) != EOF;) raw.push_back((uint8_t) c);
            if (f) std::fclose(f);
            t->run(raw.data(), raw.size());
        } else {
            t->run((const uint8_t *) text, len);
            std::free(text);
        }
        ++n;
    }
    std::printf("fuzz_replay %s: %d inputs, no invariant violated\n", t->name, n);
    return 0;
}
#endif
