/*
 * mcast-inspect: what one broadcast algorithm does on one fabric.
 *
 * Loads a topology (native, ibnetdiscover/ibsim or Slurm topology.conf), places
 * ranks on hosts, orders them, builds the tree the components would build and
 * prints, one labelled section each: the input, the chain (ordering), the tree,
 * the per-step link conflicts of its FPFS single-packet schedule and the cost
 * model's predicted time.  Optionally draws the fabric with the tree on top as
 * Graphviz DOT (SVG/PNG through `dot`).
 *
 *   fabric + hosts --pm_order_hosts--> chain --kb_tree_build / pm_torus_build--> tree
 *   tree --pm_plan_from_tree--> (step, src, dst) --pm_check_contention--> conflicts
 *   tree --kb_predict_us / kb_sim_* / pm_torus_predict_us--> predicted time
 *
 * The model defaults are the components' MCA defaults (coll_kbinomial_component.c:
 * alpha 2 us, beta 0.2 ns/B, segments 1 KiB..1 MiB, o_send = o_recv = 0.5 us,
 * gap 0.2 ns/B; torus: pm_torus_model_default, seed 002 Table 1).
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

/* ------------------------------------------------------------------ models */
/* The components' MCA defaults (see the file comment). */
constexpr kb_linear_model_t kLinearModel = {2.0, 0.2};
constexpr kb_postal_model_t kPostalModel = {0.5, 0.5, 2.0, 0.2, 0.2};
constexpr size_t kSegMinBytes = 1024;
constexpr size_t kSegMaxBytes = (size_t) 1 << 20;

/* ------------------------------------------------------------------ registry */
/* The tool's one list of algorithms: the k-binomial core's shapes here, the
 * torus family from the pathmc core's own registry (pm_torus_algorithm_get). */
struct TreeAlg {
    const char *name;
    kb_shape_t shape;
    const char *description;
};
const TreeAlg kTreeAlgs[] = {
    {"kbinomial", KB_SHAPE_KBINOMIAL, "pipelined k-binomial tree (k from --k or the cost model)"},
    {"binomial", KB_SHAPE_BINOMIAL, "binomial tree, unsegmented"},
    {"linear", KB_SHAPE_LINEAR, "the root sends to every rank, unsegmented"},
    {"postal", KB_SHAPE_POSTAL, "postal-model optimal tree (lambda from --lambda or the model)"},
    {"chain", KB_SHAPE_CHAIN, "pipelined chain along the ordering"},
};

struct Algorithm {
    std::string name;
    bool torus = false;
    kb_shape_t shape = KB_SHAPE_KBINOMIAL;
    pm_torus_alg_t torus_alg = PM_TORUS_SEPARATE;
};

bool lookup_algorithm(const std::string &name, Algorithm *out)
{
    for (const TreeAlg &a : kTreeAlgs) {
        if (name == a.name) {
            out->name = name;
            out->shape = a.shape;
            return true;
        }
    }
    int id = pm_torus_algorithm_lookup(name.c_str());
    if (id < 0) {
        return false;
    }
    out->name = name;
    out->torus = true;
    out->torus_alg = (pm_torus_alg_t) id;
    return true;
}

std::string algorithm_names()
{
    std::string s;
    for (const TreeAlg &a : kTreeAlgs) {
        s += s.empty() ? "" : ", ";
        s += a.name;
    }
    for (int i = 0; i < pm_torus_algorithm_count(); ++i) {
        s += std::string(", ") + pm_torus_algorithm_get(i)->name;
    }
    return s;
}

struct Named {
    const char *name;
    int value;
};
const Named kOrderings[] = {{"auto", PM_ORDER_AUTO},   {"dor", PM_ORDER_DOR},
                            {"snake", PM_ORDER_SNAKE}, {"poc", PM_ORDER_POC},
                            {"fattree", PM_ORDER_FATTREE}, {"identity", -1}};
