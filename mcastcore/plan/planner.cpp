/*
 * The planner's C API.  The registry: plan_algorithms.cpp; the rest, by concern:
 * plan_internal.hpp.
 * (Formulas and selection order: mcast_planner.h.)
 *
 * Candidates under auto, each evaluated with the tree recurrence on this communicator's
 * chain and locality (inside-node edges with the shm model, the rest with the net model):
 *
 *   kbinomial   k = 1 .. ceil(log2 n), segments S from the grid below, FPFS
 *   chain       k = 1 in the registry's own name (the pipelined chain)
 *   postal      lambda(S) = delta(S) / sigma(S) of the edge model and the half-integers
 *               from 1 to 2 lambda(S) (postal_lambdas), S from the grid (whole message
 *               unless postal_pipelining)
 *   linear      separate addressing (whole message, or the grid)
 *   knomial     radix k = 2 .. 8 (MPICH's, MVAPICH's and tuned's k-nomial tree: the
 *               sender's children r^j apart, farthest power first), S from the grid
 *   twolevel    across nodes: k-binomial over node leaders; inside: a chain, a binomial
 *               or a flat tree per node; leaders send to other nodes first
 *   torus       (pathmc, with a torus) separate, U-, S-, Md-, Mu-torus trees
 *   edst        (pathmc, a 2D torus with a rank on every router, across nodes) its four
 *               arc-disjoint trees (pm_torus_edst) under mcast_multitree_predict_us,
 *               S from the grid, sends in flight as forced (auto 1), the links' bound
 *               of the trees' routes with a quarter of the message on each edge
 *   families    scatter_allgather (ring or recursive doubling), twotree, circulant:
 *               their own models (mcast_families.h) for every block count, sends in
 *               flight 1 or 2
 *
 *   segment grid: S = 2^i and 3*2^(i-1) from segment_min_bytes to min(segment_max_bytes,
 *   M), and S = M (one segment)
 *
 * The cheapest prediction wins; ties keep the earlier candidate (registry order, then
 * smaller k, then larger S).
 */
#include "plan/plan_internal.hpp"
#include "sched/mc_core.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#define MC_API extern "C" __attribute__((visibility("default")))


using namespace mcplan;

namespace {

const char *transport_name(mcast_plan_transport_t t)
{
    static const char *const names[] = {"pml", "shm", "pml+shm", "ip", "ib"};
    return (t >= 0 && t < int(sizeof(names) / sizeof(names[0]))) ? names[t] : "?";
}

using kb::guarded;

uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    return kb_digest64_more(h, p, n);
}

} // namespace

/* ---- C API ------------------------------------------------------------------- */
MC_API int mcast_registry_count(void)
{
    return MCAST_ALG_COUNT;
}

MC_API const mcast_alg_info_t *mcast_registry_get(int id)
{
    return (id >= 0 && id < MCAST_ALG_COUNT) ? &ALGS[id].info : nullptr;
}

MC_API int mcast_registry_lookup(const char *name)
{
    if (name == nullptr) {
        return -1;
    }
    for (const AlgDesc &d : ALGS) {
        const mcast_alg_info_t &r = d.info;
        if (std::strcmp(r.name, name) == 0) {
            return r.id;
        }
    }
    return -1;
}

MC_API void mcast_forced_default(mcast_forced_t *f)
{
    if (f == nullptr) {
        return;
    }
    std::memset(f, 0, sizeof(*f));
    f->algorithm = MCAST_ALG_AUTO;
    f->segment_min_bytes = 0; /* auto */
    f->segment_max_bytes = size_t(1) << 20;
    f->window = 0; /* auto: window_of */
    f->max_sends = -1;
    f->discipline = KB_DISC_FPFS;
    f->postal_pipelining = 1;
    f->compare_previous = 1;
    f->sync_sends = -1;
}

/* Size classes (header): four per power of two, class j of octave e holds the sizes
 * nearest to 2^(e + j/4) on a log scale, i.e. [2^(e + (j - 1/2)/4), 2^(e + (j + 1/2)/4)),
 * and is planned at round(2^(e + j/4)): powers of two are their class's representative
 * and no size is more than 2^(1/8) - 1 = 9.05 % from it.  Integer arithmetic only (32-bit
 * fixed-point factors), so every rank computes the same class. */
