/*
 * perf/sim/sim_bcast: our broadcast and SMPI's, side by side in ONE SimGrid/SMPI simulation.
 *
 * Ours run THE engine (mcast_engine.h) through a small transport over SMPI's MPI, as the
 * components run it over Open MPI's PML (ompi/mca/common/mcast/mcast_pml.c):
 *
 *   post(slot, op)   MPI_Isend / MPI_Irecv of the op's bytes into the slot's request;
 *                    two tags per broadcast (data, and the last message from a peer)
 *   progress         MPI_Waitany over the slots, from the one after the last completed
 *                    (a sweep, as the glue's poll) -> length check -> mcast_engine_complete
 *
 * (MPI_Waitany, not MPI_Testsome: SMPI injects smpi/test seconds of simulated time into
 * every MPI_Test, which a polling loop would add to the broadcast.)
 *
 * Plans come from the one planner (mcast_planner.h) with the inputs the components give it
 * on the platform (the platform's topology file given to both components as
 * coll_{kbinomial,pathmc}_topology_file, its machine file as coll_kbinomial_machine_file,
 * every other parameter at its default, no rules), and the two steps of the glue
 * (the core's decision API, as the glue calls it: mcast_planner.h):
 *   1. mcast_decide_class: the size class's decision at the class's representative size on
 *      root 0's chain;
 *   2. mcast_plan_on_root: that decision built on the call's root's chain; the schedule is
 *      built for the call's exact size.
 *
 *   ours-auto     what the components run: on a torus (coordinates from the topology
 *                 file) or an irregular switch network (a graph file naming every host),
 *                 coll/pathmc decides first (component PATHMC); when it defers,
 *                 coll/kbinomial decides (component KBINOMIAL).  Both get the chain
 *                 pm_order_hosts(topology, AUTO, hosts, root) as their discovery makes
 *                 it, every rank its own node, and the topology (the model's link
 *                 sharing).  When that
 *                 decision defers too (selected_by=previous: Open MPI's own algorithm is
 *                 predicted as fast), the module below runs: here SMPI's `ompi` broadcast
 *                 (SimGrid's port of Open MPI's tuned decision), on MPI_COMM_WORLD.
 *   ours-<name>   every registry algorithm forced (names from mcast_registry_get), with
 *                 optional forced parameters: ours-<name>:k=K:seg=BYTES
 *
 * Peers: SMPI's own broadcast algorithms through the exported simgrid::smpi::bcast__<name>
 * (the code behind --cfg=smpi/bcast:<name>), on MPI_COMM_WORLD (smpi-<name>) and, when the
 * topology gives our plans another chain than rank order, on a communicator reordered
 * along that chain (smpi-<name>@<ordering>, the root first).
 *
 * Timing (simulated time, deterministic): barrier; allreduce(MAX) of MPI_Wtime; every rank
 * sleeps until T = max + 10 ms; time = max over ranks of (end - T).  Per contender and size:
 * one checked run (private buffers, the root's pattern verified on every rank) when
 * n * size <= --check-budget-mb, else an unchecked warm-up; then one timed run on a
 * buffer shared by all ranks (SMPI skips the copies).
 *
 * Output (rank 0, stdout): '#' comments, then CSV
 *   size_bytes,contender,time_us,model_us,predicted_us,check,plan
 * model_us = the planner's prediction of what runs at this exact size (the decision forced,
 * mcast_plan_input_t.exact_bytes; for the module below its modelled time); predicted_us =
 * the plan's predicted_us (at its size class's representative, what the decision used);
 * check = ok | FAIL:<ranks> | unchecked (memory budget).
 *
 * Build and run: perf/sim/run.sh (README.md there).
 */
#include <mpi.h>
#include <simgrid/host.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "kbinomial.h"
#include "mcast_engine.h"
#include "mcast_planner.h"
#include "pathmc.h"

/* ---- SMPI's built-in broadcast algorithms (exported C++ symbols of libsimgrid) ---- */
namespace simgrid {
namespace smpi {
#define SMPI_BCAST(name) int bcast__##name(void *, int, Datatype *, int, Comm *);
SMPI_BCAST(ompi)
SMPI_BCAST(mpich)
SMPI_BCAST(mvapich2)
SMPI_BCAST(impi)
SMPI_BCAST(binomial_tree)
SMPI_BCAST(scatter_LR_allgather)
SMPI_BCAST(scatter_rdb_allgather)
SMPI_BCAST(NTSL)
SMPI_BCAST(NTSL_Isend)
SMPI_BCAST(NTSB)
SMPI_BCAST(flattree)
SMPI_BCAST(flattree_pipeline)
SMPI_BCAST(ompi_pipeline)
SMPI_BCAST(arrival_pattern_aware)
SMPI_BCAST(arrival_pattern_aware_wait)
SMPI_BCAST(mvapich2_inter_node)
SMPI_BCAST(mvapich2_knomial_intra_node)
#undef SMPI_BCAST
}  // namespace smpi
}  // namespace simgrid

typedef int (*smpi_bcast_fn)(void *, int, MPI_Datatype, int, MPI_Comm);

/* Every exported bcast__ that runs on one rank per host.  Not here: arrival_scatter and
 * automatic (abort), ompi_split_bintree (leaves stray messages), default (= mpich), the
 * SMP_* and the other *_intra_node variants (need several ranks per node). */