const Named kRoutings[] = {{"default", PM_ROUTE_DEFAULT},
                           {"dor", PM_ROUTE_DOR},
                           {"updown", PM_ROUTE_UPDOWN},
                           {"fattree", PM_ROUTE_FATTREE}};

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
    std::string algorithm = "kbinomial";
    size_t bytes = 65536;
    int k = 0;                  /* 0 = from the model */
    double lambda = 0.0;        /* 0 = from the model */
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
            "                      (default kbinomial; the last five need a torus)\n"
            "  --bytes M           message size in bytes, K/M/G suffix = KiB/MiB/GiB\n"
            "                      (default 65536)\n"
            "  --k K               k-binomial fan-out bound (default: optimal for --bytes)\n"
            "  --lambda L          postal lambda >= 1 (default: from the postal model)\n"
            "  --ordering NAME     auto|dor|snake|poc|fattree|identity (default auto: dor on\n"
            "                      tori, fattree on fat-trees, poc otherwise)\n"
            "  --routing NAME      default|dor|updown|fattree for the conflict check\n"
            "  --picture OUT       draw fabric and tree: OUT.dot, or OUT.svg / OUT.png\n"
            "                      through Graphviz `dot`\n"
            "  --generate-irregular S,K,P,PCT,SEED\n"
            "                      print a random irregular fabric (S switches of K ports,\n"
            "                      P hosts, PCT%% of free ports linked) as ibnetdiscover text\n"
            "  --help              this text\n"
            "\n"
            "Cost models use the components' defaults: alpha 2 us, beta 0.2 ns/B, segments\n"
            "1 KiB..1 MiB; postal o_send = o_recv = 0.5 us, gap 0.2 ns/B; torus: seed 002\n"
            "Table 1.  Exit status: 0 ok, 1 internal failure, 2 bad input.\n",
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
           O_GEN, O_HELP };
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
    if (o.generate.empty() && o.topology.empty()) {
        throw Fail(EXIT_INPUT, "--topology FILE is required (see --help)");
    }
    return o;
}

/* ------------------------------------------------------------------ core handles */
struct TopoFree {
    void operator()(pm_topology_t *t) const { pm_topology_free(t); }
};
using Topo = std::unique_ptr<pm_topology_t, TopoFree>;

/* Trees from kb_tree_build are freed with kb_tree_free, torus trees with pm_tree_free. */
struct TreeFree {
    bool torus = false;
    void operator()(kb_tree_t *t) const
    {
        if (torus) {
            pm_tree_free(t);
        } else {
            kb_tree_free(t);
        }
    }
};
using Tree = std::unique_ptr<kb_tree_t, TreeFree>;

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
    std::string ordering_line;
    Algorithm alg;
    Tree tree;
    std::string params;                  /* " k=2", " lambda=1.500" for the picture */
    std::vector<std::string> model_lines;
    std::vector<pm_msg_t> msgs;
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
void build_chain(Inspection &in)
{
    const int n = (int) in.hosts.size();
    int kind = lookup_named(kOrderings, in.opt.ordering, "ordering");
    const pm_topo_kind_t tk = pm_topology_kind(in.topo.get());
    std::string note;
    if (in.alg.torus) {
        /* The torus builders order members by router coordinates themselves:
         * S-torus along the snake, the others along the DOR chain. */
        if (in.opt.ordering_given) {
            fprintf(stderr, "mcast-inspect: warning: --ordering is ignored by torus algorithms "
                            "(they order members by router coordinates)\n");
        }
        kind = (PM_TORUS_STORUS == in.alg.torus_alg) ? PM_ORDER_SNAKE : PM_ORDER_DOR;
        note = fmt(" (used by %s)", in.alg.name.c_str());
    } else if (PM_ORDER_AUTO == kind) {
        kind = (PM_TOPO_TORUS == tk) ? PM_ORDER_DOR
             : (PM_TOPO_FATTREE == tk) ? PM_ORDER_FATTREE : PM_ORDER_POC;
        note = " (auto)";
    }
    in.ordering_line = std::string(name_of(kOrderings, kind)) + note;

    std::vector<int> ord(n);
    if (kind < 0) {
        for (int i = 0; i < n; ++i) {
            ord[i] = i;
        }
    } else {
        std::vector<const char *> hp = host_ptrs(in);
        char err[512] = "";
        int rc = pm_order_hosts(in.topo.get(), (pm_order_kind_t) kind, n, hp.data(), in.opt.root,
                                ord.data(), err, sizeof(err));
        if (PM_OK != rc) {
            throw Fail(status_of(rc), fmt("ordering %s: %s", name_of(kOrderings, kind),
                                          '\0' != err[0] ? err : "not supported on this topology"));
        }
    }
    size_t at = std::find(ord.begin(), ord.end(), in.opt.root) - ord.begin();
    in.chain.clear();
    for (int i = 0; i < n; ++i) {
        in.chain.push_back(ord[(at + i) % n]);
    }
}