namespace {
constexpr uint64_t CLASS_REP_FX[4] = {4294967296ull, 5107605667ull, 6074001000ull,
                                      7223245206ull}; /* 2^(j/4) * 2^32 */
constexpr uint64_t CLASS_UPPER_FX[4] = {4683695048ull, 5569883475ull, 6623745059ull,
                                        7877004752ull}; /* 2^((j + 1/2)/4) * 2^32 */
} // namespace

MC_API int mcast_size_class(size_t bytes)
{
    if (bytes == 0) {
        return 0;
    }
    const int e = 63 - __builtin_clzll((unsigned long long) bytes);
    /* bytes * 2^32 against 2^e * factor: bytes in [2^e, 2^(e+1)) */
    const unsigned __int128 x = (unsigned __int128) bytes << 32;
    int j = 0;
    while (j < 4 && x >= ((unsigned __int128) 1 << e) * CLASS_UPPER_FX[j]) {
        ++j;
    }
    return 1 + 4 * e + j; /* j == 4: the next octave's first class */
}

MC_API size_t mcast_class_bytes(int cls)
{
    if (cls <= 0) {
        return 0;
    }
    const int e = (cls - 1) / 4, j = (cls - 1) % 4;
    if (e >= 64) {
        return SIZE_MAX;
    }
    const unsigned __int128 x = ((unsigned __int128) 1 << e) * CLASS_REP_FX[j];
    const unsigned __int128 r = (x + ((unsigned __int128) 1 << 31)) >> 32; /* rounded */
    return r > SIZE_MAX ? SIZE_MAX : size_t(r);
}

MC_API int mcast_plan_select(const mcast_plan_input_t *in, mcast_plan_t **out, char *errbuf,
                             size_t errlen)
{
    if (in == nullptr || out == nullptr) {
        return KB_ERR_ARG;
    }
    *out = nullptr;
    return guarded(errbuf, errlen, [&] {
        auto p = std::make_unique<mcast_plan>();
        select(*in, *p);
        *out = p.release();
    });
}

MC_API void mcast_plan_free(mcast_plan_t *p)
{
    delete p;
}

MC_API int mcast_plan_blocks(const mcast_plan_t *p, size_t bytes, size_t *block_bytes,
                             uint32_t *nblocks)
{
    if (p == nullptr || block_bytes == nullptr || nblocks == nullptr) {
        return KB_ERR_ARG;
    }
    if (p->family >= 0) {
        family_geometry(p->family, p->two_level ? p->nnodes : p->n, bytes,
                        p->segment_bytes == 0 ? bytes : p->segment_bytes, block_bytes, nblocks);
        return KB_OK;
    }
    size_t S = p->segment_bytes == 0 ? bytes : std::min(p->segment_bytes, bytes);
    S = std::min(S, PLAN_MAX_BLOCK_BYTES);
    if (S == 0) {
        S = 1;
    }
    if (bytes / S >= PLAN_MAX_BLOCKS) { /* never more blocks than the planner allows */
        S = (bytes + PLAN_MAX_BLOCKS - 1) / PLAN_MAX_BLOCKS;
    }
    *block_bytes = S;
    *nblocks = uint32_t((bytes + S - 1) / S);
    return KB_OK;
}

namespace {

/* The schedule of `m` blocks as planned (no notices). */
int plan_sched(const mcast_plan_t *p, int rank, size_t bytes, uint32_t m, mcast_sched_t **out);

/* The block count from which the pairs a plan's ranks talk over stop growing with it:
 * one tree, 1; the two-tree 2; the scatter, a block per position (a two-level plan's
 * inter-node level counts nodes).  The circulant's pairs fill from q + 1 blocks, but its
 * notices would cost about as much as its broadcast below that (q - 1 more messages a
 * rank: 1.7 - 2x at one block in the simulator, E-PAIRS-1): 1, unprotected, as Open
 * MPI's own algorithms are. */
uint32_t pair_blocks(const mcast_plan_t *p)
{
    if (p->family < 0) {
        return 1; /* (edst's trees take blocks in turn: not measured, not protected) */
    }
    int n = p->n;
    if (p->two_level && !p->node_of_rank.empty()) {
        std::vector<int> nodes(p->node_of_rank);
        std::sort(nodes.begin(), nodes.end());
        n = int(std::unique(nodes.begin(), nodes.end()) - nodes.begin());
    }
    switch (p->level.family) {
    case MCAST_FAM_TWOTREE:
        return 2;
    case MCAST_FAM_SCATTER_ALLGATHER:
        return uint32_t(n);
    default:
        return 1;
    }
}

} // namespace

