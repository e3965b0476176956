/*
 * mcast-inspect: what one broadcast algorithm does on one fabric.
 *
 * Loads a topology (native, ibnetdiscover/ibsim or Slurm topology.conf), places
 * ranks on hosts, orders them, asks the components' planner (mcast_plan_select, the
 * same call and the same inputs the components make) for the plan and prints, one
 * labelled section each: the input, the chain (ordering), the plan's tree, the
 * per-step link conflicts of its FPFS single-packet schedule and the plan's model
 * (parameters, predicted time, selected_by, and under auto the runner-up verification
 * would try beside the choice).  Optionally draws the fabric with the
 * tree on top as Graphviz DOT (SVG/PNG through `dot`).
 *
 *   fabric + hosts --pm_order_hosts--> chain --mcast_plan_select--> plan (tree, ...)
 *   tree --pm_plan_from_tree--> (step, src, dst) --pm_check_contention--> conflicts
 *
 * The machine model is the planner's built-in one, or --machine FILE (docs/machine-model.md).
 *
 * Exit status: 0 success, 1 internal failure (core error, dot failed, cannot
 * write), 2 bad input (usage, unreadable or malformed topology, unknown host or
 * algorithm, an ordering/routing the topology does not support).
 */
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <getopt.h>

#include "kbinomial.h"
#include "mcast_planner.h"
#include "pathmc.h"

extern char **environ;

namespace {

constexpr int EXIT_INTERNAL = 1;
constexpr int EXIT_INPUT = 2;

/* Thrown with the exit status and the message printed on stderr; a bare message
 * (the core's "file:line: message") is printed without the program name. */
struct Fail : std::runtime_error {
    int status;
    bool bare;
    Fail(int s, const std::string &m, bool b = false) : std::runtime_error(m), status(s), bare(b) {}
};

std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char *f, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof(buf), f, ap);
    va_end(ap);
    return buf;
}

/* Core status -> exit status: bad input is the user's, the rest is ours. */
int status_of(int rc)
{
    return (PM_ERR_NOMEM == rc || PM_ERR_INTERNAL == rc) ? EXIT_INTERNAL : EXIT_INPUT;
}

/* ------------------------------------------------------------------ registry */
/* The components' one registry (mcast_planner.h): names, descriptions, components. */
std::string algorithm_names()
{
    std::string s;
    for (int i = 0; i < mcast_registry_count(); ++i) {
        s += (s.empty() ? "" : ", ") + std::string(mcast_registry_get(i)->name);
    }
    return s;
}

int list_algorithms()
{
    for (int i = 0; i < mcast_registry_count(); ++i) {
        const mcast_alg_info_t *a = mcast_registry_get(i);
        const char *comp = a->component == (MCAST_COMP_KBINOMIAL | MCAST_COMP_PATHMC)
                               ? "kbinomial,pathmc"
                               : (a->component & MCAST_COMP_PATHMC) ? "pathmc" : "kbinomial";
        printf("%-12s %s [coll/%s]\n", a->name, a->description, comp);
    }
    return 0;
}

struct Named {
    const char *name;
    int value;
};
const Named kOrderings[] = {{"auto", PM_ORDER_AUTO},   {"dor", PM_ORDER_DOR},
                            {"snake", PM_ORDER_SNAKE}, {"poc", PM_ORDER_POC},
                            {"fattree", PM_ORDER_FATTREE}, {"tour", PM_ORDER_TOUR},
                            {"identity", -1}};
const Named kRoutings[] = {{"default", PM_ROUTE_DEFAULT},
                           {"dor", PM_ROUTE_DOR},
                           {"updown", PM_ROUTE_UPDOWN},
                           {"fattree", PM_ROUTE_FATTREE},
                           {"minhop", PM_ROUTE_MINHOP}};

template <size_t N>
int lookup_named(const Named (&table)[N], const std::string &name, const char *what)
{
    std::string all;
    for (const Named &e : table) {
        if (name == e.name) {
            return e.value;
        }
        all += all.empty() ? "" : "|";
        all += e.name;
    }
    throw Fail(EXIT_INPUT, fmt("unknown %s '%s' (expected %s)", what, name.c_str(), all.c_str()));
}

template <size_t N>
const char *name_of(const Named (&table)[N], int value)
{
    for (const Named &e : table) {
        if (e.value == value) {
            return e.name;
        }
    }
    return "?";
}

/* ------------------------------------------------------------------ options */
struct Options {
    std::string topology;
    std::string hosts;          /* "" = every host of the topology */
    int root = 0;
    std::string algorithm = "auto";
    size_t bytes = 65536;
    int k = 0;                  /* 0 = from the model */
    double lambda = 0.0;        /* 0 = from the model */
    size_t segment_bytes = 0;   /* 0 = from the model */
    size_t shm_chunk_bytes = 32768; /* one host: the shared segment's chunk (0 = none) */
    int window = 0;
    int max_sends = -1;
    bool tcp = false;
    std::string machine;        /* machine file, "" = built-in model */
    bool list = false;
    bool machine_keys = false;
    std::string ordering = "auto";
    bool ordering_given = false;
    std::string picture;
    std::string routing = "default";
    std::string generate;       /* --generate-irregular S,K,P,PCT,SEED */
};

void usage(FILE *out)
{
    fprintf(out,
            "Usage: mcast-inspect --topology FILE [options]\n"
            "       mcast-inspect --generate-irregular SWITCHES,PORTS,HOSTS,PCT,SEED\n"
            "       mcast-inspect --fat-tree M,N ...  (cyclic multicast on IBFT(M,N): --fat-tree 4,3 --help)\n"
            "\n"
            "Show the ordering, tree, per-step link conflicts and predicted time of one\n"
            "broadcast algorithm on a fabric.\n"
            "\n"
            "  --topology FILE     native topology, ibnetdiscover/ibsim output or Slurm\n"
            "                      topology.conf (format detected from the first line)\n"
            "  --hosts LIST|@FILE  host of each rank: comma list or a file with one name a\n"
            "                      line (hosts may repeat; default: every host in file order)\n"
            "  --root R            root rank (default 0)\n"
            "  --algorithm NAME    %s\n"
            "                      (default auto: the planner's choice; the torus family\n"
            "                      needs a torus topology; twolevel repeated hosts)\n"
            "  --list-algorithms   the registry: one algorithm a line, with its description\n"
            "  --machine-keys      the machine file's keys, built-in values and meanings\n"
            "                      (a Markdown table, as in docs/machine-model.md)\n"
            "  --bytes M           message size in bytes, K/M/G suffix = KiB/MiB/GiB\n"
            "                      (default 65536)\n"
            "  --k K               k-binomial fan-out bound (default: the planner's)\n"
            "  --lambda L          postal lambda >= 1 (default: from the machine model)\n"
            "  --segment-bytes S   segment size (default: the planner's)\n"
            "  --shm-chunk-bytes C the shared segment of a host (one host: shm; several: twolevel\n"
            "                      intra=shm): its smallest\n"
            "                      chunk, as coll_kbinomial_shm_chunk_bytes (default 32768,\n"
            "                      0 = none; 8 slots of 256 KiB)\n"
            "  --window W          receives posted ahead, 0 = auto (default: 1 circulant, two-tree\n"
            "                      its depth + 2, else 4)\n"
            "  --max-sends N       sends in flight, -1 auto (default), 0 window*children\n"
            "  --machine FILE      machine model file (docs/machine-model.md); default built in\n"
            "  --tcp               the hosts talk over TCP, as the components see Open MPI's\n"
            "                      TCP BTL (the circulant then sends standard, not synchronous)\n"
            "  --ordering NAME     auto|dor|snake|poc|fattree|identity (default auto: dor on\n"
            "                      tori, fattree on fat-trees, poc otherwise)\n"
            "  --routing NAME      default|dor|updown|fattree|minhop for the conflict check\n"
            "  --picture OUT       draw fabric and tree: OUT.dot, or OUT.svg / OUT.png\n"
            "                      through Graphviz `dot`\n"
            "  --generate-irregular S,K,P,PCT,SEED\n"
            "                      print a random irregular fabric (S switches of K ports,\n"
            "                      P hosts, PCT%% of free ports linked) as ibnetdiscover text\n"
            "  --help              this text\n"
            "\n"
            "Ranks on one host are one node (shared-memory model between them).\n"
            "Exit status: 0 ok, 1 internal failure, 2 bad input.\n",
            algorithm_names().c_str());
}