static const std::map<std::string, smpi_bcast_fn> &smpi_peers()
{
    using namespace simgrid::smpi;
    static const std::map<std::string, smpi_bcast_fn> m = {
        {"ompi", bcast__ompi},
        {"mpich", bcast__mpich},
        {"mvapich2", bcast__mvapich2},
        {"impi", bcast__impi},
        {"binomial_tree", bcast__binomial_tree},
        {"scatter_LR_allgather", bcast__scatter_LR_allgather},
        {"scatter_rdb_allgather", bcast__scatter_rdb_allgather},
        {"NTSL", bcast__NTSL},
        {"NTSL_Isend", bcast__NTSL_Isend},
        {"NTSB", bcast__NTSB},
        {"flattree", bcast__flattree},
        {"flattree_pipeline", bcast__flattree_pipeline},
        {"ompi_pipeline", bcast__ompi_pipeline},
        {"arrival_pattern_aware", bcast__arrival_pattern_aware},
        {"arrival_pattern_aware_wait", bcast__arrival_pattern_aware_wait},
        {"mvapich2_inter_node", bcast__mvapich2_inter_node},
        /* what SMPI's ompi selector runs at 256 - 1023 ranks below 16 KiB (a 4-nomial
         * tree over the whole communicator): runs with one rank per host too */
        {"mvapich2_knomial_intra_node", bcast__mvapich2_knomial_intra_node},
    };
    return m;
}

/* ---- options ---- */
struct Options {
    std::vector<size_t> sizes{1024, 65536, 1 << 20};
    std::vector<std::string> ours{"all"};
    std::vector<std::string> peers{"all"};
    bool peers_reordered = true;
    std::string machine;   /* machine file (mcast-calibrate); empty = built-in defaults */
    size_t measured_from = 0; /* >0: the machine file only where the components plan with
                               * self-calibration's measurement (the classes from it) */
    std::string topology;  /* the platform's topology file (names every host) */
    int root = 0;
    size_t check_budget_mb = 1024;
    std::string tag;
    bool trace = false;
};
static bool g_trace = false; /* --trace: every post and completion of our engine on stderr */

static std::vector<std::string> split(const std::string &s, char sep)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, sep)) {
        if (!item.empty()) {
            out.push_back(item);
        }
    }
    return out;
}

static bool parse_size(const std::string &s, size_t *out)
{
    char *end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    const std::string suf = end ? end : "";
    double mul = 1;
    if (suf == "K" || suf == "k" || suf == "KiB") {
        mul = 1024;
    } else if (suf == "M" || suf == "MiB") {
        mul = 1024.0 * 1024;
    } else if (!suf.empty() || end == s.c_str()) {
        return false;
    }
    if (!(v >= 0) || v * mul > double(INT_MAX)) {
        return false;
    }
    *out = size_t(v * mul);
    return true;
}

static void usage()
{
    std::fprintf(stderr,
                 "sim_bcast --machine FILE|none --topology FILE [--sizes a,b,..] [--ours LIST|all|none] (all: every registry algorithm; -NAME drops one)\n"
                 "          [--peers LIST|all|none] [--no-reordered-peers] [--root R]\n"
                 "          [--check-budget-mb MB] [--tag TEXT] [--trace] [--measured-from BYTES]\n"
                 "--measured-from: the machine file is what self-calibration measured: as in the\n"
                 "       components without a machine file, the size classes from BYTES\n"
                 "       (coll_kbinomial_self_calibrate_from) plan with it, smaller ones with the\n"
                 "       built-in model\n"
                 "--trace: our engine's every post ('T post US RANK SLOT S|R PEER OFFSET LEN') and\n"
                 "       completion ('T done US RANK SLOT') on stderr, simulated microseconds\n"
                 "ours:  auto, or a registry algorithm (mcast-inspect --list-algorithms) with\n"
                 "       optional forced parameters: NAME[:k=K][:seg=BYTES][:sync=-1|0|1][:lambda=L][:window=W][:ms=N]\n"
                 "       (sync: coll_kbinomial_sync_sends); 'all' = auto and\n"
                 "       every registry algorithm\n"
                 "peers: SMPI bcast__ names; 'all' = every one this program knows\n"
                 "sizes: bytes, K/M suffixes (KiB/MiB)\n");
}

static bool parse_args(int argc, char **argv, Options &o)
{
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        auto next = [&](void) -> std::string {
            if (i + 1 >= argc) {
                usage();
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--sizes") {
            o.sizes.clear();
            for (auto &s : split(next(), ',')) {
                size_t v;
                if (!parse_size(s, &v)) {
                    std::fprintf(stderr, "bad size '%s'\n", s.c_str());
                    return false;
                }
                o.sizes.push_back(v);
            }
        } else if (a == "--ours") {
            const std::string v = next();
            o.ours = (v == "none") ? std::vector<std::string>{} : split(v, ',');
        } else if (a == "--peers") {
            const std::string v = next();
            o.peers = (v == "none") ? std::vector<std::string>{} : split(v, ',');
        } else if (a == "--no-reordered-peers") {
            o.peers_reordered = false;
        } else if (a == "--machine") {
            o.machine = next();
            if (o.machine == "none") { /* the built-in model: no machine file */
                o.machine.clear();
            }
        } else if (a == "--measured-from") {
            if (!parse_size(next(), &o.measured_from)) {
                usage();
                std::exit(2);
            }
        } else if (a == "--topology") {
            o.topology = next();
        } else if (a == "--root") {
            o.root = std::atoi(next().c_str());
        } else if (a == "--trace") {
            o.trace = true;
        } else if (a == "--check-budget-mb") {
            o.check_budget_mb = size_t(std::atol(next().c_str()));
        } else if (a == "--tag") {
            o.tag = next();
        } else {
            usage();
            return false;
        }
    }
    return true;
}