/* Below pair_blocks(p) blocks a rank's lists get notices for the pairs the plan uses
 * with more blocks (mc::with_pairs_of): every pair of ranks that talks at some size talks
 * at every size, so a signature that differs in size between ranks (an erroneous program)
 * ends in an error, not a wait (E-PAIRS-1). */
MC_API int mcast_plan_schedule(const mcast_plan_t *p, int rank, size_t bytes, mcast_sched_t **out)
{
    if (p == nullptr || out == nullptr || rank < 0 || rank >= p->n) {
        return KB_ERR_ARG;
    }
    size_t S;
    uint32_t m;
    mcast_plan_blocks(p, bytes, &S, &m);
    if (ALGS[p->algorithm].transport != MCAST_PLAN_PML) {
        return KB_ERR_ARG; /* not a point-to-point schedule: the glue's transport runs it */
    }
    const uint32_t full = pair_blocks(p);
    int rc = plan_sched(p, rank, bytes, m, out);
    if (rc != KB_OK || m == 0 || m >= full || p->n < 2) {
        return rc;
    }
    mcast_sched_t *f = nullptr;
    rc = plan_sched(p, rank, bytes, full, &f);
    if (rc != KB_OK) {
        mcast_sched_free(*out);
        *out = nullptr;
        return rc;
    }
    rc = kb::guarded([&] {
        *out = mc::with_pairs_of(std::unique_ptr<mcast_sched>(*out), *f, true).release();
    });
    mcast_sched_free(f);
    return rc;
}

namespace {

int plan_sched(const mcast_plan_t *p, int rank, size_t bytes, uint32_t m, mcast_sched_t **out)
{
    if (p->two_level) {
        return mcast_sched_two_level(p->n, p->root, rank, p->chain.data(), p->node_of_rank.data(),
                                     &p->level, &p->intra, m, out);
    }
    if (p->family >= 0) {
        return mcast_sched_level(&p->level, p->n, p->root, rank, p->chain.data(), m, out);
    }
    if (!p->trees.empty()) {
        return mcast_sched_multitree(p->tree_ptrs.data(), int(p->tree_ptrs.size()), rank, m,
                                     edst_lag(*p, bytes, m), out);
    }
    return mcast_sched_tree(p->tree.t, rank, m, kb_discipline_t(p->discipline), out);
}

} // namespace