long parse_long(const char *opt, const char *s, long lo, long hi)
{
    char *end = nullptr;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (0 != errno || end == s || '\0' != *end || v < lo || v > hi) {
        throw Fail(EXIT_INPUT, fmt("%s: '%s' is not an integer in [%ld, %ld]", opt, s, lo, hi));
    }
    return v;
}

size_t parse_bytes(const char *s)
{
    char *end = nullptr;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    if (end != s && '\0' != *end && '\0' == end[1]) {
        switch (*end) {
        case 'k': case 'K': shift = 10; ++end; break;
        case 'm': case 'M': shift = 20; ++end; break;
        case 'g': case 'G': shift = 30; ++end; break;
        default: break;
        }
    }
    if (0 != errno || end == s || '\0' != *end || '-' == s[0] || v > (SIZE_MAX >> shift)) {
        throw Fail(EXIT_INPUT, fmt("--bytes: '%s' is not a byte count", s));
    }
    return (size_t) v << shift;
}

Options parse_options(int argc, char **argv)
{
    enum { O_TOPO = 1, O_HOSTS, O_ROOT, O_ALG, O_BYTES, O_K, O_LAMBDA, O_ORDER, O_PIC, O_ROUTE,
           O_GEN, O_HELP, O_LIST, O_SEG, O_WIN, O_MS, O_MACHINE, O_SHM, O_KEYS, O_TCP };
    static const struct option longopts[] = {
        {"topology", required_argument, nullptr, O_TOPO},
        {"hosts", required_argument, nullptr, O_HOSTS},
        {"root", required_argument, nullptr, O_ROOT},
        {"algorithm", required_argument, nullptr, O_ALG},
        {"bytes", required_argument, nullptr, O_BYTES},
        {"k", required_argument, nullptr, O_K},
        {"lambda", required_argument, nullptr, O_LAMBDA},
        {"ordering", required_argument, nullptr, O_ORDER},
        {"picture", required_argument, nullptr, O_PIC},
        {"routing", required_argument, nullptr, O_ROUTE},
        {"generate-irregular", required_argument, nullptr, O_GEN},
        {"list-algorithms", no_argument, nullptr, O_LIST},
        {"machine-keys", no_argument, nullptr, O_KEYS},
        {"segment-bytes", required_argument, nullptr, O_SEG},
        {"shm-chunk-bytes", required_argument, nullptr, O_SHM},
        {"window", required_argument, nullptr, O_WIN},
        {"max-sends", required_argument, nullptr, O_MS},
        {"machine", required_argument, nullptr, O_MACHINE},
        {"tcp", no_argument, nullptr, O_TCP},
        {"help", no_argument, nullptr, O_HELP},
        {nullptr, 0, nullptr, 0}};
    Options o;
    int c;
    opterr = 0;
    while (-1 != (c = getopt_long(argc, argv, "h", longopts, nullptr))) {
        switch (c) {
        case O_TOPO: o.topology = optarg; break;
        case O_HOSTS: o.hosts = optarg; break;
        case O_ROOT: o.root = (int) parse_long("--root", optarg, 0, INT32_MAX); break;
        case O_ALG: o.algorithm = optarg; break;
        case O_BYTES: o.bytes = parse_bytes(optarg); break;
        case O_K: o.k = (int) parse_long("--k", optarg, 1, 1 << 20); break;
        case O_LAMBDA: {
            char *end = nullptr;
            o.lambda = strtod(optarg, &end);
            if (end == optarg || '\0' != *end || !(o.lambda >= 1.0) || !std::isfinite(o.lambda)) {
                throw Fail(EXIT_INPUT, fmt("--lambda: '%s' is not a number >= 1", optarg));
            }
            break;
        }
        case O_ORDER: o.ordering = optarg; o.ordering_given = true; break;
        case O_PIC: o.picture = optarg; break;
        case O_ROUTE: o.routing = optarg; break;
        case O_GEN: o.generate = optarg; break;
        case O_LIST: o.list = true; break;
        case O_KEYS: o.machine_keys = true; break;
        case O_SEG: o.segment_bytes = parse_bytes(optarg); break;
        case O_SHM: o.shm_chunk_bytes = parse_bytes(optarg); break;
        case O_WIN: o.window = (int) parse_long("--window", optarg, 0, 1024); break;
        case O_MS: o.max_sends = (int) parse_long("--max-sends", optarg, -1, 1024); break;
        case O_MACHINE: o.machine = optarg; break;
        case O_TCP: o.tcp = true; break;
        case 'h':
        case O_HELP: usage(stdout); exit(0);
        default:
            throw Fail(EXIT_INPUT, fmt("unknown or incomplete option '%s' (see --help)",
                                       argv[optind - 1]));
        }
    }
    if (optind < argc) {
        throw Fail(EXIT_INPUT, fmt("unexpected argument '%s' (see --help)", argv[optind]));
    }
    if (o.generate.empty() && o.topology.empty() && !o.list && !o.machine_keys) {
        throw Fail(EXIT_INPUT, "--topology FILE is required (see --help)");
    }
    return o;
}

/* ------------------------------------------------------------------ core handles */
struct TopoFree {
    void operator()(pm_topology_t *t) const { pm_topology_free(t); }
};
using Topo = std::unique_ptr<pm_topology_t, TopoFree>;

/* ------------------------------------------------------------------ generator */
int generate(const std::string &spec)
{
    long v[5];
    const char *what[5] = {"SWITCHES", "PORTS", "HOSTS", "PCT", "SEED"};
    size_t pos = 0;
    for (int i = 0; i < 5; ++i) {
        size_t comma = spec.find(',', pos);
        if ((4 == i) != (std::string::npos == comma)) {
            throw Fail(EXIT_INPUT, "--generate-irregular: expected SWITCHES,PORTS,HOSTS,PCT,SEED");
        }
        std::string field = spec.substr(pos, std::string::npos == comma ? comma : comma - pos);
        v[i] = parse_long(what[i], field.c_str(), 0, INT32_MAX);
        pos = comma + 1;
    }
    char *text = nullptr;
    int rc = pm_generate_irregular((int) v[0], (int) v[1], (int) v[2], (int) v[3],
                                   (uint64_t) v[4], &text);
    if (PM_OK != rc) {
        throw Fail(status_of(rc), fmt("--generate-irregular %s: parameters rejected by the "
                                      "generator (error %d)", spec.c_str(), rc));
    }
    fputs(text, stdout);
    pm_free(text);
    return 0;
}

