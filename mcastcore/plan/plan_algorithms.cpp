/*
 * The algorithms: one descriptor per registry algorithm (ALGS, in registry order) with
 * what the planner needs of it: its name, component and description (the C API's
 * registry row), its kind (a tree on the chain, a torus tree, a schedule family, or its
 * own evaluation), the transport its plans use, whether auto evaluates it, where it
 * applies, how its candidates are evaluated and how its tree is built.  select() loops
 * over these; adding an algorithm is its descriptor, its evaluation and its test.
 * (Models: han's coll_han_algorithms.h, MPICH's coll_algorithms.txt.)
 */
#include "plan/plan_evaluator.hpp"

#include <cstring>

namespace mcplan {

namespace {

constexpr unsigned KB = MCAST_COMP_KBINOMIAL;
constexpr unsigned PM = MCAST_COMP_PATHMC;

/* ---- where an algorithm applies (beyond its component) -------------------- */
bool on_torus(const mcast_plan_input_t &in) { return in.torus != nullptr; }

bool nodes_of_several(const mcast_plan_input_t &in)
{
    return in.node_of_rank != nullptr && !in.all_local && in.nnodes > 1 && in.nnodes < in.n;
}

bool on_switch_net(const mcast_plan_input_t &in) { return in.switch_net != nullptr && in.hosts != nullptr; }

/* under auto: across nodes only (one node: shared memory) */
bool with_group(const mcast_plan_input_t &in)
{
    return in.mcast_transport != MCAST_TRANSPORT_NONE && !in.all_local && in.nnodes > 1;
}

bool one_node_segment(const mcast_plan_input_t &in)
{
    return in.all_local != 0 && in.n >= 2 && in.shm_slot_bytes > 0 && in.shm_slots >= 2;
}

/* ---- trees ------------------------------------------------------------------ */
/* twolevel: a k-binomial tree over the node leaders (the first rank of each node along
 * the chain); a leader's children are the other leaders of its inter-node subtree first,
 * then its node's tree (a chain, a binomial or a flat tree: c.intra). */
TreePtr twolevel_tree(const mcast_plan_input_t &in, const std::vector<int> &chain, const Candidate &c)
{
    kb_tree_t *t = nullptr;
    require(in.node_of_rank != nullptr, "twolevel needs the ranks' nodes");
    std::vector<int> leaders;
    std::vector<std::vector<int>> members; /* per node, chain order */
    std::vector<int> seen;
    for (int r : chain) {
        const int nd = in.node_of_rank[r];
        auto it = std::find(seen.begin(), seen.end(), nd);
        size_t idx;
        if (it == seen.end()) {
            seen.push_back(nd);
            members.emplace_back();
            leaders.push_back(r);
            idx = seen.size() - 1;
        } else {
            idx = size_t(it - seen.begin());
        }
        members[idx].push_back(r);
    }
    const int nn = int(leaders.size());
    kb_tree_t *inter = nullptr;
    kb_tree_params_t ip = {std::max(1, c.k), 1.0};
    if (kb_tree_build(KB_SHAPE_KBINOMIAL, nn, 0, nullptr, &ip, &inter) != KB_OK) {
        throw PlanError("twolevel: inter-node tree");
    }
    TreePtr inter_owner(inter);
    std::vector<std::vector<int>> kids(size_t(in.n));
    for (int v = 0; v < nn; ++v) {
        for (int i = inter->child_off[v]; i < inter->child_off[v + 1]; ++i) {
            kids[size_t(leaders[size_t(v)])].push_back(leaders[size_t(inter->children[i])]);
        }
    }
    for (const auto &mem : members) {
        const int nm = int(mem.size());
        if (nm < 2) {
            continue;
        }
        kb_tree_t *loc = nullptr;
        kb_tree_params_t lp = {std::max(1, kb_ceil_log2(nm)), 1.0};
        const kb_shape_t sh = c.intra == 0 ? KB_SHAPE_CHAIN
                                           : (c.intra == 1 ? KB_SHAPE_BINOMIAL : KB_SHAPE_LINEAR);
        if (kb_tree_build(sh, nm, 0, nullptr, &lp, &loc) != KB_OK) {
            throw PlanError("twolevel: node tree");
        }
        TreePtr loc_owner(loc);
        for (int v = 0; v < nm; ++v) {
            for (int i = loc->child_off[v]; i < loc->child_off[v + 1]; ++i) {
                kids[size_t(mem[size_t(v)])].push_back(mem[size_t(loc->children[i])]);
            }
        }
    }
    /* CSR */
    t = static_cast<kb_tree_t *>(std::calloc(1, sizeof(kb_tree_t)));
    if (t == nullptr) {
        throw std::bad_alloc();
    }
    TreePtr out(t);
    t->n = in.n;
    t->root = in.root;
    t->parent = static_cast<int *>(std::malloc(sizeof(int) * size_t(in.n)));
    t->child_off = static_cast<int *>(std::malloc(sizeof(int) * size_t(in.n + 1)));
    t->children = in.n > 1 ? static_cast<int *>(std::malloc(sizeof(int) * size_t(in.n - 1))) : nullptr;
    if (t->parent == nullptr || t->child_off == nullptr || (in.n > 1 && t->children == nullptr)) {
        throw std::bad_alloc();
    }
    for (int v = 0; v < in.n; ++v) {
        t->parent[v] = KB_NO_PEER;
    }
    int off = 0;
    for (int v = 0; v < in.n; ++v) {
        t->child_off[v] = off;
        for (int ch : kids[size_t(v)]) {
            t->children[off++] = ch;
            t->parent[ch] = v;
        }
    }
    t->child_off[in.n] = off;
    require(off == in.n - 1, "twolevel: not a spanning tree");
    /* depth */
    std::vector<int> d(size_t(in.n), 0), q{in.root};
    int depth = 0;
    for (size_t i = 0; i < q.size(); ++i) {
        for (int j = t->child_off[q[i]]; j < t->child_off[q[i] + 1]; ++j) {
            d[size_t(t->children[j])] = d[size_t(q[i])] + 1;
            depth = std::max(depth, d[size_t(t->children[j])]);
            q.push_back(t->children[j]);
        }
    }
    t->depth = depth;
    require(kb_tree_check(t) == KB_OK, "twolevel: invalid tree");
    return out;
}

/* pathlg: the Less-Greedy worms on the irregular switch network, rendered as a tree. */
TreePtr pathlg_tree(const mcast_plan_input_t &in)
{
    kb_tree_t *t = nullptr;
    require(in.switch_net != nullptr && in.hosts != nullptr,
            "pathlg needs an irregular switch network naming every rank's host "
            "(coll_pathmc_topology_file: ibnetdiscover, Slurm topology.conf or native graph)");
    pm_pathlg_params_t pp;
    pm_pathlg_params_default(&pp);
    pp.bytes = std::max<size_t>(in.bytes, 1);
    pm_pathlg_result_t res;
    std::memset(&res, 0, sizeof(res));
    char err[256] = "";
    const int rc = pm_pathlg_render(in.switch_net, in.n, in.hosts, in.root, &pp, &res, err, sizeof(err));
    if (rc == PM_ERR_NOMEM) {
        throw std::bad_alloc();
    }
    require(rc == PM_OK, (std::string("pathlg: ") + err).c_str());
    t = res.tree;
    res.tree = nullptr; /* the plan keeps the tree */
    pm_pathlg_result_free(&res);
    return TreePtr(t);
}


/* A torus tree (Oral & George): the input's torus and every rank's coordinates. */
TreePtr torus_tree(const mcast_plan_input_t &in, const std::vector<int> &, const Candidate &c)
{
    require(in.torus != nullptr && in.torus_coords != nullptr,
            "a torus algorithm needs a torus (Cartesian topology, topology or coordinates file)");
    kb_tree_t *t = nullptr;
    const int rc = pm_torus_build(pm_torus_alg_t(ALGS[c.algorithm].torus), in.torus, in.n,
                                  in.torus_coords, in.root, in.forced->mu_r, &t, nullptr);
    if (rc == PM_ERR_NOMEM) {
        throw std::bad_alloc();
    }
    require(rc == PM_OK, "torus tree does not apply");
    return TreePtr(t);
}

TreePtr pathlg_build(const mcast_plan_input_t &in, const std::vector<int> &, const Candidate &)
{
    return pathlg_tree(in);
}

/* ---- evaluations ------------------------------------------------------------ */
/* every k in lo..hi, or the forced k alone (also above hi), over the segment grid */
void each_k(const Evaluator &ev, int alg, int lo, int hi, Candidate &best)
{
    const mcast_forced_t &f = *ev.in.forced;
    const std::vector<size_t> grid = segment_grid(ev.M, f);
    Candidate c;
    c.algorithm = alg;
    for (int k = lo; k <= hi; ++k) {
        if (f.k == 0 || k == f.k) {
            c.k = k;
            ev.consider_tree(c, grid, best);
        }
    }
    if (f.k > hi) {
        c.k = f.k;
        ev.consider_tree(c, grid, best);
    }
}

/* a forced k above log2 n: the tree is binomial-like */
void eval_kbinomial(const Evaluator &ev, int alg, Candidate &best)
{
    each_k(ev, alg, 1, std::max(1, kb_ceil_log2(ev.in.n)), best);
}

/* radix 2 (binomial) .. 8, or the forced one */
void eval_knomial(const Evaluator &ev, int alg, Candidate &best)
{
    require(ev.in.forced->k != 1, "knomial: the radix k must be at least 2");
    each_k(ev, alg, 2, 8, best);
}

void eval_chain(const Evaluator &ev, int alg, Candidate &best)
{
    Candidate c;
    c.algorithm = alg;
    c.k = 1;
    ev.consider_tree(c, segment_grid(ev.M, *ev.in.forced), best);
}

/* segmented only when segment_bytes is set */
void eval_whole(const Evaluator &ev, int alg, Candidate &best)
{
    Candidate c;
    c.algorithm = alg;
    ev.consider_tree(c, {ev.in.forced->segment_bytes}, best);
}

/* the forced segment, else the grid */
void eval_grid(const Evaluator &ev, int alg, Candidate &best)
{
    const mcast_forced_t &f = *ev.in.forced;
    Candidate c;
    c.algorithm = alg;
    ev.consider_tree(c, f.segment_bytes != 0 ? std::vector<size_t>{f.segment_bytes} : segment_grid(ev.M, f),
                     best);
}

/* lambda from the edge model (postal_lambdas) per segment; whole unless postal_pipelining */
void eval_postal(const Evaluator &ev, int alg, Candidate &best)
{
    const mcast_forced_t &f = *ev.in.forced;
    const std::vector<size_t> g =
        f.postal_pipelining != 0 ? segment_grid(ev.M, f) : std::vector<size_t>{f.segment_bytes};
    Candidate c;
    c.algorithm = alg;
    for (size_t S : g) {
        for (double lam : postal_lambdas(ev.in, f, S == 0 ? ev.M : S)) {
            c.lambda = lam;
            ev.consider_tree(c, {S}, best);
        }
    }
}

/* k-binomial over the leaders with a chain, binomial or flat tree per node; a family
 * between the leaders when k is not forced */
void eval_twolevel(const Evaluator &ev, int alg, Candidate &best)
{
    const mcast_plan_input_t &in = ev.in;
    const mcast_forced_t &f = *in.forced;
    if (!nodes_of_several(in)) {
        require(f.algorithm != MCAST_ALG_TWOLEVEL, "twolevel needs several nodes with several ranks each");
        return;
    }
    const std::vector<size_t> grid = segment_grid(ev.M, f);
    const int kmax = std::max(1, kb_ceil_log2(std::max(2, in.nnodes)));
    Candidate c;
    c.algorithm = alg;
    for (int k = 1; k <= kmax; ++k) {
        if (f.k != 0 && k != f.k) {
            continue;
        }
        for (int intra = 0; intra < 3; ++intra) {
            c.k = k;
            c.intra = intra;
            ev.consider_tree(c, grid, best);
        }
    }
    if (f.k == 0) {
        ev.evaluate_two_level_families(best);
    }
}

void eval_family(const Evaluator &ev, int alg, Candidate &best) { ev.evaluate_family(alg, best); }

/* under auto, not where its n blocks would be larger than a plan allows (evaluate_family
 * says why when forced) */
void eval_scatter_allgather(const Evaluator &ev, int alg, Candidate &best)
{
    if (ev.in.forced->algorithm == MCAST_ALG_AUTO &&
        double(ev.M) * CLASS_ROOM > double(ev.in.n) * double(PLAN_MAX_BLOCK_BYTES)) {
        return;
    }
    ev.evaluate_family(alg, best);
}

void eval_mcast(const Evaluator &ev, int, Candidate &best) { ev.evaluate_mcast(best); }
void eval_edst(const Evaluator &ev, int, Candidate &best) { ev.evaluate_edst(best); }
void eval_shm(const Evaluator &ev, int, Candidate &best) { ev.evaluate_shm(best); }

} // namespace

/* ---- the table ------------------------------------------------------------------
 * {id, name, component, description}, kind, family, torus, shape, transport, auto for,
 * reports k, window under auto, applies, evaluate, build (nullptr with a shape: the
 * chain's tree of that shape; nullptr without: no tree) */
#define ROW(id, name, comp, desc) {id, name, comp, desc}
const AlgDesc ALGS[MCAST_ALG_COUNT] = {
    {ROW(MCAST_ALG_AUTO, "auto", KB | PM,
         "the planner chooses per communicator and size class from the cost model (or the rules)"),
     ALG_AUTO, -1, -1, -1, MCAST_PLAN_PML, 0, false, PLAN_WINDOW, nullptr, nullptr, nullptr},
    {ROW(MCAST_ALG_KBINOMIAL, "kbinomial", KB,
         "pipelined k-binomial tree with FPFS forwarding, optimal k and segment size"),
     ALG_TREE, -1, -1, KB_SHAPE_KBINOMIAL, MCAST_PLAN_PML, KB | PM, true, PLAN_WINDOW, nullptr,
     eval_kbinomial, nullptr},
    {ROW(MCAST_ALG_POSTAL, "postal", KB,
         "postal-model optimal tree for lambda (multi-send), optionally pipelined"),
     ALG_TREE, -1, -1, KB_SHAPE_POSTAL, MCAST_PLAN_PML, KB | PM, false, PLAN_WINDOW, nullptr,
     eval_postal, nullptr},
    {ROW(MCAST_ALG_BINOMIAL, "binomial", KB, "binomial tree"),
     ALG_TREE, -1, -1, KB_SHAPE_BINOMIAL, MCAST_PLAN_PML, 0, false, PLAN_WINDOW, nullptr, eval_whole,
     nullptr},
    {ROW(MCAST_ALG_LINEAR, "linear", KB, "root sends to every rank (separate addressing)"),
     ALG_TREE, -1, -1, KB_SHAPE_LINEAR, MCAST_PLAN_PML, 0, false, PLAN_WINDOW, nullptr, eval_whole,
     nullptr},
    {ROW(MCAST_ALG_CHAIN, "chain", KB, "pipelined chain along the ordering"),
     ALG_TREE, -1, -1, KB_SHAPE_CHAIN, MCAST_PLAN_PML, 0, false, PLAN_WINDOW, nullptr, eval_chain,
     nullptr},
    {ROW(MCAST_ALG_TWOLEVEL, "twolevel", KB,
         "k-binomial tree over node leaders, each node fanned out per block as it arrives"),
     ALG_TREE, -1, -1, -1, MCAST_PLAN_PML, KB | PM, true, PLAN_WINDOW, nodes_of_several,
     eval_twolevel, twolevel_tree},
    {ROW(MCAST_ALG_SCATTER_ALLGATHER, "scatter_allgather", KB,
         "binomial scatter of n blocks, then ring or recursive-doubling allgather (bandwidth)"),
     ALG_FAMILY, MCAST_FAM_SCATTER_ALLGATHER, -1, -1, MCAST_PLAN_PML, KB | PM, false, PLAN_WINDOW,
     nullptr, eval_scatter_allgather, nullptr},
    {ROW(MCAST_ALG_TWOTREE, "twotree", KB,
         "two pipelined binary trees, each rank interior in at most one, half the blocks each"),
     ALG_FAMILY, MCAST_FAM_TWOTREE, -1, -1, MCAST_PLAN_PML, KB | PM, false, PLAN_WINDOW, nullptr,
     eval_family, nullptr},
    /* one receive ahead: evidence E-CIRC-1 (PLAN_WINDOW's comment) */
    {ROW(MCAST_ALG_CIRCULANT, "circulant", KB,
         "round-optimal pipeline on a circulant graph: m - 1 + ceil(log2 n) rounds"),
     ALG_FAMILY, MCAST_FAM_CIRCULANT, -1, -1, MCAST_PLAN_PML, KB | PM, false, 1, nullptr,
     eval_family, nullptr},
    {ROW(MCAST_ALG_SEPARATE, "separate", PM, "torus: separate addressing"),
     ALG_TORUS, -1, PM_TORUS_SEPARATE, -1, MCAST_PLAN_PML, PM, false, PLAN_WINDOW, on_torus, eval_grid,
     torus_tree},
    {ROW(MCAST_ALG_UTORUS, "utorus", PM, "torus: U-torus (binomial on the DOR chain)"),
     ALG_TORUS, -1, PM_TORUS_UTORUS, -1, MCAST_PLAN_PML, PM, false, PLAN_WINDOW, on_torus, eval_grid,
     torus_tree},
    {ROW(MCAST_ALG_STORUS, "storus", PM, "torus: S-torus (Hamiltonian chain)"),
     ALG_TORUS, -1, PM_TORUS_STORUS, -1, MCAST_PLAN_PML, PM, false, PLAN_WINDOW, on_torus, eval_grid,
     torus_tree},
    {ROW(MCAST_ALG_MDTORUS, "mdtorus", PM, "torus: Md-torus (dimensional partitions)"),
     ALG_TORUS, -1, PM_TORUS_MDTORUS, -1, MCAST_PLAN_PML, PM, false, PLAN_WINDOW, on_torus, eval_grid,
     torus_tree},
    {ROW(MCAST_ALG_MUTORUS, "mutorus", PM, "torus: Mu-torus (uniform partitions of length r)"),
     ALG_TORUS, -1, PM_TORUS_MUTORUS, -1, MCAST_PLAN_PML, PM, false, PLAN_WINDOW, on_torus, eval_grid,
     torus_tree},
    {ROW(MCAST_ALG_MCAST, "mcast", PM,
         "hardware multicast (IP or InfiniBand UD) with the reliable protocol; needs "
         "coll_pathmc_mcast_transport"),
     ALG_OWN, -1, -1, -1, MCAST_PLAN_MC_IP, PM, false, PLAN_WINDOW, with_group, eval_mcast, nullptr},
    {ROW(MCAST_ALG_PATHLG, "pathlg", PM,
         "irregular networks: Less-Greedy phases of path-based worms along POCs, each rendered as "
         "a pipelined chain (seed 001); needs coll_pathmc_topology_file"),
     ALG_TREE, -1, -1, -1, MCAST_PLAN_PML, PM, false, PLAN_WINDOW, on_switch_net, eval_grid,
     pathlg_build},
    {ROW(MCAST_ALG_SHM, "shm", KB,
         "one node: the root copies into a shared segment, every other rank copies out (pipelined "
         "chunks)"),
     ALG_OWN, -1, -1, -1, MCAST_PLAN_SHM, KB | PM, false, PLAN_WINDOW, one_node_segment, eval_shm,
     nullptr}, /* (auto for pathmc too: its torus plans on one node lose to it, E-CART-1) */
    {ROW(MCAST_ALG_KNOMIAL, "knomial", KB,
         "k-nomial tree of radix k (k = 2: binomial), every copy of a small message at once, "
         "optionally pipelined"),
     ALG_TREE, -1, -1, KB_SHAPE_KNOMIAL, MCAST_PLAN_PML, KB | PM, true, PLAN_WINDOW, nullptr,
     eval_knomial, nullptr},
    {ROW(MCAST_ALG_EDST, "edst", PM,
         "torus: four arc-disjoint spanning trees (2D torus, a rank on every router), a quarter "
         "of the blocks down each, pipelined"),
     ALG_OWN, -1, -1, -1, MCAST_PLAN_PML, PM, false, PLAN_WINDOW, edst_applies, eval_edst, nullptr},
};
#undef ROW

bool eligible(int alg, const mcast_plan_input_t &in)
{
    const AlgDesc &d = ALGS[alg];
    return alg != MCAST_ALG_AUTO && (d.info.component & in.component) != 0 &&
           (d.applies == nullptr || d.applies(in));
}

bool applies_here(int alg, const mcast_plan_input_t &in)
{
    const AlgDesc &d = ALGS[alg];
    return d.applies == nullptr || d.applies(in);
}

/* Builds the tree of a candidate; throws ArgError when it does not apply. */
TreePtr build_tree(const mcast_plan_input_t &in, const std::vector<int> &chain, const Candidate &c)
{
    const AlgDesc &d = ALGS[c.algorithm];
    if (d.build != nullptr) {
        return d.build(in, chain, c);
    }
    require(d.shape >= 0, "tree does not apply");
    kb_tree_t *t = nullptr;
    kb_tree_params_t tp = {std::max(1, c.k), std::max(1.0, c.lambda)};
    const int rc = kb_tree_build(kb_shape_t(d.shape), in.n, in.root, chain.data(), &tp, &t);
    if (rc == KB_ERR_NOMEM) {
        throw std::bad_alloc();
    }
    require(rc == KB_OK, "tree does not apply");
    return TreePtr(t);
}

bool has_tree(const Candidate &c)
{
    const AlgDesc &d = ALGS[c.algorithm];
    return c.inter < 0 && (d.shape >= 0 || d.build != nullptr);
}

} // namespace mcplan