MC_API int mcast_plan_engine_params(const mcast_plan_t *p, int rank, size_t bytes,
                                    mcast_engine_params_t *ep)
{
    if (p == nullptr || ep == nullptr || rank < 0 || rank >= p->n) {
        return KB_ERR_ARG;
    }
    if (ALGS[p->algorithm].transport != MCAST_PLAN_PML) {
        return KB_ERR_ARG; /* no engine: the glue's transport runs it */
    }
    uint32_t m;
    ep->bytes = bytes;
    mcast_plan_blocks(p, bytes, &ep->block_bytes, &m);
    ep->window = p->window;
    if (p->family >= 0) {
        /* the window the family needs for this message (two-tree: its streams' skew) */
        const int w = bytes == 0 ? -1
                                 : mcast_level_window(&p->level, p->two_level ? p->nnodes : p->n,
                                                      bytes, m, &p->family_net, p->max_sends);
        ep->window = std::max(p->window, w);
        /* a node leader also feeds its node's tree: those copies need slots of their own */
        ep->max_sends = p->two_level ? p->max_sends + 2 : p->max_sends;
        ep->sync_sends = p->sync && !p->two_level ? 1 : 0;
        return KB_OK;
    }
    if (!p->trees.empty()) {
        /* the streams' drift for this message (mcast_multitree_window), at least the plan's */
        const int w = bytes == 0 ? -1
                                 : mcast_multitree_window(p->tree_ptrs.data(), int(p->tree_ptrs.size()),
                                                          bytes, m, &p->family_net, p->max_sends);
        ep->window = std::max(p->window, w);
        ep->max_sends = p->max_sends;
        ep->sync_sends = p->sync ? 1 : 0;
        return KB_OK;
    }
    const kb_tree_t *t = p->tree.t;
    const int first = t->child_off[rank], end = t->child_off[rank + 1];
    bool any_remote = false;
    for (int i = first; i < end; ++i) {
        const int c = t->children[i];
        any_remote = any_remote || !(p->all_local || (!p->node_of_rank.empty() &&
                                                      p->node_of_rank[size_t(c)] ==
                                                          p->node_of_rank[size_t(rank)]));
    }
    int ms = p->max_sends;
    if (ms == -1 && whole_at_once(p->net, m, ep->block_bytes)) {
        ms = 0; /* header, "Sends in flight" */
    }
    ep->max_sends = resolve_max_sends(ms, p->window, end - first, any_remote);
    ep->sync_sends = 0;
    return KB_OK;
}

MC_API int mcast_plan_get_info(const mcast_plan_t *p, mcast_plan_info_t *info)
{
    if (p == nullptr || info == nullptr) {
        return KB_ERR_ARG;
    }
    info->algorithm = p->algorithm;
    info->name = ALGS[p->algorithm].info.name;
    info->k = p->k;
    info->segment_bytes = p->segment_bytes;
    info->lambda = p->lambda;
    info->window = p->window;
    info->max_sends = p->max_sends;
    info->discipline = p->discipline;
    info->predicted_us = p->predicted_us;
    info->selected_by = p->selected_by.c_str();
    info->tree = p->tree.t;
    info->ntrees = int(p->tree_ptrs.size());
    info->lag = p->lag;
    info->trees = p->tree_ptrs.empty() ? nullptr : p->tree_ptrs.data();
    info->chain = p->chain.data();
    info->n = p->n;
    info->root = p->root;
    info->class_bytes = p->class_bytes;
    info->defer = p->defer ? 1 : 0;
    info->family = p->family;
    info->previous_us = p->previous_us;
    info->previous = p->previous;
    info->transport = transport_name(p->transport);
    info->transport_kind = p->transport;
    info->shm_slots = p->shm_slots;
    info->shm_slot_bytes = p->shm_slot_bytes;
    info->shm_chunk_bytes = p->shm_chunk_bytes;
    info->shm_fit_ring = p->shm_fit_ring;
    info->node_of_rank = p->node_of_rank.empty() ? nullptr : p->node_of_rank.data();
    info->variant = p->level.variant;
    info->runner_up = p->runner_up;
    info->runner_up_us = p->runner_up_us;
    return KB_OK;
}

MC_API int mcast_plan_node_leader(const mcast_plan_t *p, int rank)
{
    if (p == nullptr || p->transport != MCAST_PLAN_PML_SHM || rank < 0 || rank >= p->n ||
        p->node_of_rank.size() != size_t(p->n) || p->chain.size() != size_t(p->n)) {
        return -1;
    }
    for (int r : p->chain) {
        if (p->node_of_rank[size_t(r)] == p->node_of_rank[size_t(rank)]) {
            return r;
        }
    }
    return -1;
}

