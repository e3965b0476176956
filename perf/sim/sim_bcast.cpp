/*
 * perf/sim/sim_bcast: broadcast contenders side by side in ONE SimGrid/SMPI simulation.
 *
 * Ours: plans built by the project's cores (coll_kbinomial, coll_pathmc) and executed by
 * a point-to-point port of ompi/mca/common/mcast/mcast_exec.c (tree with ordered
 * children, segments of S bytes, FPFS forwarding, receives posted `window` segments
 * ahead, nonblocking sends in a ring of window*children requests of which only the
 * oldest is waited for when the ring is full).
 *
 * Peers: SMPI's own broadcast algorithms, called through the exported
 * simgrid::smpi::bcast__<name> functions (the code behind --cfg=smpi/bcast:<name>).
 *
 * Timing (simulated time, deterministic):
 *   barrier; allreduce(MAX) of MPI_Wtime -> tmax; every rank sleeps (simulated) until
 *   T = tmax + 10 ms, so all ranks start the broadcast at exactly the same instant;
 *   time = max over ranks of (end - T)  (MPI_Reduce MAX).
 * Each contender is warmed up once per size (one untimed broadcast), then timed --reps
 * times (results repeat bit for bit; --reps 1 is the default).
 *
 * Output (rank 0, stdout): CSV "size_bytes,contender,time_us,plan" plus '#' comments.
 *
 * Build: smpicxx -O2 -std=c++17 -Icoll_kbinomial/include -Icoll_pathmc/include \
 *          coll_kbinomial/src/[all].cpp coll_pathmc/src/[all].cpp perf/sim/sim_bcast.cpp
 * Run:   see perf/sim/run.sh and perf/sim/README.md.
 */
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "kbinomial.h"
#include "pathmc.h"

/* ---- SMPI's built-in broadcast algorithms (exported C++ symbols of libsimgrid) ---- */
namespace simgrid {
namespace smpi {
#define SMPI_BCAST(name) int bcast__##name(void *, int, Datatype *, int, Comm *);
SMPI_BCAST(ompi)
SMPI_BCAST(mpich)
SMPI_BCAST(mvapich2)
SMPI_BCAST(impi)
SMPI_BCAST(default)
SMPI_BCAST(binomial_tree)
SMPI_BCAST(scatter_LR_allgather)
SMPI_BCAST(scatter_rdb_allgather)
SMPI_BCAST(NTSL)
SMPI_BCAST(NTSL_Isend)
SMPI_BCAST(NTSB)
SMPI_BCAST(flattree)
SMPI_BCAST(flattree_pipeline)
SMPI_BCAST(ompi_pipeline)
SMPI_BCAST(SMP_binomial)
SMPI_BCAST(SMP_binary)
SMPI_BCAST(SMP_linear)
SMPI_BCAST(arrival_pattern_aware)
SMPI_BCAST(arrival_pattern_aware_wait)
SMPI_BCAST(mvapich2_inter_node)
SMPI_BCAST(mvapich2_knomial_intra_node)
#undef SMPI_BCAST
}  // namespace smpi
}  // namespace simgrid

typedef int (*smpi_bcast_fn)(void *, int, MPI_Datatype, int, MPI_Comm);
static const std::map<std::string, smpi_bcast_fn> &smpi_peers()
{
    using namespace simgrid::smpi;
    static const std::map<std::string, smpi_bcast_fn> m = {
        {"ompi", bcast__ompi},
        {"mpich", bcast__mpich},
        {"mvapich2", bcast__mvapich2},
        {"impi", bcast__impi},
        {"default", bcast__default},
        {"binomial_tree", bcast__binomial_tree},
        {"scatter_LR_allgather", bcast__scatter_LR_allgather},
        {"scatter_rdb_allgather", bcast__scatter_rdb_allgather},
        {"NTSL", bcast__NTSL},
        {"NTSL_Isend", bcast__NTSL_Isend},
        {"NTSB", bcast__NTSB},
        {"flattree", bcast__flattree},
        {"flattree_pipeline", bcast__flattree_pipeline},
        {"ompi_pipeline", bcast__ompi_pipeline},
        {"SMP_binomial", bcast__SMP_binomial},
        {"SMP_binary", bcast__SMP_binary},
        {"SMP_linear", bcast__SMP_linear},
        {"arrival_pattern_aware", bcast__arrival_pattern_aware},
        {"arrival_pattern_aware_wait", bcast__arrival_pattern_aware_wait},
        {"mvapich2_inter_node", bcast__mvapich2_inter_node},
        {"mvapich2_knomial_intra_node", bcast__mvapich2_knomial_intra_node},
    };
    return m;
}