/* ---- what the components know about this platform (every rank computes the same) ---- */
struct Platform {
    int n = 0, root = 0;
    std::vector<std::string> hosts;   /* per rank */
    std::vector<int> node_of;         /* host index by first appearance in rank order */
    int nnodes = 0;
    bool all_local = false;
    std::vector<int> chain;           /* coll/kbinomial's chain for the root */
    std::string ordering = "identity";
    std::vector<int> chain0;          /* ... and for root 0 (the class decisions) */
    bool torus = false;               /* coll/pathmc applies */
    pm_torus_shape_t shape{};
    std::vector<int> coords;          /* [n * ndims] */
    pm_topology_t *topo = nullptr;    /* the topology file (naming every host), or NULL */
    pm_topology_t *graph = nullptr;   /* coll/pathmc's switch network (pathlg), or NULL */
    std::vector<const char *> host_ptrs;
    mcast_machine_t machine{};
    mcast_machine_t builtin{};        /* the built-in model (--measured-from) */
    size_t measured_from = 0;         /* --measured-from */
};

static bool load_platform(const Options &o, int rank, int n, Platform &P, std::string &err)
{
    P.n = n;
    P.root = o.root;
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    MPI_Get_processor_name(name, &len);
    std::vector<char> all(size_t(n) * MPI_MAX_PROCESSOR_NAME);
    /* Gather + Bcast, not MPI_Allgather: SMPI's default allgather posts p - 1 requests on
     * every rank and its kernel removes each finished one from a list of them, O(p^3) in
     * all; at 1024 ranks that alone took longer than 10 minutes (p^2 at one rank here). */
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
               MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Bcast(all.data(), n * MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    P.hosts.resize(size_t(n));
    P.node_of.assign(size_t(n), -1);
    P.nnodes = 0;
    std::map<std::string, int> node_of_host;
    for (int r = 0; r < n; r++) {
        P.hosts[size_t(r)] = &all[size_t(r) * MPI_MAX_PROCESSOR_NAME];
        auto ins = node_of_host.emplace(P.hosts[size_t(r)], P.nnodes);
        if (ins.second) {
            P.nnodes++;
        }
        P.node_of[size_t(r)] = ins.first->second;
    }
    P.all_local = P.nnodes == 1;
    char ebuf[512] = "";
    mcast_machine_default(&P.machine);
    mcast_machine_default(&P.builtin);
    P.measured_from = o.measured_from;
    if (!o.machine.empty() && mcast_machine_load(o.machine.c_str(), &P.machine, ebuf, sizeof ebuf) != KB_OK) {
        err = std::string("machine file: ") + ebuf;
        return false;
    }
    /* kbinomial's chain: the topology's contention-free order relative to the root (as
     * mcast_locality_discover + mcast_locality_chain), else node-major / rank order */
    P.chain.resize(size_t(n));
    P.chain0.resize(size_t(n));
    for (int i = 0; i < n; i++) {
        P.chain[size_t(i)] = (o.root + i) % n;
        P.chain0[size_t(i)] = i;
    }
    P.host_ptrs.resize(size_t(n));
    for (int r = 0; r < n; r++) {
        P.host_ptrs[size_t(r)] = P.hosts[size_t(r)].c_str();
    }
    if (!o.topology.empty()) {
        pm_topology_t *topo = nullptr;
        if (pm_topology_load(o.topology.c_str(), &topo, ebuf, sizeof ebuf) != PM_OK) {
            err = std::string("topology: ") + ebuf;
            return false;
        }
        std::vector<const char *> hp(static_cast<size_t>(n));
        for (int r = 0; r < n; r++) {
            hp[size_t(r)] = P.hosts[size_t(r)].c_str();
        }
        if (pm_order_hosts(topo, PM_ORDER_AUTO, n, hp.data(), o.root, P.chain.data(), ebuf,
                           sizeof ebuf) != PM_OK ||
            pm_order_hosts(topo, PM_ORDER_AUTO, n, hp.data(), 0, P.chain0.data(), ebuf,
                           sizeof ebuf) != PM_OK) {
            pm_topology_free(topo);
            err = std::string("pm_order_hosts: ") + ebuf;
            return false;
        }
        P.ordering = pm_order_name(pm_order_auto(topo));
        /* coll/pathmc: a torus topology file naming every rank's host */
        int nd = 0, wrap = 0, bidir = 0;
        if (pm_topology_kind(topo) == PM_TOPO_TORUS &&
            pm_topology_torus_shape(topo, &nd, P.shape.dims, PM_MAX_DIMS, &wrap, &bidir) == PM_OK) {
            P.shape.ndims = nd;
            P.shape.wrap = wrap;
            P.shape.bidir = bidir;
            P.coords.resize(size_t(n) * size_t(nd));
            P.torus = true;
            for (int r = 0; r < n && P.torus; r++) {
                P.torus = pm_topology_host_coords(topo, hp[size_t(r)], &P.coords[size_t(r) * size_t(nd)],
                                                  nd) == PM_OK;
            }
        }
        /* coll/pathmc: a switch graph naming every rank's host (file_switch_net) */
        bool graph = pm_topology_kind(topo) == PM_TOPO_GRAPH;
        for (int r = 0; r < n && graph; r++) {
            bool found = false;
            for (int h = 0; h < pm_topology_nhosts(topo) && !found; h++) {
                found = P.hosts[size_t(r)] == pm_topology_host_name(topo, h);
            }
            graph = found;
        }
        if (graph) {
            P.graph = topo;
        }
        P.topo = topo; /* kept for the whole run */
    } else if (P.nnodes > 1 && P.nnodes < n) {
        int pos = 0;
        for (int nd = 0; nd < P.nnodes; nd++) {
            for (int r = 0; r < n; r++) {
                if (P.node_of[size_t(r)] == nd) {
                    P.chain[size_t(pos++)] = r;
                }
            }
        }
        P.chain0 = P.chain;
        std::rotate(P.chain.begin(), std::find(P.chain.begin(), P.chain.end(), o.root), P.chain.end());
        P.ordering = "node-major";
    }
    (void) rank;
    return true;
}

/* ---- our contenders: plans from the planner ---- */
struct OursSpec {
    std::string label;  /* ours-auto, ours-chain, ours-kbinomial:k=2:seg=8192 */
    int algorithm = MCAST_ALG_AUTO;
    int k = 0;
    size_t seg = 0;
    int sync = -1; /* mcast_forced_t.sync_sends */
    double lambda = 0.0; /* mcast_forced_t.lambda (postal), 0 = the model's */
    int window = 0;      /* mcast_forced_t.window, 0 = the default */
    int max_sends = -2;  /* mcast_forced_t.max_sends, -2 = the default */
};

static bool parse_ours(const std::string &s, OursSpec &sp, std::string &err)
{
    const std::vector<std::string> parts = split(s, ':');
    if (parts.empty()) {
        err = "empty contender";
        return false;
    }
    sp.label = "ours-" + s;
    sp.algorithm = mcast_registry_lookup(parts[0].c_str());
    if (sp.algorithm < 0) {
        err = "unknown algorithm '" + parts[0] + "' (mcast-inspect --list-algorithms)";
        return false;
    }
    for (size_t i = 1; i < parts.size(); i++) {
        if (parts[i].rfind("k=", 0) == 0) {
            sp.k = std::atoi(parts[i].c_str() + 2);
        } else if (parts[i].rfind("seg=", 0) == 0) {
            if (!parse_size(parts[i].substr(4), &sp.seg)) {
                err = "bad segment in '" + s + "'";
                return false;
            }
        } else if (parts[i].rfind("sync=", 0) == 0) {
            sp.sync = std::atoi(parts[i].c_str() + 5);
        } else if (parts[i].rfind("window=", 0) == 0) {
            sp.window = std::atoi(parts[i].c_str() + 7);
            if (sp.window < 1) {
                err = "window must be >= 1 in '" + s + "'";
                return false;
            }
        } else if (parts[i].rfind("ms=", 0) == 0) {
            sp.max_sends = std::atoi(parts[i].c_str() + 3);
            if (sp.max_sends < -1) {
                err = "ms must be >= -1 in '" + s + "'";
                return false;
            }
        } else if (parts[i].rfind("lambda=", 0) == 0) {
            sp.lambda = std::atof(parts[i].c_str() + 7);
            if (!(sp.lambda >= 1.0)) {
                err = "lambda must be >= 1 in '" + s + "'";
                return false;
            }
        } else {
            err = "unknown parameter '" + parts[i] + "' in '" + s +
                  "' (k=K, seg=BYTES, sync=-1|0|1, lambda=L, window=W, ms=N)";
            return false;
        }
    }
    return true;
}

struct PlanDeleter {
    void operator()(mcast_plan_t *p) const { mcast_plan_free(p); }
};
using PlanPtr = std::shared_ptr<mcast_plan_t>;

struct Chosen {
    PlanPtr plan;
    std::string component; /* who runs it: kbinomial or pathmc */
    std::string error;     /* why it does not apply */
    bool previous = false; /* the module below runs it (plan = our plan it was compared to) */
    double model_us = -1;  /* the model's prediction of what runs, at the exact size */
};

/* The components' inputs on the platform for `root` (mcast_input_fn_t): at the size class
 * of `bytes`, or at `bytes` itself (exact: the model's prediction for the call). */
struct SimInput {
    const Platform *P;
    int component;
    const mcast_forced_t *forced;
    bool exact;
};

static int sim_input(void *ctx, int root, size_t bytes, mcast_plan_input_t *in, mcast_forced_t *f)
{
    const SimInput *c = static_cast<const SimInput *>(ctx);
    const Platform &P = *c->P;
    const int component = c->component;
    const bool exact = c->exact;
    *f = *c->forced;
    std::memset(in, 0, sizeof *in);
    in->component = component;
    in->n = P.n;
    in->root = root;
    in->bytes = exact ? bytes : mcast_class_bytes(mcast_size_class(bytes));
    in->exact_bytes = exact ? 1 : 0;
    in->selected_by = nullptr;
    in->topology = P.topo;
    in->hosts = P.topo != nullptr ? P.host_ptrs.data() : nullptr;
    in->node_of_rank = P.node_of.data();
    in->all_local = P.all_local ? 1 : 0;
    in->nnodes = P.nnodes;
    /* --measured-from: the model mcast_module_machine_input (mcast_module.c) gives both
     * components across nodes without a machine file once the probe has run; the class's
     * bytes decide, as there */
    const bool measured = P.measured_from == 0 ||
                          mcast_class_bytes(mcast_size_class(bytes)) >= P.measured_from;
    in->machine = measured ? &P.machine : &P.builtin;
    in->forced = f;
    in->rules = nullptr;
    /* both components' discovery orders the hosts by the topology file */
    in->chain = root == P.root ? P.chain.data() : P.chain0.data();
    if (component == MCAST_COMP_PATHMC) {
        in->torus = P.torus ? &P.shape : nullptr;
        in->torus_coords = P.torus ? P.coords.data() : nullptr;
        in->switch_net = P.torus ? nullptr : P.graph;
    }
    return KB_OK;
}

static double predicted(mcast_plan_t *p, bool previous)
{
    mcast_plan_info_t ei;
    double us = -1;
    if (p != nullptr && mcast_plan_get_info(p, &ei) == KB_OK) {
        us = previous ? ei.previous_us : ei.predicted_us;
    }
    mcast_plan_free(p);
    return us;
}

/* The component's decision (mcast_decide_class, then mcast_plan_on_root), and the model's
 * prediction at the exact size of what runs. */
static Chosen select_one(const Platform &P, int component, const mcast_forced_t &f, size_t bytes)
{
    Chosen c;
    c.component = component == MCAST_COMP_KBINOMIAL ? "kbinomial" : "pathmc";
    const SimInput cls{&P, component, &f, false}, ex{&P, component, &f, true};
    mcast_class_choice_t choice;
    mcast_plan_t *p = nullptr;
    char ebuf[512] = "";
    if (mcast_decide_class(sim_input, const_cast<SimInput *>(&cls), bytes, &choice, &p, ebuf,
                           sizeof ebuf) != KB_OK) {
        c.error = ebuf[0] ? ebuf : "planner error";
        return c;
    }
    if (choice.defer) {
        c.plan = PlanPtr(p, PlanDeleter());
        c.previous = true;
        mcast_plan_input_t in;
        mcast_forced_t g;
        sim_input(const_cast<SimInput *>(&ex), 0, bytes, &in, &g);
        mcast_plan_t *e = nullptr;
        if (mcast_plan_select(&in, &e, ebuf, sizeof ebuf) == KB_OK) {
            c.model_us = predicted(e, true);
        }
        return c;
    }
    mcast_plan_free(p);
    p = nullptr;
    if (mcast_plan_on_root(&choice, sim_input, const_cast<SimInput *>(&cls), P.root, bytes, &p,
                           ebuf, sizeof ebuf) != KB_OK) {
        c.error = ebuf[0] ? ebuf : "planner error";
        return c;
    }
    c.plan = PlanPtr(p, PlanDeleter());
    mcast_plan_t *e = nullptr;
    if (mcast_plan_on_root(&choice, sim_input, const_cast<SimInput *>(&ex), P.root, bytes, &e,
                           ebuf, sizeof ebuf) == KB_OK) {
        c.model_us = predicted(e, false);
    }
    return c;
}

/* The plan the components run for this contender and size. */
static Chosen choose(const Platform &P, const OursSpec &sp, size_t bytes)
{
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.algorithm = sp.algorithm;
    f.k = sp.k;
    f.segment_bytes = sp.seg;
    f.sync_sends = sp.sync;
    f.lambda = sp.lambda;
    if (sp.window > 0) {
        f.window = sp.window;
    }
    if (sp.max_sends >= -1) {
        f.max_sends = sp.max_sends;
    }
    if (sp.algorithm == MCAST_ALG_AUTO) {
        if (P.torus || P.graph != nullptr) {
            Chosen c = select_one(P, MCAST_COMP_PATHMC, f, bytes);
            mcast_plan_info_t info;
            if (c.plan && mcast_plan_get_info(c.plan.get(), &info) == KB_OK && !info.defer) {
                return c;
            }
            /* deferred, or no plan (the glue passes the call on under auto) */
        }
        return select_one(P, MCAST_COMP_KBINOMIAL, f, bytes);
    }
    const mcast_alg_info_t *a = mcast_registry_get(sp.algorithm);
    if ((a->component & MCAST_COMP_KBINOMIAL) != 0) {
        return select_one(P, MCAST_COMP_KBINOMIAL, f, bytes);
    }
    if (!P.torus && P.graph == nullptr && sp.algorithm != MCAST_ALG_MCAST) {
        Chosen c;
        c.error = "no torus or switch network on this platform";
        return c;
    }
    return select_one(P, MCAST_COMP_PATHMC, f, bytes);
}

/* Every rank asks for the same plans with the same inputs; the simulator (one process,
 * run with smpi/privatization:0) computes each once and shares it. */
static Chosen cached_choose(const Platform &P, const OursSpec &sp, size_t bytes)
{
    static std::map<std::pair<std::string, size_t>, Chosen> cache;
    const auto key = std::make_pair(sp.label, bytes);
    auto it = cache.find(key);
    if (it == cache.end()) {
        it = cache.emplace(key, choose(P, sp, bytes)).first;
    }
    return it->second;
}

/* ---- the transport: the engine over SMPI's MPI ---- */
struct Xport {
    MPI_Comm comm = MPI_COMM_NULL;
    char *base = nullptr;
    int tag = 0, tag_last = 0;
    std::vector<MPI_Request> req; /* one per slot */
    std::vector<int> expect;      /* receive slots: expected length */

    static int post(void *ctx, int slot, mcast_op_kind_t kind, int peer, size_t off, size_t len,
                    unsigned flags)
    {
        Xport *x = static_cast<Xport *>(ctx);
        const int tag = (flags & MCAST_XF_LAST) ? x->tag_last : x->tag;
        if (len > size_t(INT_MAX)) {
            return MPI_ERR_COUNT;
        }
        /* (SMPI charges smpi/ois to MPI_Issend as to MPI_Isend: measured, 3.32,
         * evidence E-SYNC-1) */
        const int rc = kind == MCAST_OP_SEND
                           ? ((flags & MCAST_XF_SYNC) ? MPI_Issend : MPI_Isend)(
                                 x->base + off, int(len), MPI_BYTE, peer, tag, x->comm, &x->req[size_t(slot)])
                           : MPI_Irecv(x->base + off, int(len), MPI_BYTE, peer, tag, x->comm, &x->req[size_t(slot)]);
        x->expect[size_t(slot)] = kind == MCAST_OP_RECV ? int(len) : -1;
        if (g_trace) {
            int me = 0;
            MPI_Comm_rank(x->comm, &me);
            std::fprintf(stderr, "T post %.3f %d %d %c %d %zu %zu\n", MPI_Wtime() * 1e6, me, slot,
                         kind == MCAST_OP_SEND ? 'S' : 'R', peer, off, len);
        }
        return rc == MPI_SUCCESS ? 0 : rc;
    }
};

/* One broadcast of `bytes` at `buf` by the engine on this rank's schedule. */
static int run_engine(mcast_engine_t *eng, const mcast_sched_t *sched, const mcast_engine_params_t &ep,
                      char *buf, MPI_Comm comm, int call)
{
    Xport x;
    x.comm = comm;
    x.base = buf;
    /* two tags per broadcast, the same on every rank (the glue reserves them alike) */
    x.tag = 30000 - 2 * (call % 10000);
    x.tag_last = x.tag - 1;
    const int nslots = ep.window + ep.max_sends;
    x.req.assign(size_t(nslots), MPI_REQUEST_NULL);
    x.expect.assign(size_t(nslots), -1);
    const mcast_xport_t xp{&x, Xport::post};
    if (mcast_engine_start(eng, sched, &ep, &xp) != KB_OK) {
        return MPI_ERR_INTERN;
    }
    /* MPI_Waitany returns the lowest completed index: with a backlog of arrived eager
     * messages two slots that keep completing would starve the others (a chain in 4 KiB
     * blocks: 28533 us, 1122 after).  The glue's poll_slots() takes every completed slot in
     * one sweep; the same here by waiting on the slots rotated to start after the last
     * one taken (no MPI_Test: SMPI charges smpi/test to each). */
    std::vector<MPI_Request> rot(static_cast<size_t>(nslots));
    int next = 0;
    while (!mcast_engine_done(eng)) {
        for (int j = 0; j < nslots; j++) {
            rot[size_t(j)] = x.req[size_t((next + j) % nslots)];
        }
        int ridx = MPI_UNDEFINED;
        MPI_Status st;
        MPI_Waitany(nslots, rot.data(), &ridx, &st);
        if (ridx == MPI_UNDEFINED) {
            return MPI_ERR_INTERN; /* nothing posted and not done: an engine bug */
        }
        const int idx = (next + ridx) % nslots;
        x.req[size_t(idx)] = rot[size_t(ridx)]; /* MPI_REQUEST_NULL now */
        next = (idx + 1) % nslots;
        int status = 0;
        if (x.expect[size_t(idx)] >= 0) {
            int got = -1;
            MPI_Get_count(&st, MPI_BYTE, &got);
            if (st.MPI_ERROR != MPI_SUCCESS && st.MPI_ERROR != 0) {
                status = st.MPI_ERROR;
            } else if (got != x.expect[size_t(idx)]) {
                status = MPI_ERR_TRUNCATE;
            }
        }
        if (g_trace) {
            int me = 0;
            MPI_Comm_rank(comm, &me);
            std::fprintf(stderr, "T done %.3f %d %d\n", MPI_Wtime() * 1e6, me, idx);
        }
        mcast_engine_complete(eng, idx, status);
    }
    return mcast_engine_status(eng);
}

/* ---- timing harness ---- */
static double synchronized_start(MPI_Comm comm)
{
    MPI_Barrier(comm);
    double now = MPI_Wtime(), tmax = 0;
    MPI_Allreduce(&now, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
    const double T = tmax + 0.01; /* 10 ms of simulated time after the slowest rank */
    const double wait = T - MPI_Wtime();
    if (wait <= 0) {
        std::fprintf(stderr, "synchronized_start: rank late by %g s\n", -wait);
        MPI_Abort(comm, 3);
    }
    struct timespec ts;
    ts.tv_sec = time_t(wait);
    ts.tv_nsec = long((wait - double(ts.tv_sec)) * 1e9);
    smpi_nanosleep(&ts, nullptr);
    return MPI_Wtime();
}

static unsigned char pattern(size_t i, size_t bytes)
{
    return (unsigned char) ((i * 131 + bytes * 7 + 17) & 0xff);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, n = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    Options o;
    if (!parse_args(argc, argv, o)) {
        MPI_Finalize();
        return 2;
    }
    g_trace = o.trace;
    Platform P;
    std::string err;
    if (o.root < 0 || o.root >= n) {
        err = "root out of range";
    }
    if (err.empty() && !load_platform(o, rank, n, P, err)) {
        /* err set */
    }
    if (!err.empty()) {
        if (rank == 0) {
            std::fprintf(stderr, "sim_bcast: %s\n", err.c_str());
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    /* contenders */
    std::vector<OursSpec> ours;
    for (const std::string &s : o.ours) {
        if (s.size() > 1 && s[0] == '-') { /* "-NAME": drop ours-NAME added so far ("all,-chain") */
            const std::string drop = "ours-" + s.substr(1);
            ours.erase(std::remove_if(ours.begin(), ours.end(),
                                      [&](const OursSpec &x) { return x.label == drop; }),
                       ours.end());
            continue;
        }
        if (s == "all") {
            for (int id = 0; id < mcast_registry_count(); id++) {
                OursSpec sp;
                sp.algorithm = id;
                sp.label = std::string("ours-") + mcast_registry_get(id)->name;
                ours.push_back(sp);
            }
            continue;
        }
        OursSpec sp;
        if (!parse_ours(s, sp, err)) {
            if (rank == 0) {
                std::fprintf(stderr, "sim_bcast: %s\n", err.c_str());
            }
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        ours.push_back(sp);
    }
    std::vector<std::string> peers;
    for (const std::string &s : o.peers) {
        if (s == "all") {
            for (const auto &kv : smpi_peers()) {
                peers.push_back(kv.first);
            }
        } else if (smpi_peers().count(s) != 0) {
            peers.push_back(s);
        } else {
            if (rank == 0) {
                std::fprintf(stderr, "sim_bcast: unknown SMPI bcast '%s'\n", s.c_str());
            }
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }

    bool reordered = false;
    for (int i = 0; i < n; i++) {
        reordered = reordered || P.chain[size_t(i)] != (o.root + i) % n;
    }
    MPI_Comm ours_comm, peer_comm, peer_chain_comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &ours_comm);
    MPI_Comm_dup(MPI_COMM_WORLD, &peer_comm);
    if (reordered && o.peers_reordered) {
        const int key = int(std::find(P.chain.begin(), P.chain.end(), rank) - P.chain.begin());
        MPI_Comm_split(MPI_COMM_WORLD, 0, key, &peer_chain_comm);
    }

    size_t maxbytes = 1;
    for (size_t s : o.sizes) {
        maxbytes = std::max(maxbytes, s);
    }
    char *shared = static_cast<char *>(SMPI_SHARED_MALLOC(maxbytes));
    mcast_engine_t *eng = mcast_engine_create();

    if (rank == 0) {
        std::printf("# sim_bcast ranks=%d nodes=%d root=%d ordering=%s torus=%s machine=%s%s %s\n", n,
                    P.nnodes, o.root, P.ordering.c_str(), P.torus ? "yes" : "no",
                    P.machine.source,
                    P.measured_from > 0 ? " (from --measured-from, else the built-in model)" : "",
                    o.tag.c_str());
        const mcast_loggp_t &g = P.machine.net;
        std::printf("# machine net: o_send_us=%g o_recv_us=%g latency_us=%g gap_ns_per_byte=%g "
                    "wire_ns_per_byte=%g recv_ns_per_byte=%g eager_bytes=%zu shared_flows=%d\n",
                    g.o_send_us, g.o_recv_us, g.latency_us, g.gap_ns_per_byte, g.wire_ns_per_byte,
                    g.recv_ns_per_byte, g.eager_bytes, g.shared_flows);
        std::printf("size_bytes,contender,time_us,model_us,predicted_us,check,plan\n");
        std::fflush(stdout);
    }

    struct Contender {
        std::string label;
        int ours = -1;         /* index into `ours`, or -1 for a peer */
        std::string peer;
        MPI_Comm comm = MPI_COMM_NULL;
    };
    std::vector<Contender> list;
    for (size_t i = 0; i < ours.size(); i++) {
        list.push_back({ours[i].label, int(i), "", ours_comm});
    }
    for (const std::string &p : peers) {
        list.push_back({"smpi-" + p, -1, p, peer_comm});
        if (peer_chain_comm != MPI_COMM_NULL) {
            list.push_back({"smpi-" + p + "@" + P.ordering, -1, p, peer_chain_comm});
        }
    }

    int failures = 0, call = 0;
    const size_t budget = o.check_budget_mb << 20;
    for (size_t bytes : o.sizes) {
        for (const Contender &c : list) {
            Chosen ch;
            mcast_sched_t *sched = nullptr;
            mcast_engine_params_t ep{};
            double model_us = -1, predicted_us = -1;
            std::string plan = "smpi builtin";
            bool previous = false;
            if (c.ours >= 0) {
                ch = cached_choose(P, ours[size_t(c.ours)], bytes);
                if (!ch.plan) {
                    if (rank == 0) {
                        std::printf("# skip %s at %zu: %s\n", c.label.c_str(), bytes, ch.error.c_str());
                        std::fflush(stdout);
                    }
                    continue;
                }
                mcast_plan_info_t info;
                mcast_plan_get_info(ch.plan.get(), &info);
                previous = ch.previous;
            }
            if (previous) {
                mcast_plan_info_t info;
                mcast_plan_get_info(ch.plan.get(), &info);
                char d[512] = "";
                mcast_plan_describe(ch.plan.get(), d, sizeof d);
                predicted_us = info.previous_us;
                model_us = ch.model_us;
                plan = std::string("algorithm=previous (the module below: smpi-ompi; Open MPI's "
                                   "modelled choice ") + info.previous + ") our plan would be " +
                       info.name + " " + d;
            } else if (c.ours >= 0) {
                mcast_plan_info_t info;
                mcast_plan_get_info(ch.plan.get(), &info);
                if (mcast_plan_schedule(ch.plan.get(), rank, bytes, &sched) != KB_OK ||
                    mcast_plan_engine_params(ch.plan.get(), rank, bytes, &ep) != KB_OK) {
                    std::fprintf(stderr, "rank %d: no schedule for %s\n", rank, c.label.c_str());
                    MPI_Abort(MPI_COMM_WORLD, 3);
                }
                size_t B = 0;
                uint32_t m = 0;
                mcast_plan_blocks(ch.plan.get(), bytes, &B, &m);
                model_us = ch.model_us;
                predicted_us = info.predicted_us;
                char d[512] = "";
                mcast_plan_describe(ch.plan.get(), d, sizeof d);
                plan = std::string("algorithm=") + info.name + " " + d + " component=" + ch.component +
                       " ordering=" + (ch.component == "kbinomial" ? P.ordering : "identity") +
                       " blocks=" + std::to_string(m);
            }
            auto run_once = [&](char *buf) -> int {
                if (previous) {
                    return smpi_peers().at("ompi")(buf, int(bytes), MPI_BYTE, o.root, peer_comm);
                }
                if (c.ours >= 0) {
                    return run_engine(eng, sched, ep, buf, c.comm, call++);
                }
                const int r = c.comm == peer_comm ? o.root : 0; /* the chain starts at the root */
                return smpi_peers().at(c.peer)(buf, int(bytes), MPI_BYTE, r, c.comm);
            };
            /* checked run (doubles as the warm-up), or an unchecked warm-up */
            std::string check = "unchecked";
            if (size_t(n) * bytes <= budget) {
                char *priv = static_cast<char *>(std::malloc(std::max<size_t>(bytes, 1)));
                for (size_t i = 0; i < bytes; i++) {
                    priv[i] = rank == o.root ? char(pattern(i, bytes)) : 0;
                }
                synchronized_start(MPI_COMM_WORLD);
                int bad = run_once(priv) != MPI_SUCCESS ? 1 : 0;
                for (size_t i = 0; i < bytes && !bad; i++) {
                    bad = (unsigned char) priv[i] != pattern(i, bytes);
                }
                std::free(priv);
                int nbad = 0;
                MPI_Allreduce(&bad, &nbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
                check = nbad == 0 ? "ok" : "FAIL:" + std::to_string(nbad);
                failures += nbad != 0;
            } else {
                synchronized_start(MPI_COMM_WORLD);
                run_once(shared);
            }
            const double T = synchronized_start(MPI_COMM_WORLD);
            const int rc = run_once(shared);
            double dt = MPI_Wtime() - T, mx = 0;
            MPI_Reduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            int bad = rc != MPI_SUCCESS, nbad = 0;
            MPI_Reduce(&bad, &nbad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
            if (rank == 0) {
                if (nbad != 0) {
                    check = "FAIL:" + std::to_string(nbad) + "-errors";
                    failures++;
                }
                auto num = [](double v) { return v < 0 ? std::string() : std::to_string(v); };
                std::printf("%zu,%s,%.3f,%s,%s,%s,%s\n", bytes, c.label.c_str(), mx * 1e6,
                            num(model_us).c_str(), num(predicted_us).c_str(), check.c_str(), plan.c_str());
                std::fflush(stdout);
            }
            mcast_sched_free(sched);
        }
    }
    if (rank == 0) {
        std::printf("# failures: %d\n", failures);
    }
    mcast_engine_destroy(eng);
    SMPI_SHARED_FREE(shared);
    if (peer_chain_comm != MPI_COMM_NULL) {
        MPI_Comm_free(&peer_chain_comm);
    }
    MPI_Comm_free(&ours_comm);
    MPI_Comm_free(&peer_comm);
    MPI_Finalize();
    return failures ? 1 : 0;
}