MC_API int mcast_plan_describe(const mcast_plan_t *p, char *buf, size_t len)
{
    if (p == nullptr || buf == nullptr || len == 0) {
        return KB_ERR_ARG;
    }
    buf[0] = '\0';
    try {
        std::string s;
        if (p->k != 0) {
            s += "k=" + std::to_string(p->k) + " ";
        }
        if (!p->extra.empty()) {
            s += p->extra + " ";
        }
        s += "segment_bytes=" + (p->segment_bytes == 0 ? std::string("whole") : std::to_string(p->segment_bytes));
        if (p->segment_bytes != 0 && p->class_bytes / p->segment_bytes >= PLAN_MAX_BLOCKS) {
            s += " (raised to keep at most " + std::to_string(PLAN_MAX_BLOCKS) + " blocks)";
        }
        s += " window=" + std::to_string(p->window);
        s += " max_sends=" + (p->max_sends == -1 ? std::string("auto") : std::to_string(p->max_sends));
        if (p->sync) {
            s += " sends=sync";
        }
        s += std::string(" discipline=") + (p->discipline == KB_DISC_FCFS ? "fcfs" : "fpfs");
        s += std::string(" transport=") + transport_name(p->transport);
        s += " predicted_us=" + fmt("%.1f", p->predicted_us);
        if (p->previous_us >= 0) {
            s += std::string(" previous=") + p->previous + " previous_us=" + fmt("%.1f", p->previous_us);
        }
        s += " class_bytes=" + std::to_string(p->class_bytes);
        s += " selected_by=" + p->selected_by;
        std::snprintf(buf, len, "%s", s.c_str());
    } catch (...) { /* no memory for the text: an empty description */
        return KB_ERR_NOMEM;
    }
    return KB_OK;
}

MC_API double mcast_model_tree_us(const kb_tree_t *tree, size_t bytes, size_t segment_bytes,
                                  int max_sends, const int *node_of_rank, int all_local,
                                  const mcast_machine_t *machine)
{
    if (tree == nullptr || machine == nullptr || kb_tree_check(tree) != KB_OK || max_sends < -1) {
        return -1.0;
    }
    try {
        Locality loc;
        loc.node = node_of_rank;
        loc.all_local = all_local != 0;
        return tree_time(tree, bytes, segment_bytes, max_sends, 4, loc, *machine);
    } catch (...) {
        return -1.0;
    }
}

MC_API uint64_t mcast_forced_digest(const mcast_forced_t *f, const mcast_machine_t *m)
{
    uint64_t h = KB_DIGEST64_INIT;
    if (f != nullptr) {
        const int ints[] = {f->algorithm, f->k, f->window, f->max_sends, f->discipline,
                            f->postal_pipelining, f->mu_r, f->allgather, f->compare_previous,
                            f->sync_sends};
        h = fnv(h, ints, sizeof(ints));
        const uint64_t sizes[] = {f->segment_bytes, f->segment_min_bytes, f->segment_max_bytes};
        h = fnv(h, sizes, sizeof(sizes));
        h = fnv(h, &f->lambda, sizeof(f->lambda));
    }
    h = mcast_machine_digest(h, m);
    return h;
}

MC_API int mcast_class_choice_of(const mcast_plan_t *p, mcast_class_choice_t *c)
{
    mcast_plan_info_t info;
    if (c == nullptr || mcast_plan_get_info(p, &info) != KB_OK) {
        return KB_ERR_ARG;
    }
    std::memset(c, 0, sizeof(*c));
    c->defer = info.defer;
    c->algorithm = info.algorithm;
    c->k = info.k;
    c->segment_bytes = info.segment_bytes == 0 ? SIZE_MAX : info.segment_bytes;
    c->lambda = info.lambda;
    c->allgather = info.algorithm == MCAST_ALG_SCATTER_ALLGATHER ? info.variant + 1 : 0;
    /* a tree's sends in flight as its selection set them (a family resolves its own per
     * root: its plans carry the resolved value) */
    c->max_sends = p->family < 0 && p->trees.empty() ? p->max_sends : -1;
    std::snprintf(c->selected_by, sizeof(c->selected_by), "%s",
                  info.selected_by != nullptr ? info.selected_by : "");
    return KB_OK;
}

MC_API int mcast_class_choice_force(const mcast_class_choice_t *c, mcast_plan_input_t *in,
                                    mcast_forced_t *f)
{
    if (c == nullptr || in == nullptr || f == nullptr || c->defer) {
        return KB_ERR_ARG;
    }
    f->algorithm = c->algorithm;
    f->k = c->k;
    f->segment_bytes = c->segment_bytes;
    f->lambda = c->lambda;
    if (c->allgather != 0) {
        f->allgather = c->allgather;
    }
    if (c->max_sends != -1) {
        f->max_sends = c->max_sends;
    }
    in->rules = nullptr;
    in->selected_by = c->selected_by;
    return KB_OK;
}