/* ---- options ---- */
struct Options {
    std::vector<size_t> sizes{1024, 65536, 1 << 20, 4 << 20};
    std::vector<std::string> ours{"kbinomial", "binomial", "postal", "linear"};
    std::vector<std::string> peers{"ompi", "mpich", "mvapich2", "binomial_tree",
                                   "scatter_LR_allgather", "scatter_rdb_allgather", "NTSL",
                                   "flattree_pipeline"};
    double alpha_us = 2.0;       /* per-step latency for the cost models */
    double beta_ns = 0.08;       /* per byte (1 / link bandwidth) */
    double o_send_us = 0.5, o_recv_us = 0.5, wire_us = 1.0; /* postal model */
    size_t seg_min = 1024, seg_max = 1 << 20;               /* component defaults */
    int window = 4;
    bool issend = false;         /* Isend like the executor; see README (Issend skips an SMPI overhead) */
    bool fifo = true;            /* per-peer FIFO emulation, see exec_bcast */
    int reps = 1;
    bool check = false;
    int root = 0;
    std::vector<int> torus;      /* dims of the torus (dim 0 fastest in rank order) */
    std::string topology;        /* topology file for POC ordering (irregular) */
    std::string tag;             /* free text copied to the header */
};

static std::vector<std::string> split(const std::string &s, char sep)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, sep))
        if (!item.empty()) out.push_back(item);
    return out;
}

static size_t parse_size(const std::string &s)
{
    char *end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    std::string suf = end ? end : "";
    if (suf == "K" || suf == "k" || suf == "KiB") v *= 1024;
    else if (suf == "M" || suf == "MiB") v *= 1024 * 1024;
    return (size_t)v;
}

static void usage()
{
    std::fprintf(stderr,
                 "sim_bcast [--sizes a,b,..] [--ours LIST|none] [--peers LIST|none] [--alpha-us A]\n"
                 "          [--beta-ns B] [--o-send-us O] [--o-recv-us O] [--wire-us L]\n"
                 "          [--seg-min S] [--seg-max S] [--window W] [--send isend|issend]\n"
                 "          [--fifo on|off] [--reps N] [--check] [--torus AxB] [--topology FILE] [--tag TEXT]\n"
                 "ours: kbinomial kbinomial-plain binomial postal linear chain kbinomial-poc\n"
                 "      pathmc-<alg>[-seg], each\n"
                 "      optionally with the suffix +serial (send ring of 1) and/or +nofifo\n"
                 "      (alg: separate utorus storus mdtorus mutorus)\n");
}

static bool parse_args(int argc, char **argv, Options &o)
{
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto next = [&](void) -> std::string {
            if (i + 1 >= argc) {
                usage();
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--sizes") {
            o.sizes.clear();
            for (auto &s : split(next(), ',')) o.sizes.push_back(parse_size(s));
        } else if (a == "--ours") {
            std::string v = next();
            o.ours = (v == "none") ? std::vector<std::string>{} : split(v, ',');
        } else if (a == "--peers") {
            std::string v = next();
            o.peers = (v == "none") ? std::vector<std::string>{} : split(v, ',');
        } else if (a == "--alpha-us") o.alpha_us = std::atof(next().c_str());
        else if (a == "--beta-ns") o.beta_ns = std::atof(next().c_str());
        else if (a == "--o-send-us") o.o_send_us = std::atof(next().c_str());
        else if (a == "--o-recv-us") o.o_recv_us = std::atof(next().c_str());
        else if (a == "--wire-us") o.wire_us = std::atof(next().c_str());
        else if (a == "--seg-min") o.seg_min = parse_size(next());
        else if (a == "--seg-max") o.seg_max = parse_size(next());
        else if (a == "--window") o.window = std::atoi(next().c_str());
        else if (a == "--send") o.issend = (next() == "issend");
        else if (a == "--fifo") o.fifo = (next() != "off");
        else if (a == "--reps") o.reps = std::atoi(next().c_str());
        else if (a == "--check") o.check = true;
        else if (a == "--root") o.root = std::atoi(next().c_str());
        else if (a == "--torus") {
            for (auto &d : split(next(), 'x')) o.torus.push_back(std::atoi(d.c_str()));
        } else if (a == "--topology") o.topology = next();
        else if (a == "--tag") o.tag = next();
        else {
            usage();
            return false;
        }
    }
    return true;
}

