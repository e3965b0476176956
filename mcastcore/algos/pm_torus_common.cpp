/*
 * Torus multicast family (Oral & George 2003, seed 002): shared geometry,
 * tree conversion, statistics, the small-message latency model (eqs. 6-12),
 * the chooser and the algorithm registry.
 *
 *   t_multicast = max over paths [ o_sender + h_i * L_i + o_receiver ]   (eq. 7)
 *               = 2 o + h_i L_i,   L_i = o + t_process + o               (eq. 5)
 *   separate    = (G-1)(o + t_process) + o                               (eq. 8)
 * plus beta * M per serialised send on the critical path (our large-message
 * term: the seed models 128-byte messages only).
 *
 * Counts on a 4x4 torus, G = 16 (canonical group: the first G routers in DOR
 * order, root at 0; k = 4):
 *   algorithm   phases                 h_i (deepest path)
 *   separate    1                      0                        (eq. 8)
 *   utorus      ceil(log2 G) steps     floor(log2 G) - 1        (binomial)
 *   storus      1                      G - 2                    (eq. 12)
 *   mdtorus     N (2 on a 2D torus)    k - 1 once G >= 2k       (eq. 9)
 *   mutorus     1 if p < 2 else 2      r - 1 (p >= 2), G - 2    (eq. 10)
 */
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <set>

#include "topo/pm_internal.h"