/* ------------------------------------------------------------------ the inspection */
struct Inspection {
    Options opt;
    Topo topo;
    std::vector<std::string> hosts;      /* host of each rank */
    std::vector<int> chain;              /* chain position -> rank */
    int chain_kind = -1;                 /* pm_order_kind_t of the chain, -1 rank order */
    std::vector<int> plan_chain;         /* the plan's, where it differs (two-tree placement) */
    std::string ordering_line;
    int alg = MCAST_ALG_AUTO;           /* registry id asked for */
    bool torus_alg = false;
    mcast_plan_t *plan = nullptr;       /* owns the tree */
    const kb_tree_t *tree = nullptr;    /* NULL for a schedule family */
    int family = -1;                    /* mcast_family_t of a family plan */
    bool shm = false;                   /* a shared-segment plan (one host) */
    uint32_t nblocks = 0;               /* blocks of the inspected message */
    ~Inspection() { mcast_plan_free(plan); }
    std::string params;                  /* "kbinomial k=2" for the picture */
    std::vector<std::string> model_lines;
    std::vector<pm_msg_t> msgs;
    std::vector<pm_msg_t> first_msgs;    /* families: the sends that carry block 0 (drawn) */
    int nsteps = 0;
    std::vector<long> conflicts;         /* per step */
    long total_conflicts = 0;
    /* per step: directed link -> messages (index into msgs) sharing it, only if >= 2 */
    std::vector<std::map<int, std::vector<int>>> shared;
    std::vector<int> step_into;          /* per rank, -1 for the root */
    std::set<int> used_dlinks;           /* physical links the schedule uses (directed ids) */
};

void load_topology(Inspection &in)
{
    char err[512] = "";
    pm_topology_t *t = nullptr;
    int rc = pm_topology_load(in.opt.topology.c_str(), &t, err, sizeof(err));
    if (PM_OK != rc) {
        if ('\0' != err[0]) {
            throw Fail(status_of(rc), err, true);
        }
        throw Fail(status_of(rc), fmt("%s: cannot load topology (error %d)",
                                      in.opt.topology.c_str(), rc));
    }
    in.topo.reset(t);
}

std::string trim(const std::string &s)
{
    size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
    return std::string::npos == a ? std::string() : s.substr(a, b - a + 1);
}

void read_hosts(Inspection &in)
{
    const std::string &spec = in.opt.hosts;
    if (spec.empty()) {
        int nh = pm_topology_nhosts(in.topo.get());
        for (int i = 0; i < nh; ++i) {
            in.hosts.emplace_back(pm_topology_host_name(in.topo.get(), i));
        }
    } else if ('@' == spec[0]) {
        std::ifstream f(spec.substr(1));
        if (!f) {
            throw Fail(EXIT_INPUT, fmt("%s: cannot read host file: %s", spec.c_str() + 1,
                                       strerror(errno)));
        }
        std::string line;
        while (std::getline(f, line)) {
            line = trim(line.substr(0, line.find('#')));
            if (!line.empty()) {
                in.hosts.push_back(line);
            }
        }
    } else {
        size_t pos = 0;
        for (;;) {
            size_t comma = spec.find(',', pos);
            std::string h = trim(spec.substr(pos, std::string::npos == comma ? comma : comma - pos));
            if (h.empty()) {
                throw Fail(EXIT_INPUT, fmt("--hosts: empty host name in '%s'", spec.c_str()));
            }
            in.hosts.push_back(h);
            if (std::string::npos == comma) {
                break;
            }
            pos = comma + 1;
        }
    }
    if (in.hosts.empty()) {
        throw Fail(EXIT_INPUT, "no ranks: the host list (or the topology) has no host");
    }
    if (in.opt.root >= (int) in.hosts.size()) {
        throw Fail(EXIT_INPUT, fmt("--root %d: out of range, %zu ranks", in.opt.root,
                                   in.hosts.size()));
    }
    /* Validate every name now, with the core's message ("unknown host 'x' (rank r)"). */
    std::vector<const char *> hp;
    for (const std::string &h : in.hosts) {
        hp.push_back(h.c_str());
    }
    char err[512] = "";
    long none = 0, total = 0;
    int rc = pm_check_contention(in.topo.get(), PM_ROUTE_DEFAULT, (int) hp.size(), hp.data(), 0,
                                 nullptr, 1, &none, &total, err, sizeof(err));
    if (PM_OK != rc && PM_ERR_UNSUPPORTED != rc) {
        throw Fail(status_of(rc), fmt("%s: %s", in.opt.topology.c_str(),
                                      '\0' != err[0] ? err : "invalid host list"));
    }
}

std::vector<const char *> host_ptrs(const Inspection &in)
{
    std::vector<const char *> hp;
    for (const std::string &h : in.hosts) {
        hp.push_back(h.c_str());
    }
    return hp;
}

/* The chain the builders walk: the ordering rotated so that the root comes first. */
/* The chain of a root (rotated to start at it), as the components order the hosts. */
std::vector<int> chain_for(const Inspection &in, int root)
{
    const int n = (int) in.hosts.size();
    const int kind = in.chain_kind;
    std::vector<int> ord(n);
    if (kind < 0) {
        for (int i = 0; i < n; ++i) {
            ord[i] = i;
        }
    } else {
        std::vector<const char *> hp = host_ptrs(in);
        char err[512] = "";
        int rc = pm_order_hosts(in.topo.get(), (pm_order_kind_t) kind, n, hp.data(), root,
                                ord.data(), err, sizeof(err));
        if (PM_OK != rc) {
            throw Fail(status_of(rc), fmt("ordering %s: %s", name_of(kOrderings, kind),
                                          '\0' != err[0] ? err : "not supported on this topology"));
        }
    }
    size_t at = std::find(ord.begin(), ord.end(), root) - ord.begin();
    std::vector<int> chain;
    for (int i = 0; i < n; ++i) {
        chain.push_back(ord[(at + i) % n]);
    }
    return chain;
}

void build_chain(Inspection &in)
{
    int kind = lookup_named(kOrderings, in.opt.ordering, "ordering");
    std::string note;
    if (in.torus_alg && in.opt.ordering_given) {
        /* The torus builders order members by router coordinates themselves. */
        fprintf(stderr, "mcast-inspect: warning: --ordering is ignored by torus algorithms "
                        "(they order members by router coordinates)\n");
    }
    if (PM_ORDER_AUTO == kind) {
        kind = pm_order_auto(in.topo.get());
        note = " (auto)";
    }
    in.ordering_line = std::string(name_of(kOrderings, kind)) + note;

    in.chain_kind = kind;
    in.chain = chain_for(in, in.opt.root);
}

std::string us(double v) { return fmt("%.3f", v); }

/* The planner's input for a root (mcast_input_fn_t): the one built from the files, on
 * that root's chain, with the options' forced parameters. */
struct InspectInput {
    const mcast_plan_input_t *base;
    const mcast_forced_t *forced;
    const std::vector<int> *chain0, *chain;
};

static int inspect_input(void *ctx, int root, size_t bytes, mcast_plan_input_t *in,
                         mcast_forced_t *f)
{
    const InspectInput *c = static_cast<const InspectInput *>(ctx);
    *in = *c->base;
    *f = *c->forced;
    in->forced = f;
    in->root = root;
    in->bytes = bytes;
    in->chain = root == 0 ? c->chain0->data() : c->chain->data();
    return KB_OK;
}

/* The planner's input as the components build it: the chain, the ranks' nodes (ranks on
 * one host share a node), the torus where the topology is one. */
/* The runner-up's line after selected_by, where there is one. */
void add_runner_up(std::vector<std::string> &L, const std::string &line)
{
    if (!line.empty()) {
        L.push_back(line);
    }
}