/* ---- the executor (port of mcast_exec.c, contiguous MPI_BYTE buffers) ---- */
struct LocalPlan {
    int parent = -1;
    std::vector<int> children;
    size_t seg = 1;
    int window = 4;
    int ring = 0;     /* send ring capacity; 0 = window * children (the executor's) */
};

/*
 * Per-peer FIFO (on by default, --fifo off disables it).  SimGrid's flow model has no
 * per-connection queue: two segments in flight from A to the same child B share A's
 * link and finish together, so a window of W segments to one child makes every hop W
 * times slower (measured: a 64-rank chain of 80 KB segments takes 1.7x as long with
 * 4 in flight as with 1).  A NIC processes the sends of one connection (queue pair) in
 * order, so with fifo on a send to child c is handed to SMPI only when the previous
 * send to c has completed; sends to different children still overlap and share the
 * link, as they would on a NIC.  The MPI-level behaviour of the executor (ring of
 * window*children logical sends, wait for the oldest only, receives posted window
 * ahead) is unchanged; the queue is progressed whenever the rank waits.
 */
static int exec_bcast(char *data, size_t bytes, const LocalPlan &p, MPI_Comm comm, bool issend,
                      bool fifo)
{
    const bool is_root = p.parent < 0;
    const int nch = (int)p.children.size();
    if (bytes == 0 || (is_root && nch == 0)) return MPI_SUCCESS;
    size_t seg = p.seg;
    if (seg < 1 || seg > (size_t)INT_MAX) seg = std::min(bytes, (size_t)INT_MAX);
    const size_t nseg = (bytes + seg - 1) / seg;
    const size_t window = p.window < 1 ? 1 : (size_t)p.window;
    auto seg_len = [&](size_t j) { return (int)std::min(seg, bytes - j * seg); };
    const int tag = 4242;
    auto phys_send = [&](size_t j, int dst, MPI_Request *r) {
        if (issend)
            MPI_Issend(data + j * seg, seg_len(j), MPI_BYTE, dst, tag, comm, r);
        else
            MPI_Isend(data + j * seg, seg_len(j), MPI_BYTE, dst, tag, comm, r);
    };

    /* Per child: logical sends issued, physical sends started, completed (in order). */
    std::vector<size_t> issued(nch, 0), started(nch, 0), done(nch, 0);
    std::vector<MPI_Request> inflight(nch, MPI_REQUEST_NULL);
    std::vector<MPI_Request> reqs;
    std::vector<int> who;
    /* Wait until one of: a child's in-flight send, or *extra, completes.  Returns true
     * when *extra completed. */
    auto progress_once = [&](MPI_Request *extra) -> bool {
        reqs.clear();
        who.clear();
        for (int c = 0; c < nch; c++)
            if (started[c] > done[c]) {
                reqs.push_back(inflight[c]);
                who.push_back(c);
            }
        if (extra) {
            reqs.push_back(*extra);
            who.push_back(-1);
        }
        if (reqs.empty()) return false;
        int idx = MPI_UNDEFINED;
        MPI_Waitany((int)reqs.size(), reqs.data(), &idx, MPI_STATUS_IGNORE);
        if (idx == MPI_UNDEFINED) return false;
        int c = who[idx];
        if (c < 0) {
            *extra = MPI_REQUEST_NULL;
            return true;
        }
        inflight[c] = MPI_REQUEST_NULL;
        done[c]++;
        if (started[c] < issued[c]) {
            phys_send(started[c], p.children[c], &inflight[c]);
            started[c]++;
        }
        return false;
    };

    /* Logical send ring: at most cap outstanding, wait for the oldest only. */
    const size_t cap = p.ring > 0 ? (size_t)p.ring : window * (size_t)(nch > 0 ? nch : 1);
    std::vector<std::pair<int, size_t>> ring(cap);   /* (child index, segment) */
    std::vector<MPI_Request> ring_req(cap, MPI_REQUEST_NULL);  /* fifo off only */
    size_t head = 0, used = 0;
    auto wait_oldest = [&]() {
        if (fifo) {
            auto [c, j] = ring[head];
            while (done[c] <= j) progress_once(nullptr);
        } else {
            MPI_Wait(&ring_req[head], MPI_STATUS_IGNORE);
        }
        head = (head + 1) % cap;
        used--;
    };
    auto ring_isend = [&](size_t j, int c) {
        if (used == cap) wait_oldest();
        size_t slot = (head + used) % cap;
        ring[slot] = {c, j};
        if (fifo) {
            issued[c]++;
            if (started[c] == done[c]) {   /* nothing in flight to c: start now */
                phys_send(started[c], p.children[c], &inflight[c]);
                started[c]++;
            }
        } else {
            phys_send(j, p.children[c], &ring_req[slot]);
        }
        used++;
    };

    std::vector<MPI_Request> rrecv(window, MPI_REQUEST_NULL);
    if (!is_root)
        for (size_t j = 0; j < window && j < nseg; j++)
            MPI_Irecv(data + j * seg, seg_len(j), MPI_BYTE, p.parent, tag, comm, &rrecv[j]);

    for (size_t j = 0; j < nseg; j++) {
        if (!is_root) {
            MPI_Request *r = &rrecv[j % window];
            if (fifo) {
                while (!progress_once(r)) {
                }
            } else {
                MPI_Wait(r, MPI_STATUS_IGNORE);
            }
            if (j + window < nseg)
                MPI_Irecv(data + (j + window) * seg, seg_len(j + window), MPI_BYTE, p.parent, tag,
                          comm, &rrecv[j % window]);
        }
        for (int c = 0; c < nch; c++) ring_isend(j, c);   /* FPFS: child order */
    }
    while (used > 0) wait_oldest();
    return MPI_SUCCESS;
}