namespace pm {

int TorusGroup::ring_offset(int d, int from, int to) const
{
    int k = shape.dims[d];
    return shape.wrap ? ((to - from) % k + k) % k : to;
}

std::vector<int> TorusGroup::rel_key(int m, const std::vector<int> &origin) const
{
    std::vector<int> key(shape.ndims + 2);
    for (int d = 0; d < shape.ndims; ++d) key[d] = ring_offset(d, origin[d], c[m][d]);
    key[shape.ndims] = m == root ? 0 : 1;
    key[shape.ndims + 1] = m;
    return key;
}

static std::vector<int> sorted_rotated(int n, int root, const std::vector<std::vector<int>> &key)
{
    std::vector<int> ord(n);
    std::iota(ord.begin(), ord.end(), 0);
    std::sort(ord.begin(), ord.end(), [&](int a, int b) { return key[a] < key[b]; });
    std::rotate(ord.begin(), std::find(ord.begin(), ord.end(), root), ord.end());
    return ord;
}

std::vector<int> TorusGroup::dor_chain() const
{
    std::vector<std::vector<int>> key(n);
    for (int m = 0; m < n; ++m) key[m] = rel_key(m, c[root]);
    return sorted_rotated(n, root, key);
}

std::vector<int> TorusGroup::snake_chain() const
{
    std::vector<int> dims(shape.dims, shape.dims + shape.ndims);
    std::vector<std::vector<int>> key(n);
    for (int m = 0; m < n; ++m) {
        key[m] = snake_rank_key(c[m], dims);
        key[m].push_back(m == root ? 0 : 1);
        key[m].push_back(m);
    }
    return sorted_rotated(n, root, key);
}

kb_tree_t *to_kb(const Tree &t)
{
    kb_tree_t *k = (kb_tree_t *)calloc(1, sizeof(*k));
    if (!k) return nullptr;
    k->n = t.n;
    k->root = t.root;
    k->parent = (int *)malloc(sizeof(int) * t.n);
    k->child_off = (int *)malloc(sizeof(int) * (t.n + 1));
    k->children = t.n > 1 ? (int *)malloc(sizeof(int) * (t.n - 1)) : nullptr;
    if (!k->parent || !k->child_off || (t.n > 1 && !k->children)) {
        free(k->parent); free(k->child_off); free(k->children); free(k);
        return nullptr;
    }
    int off = 0;
    for (int v = 0; v < t.n; ++v) {
        k->parent[v] = t.parent[v];
        k->child_off[v] = off;
        for (int ch : t.children[v]) k->children[off++] = ch;
    }
    k->child_off[t.n] = off;
    std::vector<int> depth(t.n, 0), stack{t.root};
    int maxd = 0;
    while (!stack.empty()) {
        int u = stack.back();
        stack.pop_back();
        for (int ch : t.children[u]) {
            depth[ch] = depth[u] + 1;
            maxd = std::max(maxd, depth[ch]);
            stack.push_back(ch);
        }
    }
    k->depth = maxd;
    return k;
}

/* depth, FPFS unit steps, intermediates; phases left to the caller. */
void stats_of(const kb_tree_t *t, pm_torus_stats_t *st)
{
    std::vector<int> recv(t->n, 0), depth(t->n, 0), stack{t->root};
    int steps = 0, maxd = 0;
    while (!stack.empty()) {
        int u = stack.back();
        stack.pop_back();
        for (int j = t->child_off[u]; j < t->child_off[u + 1]; ++j) {
            int ch = t->children[j];
            recv[ch] = recv[u] + (j - t->child_off[u]) + 1;
            depth[ch] = depth[u] + 1;
            steps = std::max(steps, recv[ch]);
            maxd = std::max(maxd, depth[ch]);
            stack.push_back(ch);
        }
    }
    st->phases = 0;
    st->steps = steps;
    st->depth = maxd;
    st->intermediates = maxd > 0 ? maxd - 1 : 0;
}

/* ---------------------------------------------------------------- registry */
static const pm_torus_algorithm_t registry[PM_TORUS_NALGS] = {
    {PM_TORUS_SEPARATE, "separate", "separate addressing: the root sends to every member (flat)"},
    {PM_TORUS_UTORUS, "utorus", "U-torus: binomial recursive halving over the dimension-ordered chain"},
    {PM_TORUS_STORUS, "storus", "S-torus: one chain along the Hamiltonian snake ranking"},
    {PM_TORUS_MDTORUS, "mdtorus", "Md-torus: dimensional partitions, one phase per dimension, heads relay along rings"},
    {PM_TORUS_MUTORUS, "mutorus", "Mu-torus: partitions of r consecutive destinations, heads relay along chains"},
};

const pm_torus_algorithm_t *registry_get(int i)
{
    return i >= 0 && i < PM_TORUS_NALGS ? &registry[i] : nullptr;
}

int registry_lookup(const char *name)
{
    for (auto &a : registry)
        if (strcmp(a.name, name) == 0) return a.id;
    return PM_ERR_NOTFOUND;
}

/* ---------------------------------------------------------------- build */
TorusGroup make_group(const pm_torus_shape_t *shape, int n, const int *coords, int root)
{
    if (!shape || !coords || n < 1 || n > (1 << 22) || root < 0 || root >= n)
        throw ArgError(PM_ERR_ARG, "bad group");
    if (shape->ndims < 1 || shape->ndims > PM_MAX_DIMS || (shape->wrap != 0 && shape->wrap != 1) ||
        (shape->bidir != 0 && shape->bidir != 1) || (!shape->wrap && !shape->bidir))
        throw ArgError(PM_ERR_ARG, "bad torus shape");
    for (int d = 0; d < shape->ndims; ++d)
        if (shape->dims[d] < 2 || shape->dims[d] > 4096) throw ArgError(PM_ERR_ARG, "bad torus dimension");
    TorusGroup g;
    g.shape = *shape;
    g.n = n;
    g.root = root;
    g.c.assign(n, std::vector<int>(shape->ndims));
    for (int m = 0; m < n; ++m)
        for (int d = 0; d < shape->ndims; ++d) {
            int v = coords[(size_t)m * shape->ndims + d];
            if (v < 0 || v >= shape->dims[d]) throw ArgError(PM_ERR_ARG, "coordinate out of range");
            g.c[m][d] = v;
        }
    return g;
}

kb_tree_t *torus_build(pm_torus_alg_t alg, const pm_torus_shape_t *shape, int n, const int *coords, int root,
                       int r_part, pm_torus_stats_t *stats)
{
    TorusGroup g = make_group(shape, n, coords, root);
    if (r_part < 0) throw ArgError(PM_ERR_ARG, "negative partition length");
    Tree t;
    t.init(n, root);
    switch (alg) {
    case PM_TORUS_SEPARATE: torus_separate(g, t); break;
    case PM_TORUS_UTORUS: torus_utorus(g, t); break;
    case PM_TORUS_STORUS: torus_storus(g, t); break;
    case PM_TORUS_MDTORUS: torus_mdtorus(g, t); break;
    case PM_TORUS_MUTORUS: {
        int r = r_part;
        if (r == 0) r = *std::max_element(shape->dims, shape->dims + shape->ndims);
        torus_mutorus(g, r, t);
        break;
    }
    default: throw ArgError(PM_ERR_ARG, "unknown torus algorithm");
    }
    kb_tree_t *k = to_kb(t);
    if (!k) throw std::bad_alloc();
    if (stats) {
        stats_of(k, stats);
        std::set<int> ph;
        for (int v = 0; v < n; ++v)
            if (v != root) ph.insert(t.edge_phase[v]);
        stats->phases = (int)ph.size();
    }
    return k;
}

/* ---------------------------------------------------------------- model */
void model_default(pm_torus_model_t *m)
{
    m->o_us = 1.994;
    const double tp[PM_TORUS_NALGS] = {7, 629, 265, 206, 201};
    for (int i = 0; i < PM_TORUS_NALGS; ++i) m->t_process_us[i] = tp[i];
    m->beta_us_per_byte = 1.0 / 200.0;   /* 200 MB/s */
}

double predict(pm_torus_alg_t alg, const pm_torus_stats_t *st, int G, size_t bytes, const pm_torus_model_t *m)
{
    if (!st || !m || G < 1 || alg < 0 || alg >= PM_TORUS_NALGS || m->o_us < 0 || m->beta_us_per_byte < 0 ||
        m->t_process_us[alg] < 0)
        return -1;
    double bw = m->beta_us_per_byte * (double)bytes * st->steps;
    if (G == 1) return 0;
    if (alg == PM_TORUS_SEPARATE) return (G - 1) * (m->o_us + m->t_process_us[alg]) + m->o_us + bw;
    double Li = 2 * m->o_us + m->t_process_us[alg];
    return 2 * m->o_us + st->intermediates * Li + bw;
}

void choose(const pm_torus_shape_t *shape, int n, const int *coords, int root, size_t bytes,
            const pm_torus_model_t *m, pm_torus_alg_t *best, double *pred)
{
    if (!m || !best) throw ArgError(PM_ERR_ARG, "null argument");
    double bt = -1;
    int ba = 0;
    for (int a = 0; a < PM_TORUS_NALGS; ++a) {
        pm_torus_stats_t st;
        kb_tree_t *k = torus_build((pm_torus_alg_t)a, shape, n, coords, root, 0, &st);
        free(k->parent); free(k->child_off); free(k->children); free(k);
        double t = predict((pm_torus_alg_t)a, &st, n, bytes, m);
        if (t < 0) throw ArgError(PM_ERR_ARG, "bad model parameters");
        if (bt < 0 || t < bt) { bt = t; ba = a; }
    }
    *best = (pm_torus_alg_t)ba;
    if (pred) *pred = bt;
}

}  // namespace pm