void build_plan(Inspection &in)
{
    const int n = (int) in.hosts.size();
    mcast_machine_t machine;
    mcast_machine_default(&machine);
    if (!in.opt.machine.empty()) {
        char err[512] = "";
        if (KB_OK != mcast_machine_load(in.opt.machine.c_str(), &machine, err, sizeof(err))) {
            throw Fail(EXIT_INPUT, err, true);
        }
    }
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.algorithm = in.alg;
    f.k = in.opt.k;
    f.lambda = in.opt.lambda;
    f.segment_bytes = in.opt.segment_bytes;
    f.window = in.opt.window;
    f.max_sends = in.opt.max_sends;
    std::vector<int> node(n);
    std::map<std::string, int> ids;
    for (int r = 0; r < n; ++r) {
        node[r] = ids.emplace(in.hosts[r], (int) ids.size()).first->second;
    }
    mcast_plan_input_t pi;
    memset(&pi, 0, sizeof(pi));
    pi.component = MCAST_COMP_KBINOMIAL | MCAST_COMP_PATHMC;
    pi.n = n;
    pi.root = in.opt.root;
    pi.bytes = in.opt.bytes;
    pi.chain = in.chain.data();
    pi.node_of_rank = node.data();
    pi.all_local = ids.size() == 1;
    pi.nnodes = (int) ids.size();
    pi.machine = &machine;
    pi.forced = &f;
    pi.nodes_over_tcp = in.opt.tcp ? 1 : 0;
    if (in.opt.shm_chunk_bytes > 0) { /* as the component offers it: one host (shm), or a
                                          segment per host (twolevel's intra=shm) */
        pi.shm_chunk_bytes = in.opt.shm_chunk_bytes;
        pi.shm_slot_bytes = std::max<size_t>(in.opt.shm_chunk_bytes, 262144);
        pi.shm_slots = 8;
    }
    pm_torus_shape_t shape = {};
    std::vector<int> coords;
    if (PM_TOPO_TORUS == pm_topology_kind(in.topo.get()) &&
        PM_OK == pm_topology_torus_shape(in.topo.get(), &shape.ndims, shape.dims, PM_MAX_DIMS,
                                         &shape.wrap, &shape.bidir)) {
        coords.resize((size_t) n * shape.ndims);
        bool ok = true;
        for (int r = 0; r < n && ok; ++r) {
            ok = PM_OK == pm_topology_host_coords(in.topo.get(), in.hosts[r].c_str(),
                                                  &coords[(size_t) r * shape.ndims], shape.ndims);
        }
        if (ok) {
            pi.torus = &shape;
            pi.torus_coords = coords.data();
        }
    }
    /* an irregular switch network: pathlg renders its worms on it */
    std::vector<const char *> hp = host_ptrs(in);
    if (PM_TOPO_GRAPH == pm_topology_kind(in.topo.get())) {
        pi.switch_net = in.topo.get();
    }
    /* the network as the components see it: the model charges link sharing on it */
    if (nullptr != in.topo.get()) {
        pi.topology = in.topo.get();
        pi.hosts = hp.data();
    }
    /* the component's two steps (mcast_decide_class, mcast_plan_on_root): the class's
     * choice on root 0's chain, then that choice built on this root's chain */
    char err[512] = "";
    const std::vector<int> chain0 = chain_for(in, 0);
    InspectInput ictx{&pi, &f, &chain0, &in.chain};
    mcast_class_choice_t choice;
    mcast_plan_t *p0 = nullptr;
    if (KB_OK != mcast_decide_class(inspect_input, &ictx, pi.bytes, &choice, &p0, err,
                                    sizeof(err))) {
        throw Fail(EXIT_INPUT, fmt("algorithm %s: %s", in.opt.algorithm.c_str(), err));
    }
    /* the runner-up verification would try beside the choice (mcast_decide_runner_up at
     * any margin: none where there is no other algorithm or it builds the same tree) */
    std::string runner_line;
    mcast_class_choice_t ru;
    if (1 == mcast_decide_runner_up(inspect_input, &ictx, p0, 1e9, &ru, err, sizeof(err))) {
        mcast_plan_info_t i0;
        mcast_plan_get_info(p0, &i0);
        runner_line = fmt("runner_up: algorithm=%s predicted_us=%.1f (%.1f %% over the choice: "
                          "verification's third candidate where coll_kbinomial_verify_runner_up "
                          "is at least that)",
                          mcast_registry_get(i0.runner_up)->name, i0.runner_up_us,
                          100.0 * (i0.runner_up_us / i0.predicted_us - 1.0));
    }
    if (choice.defer) {
        in.plan = p0; /* the module below serves the class on every root */
    } else {
        mcast_plan_free(p0);
        if (KB_OK != mcast_plan_on_root(&choice, inspect_input, &ictx, in.opt.root, pi.bytes,
                                        &in.plan, err, sizeof(err))) {
            throw Fail(EXIT_INPUT, fmt("algorithm %s on root %d: %s", in.opt.algorithm.c_str(),
                                       in.opt.root, err));
        }
    }
    mcast_plan_info_t info;
    mcast_plan_get_info(in.plan, &info);
    if (info.chain != nullptr && !std::equal(in.chain.begin(), in.chain.end(), info.chain)) {
        in.plan_chain.assign(info.chain, info.chain + in.chain.size());
    }
    in.tree = info.tree;
    in.family = info.family;
    char desc[512];
    mcast_plan_describe(in.plan, desc, sizeof(desc));
    std::vector<std::string> &L = in.model_lines;
    L.push_back(fmt("machine: %s", machine.source));
    L.push_back(fmt("net: o_send_us=%g o_recv_us=%g latency_us=%g gap_ns_per_byte=%g "
                    "wire_ns_per_byte=%g recv_ns_per_byte=%g eager_bytes=%zu shared_flows=%d",
                    machine.net.o_send_us, machine.net.o_recv_us, machine.net.latency_us,
                    machine.net.gap_ns_per_byte, machine.net.wire_ns_per_byte,
                    machine.net.recv_ns_per_byte, machine.net.eager_bytes, machine.net.shared_flows));
    L.push_back(fmt("shm: o_send_us=%g o_recv_us=%g latency_us=%g gap_ns_per_byte=%g "
                    "wire_ns_per_byte=%g recv_ns_per_byte=%g eager_bytes=%zu",
                    machine.shm.o_send_us, machine.shm.o_recv_us, machine.shm.latency_us,
                    machine.shm.gap_ns_per_byte, machine.shm.wire_ns_per_byte,
                    machine.shm.recv_ns_per_byte, machine.shm.eager_bytes));
    L.push_back(fmt("plan: algorithm=%s %s", info.name, desc));
    in.params = info.name;
    if (info.k > 0) {
        in.params += fmt(" k=%d", info.k);
    }
    if (info.lambda > 0) {
        in.params += fmt(" lambda=%.3f", info.lambda);
    }
    size_t B;
    uint32_t m;
    mcast_plan_blocks(in.plan, in.opt.bytes, &B, &m);
    L.push_back(fmt("segment_bytes: %zu", B));
    L.push_back(fmt("segments: %u", m));
    in.nblocks = m;
    const bool node_segments = MCAST_PLAN_PML_SHM == info.transport_kind;
    if (MCAST_ALG_SHM == info.algorithm || node_segments) {
        in.shm = true;
        L.push_back(node_segments
                        ? "transport: pml+shm (the node leaders' schedule over the PML; inside "
                          "every host its shared segment, fed block by block)"
                        : "transport: shm (a shared segment: no messages, no links)");
        L.push_back(node_segments
                        ? "formula: max(T_inter + T_shm(one chunk), T_shm(M)) (mcast_planner.h)"
                        : "formula: the shared segment's cost model (mcast_shm.h)");
        L.push_back(fmt("predicted_us: %.1f (at the size class's %zu bytes)", info.predicted_us,
                        info.class_bytes));
        L.push_back(fmt("selected_by: %s", info.selected_by));
        add_runner_up(L, runner_line);
        return;
    }
    if (nullptr == in.tree) {
        /* a schedule family: its unit-step rounds (formula and the checker's execution of
         * every rank's schedule) and the model's time at the size class */
        mcast_level_t lvl;
        memset(&lvl, 0, sizeof(lvl));
        lvl.family = (mcast_family_t) info.family;
        lvl.variant = info.variant;
        if (info.ntrees > 0) {
            L.push_back(fmt("trees: %d arc-disjoint, block j down tree j mod %d (depths", info.ntrees,
                            info.ntrees));
            for (int i = 0; i < info.ntrees; ++i) {
                L.back() += fmt(" %d", info.trees[i]->depth);
            }
            L.back() += ")";
            L.push_back(fmt("rounds: %ld (the trees' greedy unit-step execution, lag %d)",
                            mcast_multitree_rounds(info.trees, info.ntrees, m, info.lag), info.lag));
        } else if (MCAST_ALG_TWOLEVEL != info.algorithm) {
            L.push_back(fmt("rounds: %ld (the family's formula, unit steps)",
                            mcast_level_rounds(&lvl, n, m)));
        } else {
            L.push_back(fmt("rounds: %ld between the node leaders (the family's formula, unit "
                            "steps), the node trees overlapping per block",
                            mcast_level_rounds(&lvl, pi.nnodes, m)));
        }
        L.push_back(info.ntrees > 0 ? "formula: the trees' cost model (mcast_families.h, fam_multitree.cpp)"
                                    : "formula: the family's cost model (mcast_families.h)");
        L.push_back(fmt("predicted_us: %.1f (at the size class's %zu bytes)", info.predicted_us,
                        info.class_bytes));
        L.push_back(fmt("selected_by: %s", info.selected_by));
        add_runner_up(L, runner_line);
        return;
    }
    if (info.k > 0 && (MCAST_ALG_KBINOMIAL == info.algorithm || MCAST_ALG_KNOMIAL == info.algorithm)) {
        L.push_back(fmt("steps: %ld (L1(n,k) + (m-1)k = %d + %u*%d, unit steps)",
                        kb_steps(n, (long) m, info.k), kb_L1(n, info.k), m - 1, info.k));
    }
    if ((uint64_t) n * m <= KB_SIM_MAX_CELLS) {
        L.push_back(fmt("steps_simulated_fpfs: %ld", kb_sim_steps(info.tree, (long) m, KB_DISC_FPFS)));
    }
    L.push_back("formula: the planner's tree recurrence (mcast_planner.h)");
    L.push_back("predicted_us: " + us(mcast_model_tree_us(info.tree, in.opt.bytes, B == in.opt.bytes ? 0 : B,
                                                         in.opt.max_sends, node.data(),
                                                         pi.all_local, &machine)));
    L.push_back(fmt("selected_by: %s", info.selected_by));
    add_runner_up(L, runner_line);
}