static LocalPlan local_from_tree(const kb_tree_t *t, int rank, size_t seg, int window)
{
    LocalPlan lp;
    lp.parent = t->parent[rank];
    for (int i = t->child_off[rank]; i < t->child_off[rank + 1]; i++)
        lp.children.push_back(t->children[i]);
    lp.seg = seg;
    lp.window = window;
    return lp;
}

/* ---- plan construction for our contenders (every rank builds the same tree) ---- */
struct Built {
    kb_tree_t *tree = nullptr;
    bool pm_tree = false;
    size_t seg = 0;
    std::string desc;
    bool ok = false;
};

struct Context {
    Options o;
    int rank = 0, size = 1;
    std::vector<int> coords;          /* torus coords per rank */
    std::vector<int> poc_order;       /* POC ordering of ranks (irregular) */
};

static Built build_ours(const Context &cx, const std::string &name, size_t bytes)
{
    const Options &o = cx.o;
    Built b;
    const int n = cx.size;
    kb_linear_model_t lm{o.alpha_us, o.beta_ns};
    kb_tree_params_t tp{1, 1.0};
    char buf[256];
    if (name == "kbinomial" || name == "kbinomial-poc" || name == "kbinomial-plain") {
        /* as the component across nodes: per-message overheads decide whether to
         * segment at all; "kbinomial-plain" is the paper's (k, S) alone */
        int k = 0;
        size_t S = 0;
        const double ov = name == "kbinomial-plain" ? 0.0 : o.o_send_us + o.o_recv_us;
        if (kb_choose_k_segment_ov(n, bytes, &lm, ov, o.seg_min, o.seg_max, &k, &S) != KB_OK) return b;
        if (S > bytes) S = bytes;
        tp.k = k;
        const int *ord = nullptr;
        if (name == "kbinomial-poc") {
            if (cx.poc_order.empty()) return b;
            ord = cx.poc_order.data();
        }
        if (kb_tree_build(KB_SHAPE_KBINOMIAL, n, o.root, ord, &tp, &b.tree) != KB_OK) return b;
        b.seg = S;
        std::snprintf(buf, sizeof buf, "k=%d S=%zu nseg=%zu window=%d ordering=%s pred_us=%.1f", k,
                      S, (bytes + S - 1) / S, o.window, ord ? "poc" : "identity",
                      kb_predict_us(n, bytes, k, S, &lm));
    } else if (name == "postal") {
        int k_unused = 0;
        size_t S = 0;
        if (kb_choose_k_segment(n, bytes, &lm, o.seg_min, o.seg_max, &k_unused, &S) != KB_OK)
            return b;
        if (S > bytes) S = bytes;
        kb_postal_model_t pm{o.o_send_us, o.o_recv_us, o.wire_us, o.beta_ns, o.beta_ns};
        tp.lambda = kb_postal_lambda(S, &pm);
        if (!(tp.lambda >= 1.0)) return b;
        if (kb_tree_build(KB_SHAPE_POSTAL, n, o.root, nullptr, &tp, &b.tree) != KB_OK) return b;
        b.seg = S;
        std::snprintf(buf, sizeof buf, "lambda=%.3f S=%zu nseg=%zu window=%d", tp.lambda, S,
                      (bytes + S - 1) / S, o.window);
    } else if (name == "binomial" || name == "linear" || name == "chain") {
        kb_shape_t sh = name == "binomial" ? KB_SHAPE_BINOMIAL
                        : name == "linear" ? KB_SHAPE_LINEAR
                                           : KB_SHAPE_CHAIN;
        if (kb_tree_build(sh, n, o.root, nullptr, &tp, &b.tree) != KB_OK) return b;
        b.seg = bytes;   /* unsegmented (component default segment_bytes=0) */
        if (name == "chain") {
            int k_unused = 0;
            size_t S = 0;
            kb_choose_k_segment(n, bytes, &lm, o.seg_min, o.seg_max, &k_unused, &S);
            b.seg = std::min(S, bytes);
        }
        std::snprintf(buf, sizeof buf, "S=%zu window=%d", b.seg, o.window);
    } else if (name.rfind("pathmc-", 0) == 0) {
        if (cx.coords.empty()) return b;
        std::string alg = name.substr(7);
        bool seg = false;
        if (alg.size() > 4 && alg.compare(alg.size() - 4, 4, "-seg") == 0) {
            seg = true;
            alg = alg.substr(0, alg.size() - 4);
        }
        int id = pm_torus_algorithm_lookup(alg.c_str());
        if (id < 0) return b;
        pm_torus_shape_t sh{};
        sh.ndims = (int)o.torus.size();
        for (int d = 0; d < sh.ndims; d++) sh.dims[d] = o.torus[d];
        sh.wrap = 1;
        sh.bidir = 1;
        pm_torus_stats_t st{};
        if (pm_torus_build((pm_torus_alg_t)id, &sh, n, cx.coords.data(), o.root, 0, &b.tree, &st) !=
            PM_OK)
            return b;
        b.pm_tree = true;
        size_t S = bytes;
        if (seg) {
            int k_unused = 0;
            kb_choose_k_segment(n, bytes, &lm, o.seg_min, o.seg_max, &k_unused, &S);
            S = std::min(S, bytes);
        }
        b.seg = S;
        std::snprintf(buf, sizeof buf, "S=%zu window=%d phases=%d steps=%d", S, o.window,
                      st.phases, st.steps);
    } else {
        return b;
    }
    if (kb_tree_check(b.tree) != KB_OK) {
        if (b.pm_tree) pm_tree_free(b.tree);
        else kb_tree_free(b.tree);
        b.tree = nullptr;
        return b;
    }
    int maxfan = 0;
    for (int v = 0; v < n; v++) maxfan = std::max(maxfan, kb_tree_nchildren(b.tree, v));
    b.desc = std::string(buf) + " depth=" + std::to_string(b.tree->depth) +
             " maxfanout=" + std::to_string(maxfan);
    if (b.seg == 0) b.seg = 1;
    b.ok = true;
    return b;
}