size_t segments_of(size_t bytes, size_t seg)
{
    return bytes > 0 ? (bytes + seg - 1) / seg : 1;
}

std::string us(double v) { return fmt("%.3f", v); }

/* Model segment for pipelined shapes, as the kbinomial component picks it. */
void choose_segment(int n, size_t bytes, int *k, size_t *seg)
{
    int rc = kb_choose_k_segment(n, bytes, &kLinearModel, kSegMinBytes, kSegMaxBytes, k, seg);
    if (KB_OK != rc) {
        throw Fail(EXIT_INTERNAL, fmt("kb_choose_k_segment failed (error %d)", rc));
    }
    if (bytes > 0 && *seg > bytes) {
        *seg = bytes;
    }
}

/* Steps of the FPFS pipeline simulation, or -1 when the simulator's table is too large. */
long sim_steps(const kb_tree_t *t, size_t m)
{
    if ((uint64_t) t->n * m > KB_SIM_MAX_CELLS) {
        return -1;
    }
    return kb_sim_steps(t, (long) m, KB_DISC_FPFS);
}

void build_kb_tree(Inspection &in)
{
    const int n = (int) in.hosts.size();
    const size_t M = in.opt.bytes;
    const double a = kLinearModel.alpha_us, b = kLinearModel.beta_ns_per_byte;
    kb_tree_params_t tp = {1, 1.0};
    size_t seg = M > 0 ? M : 1;
    int k_model = 1;
    std::vector<std::string> &L = in.model_lines;
    L.push_back(fmt("model: alpha_us=%g beta_ns_per_byte=%g step_us(S)=alpha+beta*S", a, b));

    switch (in.alg.shape) {
    case KB_SHAPE_KBINOMIAL:
        choose_segment(n, M, &k_model, &seg);
        tp.k = in.opt.k > 0 ? in.opt.k : k_model;
        in.params = fmt(" k=%d", tp.k);
        L.push_back(in.opt.k > 0 ? fmt("k: %d (--k; model optimum %d)", tp.k, k_model)
                                 : fmt("k: %d (model)", tp.k));
        break;
    case KB_SHAPE_POSTAL: {
        choose_segment(n, M, &k_model, &seg);
        tp.lambda = in.opt.lambda > 0.0 ? in.opt.lambda : kb_postal_lambda(seg, &kPostalModel);
        if (!(tp.lambda >= 1.0)) {
            throw Fail(EXIT_INTERNAL, "kb_postal_lambda failed");
        }
        in.params = fmt(" lambda=%.3f", tp.lambda);
        break;
    }
    case KB_SHAPE_CHAIN:
        choose_segment(n, M, &k_model, &seg);
        break;
    case KB_SHAPE_BINOMIAL:
    case KB_SHAPE_LINEAR:
        break;   /* unsegmented, as the component without segment_bytes */
    }
    if (in.opt.k > 0 && KB_SHAPE_KBINOMIAL != in.alg.shape) {
        fprintf(stderr, "mcast-inspect: warning: --k applies to kbinomial only\n");
    }
    if (in.opt.lambda > 0.0 && KB_SHAPE_POSTAL != in.alg.shape) {
        fprintf(stderr, "mcast-inspect: warning: --lambda applies to postal only\n");
    }

    kb_tree_t *t = nullptr;
    int rc = kb_tree_build(in.alg.shape, n, in.opt.root, in.chain.data(), &tp, &t);
    if (KB_OK != rc) {
        throw Fail(KB_ERR_ARG == rc ? EXIT_INPUT : EXIT_INTERNAL,
                   fmt("kb_tree_build(%s, n=%d, root=%d) failed (error %d)", in.alg.name.c_str(),
                       n, in.opt.root, rc));
    }
    in.tree = Tree(t, TreeFree{false});

    const size_t m = segments_of(M, seg);
    const double step_us = a + b * (double) seg / 1000.0;
    const long sim = sim_steps(t, m);
    const std::string sim_s = sim >= 0 ? fmt("%ld", sim) : std::string("n/a (too many cells)");
    L.push_back(fmt("segment_bytes: %zu", seg));
    L.push_back(fmt("segments: %zu", m));
    double predicted = -1.0;
    switch (in.alg.shape) {
    case KB_SHAPE_KBINOMIAL:
    case KB_SHAPE_BINOMIAL: {
        const int k = KB_SHAPE_KBINOMIAL == in.alg.shape ? tp.k : std::max(1, kb_ceil_log2(n));
        L.push_back(fmt("steps: %ld (L1(n,k) + (m-1)k = %d + %zu*%d)", kb_steps(n, (long) m, k),
                        kb_L1(n, k), m - 1, k));
        L.push_back("steps_simulated_fpfs: " + sim_s);
        predicted = kb_predict_us(n, M, k, seg, &kLinearModel);
        L.push_back("formula: kb_predict_us = (L1 + (m-1)k) * (alpha + beta*S)");
        break;
    }
    case KB_SHAPE_LINEAR:
    case KB_SHAPE_CHAIN:
        L.push_back("steps_simulated_fpfs: " + sim_s);
        L.push_back("formula: simulated FPFS steps * (alpha + beta*S)");
        predicted = sim >= 0 ? (double) sim * step_us : -1.0;
        break;
    case KB_SHAPE_POSTAL: {
        const kb_postal_model_t &p = kPostalModel;
        const double send_us = p.o_send_us + (double) seg * p.gap_ns_per_byte / 1000.0;
        const double units = kb_postal_completion(n, tp.lambda);
        int fan = 0;
        for (int v = 0; v < n; ++v) {
            fan = std::max(fan, kb_tree_nchildren(t, v));
        }
        L.push_back(fmt("postal: o_send_us=%g o_recv_us=%g gap_ns_per_byte=%g", p.o_send_us,
                        p.o_recv_us, p.gap_ns_per_byte));
        L.push_back(fmt("lambda: %.3f (%s)", tp.lambda, in.opt.lambda > 0.0 ? "--lambda"
                                                                          : "model, one segment"));
        L.push_back(fmt("send_us: %.3f", send_us));
        L.push_back(fmt("completion_units: %.3f (simulated %.3f)", units,
                        kb_sim_postal(t, tp.lambda)));
        L.push_back(fmt("max_children: %d", fan));
        L.push_back("formula: (completion_units + (m-1) * max_children) * send_us");
        predicted = (units + (double) (m - 1) * fan) * send_us;
        break;
    }
    }
    L.push_back("predicted_us: " + (predicted >= 0.0 ? us(predicted) : std::string("n/a")));
}