/* A schedule family's messages: every rank's sends of the plan's schedule, at the
 * generator's round (the unit-step rounds the checker verifies), block by block. */
void family_messages(Inspection &in)
{
    const int n = (int) in.hosts.size();
    constexpr size_t kMaxMessages = 1u << 20;
    std::vector<mcast_sched_t *> scheds(n, nullptr);
    struct Free {
        std::vector<mcast_sched_t *> &v;
        ~Free() { for (mcast_sched_t *x : v) mcast_sched_free(x); }
    } guard{scheds};
    for (int r = 0; r < n; ++r) {
        if (KB_OK != mcast_plan_schedule(in.plan, r, in.opt.bytes, &scheds[r])) {
            throw Fail(EXIT_INTERNAL, fmt("the core gave no schedule for rank %d", r));
        }
    }
    mcast_plan_info_t info;
    mcast_plan_get_info(in.plan, &info);
    long rounds = 0;
    char err[512] = "";
    if (KB_OK != mcast_sched_check(n, in.opt.root, scheds.data(), std::max(2, info.window), 1,
                                   &rounds, err, sizeof(err))) {
        throw Fail(EXIT_INTERNAL, fmt("the core's schedule fails its check: %s", err));
    }
    /* (before the formula's line, which the predicted time and selected_by follow) */
    auto at = std::find_if(in.model_lines.begin(), in.model_lines.end(),
                           [](const std::string &l) { return 0 == l.rfind("formula: ", 0); });
    in.model_lines.insert(at, fmt("rounds_checked: %ld (every rank's schedule executed together)",
                                  rounds));
    in.nsteps = 0;
    for (int r = 0; r < n; ++r) {
        const size_t ns = mcast_sched_count(scheds[r], MCAST_OP_SEND);
        for (size_t i = 0; i < ns; ++i) {
            mcast_op_t op;
            mcast_sched_op(scheds[r], MCAST_OP_SEND, i, &op);
            if (in.msgs.size() >= kMaxMessages) {
                throw Fail(EXIT_INPUT, fmt("more than %zu messages: inspect a smaller message "
                                           "or fewer blocks (--segment-bytes)", kMaxMessages));
            }
            pm_msg_t m;
            m.step = (int) op.step;
            m.src = r;
            m.dst = op.peer;
            in.msgs.push_back(m);
            if (0 == op.block) {
                in.first_msgs.push_back(m);
            }
            in.nsteps = std::max(in.nsteps, m.step + 1);
        }
    }
}

void check_conflicts(Inspection &in)
{
    const int n = (int) in.hosts.size();
    in.step_into.assign(n, -1);
    int rc = PM_OK;
    if (nullptr == in.tree) {
        family_messages(in);
    } else {
        pm_msg_t *msgs = nullptr;
        int nmsgs = 0;
        rc = pm_plan_from_tree(in.tree, &msgs, &nmsgs, &in.nsteps);
        if (PM_OK != rc) {
            throw Fail(EXIT_INTERNAL, fmt("pm_plan_from_tree failed (error %d)", rc));
        }
        in.msgs.assign(msgs, msgs + nmsgs);
        pm_free(msgs);
    }
    /* Report in (step, src, dst) order so the output is stable. */
    std::sort(in.msgs.begin(), in.msgs.end(), [](const pm_msg_t &x, const pm_msg_t &y) {
        return x.step != y.step ? x.step < y.step : x.src != y.src ? x.src < y.src : x.dst < y.dst;
    });
    for (const pm_msg_t &m : in.msgs) {
        if (in.step_into[m.dst] < 0) { /* first reception (families receive many) */
            in.step_into[m.dst] = m.step;
        }
    }
    if (0 == in.nsteps) {
        return;   /* one rank: nothing is sent */
    }
    const pm_routing_t routing = (pm_routing_t) lookup_named(kRoutings, in.opt.routing, "routing");
    std::vector<const char *> hp = host_ptrs(in);
    in.conflicts.assign(in.nsteps, 0);
    char err[512] = "";
    rc = pm_check_contention(in.topo.get(), routing, n, hp.data(), (int) in.msgs.size(),
                             in.msgs.data(), in.nsteps, in.conflicts.data(), &in.total_conflicts,
                             err, sizeof(err));
    if (PM_OK != rc) {
        throw Fail(status_of(rc), fmt("routing %s: %s", in.opt.routing.c_str(),
                                      '\0' != err[0] ? err : "not supported on this topology"));
    }
    /* Which links conflict: route each message again (the checker gives counts only). */
    std::vector<int> path(std::max(1, pm_topology_ndirected_links(in.topo.get())));
    std::vector<std::map<int, std::vector<int>>> use(in.nsteps);
    for (size_t i = 0; i < in.msgs.size(); ++i) {
        const pm_msg_t &m = in.msgs[i];
        int len = 0;
        rc = pm_route(in.topo.get(), routing, hp[m.src], hp[m.dst], path.data(), (int) path.size(),
                      &len);
        if (PM_OK != rc) {
            throw Fail(status_of(rc), fmt("pm_route %s -> %s failed (error %d)", hp[m.src],
                                          hp[m.dst], rc));
        }
        for (int j = 0; j < len; ++j) {
            use[m.step][path[j]].push_back((int) i);
            in.used_dlinks.insert(path[j]);
        }
    }
    in.shared.assign(in.nsteps, {});
    for (int s = 0; s < in.nsteps; ++s) {
        for (auto &e : use[s]) {
            if (e.second.size() >= 2) {
                in.shared[s][e.first] = e.second;
            }
        }
    }
}