MC_API int mcast_decide_class(mcast_input_fn_t input, void *ctx, size_t class_bytes,
                              mcast_class_choice_t *choice, mcast_plan_t **plan0, char *why,
                              size_t why_len)
{
    if (input == nullptr || choice == nullptr) {
        return KB_ERR_ARG;
    }
    mcast_plan_input_t in;
    mcast_forced_t f;
    int rc = input(ctx, 0, class_bytes, &in, &f);
    mcast_plan_t *p = nullptr;
    if (rc == KB_OK) {
        rc = mcast_plan_select(&in, &p, why, why_len);
    }
    if (rc != KB_OK) {
        return rc;
    }
    mcast_class_choice_of(p, choice);
    if (plan0 != nullptr) {
        *plan0 = p;
    } else {
        mcast_plan_free(p);
    }
    return KB_OK;
}

MC_API int mcast_plan_on_root(const mcast_class_choice_t *choice, mcast_input_fn_t input,
                              void *ctx, int root, size_t bytes, mcast_plan_t **out, char *why,
                              size_t why_len)
{
    if (choice == nullptr || input == nullptr || out == nullptr || choice->defer) {
        return KB_ERR_ARG;
    }
    mcast_plan_input_t in;
    mcast_forced_t f;
    int rc = input(ctx, root, bytes, &in, &f);
    if (rc == KB_OK) {
        rc = mcast_class_choice_force(choice, &in, &f);
    }
    return rc == KB_OK ? mcast_plan_select(&in, out, why, why_len) : rc;
}

namespace {

/* Two plans that send the same messages: one tree each (no family), the same transport,
 * segment, sends in flight and window, and every rank the same parent (the order of a
 * rank's sends may differ: a trial could not tell it from noise where the model prices the
 * plans alike, which is what brought them this close). */
bool same_tree_plan(const mcast_plan &a, const mcast_plan &b)
{
    const kb_tree_t *x = a.tree.t, *y = b.tree.t;
    if (x == nullptr || y == nullptr || a.family >= 0 || b.family >= 0 || !a.trees.empty() ||
        !b.trees.empty() || a.transport != b.transport || a.segment_bytes != b.segment_bytes ||
        a.max_sends != b.max_sends || a.window != b.window || x->n != y->n || x->root != y->root) {
        return false;
    }
    return std::equal(x->parent, x->parent + x->n, y->parent);
}

} // namespace

MC_API int mcast_decide_runner_up(mcast_input_fn_t input, void *ctx, const mcast_plan_t *plan0,
                                  double within, mcast_class_choice_t *runner, char *why,
                                  size_t why_len)
{
    if (input == nullptr || plan0 == nullptr || runner == nullptr) {
        return KB_ERR_ARG;
    }
    if (!(within > 0.0) || plan0->defer || plan0->selected_by != "model" ||
        plan0->runner_up == MCAST_ALG_AUTO || !(plan0->predicted_us >= 0.0) ||
        !(plan0->runner_up_us <= plan0->predicted_us * (1.0 + within))) {
        return 0;
    }
    mcast_plan_input_t in;
    mcast_forced_t f;
    int rc = input(ctx, 0, plan0->class_bytes, &in, &f);
    if (rc != KB_OK) {
        return rc;
    }
    if ((ALGS[plan0->runner_up].info.component & in.component) == 0) {
        return 0; /* (coll/pathmc's runner-up of coll/kbinomial: the module below's) */
    }
    f.algorithm = plan0->runner_up;
    in.forced = &f;
    in.selected_by = "model:runner-up";
    mcast_plan_t *p = nullptr;
    rc = mcast_plan_select(&in, &p, why, why_len);
    if (rc != KB_OK) {
        return rc;
    }
    /* another algorithm may build the same tree (a postal tree of k-nomial shape): no
     * candidate of its own */
    const bool same = same_tree_plan(*plan0, *p);
    rc = mcast_class_choice_of(p, runner);
    mcast_plan_free(p);
    return rc != KB_OK ? rc : same ? 0 : 1;
}