void build_torus_tree(Inspection &in)
{
    const int n = (int) in.hosts.size();
    if (PM_TOPO_TORUS != pm_topology_kind(in.topo.get())) {
        throw Fail(EXIT_INPUT, fmt("algorithm '%s' needs a torus topology", in.alg.name.c_str()));
    }
    pm_torus_shape_t shape = {};
    int rc = pm_topology_torus_shape(in.topo.get(), &shape.ndims, shape.dims, PM_MAX_DIMS,
                                     &shape.wrap, &shape.bidir);
    if (PM_OK != rc) {
        throw Fail(status_of(rc), fmt("torus shape (error %d)", rc));
    }
    std::vector<int> coords((size_t) n * shape.ndims);
    for (int r = 0; r < n; ++r) {
        rc = pm_topology_host_coords(in.topo.get(), in.hosts[r].c_str(), &coords[r * shape.ndims],
                                     shape.ndims);
        if (PM_OK != rc) {
            throw Fail(status_of(rc), fmt("host '%s' (rank %d): no torus coordinates",
                                          in.hosts[r].c_str(), r));
        }
    }
    if (in.opt.k > 0 || in.opt.lambda > 0.0) {
        fprintf(stderr, "mcast-inspect: warning: --k/--lambda do not apply to torus algorithms\n");
    }
    kb_tree_t *t = nullptr;
    pm_torus_stats_t st = {};
    rc = pm_torus_build(in.alg.torus_alg, &shape, n, coords.data(), in.opt.root, 0, &t, &st);
    if (PM_OK != rc) {
        throw Fail(status_of(rc), fmt("pm_torus_build(%s) failed (error %d)", in.alg.name.c_str(),
                                      rc));
    }
    in.tree = Tree(t, TreeFree{true});

    pm_torus_model_t model;
    pm_torus_model_default(&model);
    std::vector<std::string> &L = in.model_lines;
    L.push_back(fmt("model: torus latency model (seed 002 eqs. 6-12) o_us=%g t_process_us=%g "
                    "beta_us_per_byte=%g", model.o_us, model.t_process_us[in.alg.torus_alg],
                    model.beta_us_per_byte));
    L.push_back(fmt("phases: %d", st.phases));
    L.push_back(fmt("steps: %d", st.steps));
    L.push_back(fmt("depth: %d", st.depth));
    L.push_back(fmt("intermediates: %d", st.intermediates));
    double predicted = pm_torus_predict_us(in.alg.torus_alg, &st, n, in.opt.bytes, &model);
    L.push_back("formula: pm_torus_predict_us");
    L.push_back("predicted_us: " + (predicted >= 0.0 ? us(predicted) : std::string("n/a")));
}