/* ------------------------------------------------------------------ text report */
std::string topo_description(const pm_topology_t *t)
{
    switch (pm_topology_kind(t)) {
    case PM_TOPO_TORUS: {
        int nd = 0, dims[PM_MAX_DIMS], wrap = 0, bidir = 0;
        pm_topology_torus_shape(t, &nd, dims, PM_MAX_DIMS, &wrap, &bidir);
        std::string d;
        for (int i = 0; i < nd; ++i) {
            d += (i ? "x" : "") + std::to_string(dims[i]);
        }
        return fmt("torus %s %s %s", d.c_str(), wrap ? "torus" : "mesh",
                   bidir ? "bidirectional" : "unidirectional");
    }
    case PM_TOPO_FATTREE: return "fattree";
    case PM_TOPO_GRAPH: break;
    }
    return "graph";
}

/* The tree as an indented picture, iteratively (an S-torus chain is n deep) and with
 * lines of bounded width: levels below kMaxDrawDepth print "[depth d]" instead of
 * more indentation, so the picture is O(n) bytes whatever the depth. */
void print_tree_ascii(const Inspection &in)
{
    constexpr int kMaxDrawDepth = 32;
    const kb_tree_t *t = in.tree;
    struct Item { int v, depth; bool last; };
    std::vector<Item> stack{{t->root, 0, true}};
    std::vector<bool> last_at;   /* last_at[d]: the ancestor at depth d is a last child */
    while (!stack.empty()) {
        const Item it = stack.back();
        stack.pop_back();
        last_at.resize(it.depth + 1);
        last_at[it.depth] = it.last;
        std::string line;
        for (int d = 1; d < std::min(it.depth, kMaxDrawDepth); ++d) line += last_at[d] ? "    " : "|   ";
        if (it.depth >= kMaxDrawDepth) line += fmt("[depth %d] ", it.depth);
        if (it.depth > 0) line += it.last ? "`-- " : "|-- ";
        line += fmt("%d %s", it.v, in.hosts[it.v].c_str());
        if (in.step_into[it.v] >= 0) {
            line += fmt(" (step %d)", in.step_into[it.v]);
        }
        printf("  %s\n", line.c_str());
        for (int j = t->child_off[it.v + 1] - 1; j >= t->child_off[it.v]; --j) {   /* first child on top */
            stack.push_back({t->children[j], it.depth + 1, j + 1 == t->child_off[it.v + 1]});
        }
    }
}

void print_report(const Inspection &in)
{
    const int n = (int) in.hosts.size();
    const kb_tree_t *t = in.tree;
    printf("== input ==\n");
    printf("topology: %s\n", in.opt.topology.c_str());
    printf("kind: %s\n", topo_description(in.topo.get()).c_str());
    printf("topology_hosts: %d\n", pm_topology_nhosts(in.topo.get()));
    printf("topology_switches: %d\n", pm_topology_nswitches(in.topo.get()));
    printf("ranks: %d\n", n);
    printf("root: %d (%s)\n", in.opt.root, in.hosts[in.opt.root].c_str());
    printf("algorithm: %s\n", in.opt.algorithm.c_str());
    printf("bytes: %zu\n", in.opt.bytes);
    printf("routing: %s\n", in.opt.routing.c_str());

    printf("\n== ordering ==\n");
    printf("ordering: %s\n", in.ordering_line.c_str());
    printf("chain (position: rank:host):\n");
    for (int p = 0; p < n; ++p) {
        printf("  %d: %d:%s\n", p, in.chain[p], in.hosts[in.chain[p]].c_str());
    }
    if (!in.plan_chain.empty()) {
        printf("plan chain (the plan's own: the two-tree's placement, mcast_planner.h):\n");
        for (int p = 0; p < n; ++p) {
            printf("  %d: %d:%s\n", p, in.plan_chain[p], in.hosts[in.plan_chain[p]].c_str());
        }
    }

    printf("\n== tree ==\n");
    if (nullptr == t) {
        printf("none: %s is a schedule family of %u blocks (every rank its own send and "
               "receive lists; mcast_families.h)\n", in.opt.algorithm.c_str(), in.nblocks);
        for (int v = 0; v < n; ++v) {
            int sends = 0;
            for (const pm_msg_t &m : in.msgs) {
                sends += m.src == v;
            }
            printf("rank %d (%s): %d sends, first block from step %d\n", v, in.hosts[v].c_str(),
                   sends, in.step_into[v]);
        }
    }
    if (nullptr != t) {
        printf("depth: %d\n", t->depth);
    }
    for (int v = 0; nullptr != t && v < n; ++v) {
        std::string ch;
        for (int j = t->child_off[v]; j < t->child_off[v + 1]; ++j) {
            ch += " " + std::to_string(t->children[j]);
        }
        std::string par = KB_NO_PEER == t->parent[v] ? "-" : std::to_string(t->parent[v]);
        printf("rank %d (%s): parent %s, children [%s]\n", v, in.hosts[v].c_str(), par.c_str(),
               ch.empty() ? "" : ch.c_str() + 1);
    }
    if (nullptr != t) {
        printf("tree:\n");
        print_tree_ascii(in);
    }

    printf("\n== conflicts ==\n");
    if (nullptr != t) {
        printf("schedule: FPFS single packet (pm_plan_from_tree), %zu messages, %d steps\n",
               in.msgs.size(), in.nsteps);
    } else {
        printf("schedule: the family's rounds, block by block, %zu messages, %d steps\n",
               in.msgs.size(), in.nsteps);
    }
    size_t i = 0;
    for (int s = 0; s < in.nsteps; ++s) {
        std::string list;
        for (; i < in.msgs.size() && in.msgs[i].step == s; ++i) {
            list += fmt(" %d->%d", in.msgs[i].src, in.msgs[i].dst);
        }
        printf("step %d: conflicts %ld, messages%s\n", s, in.conflicts[s],
               list.empty() ? " (none)" : list.c_str());
        for (const auto &e : in.shared[s]) {
            const char *from = "?", *to = "?";
            pm_link_info(in.topo.get(), e.first, &from, &to, nullptr);
            std::string who;
            for (int mi : e.second) {
                who += fmt(" %d->%d", in.msgs[mi].src, in.msgs[mi].dst);
            }
            printf("  link %s -> %s shared by%s\n", from, to, who.c_str());
        }
    }
    printf("total conflicts: %ld\n", in.total_conflicts);

    printf("\n== model ==\n");
    for (const std::string &l : in.model_lines) {
        printf("%s\n", l.c_str());
    }
}