static void free_built(Built &b)
{
    if (!b.tree) return;
    if (b.pm_tree) pm_tree_free(b.tree);
    else kb_tree_free(b.tree);
    b.tree = nullptr;
}

/* ---- timing harness ---- */
static double synchronized_start(MPI_Comm comm)
{
    MPI_Barrier(comm);
    double now = MPI_Wtime(), tmax = 0;
    MPI_Allreduce(&now, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
    double T = tmax + 0.01;  /* 10 ms of simulated time after the slowest rank */
    double wait = T - MPI_Wtime();
    if (wait <= 0) {
        std::fprintf(stderr, "synchronized_start: rank late by %g s\n", -wait);
        MPI_Abort(comm, 3);
    }
    struct timespec ts;
    ts.tv_sec = (time_t)wait;
    ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
    smpi_nanosleep(&ts, nullptr);
    return MPI_Wtime();  /* T (up to the ns rounding of the sleep) */
}

static unsigned char pattern(size_t i, size_t bytes) { return (unsigned char)((i * 131 + bytes * 7 + 17) & 0xff); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    Context cx;
    MPI_Comm_rank(MPI_COMM_WORLD, &cx.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &cx.size);
    if (!parse_args(argc, argv, cx.o)) {
        MPI_Finalize();
        return 2;
    }
    Options &o = cx.o;
    const int n = cx.size, rank = cx.rank;

    if (!o.torus.empty()) {
        long prod = 1;
        for (int d : o.torus) prod *= d;
        if (prod != n) {
            if (rank == 0) std::fprintf(stderr, "--torus does not match %d ranks\n", n);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        /* SimGrid's TORUS cluster: host index -> coords with dimension 0 fastest. */
        cx.coords.resize((size_t)n * o.torus.size());
        for (int r = 0; r < n; r++) {
            int x = r;
            for (size_t d = 0; d < o.torus.size(); d++) {
                cx.coords[r * o.torus.size() + d] = x % o.torus[d];
                x /= o.torus[d];
            }
        }
    }
    if (!o.topology.empty()) {
        /* POC ordering over the hosts the ranks actually run on (processor names). */
        char name[MPI_MAX_PROCESSOR_NAME];
        int len = 0;
        MPI_Get_processor_name(name, &len);
        std::vector<char> all((size_t)n * MPI_MAX_PROCESSOR_NAME);
        MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                      MPI_CHAR, MPI_COMM_WORLD);
        pm_topology_t *topo = nullptr;
        char err[512] = "";
        if (pm_topology_load(o.topology.c_str(), &topo, err, sizeof err) != PM_OK) {
            if (rank == 0) std::fprintf(stderr, "topology: %s\n", err);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        std::vector<const char *> hosts(n);
        for (int r = 0; r < n; r++) hosts[r] = &all[(size_t)r * MPI_MAX_PROCESSOR_NAME];
        cx.poc_order.resize(n);
        if (pm_order_hosts(topo, PM_ORDER_POC, n, hosts.data(), o.root, cx.poc_order.data(), err,
                           sizeof err) != PM_OK) {
            if (rank == 0) std::fprintf(stderr, "pm_order_hosts: %s\n", err);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        pm_topology_free(topo);
    }

    size_t maxbytes = 1;
    for (size_t s : o.sizes) maxbytes = std::max(maxbytes, s);
    /* Timing runs share one buffer between all simulated ranks (SMPI skips the copies of
     * shared memory, so 1024 ranks x 4 MiB costs neither RAM nor memcpy time); --check
     * uses private buffers and verifies every byte. */
    char *buf = o.check ? (char *)std::malloc(maxbytes) : (char *)SMPI_SHARED_MALLOC(maxbytes);
    MPI_Comm ours_comm, peer_comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &ours_comm);
    MPI_Comm_dup(MPI_COMM_WORLD, &peer_comm);

    if (rank == 0) {
        std::printf("# sim_bcast ranks=%d root=%d window=%d send=%s fifo=%s alpha_us=%g beta_ns=%g "
                    "o_send_us=%g o_recv_us=%g wire_us=%g seg=[%zu,%zu] reps=%d check=%d %s\n",
                    n, o.root, o.window, o.issend ? "issend" : "isend", o.fifo ? "on" : "off",
                    o.alpha_us, o.beta_ns,
                    o.o_send_us, o.o_recv_us, o.wire_us, o.seg_min, o.seg_max, o.reps,
                    (int)o.check, o.tag.c_str());
        std::printf("size_bytes,contender,time_us,plan\n");
        std::fflush(stdout);
    }

    struct Contender {
        std::string label;
        bool ours;
        std::string name;
    };
    std::vector<Contender> list;
    for (auto &c : o.ours) list.push_back({"ours-" + c, true, c});
    for (auto &c : o.peers) {
        if (!smpi_peers().count(c)) {
            if (rank == 0) std::fprintf(stderr, "unknown SMPI bcast '%s'\n", c.c_str());
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        list.push_back({"smpi-" + c, false, c});
    }

    int failures = 0;
    for (size_t bytes : o.sizes) {
        for (auto &c : list) {
            Built b;
            LocalPlan lp;
            bool fifo = o.fifo;
            if (c.ours) {
                /* "<alg>+serial": same plan, send ring of 1 (each send completes before the
                 * next starts: strict FPFS order, an ablation, not what the executor does) */
                std::string alg = c.name;
                bool serial = false;
                if (alg.size() > 7 && alg.compare(alg.size() - 7, 7, "+nofifo") == 0) {
                    fifo = false;
                    alg = alg.substr(0, alg.size() - 7);
                }
                if (alg.size() > 7 && alg.compare(alg.size() - 7, 7, "+serial") == 0) {
                    serial = true;
                    alg = alg.substr(0, alg.size() - 7);
                }
                b = build_ours(cx, alg, bytes);
                if (!b.ok) {
                    if (rank == 0)
                        std::printf("# skip %s at %zu: plan not applicable\n", c.label.c_str(), bytes);
                    continue;
                }
                lp = local_from_tree(b.tree, rank, b.seg, o.window);
                if (serial) {
                    lp.ring = 1;
                    b.desc += " ring=1";
                }
                b.desc += fifo ? " fifo=on" : " fifo=off";
            }
            auto run_once = [&]() {
                if (c.ours)
                    exec_bcast(buf, bytes, lp, ours_comm, o.issend, fifo);
                else
                    smpi_peers().at(c.name)(buf, (int)bytes, MPI_BYTE, o.root, peer_comm);
            };
            /* warm-up (untimed) */
            synchronized_start(MPI_COMM_WORLD);
            run_once();
            double best = 1e300, worst = 0;
            for (int r = 0; r < o.reps; r++) {
                if (o.check) {
                    for (size_t i = 0; i < bytes; i++)
                        buf[i] = rank == o.root ? (char)pattern(i + r, bytes) : 0;
                }
                double T = synchronized_start(MPI_COMM_WORLD);
                run_once();
                double dt = MPI_Wtime() - T, mx = 0;
                MPI_Reduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
                if (o.check) {
                    long bad = -1;
                    for (size_t i = 0; i < bytes; i++)
                        if ((unsigned char)buf[i] != pattern(i + r, bytes)) {
                            bad = (long)i;
                            break;
                        }
                    int mybad = bad >= 0, nbad = 0;
                    MPI_Reduce(&mybad, &nbad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
                    if (rank == 0 && nbad) {
                        std::printf("# CHECK FAILED %s size %zu: %d ranks wrong\n", c.label.c_str(),
                                    bytes, nbad);
                        failures++;
                    }
                }
                best = std::min(best, mx);
                worst = std::max(worst, mx);
            }
            if (rank == 0) {
                std::string plan = c.ours ? b.desc : "smpi builtin";
                if (worst != best) plan += " (reps differ: max " + std::to_string(worst * 1e6) + " us)";
                std::printf("%zu,%s,%.3f,%s\n", bytes, c.label.c_str(), best * 1e6, plan.c_str());
                std::fflush(stdout);
            }
            free_built(b);
        }
    }
    if (rank == 0 && o.check) std::printf("# check: %d failures\n", failures);
    MPI_Comm_free(&ours_comm);
    MPI_Comm_free(&peer_comm);
    if (o.check) std::free(buf);
    else SMPI_SHARED_FREE(buf);
    MPI_Finalize();
    return failures ? 1 : 0;
}