void check_conflicts(Inspection &in)
{
    const int n = (int) in.hosts.size();
    in.step_into.assign(n, -1);
    pm_msg_t *msgs = nullptr;
    int nmsgs = 0;
    int rc = pm_plan_from_tree(in.tree.get(), &msgs, &nmsgs, &in.nsteps);
    if (PM_OK != rc) {
        throw Fail(EXIT_INTERNAL, fmt("pm_plan_from_tree failed (error %d)", rc));
    }
    in.msgs.assign(msgs, msgs + nmsgs);
    pm_free(msgs);
    /* Report in (step, src, dst) order so the output is stable. */
    std::sort(in.msgs.begin(), in.msgs.end(), [](const pm_msg_t &x, const pm_msg_t &y) {
        return x.step != y.step ? x.step < y.step : x.src != y.src ? x.src < y.src : x.dst < y.dst;
    });
    for (const pm_msg_t &m : in.msgs) {
        in.step_into[m.dst] = m.step;
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

void print_tree_ascii(const Inspection &in, int v, const std::string &prefix, bool last, bool top)
{
    const kb_tree_t *t = in.tree.get();
    std::string line = top ? "" : prefix + (last ? "`-- " : "|-- ");
    line += fmt("%d %s", v, in.hosts[v].c_str());
    if (in.step_into[v] >= 0) {
        line += fmt(" (step %d)", in.step_into[v]);
    }
    printf("  %s\n", line.c_str());
    const std::string next = top ? "" : prefix + (last ? "    " : "|   ");
    for (int j = t->child_off[v]; j < t->child_off[v + 1]; ++j) {
        print_tree_ascii(in, t->children[j], next, j + 1 == t->child_off[v + 1], false);
    }
}

void print_report(const Inspection &in)
{
    const int n = (int) in.hosts.size();
    const kb_tree_t *t = in.tree.get();
    printf("== input ==\n");
    printf("topology: %s\n", in.opt.topology.c_str());
    printf("kind: %s\n", topo_description(in.topo.get()).c_str());
    printf("topology_hosts: %d\n", pm_topology_nhosts(in.topo.get()));
    printf("topology_switches: %d\n", pm_topology_nswitches(in.topo.get()));
    printf("ranks: %d\n", n);
    printf("root: %d (%s)\n", in.opt.root, in.hosts[in.opt.root].c_str());
    printf("algorithm: %s\n", in.alg.name.c_str());
    printf("bytes: %zu\n", in.opt.bytes);
    printf("routing: %s\n", in.opt.routing.c_str());

    printf("\n== ordering ==\n");
    printf("ordering: %s\n", in.ordering_line.c_str());
    printf("chain (position: rank:host):\n");
    for (int p = 0; p < n; ++p) {
        printf("  %d: %d:%s\n", p, in.chain[p], in.hosts[in.chain[p]].c_str());
    }

    printf("\n== tree ==\n");
    printf("depth: %d\n", t->depth);
    for (int v = 0; v < n; ++v) {
        std::string ch;
        for (int j = t->child_off[v]; j < t->child_off[v + 1]; ++j) {
            ch += " " + std::to_string(t->children[j]);
        }
        std::string par = KB_NO_PEER == t->parent[v] ? "-" : std::to_string(t->parent[v]);
        printf("rank %d (%s): parent %s, children [%s]\n", v, in.hosts[v].c_str(), par.c_str(),
               ch.empty() ? "" : ch.c_str() + 1);
    }
    printf("tree:\n");
    print_tree_ascii(in, t->root, "", true, true);

    printf("\n== conflicts ==\n");
    printf("schedule: FPFS single packet (pm_plan_from_tree), %zu messages, %d steps\n",
           in.msgs.size(), in.nsteps);
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
               in.alg.name.c_str(), in.params.c_str(), base.c_str(), in.hosts.size(), in.opt.root,
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

    /* The tree: directed, one colour per FPFS step.  It must not shape the layout:
     * neato places nodes by graph distance, and a tree edge longer than any route
     * (len) leaves every distance, hence the fabric's drawing, unchanged. */
    for (const pm_msg_t &m : in.msgs) {
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

int run(int argc, char **argv)
{
    Inspection in;
    in.opt = parse_options(argc, argv);
    if (!in.opt.generate.empty()) {
        return generate(in.opt.generate);
    }
    if (!lookup_algorithm(in.opt.algorithm, &in.alg)) {
        throw Fail(EXIT_INPUT, fmt("unknown algorithm '%s' (expected one of: %s)",
                                   in.opt.algorithm.c_str(), algorithm_names().c_str()));
    }
    lookup_named(kOrderings, in.opt.ordering, "ordering");
    lookup_named(kRoutings, in.opt.routing, "routing");
    if (!in.opt.picture.empty()) {
        picture_format(in.opt.picture);
    }
    load_topology(in);
    read_hosts(in);
    build_chain(in);
    if (in.alg.torus) {
        build_torus_tree(in);
    } else {
        build_kb_tree(in);
    }
    if (KB_OK != kb_tree_check(in.tree.get())) {
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