/* ------------------------------------------------------------------ picture */
/* Distinct colours for FPFS steps (Tableau 10 without its red, kept for conflicts). */
const char *const kStepColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
                                   "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#003f5c"};

std::string quote(const std::string &s)
{
    std::string q = "\"";
    for (char c : s) {
        if ('"' == c) {
            q += '\\';
        }
        q += c;
    }
    return q + "\"";
}

std::string picture_title(const Inspection &in)
{
    std::string base = in.opt.topology.substr(in.opt.topology.find_last_of('/') + 1);
    std::replace(base.begin(), base.end(), '\\', '/');
    return fmt("%s%s on %s: %zu ranks, root %d, %zu bytes, ordering %s\\n"
               "edge label sN = FPFS step N; red links carry 2+ messages in one step; "
               "%ld conflicts",
               in.params.c_str(), "", base.c_str(), in.hosts.size(), in.opt.root,
               in.opt.bytes, in.ordering_line.substr(0, in.ordering_line.find(' ')).c_str(),
               in.total_conflicts);
}

std::string make_dot(const Inspection &in)
{
    const pm_topology_t *topo = in.topo.get();
    const bool torus = PM_TOPO_TORUS == pm_topology_kind(topo);
    const int nd = pm_topology_ndirected_links(topo);
    std::string d = "digraph mcast_inspect {\n";
    d += "  graph [layout=neato, overlap=false, splines=true, sep=\"+12\", outputorder=edgesfirst,\n"
         "         fontname=\"Helvetica\", fontsize=12, labelloc=t, label=" +
         quote(picture_title(in)) + "];\n";
    d += "  node [fontname=\"Helvetica\", fontsize=10];\n";
    d += "  edge [fontname=\"Helvetica\", fontsize=10];\n";

    /* Nodes: every link endpoint; hosts are the topology's host names. */
    std::set<std::string> host_set;
    for (int i = 0; i < pm_topology_nhosts(topo); ++i) {
        host_set.insert(pm_topology_host_name(topo, i));
    }
    std::map<std::string, std::vector<int>> ranks_on;   /* canonical host -> ranks */
    std::vector<std::string> canon(in.hosts.size());
    for (size_t r = 0; r < in.hosts.size(); ++r) {
        canon[r] = in.hosts[r];
        if (!host_set.count(canon[r])) {
            /* An alias (ibnetdiscover id): name the node its injection link leaves. */
            std::vector<int> path(std::max(1, nd));
            for (const std::string &h : host_set) {
                int len = 0;
                const char *from = nullptr;
                if (PM_OK == pm_route(topo, PM_ROUTE_DEFAULT, in.hosts[r].c_str(), h.c_str(),
                                      path.data(), (int) path.size(), &len) &&
                    len > 0 && PM_OK == pm_link_info(topo, path[0], &from, nullptr, nullptr)) {
                    canon[r] = from;
                    break;
                }
            }
        }
        ranks_on[canon[r]].push_back((int) r);
    }

    std::vector<std::string> order;   /* nodes in first-seen order, for a stable file */
    std::set<std::string> seen;
    for (int dl = 0; dl < nd; dl += 2) {
        const char *a = nullptr, *b = nullptr;
        pm_link_info(topo, dl, &a, &b, nullptr);
        for (const char *x : {a, b}) {
            if (seen.insert(x).second) {
                order.push_back(x);
            }
        }
    }
    for (int i = 0; i < pm_topology_nhosts(topo); ++i) {
        const char *h = pm_topology_host_name(topo, i);
        if (seen.insert(h).second) {
            order.push_back(h);
        }
    }

    /* Torus: pin routers on a grid (dims 0, 1; higher dims shift diagonally). */
    std::map<std::string, std::pair<double, double>> pos;
    if (torus) {
        int ndims = 0, dims[PM_MAX_DIMS];
        pm_topology_torus_shape(topo, &ndims, dims, PM_MAX_DIMS, nullptr, nullptr);
        for (int i = 0; i < pm_topology_nhosts(topo); ++i) {
            const char *h = pm_topology_host_name(topo, i);
            int c[PM_MAX_DIMS] = {0};
            pm_topology_host_coords(topo, h, c, PM_MAX_DIMS);
            double x = 2.2 * c[0], y = ndims > 1 ? -2.2 * c[1] : 0.0;
            for (int k = 2; k < ndims; ++k) {
                x += 0.35 * c[k];
                y -= 0.35 * c[k];
            }
            pos[h] = {x + 0.75, y - 0.75};
            /* the router: the other end of the host's injection link */
            for (int dl = 0; dl < nd; ++dl) {
                const char *from = nullptr, *to = nullptr;
                int cls = 0;
                pm_link_info(topo, dl, &from, &to, &cls);
                if (PM_LINK_HOST == cls && 0 == strcmp(from, h)) {
                    pos.emplace(to, std::make_pair(x, y));
                }
            }
        }
    }

    const int root = in.opt.root;
    for (const std::string &v : order) {
        std::string attrs;
        if (host_set.count(v)) {
            auto it = ranks_on.find(v);
            std::string label = v;
            if (ranks_on.end() == it) {
                attrs = "shape=ellipse, style=dashed, color=grey60, fontcolor=grey50";
            } else {
                const std::vector<int> &rs = it->second;
                std::string rl = rs.size() > 4 ? fmt("r%d..r%d (%zu)", rs.front(), rs.back(),
                                                     rs.size())
                                                : std::string();
                for (size_t j = 0; rl.empty() && j < rs.size(); ++j) {
                    rl += (j ? "," : "r") + std::to_string(rs[j]);
                }
                label += "\\n" + rl;
                const bool has_root = canon[root] == v;
                attrs = std::string("shape=ellipse, style=filled, fillcolor=") +
                        (has_root ? "\"#ffd54f\", penwidth=2.5" : "\"#e3f2fd\"");
            }
            attrs += ", label=" + quote(label);
        } else {
            attrs = "shape=box, style=filled, fillcolor=\"#d9d9d9\", color=grey40";
        }
        auto p = pos.find(v);
        if (pos.end() != p) {
            attrs += fmt(", pos=\"%.2f,%.2f!\"", p->second.first, p->second.second);
        }
        d += "  " + quote(v) + " [" + attrs + "];\n";
    }

    /* Physical links: grey; used by the schedule: darker; shared in a step: red. */
    std::map<int, int> worst;   /* physical link -> max messages sharing it in one step */
    for (const auto &step : in.shared) {
        for (const auto &e : step) {
            int &w = worst[e.first / 2];
            w = std::max(w, (int) e.second.size());
        }
    }
    for (int dl = 0; dl < nd; dl += 2) {
        const char *a = nullptr, *b = nullptr;
        pm_link_info(topo, dl, &a, &b, nullptr);
        std::string attrs = "dir=none";
        auto w = worst.find(dl / 2);
        if (worst.end() != w) {
            attrs += fmt(", color=\"#d62728\", penwidth=3, style=dashed, label=\"x%d\", fontcolor=\"#d62728\"",
                         w->second);
        } else if (in.used_dlinks.count(dl) || in.used_dlinks.count(dl + 1)) {
            attrs += ", color=grey45, penwidth=1.5";
        } else {
            attrs += ", color=grey80";
        }
        d += "  " + quote(a) + " -> " + quote(b) + " [" + attrs + "];\n";
    }

    /* The tree: directed, one colour per FPFS step (a schedule family: the sends of its
     * first block, which reach every rank once).  It must not shape the layout:
     * neato places nodes by graph distance, and a tree edge longer than any route
     * (len) leaves every distance, hence the fabric's drawing, unchanged. */
    for (const pm_msg_t &m : nullptr != in.tree ? in.msgs : in.first_msgs) {
        const char *c = kStepColors[m.step % (int) (sizeof(kStepColors) / sizeof(*kStepColors))];
        d += "  " + quote(canon[m.src]) + " -> " + quote(canon[m.dst]) +
             fmt(" [color=\"%s\", fontcolor=\"%s\", penwidth=2.2, arrowsize=0.9, style=bold, "
                 "label=\"s%d\", tooltip=\"rank %d -> rank %d, step %d\", len=100, constraint=false];\n",
                 c, c, m.step, m.src, m.dst, m.step);
    }
    d += "}\n";
    return d;
}

/* `dot` on PATH, or "". */
std::string find_dot()
{
    const char *path = getenv("PATH");
    std::string p = path ? path : "";
    size_t pos = 0;
    for (;;) {
        size_t colon = p.find(':', pos);
        std::string dir = p.substr(pos, std::string::npos == colon ? colon : colon - pos);
        std::string cand = (dir.empty() ? std::string(".") : dir) + "/dot";
        if (0 == access(cand.c_str(), X_OK)) {
            return cand;
        }
        if (std::string::npos == colon) {
            return "";
        }
        pos = colon + 1;
    }
}

void write_file(const std::string &path, const std::string &text)
{
    FILE *f = fopen(path.c_str(), "w");
    if (nullptr == f) {
        throw Fail(EXIT_INTERNAL, fmt("%s: cannot write: %s", path.c_str(), strerror(errno)));
    }
    bool ok = text.size() == fwrite(text.data(), 1, text.size(), f);
    ok = (0 == fclose(f)) && ok;
    if (!ok) {
        throw Fail(EXIT_INTERNAL, fmt("%s: write failed", path.c_str()));
    }
}

/* "dot", "svg" or "png" from OUT's extension. */
std::string picture_format(const std::string &out)
{
    const size_t dotpos = out.find_last_of('.');
    const std::string ext = std::string::npos == dotpos ? "" : out.substr(dotpos + 1);
    if ("dot" != ext && "svg" != ext && "png" != ext) {
        throw Fail(EXIT_INPUT, fmt("--picture %s: expected a .dot, .svg or .png file",
                                   out.c_str()));
    }
    return ext;
}

void draw(const Inspection &in)
{
    const std::string &out = in.opt.picture;
    const std::string ext = picture_format(out);
    const size_t dotpos = out.find_last_of('.');
    const std::string text = make_dot(in);
    if ("dot" == ext) {
        write_file(out, text);
        return;
    }
    const std::string dot = find_dot();
    if (dot.empty()) {
        const std::string alt = out.substr(0, dotpos) + ".dot";
        write_file(alt, text);
        fprintf(stderr, "mcast-inspect: warning: Graphviz `dot` not found in PATH; wrote %s "
                        "instead of %s (render it with: dot -T%s -o %s %s)\n",
                alt.c_str(), out.c_str(), ext.c_str(), out.c_str(), alt.c_str());
        return;
    }
    const char *tmpdir = getenv("TMPDIR");
    std::string tmpl = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/mcast-inspect-XXXXXX";
    std::vector<char> name(tmpl.begin(), tmpl.end());
    name.push_back('\0');
    int fd = mkstemp(name.data());
    if (fd < 0) {
        throw Fail(EXIT_INTERNAL, fmt("%s: cannot create: %s", tmpl.c_str(), strerror(errno)));
    }
    close(fd);
    const std::string tmp(name.data());
    int status = -1, rc = 0;
    try {
        write_file(tmp, text);
        const std::string tflag = "-T" + ext;
        std::vector<char *> argv = {const_cast<char *>(dot.c_str()),
                                    const_cast<char *>(tflag.c_str()), const_cast<char *>("-o"),
                                    const_cast<char *>(out.c_str()),
                                    const_cast<char *>(tmp.c_str()), nullptr};
        pid_t pid = 0;
        rc = posix_spawn(&pid, dot.c_str(), nullptr, nullptr, argv.data(), environ);
        if (0 == rc && waitpid(pid, &status, 0) < 0) {
            rc = errno;
        }
    } catch (...) {
        unlink(tmp.c_str());
        throw;
    }
    unlink(tmp.c_str());
    if (0 != rc) {
        throw Fail(EXIT_INTERNAL, fmt("cannot run %s: %s", dot.c_str(), strerror(rc)));
    }
    if (!WIFEXITED(status) || 0 != WEXITSTATUS(status)) {
        throw Fail(EXIT_INTERNAL, fmt("%s -T%s failed for %s", dot.c_str(), ext.c_str(),
                                      out.c_str()));
    }
}

/* The machine file's keys as docs/machine-model.md's table (from the core's one table). */
int list_machine_keys()
{
    std::printf("| key | built in | meaning |\n|---|---|---|\n");
    for (int i = 0; i < mcast_machine_key_count(); ++i) {
        const char *name = nullptr, *doc = nullptr;
        double builtin = 0.0;
        if (mcast_machine_key_get(i, &name, &doc, &builtin) != 0) {
            throw Fail(EXIT_INTERNAL, fmt("machine key %d: not in the table", i));
        }
        std::printf("| `%s` | %g | %s |\n", name, builtin, doc);
    }
    return 0;
}

int run(int argc, char **argv)
{
    Inspection in;
    in.opt = parse_options(argc, argv);
    if (in.opt.list) {
        return list_algorithms();
    }
    if (in.opt.machine_keys) {
        return list_machine_keys();
    }
    if (!in.opt.generate.empty()) {
        return generate(in.opt.generate);
    }
    in.alg = mcast_registry_lookup(in.opt.algorithm.c_str());
    if (in.alg < 0) {
        throw Fail(EXIT_INPUT, fmt("unknown algorithm '%s' (expected one of: %s)",
                                   in.opt.algorithm.c_str(), algorithm_names().c_str()));
    }
    in.torus_alg = 0 == (mcast_registry_get(in.alg)->component & MCAST_COMP_KBINOMIAL);
    lookup_named(kOrderings, in.opt.ordering, "ordering");
    lookup_named(kRoutings, in.opt.routing, "routing");
    if (!in.opt.picture.empty()) {
        picture_format(in.opt.picture);
    }
    load_topology(in);
    read_hosts(in);
    build_chain(in);
    build_plan(in);
    if (in.shm) { /* no messages to check or draw */
        for (const std::string &l : in.model_lines) {
            printf("%s\n", l.c_str());
        }
        return 0;
    }
    if (nullptr != in.tree && KB_OK != kb_tree_check(in.tree)) {
        throw Fail(EXIT_INTERNAL, "the core returned an inconsistent tree");
    }
    check_conflicts(in);
    print_report(in);
    fflush(stdout);
    if (!in.opt.picture.empty()) {
        draw(in);
    }
    return 0;
}

}  // namespace

/* --fat-tree M,N: seed 004's cyclic multicast on IBFT(M,N) (inspect_fattree.cpp). */
int mcast_inspect_fattree(int argc, char **argv);

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        if (0 == strcmp(argv[i], "--fat-tree") || 0 == strncmp(argv[i], "--fat-tree=", 11)) {
            return mcast_inspect_fattree(argc, argv);
        }
    }
    try {
        return run(argc, argv);
    } catch (const Fail &f) {
        fflush(stdout);
        fprintf(stderr, "%s%s\n", f.bare ? "" : "mcast-inspect: ", f.what());
        return f.status;
    } catch (const std::exception &e) {
        fprintf(stderr, "mcast-inspect: internal error: %s\n", e.what());
        return EXIT_INTERNAL;
    }
}
