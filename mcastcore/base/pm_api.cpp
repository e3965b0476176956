/*
 * C API boundary of the coll_pathmc core: argument checks, exception
 * translation (no C++ exception leaves this file), error messages.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <new>
#include <sstream>

#include "kb_file.h"
#include "topo/pm_capi.h"

namespace pm {
kb_tree_t *torus_build(pm_torus_alg_t, const pm_torus_shape_t *, int, const int *, int, int, pm_torus_stats_t *);
void model_default(pm_torus_model_t *);
double predict(pm_torus_alg_t, const pm_torus_stats_t *, int, size_t, const pm_torus_model_t *);
void choose(const pm_torus_shape_t *, int, const int *, int, size_t, const pm_torus_model_t *, pm_torus_alg_t *,
            double *);
const pm_torus_algorithm_t *registry_get(int);
int registry_lookup(const char *);
std::string generate_irregular(int, int, int, int, uint64_t);
}  // namespace pm

using namespace pm;

extern "C" {

/* ------------------------------------------------------------------ topology */
int pm_topology_parse_string(const char *text, pm_format_t fmt, const char *name, pm_topology_t **topo,
                             char *errbuf, size_t errlen)
{
    if (!text || !topo || fmt < PM_FMT_AUTO || fmt > PM_FMT_SLURM) return PM_ERR_ARG;
    *topo = nullptr;
    PM_GUARD(errbuf, errlen, {
        auto t = parse_topology(text, fmt, name ? name : "<string>");
        pm_topology_t *p = new pm_topology_t;
        p->t = std::move(t);
        *topo = p;
        return PM_OK;
    })
}

int pm_topology_load_fmt(const char *path, pm_format_t fmt, pm_topology_t **topo, char *errbuf, size_t errlen)
{
    if (!path || !topo || fmt < PM_FMT_AUTO || fmt > PM_FMT_SLURM) return PM_ERR_ARG;
    *topo = nullptr;
    char *text = nullptr;
    size_t len = 0;
    int rc = kb_file_read(path, PM_MAX_FILE_BYTES, &text, &len, errbuf, errlen);
    if (rc != KB_OK)
        return rc == KB_FILE_ERR_BINARY ? PM_ERR_PARSE : rc == KB_ERR_NOMEM ? PM_ERR_NOMEM : PM_ERR_IO;
    rc = pm_topology_parse_string(text, fmt, path, topo, errbuf, errlen);
    free(text);
    return rc;
}

int pm_topology_load(const char *path, pm_topology_t **topo, char *errbuf, size_t errlen)
{
    return pm_topology_load_fmt(path, PM_FMT_AUTO, topo, errbuf, errlen);
}

int pm_topology_from_coords(int n, const char *const *hosts, int ndims, const int *coords, const int *shape,
                            pm_topology_t **topo, char *errbuf, size_t errlen)
{
    if (!topo) return PM_ERR_ARG;
    *topo = nullptr;
    if (n < 1 || !hosts || !coords || ndims < 1 || ndims > PM_MAX_DIMS) {
        set_err(errbuf, errlen, "fabric coordinates: bad arguments");
        return PM_ERR_ARG;
    }
    PM_GUARD(errbuf, errlen, {
        std::vector<int> dims(ndims, 2);
        for (int r = 0; r < n; ++r) {
            if (!hosts[r] || !hosts[r][0] || std::strpbrk(hosts[r], " \t\r\n#"))
                throw ArgError(PM_ERR_ARG, "fabric coordinates: rank " + std::to_string(r) + ": bad host name");
            for (int d = 0; d < ndims; ++d) {
                int c = coords[r * ndims + d];
                if (c < 0 || (shape && c >= shape[d]))
                    throw ArgError(PM_ERR_ARG, "fabric coordinates: rank " + std::to_string(r) + " coordinate " +
                                                   std::to_string(c) + " outside dimension " + std::to_string(d));
                dims[d] = std::max(dims[d], shape ? shape[d] : c + 1);
            }
        }
        std::ostringstream text;
        text << "torus ";
        for (int d = 0; d < ndims; ++d) text << (d ? "x" : "") << dims[d];
        text << (shape ? "\n" : " mesh\n");
        std::map<std::string, int> first;
        for (int r = 0; r < n; ++r) {
            auto it = first.find(hosts[r]);
            if (it != first.end()) {
                if (!std::equal(coords + r * ndims, coords + (r + 1) * ndims, coords + it->second * ndims))
                    throw ArgError(PM_ERR_ARG, "fabric coordinates: ranks " + std::to_string(it->second) + " and " +
                                                   std::to_string(r) + " on host " + hosts[r] + " differ");
                continue;
            }
            first.emplace(hosts[r], r);
            text << "host " << hosts[r];
            for (int d = 0; d < ndims; ++d) text << ' ' << coords[r * ndims + d];
            text << '\n';
        }
        return pm_topology_parse_string(text.str().c_str(), PM_FMT_NATIVE, "fabric coordinates", topo, errbuf,
                                        errlen);
    })
}

void pm_topology_free(pm_topology_t *topo) { delete topo; }

pm_topo_kind_t pm_topology_kind(const pm_topology_t *topo) { return topo ? topo->t->kind : PM_TOPO_GRAPH; }
int pm_topology_nhosts(const pm_topology_t *topo) { return topo ? (int)topo->t->hosts.size() : PM_ERR_ARG; }
int pm_topology_nswitches(const pm_topology_t *topo) { return topo ? (int)topo->t->switches.size() : PM_ERR_ARG; }
int pm_topology_ndirected_links(const pm_topology_t *topo) { return topo ? 2 * (int)topo->t->links.size() : PM_ERR_ARG; }

const char *pm_topology_host_name(const pm_topology_t *topo, int i)
{
    if (!topo || i < 0 || i >= (int)topo->t->hosts.size()) return nullptr;
    return topo->t->nodes[topo->t->hosts[i]].name.c_str();
}

int pm_topology_torus_shape(const pm_topology_t *topo, int *ndims, int *dims, int maxdims, int *wrap, int *bidir)
{
    if (!topo) return PM_ERR_ARG;
    const Topology &t = *topo->t;
    if (t.kind != PM_TOPO_TORUS) return PM_ERR_UNSUPPORTED;
    if (dims && maxdims < (int)t.dims.size()) return PM_ERR_ARG;
    if (ndims) *ndims = (int)t.dims.size();
    if (dims) for (size_t d = 0; d < t.dims.size(); ++d) dims[d] = t.dims[d];
    if (wrap) *wrap = t.wrap;
    if (bidir) *bidir = t.bidir;
    return PM_OK;
}

int pm_topology_host_coords(const pm_topology_t *topo, const char *host, int *coords, int maxdims)
{
    if (!topo || !host || !coords) return PM_ERR_ARG;
    const Topology &t = *topo->t;
    if (t.kind != PM_TOPO_TORUS) return PM_ERR_UNSUPPORTED;
    int id = t.find(host);
    if (id < 0 || !t.nodes[id].is_host) return PM_ERR_NOTFOUND;
    if (maxdims < (int)t.dims.size()) return PM_ERR_ARG;
    for (size_t d = 0; d < t.dims.size(); ++d) coords[d] = t.nodes[id].coord[d];
    return PM_OK;
}

int pm_topology_set_updown_root(pm_topology_t *topo, const char *sw)
{
    if (!topo || !sw) return PM_ERR_ARG;
    Topology &t = *topo->t;
    int id = t.find(sw);
    if (id < 0 || t.nodes[id].is_host) return PM_ERR_NOTFOUND;
    t.ud_root = id;
    t.ud_valid = false;
    return PM_OK;
}

int pm_link_info(const pm_topology_t *topo, int dl, const char **from, const char **to, int *cls)
{
    if (!topo || dl < 0 || dl >= 2 * (int)topo->t->links.size()) return PM_ERR_ARG;
    const Topology &t = *topo->t;
    if (from) *from = t.nodes[t.from_end(dl)].name.c_str();
    if (to) *to = t.nodes[t.other_end(dl)].name.c_str();
    if (cls) *cls = t.links[dl >> 1].cls;
    return PM_OK;
}

int pm_route(const pm_topology_t *topo, pm_routing_t routing, const char *src, const char *dst, int *links,
             int maxlinks, int *nlinks)
{
    if (!topo || !src || !dst || !nlinks || maxlinks < 0 || (maxlinks > 0 && !links)) return PM_ERR_ARG;
    PM_GUARD(nullptr, 0, {
        const Topology &t = *topo->t;
        std::vector<int> ids;
        const char *hs[2] = {src, dst};
        host_ids(t, 2, hs, ids);
        std::vector<int> path;
        route(t, routing, ids[0], ids[1], path);
        *nlinks = (int)path.size();
        if ((int)path.size() > maxlinks) return PM_ERR_ARG;
        for (size_t i = 0; i < path.size(); ++i) links[i] = path[i];
        return PM_OK;
    })
}

int pm_updown_is_up(const pm_topology_t *topo, int dl)
{
    if (!topo || dl < 0 || dl >= 2 * (int)topo->t->links.size()) return PM_ERR_ARG;
    PM_GUARD(nullptr, 0, { return updown_is_up(*topo->t, dl) ? 1 : 0; })
}

/* ------------------------------------------------------------------ generator */
int pm_generate_irregular(int s, int k, int p, int pct, uint64_t seed, char **out)
{
    if (!out) return PM_ERR_ARG;
    *out = nullptr;
    PM_GUARD(nullptr, 0, {
        std::string text = generate_irregular(s, k, p, pct, seed);
        char *buf = (char *)malloc(text.size() + 1);
        if (!buf) return PM_ERR_NOMEM;
        memcpy(buf, text.c_str(), text.size() + 1);
        *out = buf;
        return PM_OK;
    })
}

int pm_generate_irregular_file(int s, int k, int p, int pct, uint64_t seed, const char *path)
{
    if (!path) return PM_ERR_ARG;
    PM_GUARD(nullptr, 0, {
        std::string text = generate_irregular(s, k, p, pct, seed);
        FILE *f = fopen(path, "w");
        if (!f) return PM_ERR_IO;
        size_t w = fwrite(text.data(), 1, text.size(), f);
        int rc = fclose(f);
        return (w != text.size() || rc != 0) ? PM_ERR_IO : PM_OK;
    })
}

void pm_free(void *p) { free(p); }

/* ------------------------------------------------------------------ orderings */
int pm_order_hosts(const pm_topology_t *topo, pm_order_kind_t kind, int n, const char *const *hosts, int root,
                   int *ordering, char *errbuf, size_t errlen)
{
    if (!topo || n < 1 || !hosts || !ordering || root < -1 || root >= n || kind < PM_ORDER_AUTO ||
        kind > PM_ORDER_TOUR)
        return PM_ERR_ARG;
    PM_GUARD(errbuf, errlen, {
        std::vector<int> ids;
        host_ids(*topo->t, n, hosts, ids);
        std::vector<int> ord = order_hosts(*topo->t, kind, ids, root);
        for (int i = 0; i < n; ++i) ordering[i] = ord[i];
        return PM_OK;
    })
}

pm_order_kind_t pm_order_auto(const pm_topology_t *topo)
{
    return topo ? auto_order(*topo->t) : PM_ORDER_AUTO;
}

const char *pm_order_name(pm_order_kind_t kind)
{
    switch (kind) {
    case PM_ORDER_AUTO: return "auto";
    case PM_ORDER_DOR: return "dor";
    case PM_ORDER_SNAKE: return "snake";
    case PM_ORDER_POC: return "poc";
    case PM_ORDER_FATTREE: return "fattree";
    case PM_ORDER_TOUR: return "tour";
    }
    return nullptr;
}

int pm_order_hierarchical(int n, const pm_locality_t *loc, int *ordering)
{
    if (n < 1 || !loc || !ordering) return PM_ERR_ARG;
    PM_GUARD(nullptr, 0, {
        std::vector<int> ord(n);
        for (int i = 0; i < n; ++i) ord[i] = i;
        std::sort(ord.begin(), ord.end(), [&](int a, int b) {
            const pm_locality_t &x = loc[a], &y = loc[b];
            if (x.host_id != y.host_id) return x.host_id < y.host_id;
            if (x.package_id != y.package_id) return x.package_id < y.package_id;
            if (x.numa_id != y.numa_id) return x.numa_id < y.numa_id;
            if (x.core_id != y.core_id) return x.core_id < y.core_id;
            return a < b;
        });
        for (int i = 0; i < n; ++i) ordering[i] = ord[i];
        return PM_OK;
    })
}

/* ------------------------------------------------------------------ checker */
int pm_check_contention(const pm_topology_t *topo, pm_routing_t routing, int n, const char *const *hosts,
                        int nmsgs, const pm_msg_t *msgs, int nsteps, long *conflicts, long *total, char *errbuf,
                        size_t errlen)
{
    if (!topo || n < 1 || !hosts || nmsgs < 0 || (nmsgs > 0 && !msgs) || nsteps < 1 || !conflicts || !total ||
        routing < PM_ROUTE_DEFAULT || routing > PM_ROUTE_FATTREE)
        return PM_ERR_ARG;
    PM_GUARD(errbuf, errlen, {
        std::vector<int> ids;
        host_ids(*topo->t, n, hosts, ids);
        check_contention(*topo->t, routing, ids, nmsgs, msgs, nsteps, conflicts, total);
        return PM_OK;
    })
}

static bool tree_ok(const kb_tree_t *t)
{
    if (!t || t->n < 1 || t->root < 0 || t->root >= t->n || !t->parent || !t->child_off) return false;
    if (t->child_off[0] != 0 || t->child_off[t->n] != t->n - 1 || (t->n > 1 && !t->children)) return false;
    for (int v = 0; v < t->n; ++v)
        if (t->child_off[v + 1] < t->child_off[v]) return false;
    for (int i = 0; i < t->n - 1; ++i)
        if (t->children[i] < 0 || t->children[i] >= t->n || t->children[i] == t->root) return false;
    return true;
}

int pm_plan_from_tree(const kb_tree_t *tree, pm_msg_t **msgs, int *nmsgs, int *nsteps)
{
    if (!tree_ok(tree) || !msgs || !nmsgs || !nsteps) return PM_ERR_ARG;
    *msgs = nullptr;
    PM_GUARD(nullptr, 0, {
        std::vector<pm_msg_t> v;
        int ns = 0;
        plan_from_tree(tree, v, &ns);
        if ((int)v.size() != tree->n - 1) return PM_ERR_ARG;
        pm_msg_t *out = (pm_msg_t *)malloc(sizeof(pm_msg_t) * (v.size() ? v.size() : 1));
        if (!out) return PM_ERR_NOMEM;
        std::copy(v.begin(), v.end(), out);
        *msgs = out;
        *nmsgs = (int)v.size();
        *nsteps = ns > 0 ? ns : 1;
        return PM_OK;
    })
}

void pm_tree_free(kb_tree_t *t)
{
    if (!t) return;
    free(t->parent);
    free(t->child_off);
    free(t->children);
    free(t);
}

/* ------------------------------------------------------------------ torus */
int pm_torus_algorithm_count(void) { return PM_TORUS_NALGS; }
const pm_torus_algorithm_t *pm_torus_algorithm_get(int i) { return registry_get(i); }
int pm_torus_algorithm_lookup(const char *name) { return name ? registry_lookup(name) : PM_ERR_ARG; }

int pm_torus_build(pm_torus_alg_t alg, const pm_torus_shape_t *shape, int n, const int *coords, int root,
                   int r_part, kb_tree_t **tree, pm_torus_stats_t *stats)
{
    if (!tree || alg < 0 || alg >= PM_TORUS_NALGS) return PM_ERR_ARG;
    *tree = nullptr;
    PM_GUARD(nullptr, 0, {
        *tree = torus_build(alg, shape, n, coords, root, r_part, stats);
        return PM_OK;
    })
}

int pm_torus_edst(const pm_torus_shape_t *shape, int n, const int *coords, int root,
                  kb_tree_t *trees[PM_EDST_TREES], char *errbuf, size_t errlen)
{
    if (!trees) return PM_ERR_ARG;
    for (int i = 0; i < PM_EDST_TREES; ++i) trees[i] = nullptr;
    PM_GUARD(errbuf, errlen, {
        pm::TorusGroup g = pm::make_group(shape, n, coords, root);
        pm::Tree t[PM_EDST_TREES];
        pm::torus_edst(g, t);
        for (int i = 0; i < PM_EDST_TREES; ++i) {
            trees[i] = pm::to_kb(t[i]);
            if (!trees[i]) {
                for (int j = 0; j < i; ++j) {
                    pm_tree_free(trees[j]);
                    trees[j] = nullptr;
                }
                throw std::bad_alloc();
            }
        }
        return PM_OK;
    })
}

int pm_tree_stats(const kb_tree_t *tree, pm_torus_stats_t *stats)
{
    if (!tree_ok(tree) || !stats) return PM_ERR_ARG;
    PM_GUARD(nullptr, 0, {
        stats_of(tree, stats);
        return PM_OK;
    })
}

void pm_torus_model_default(pm_torus_model_t *m)
{
    if (m) model_default(m);
}

double pm_torus_predict_us(pm_torus_alg_t alg, const pm_torus_stats_t *st, int G, size_t bytes,
                           const pm_torus_model_t *m)
{
    return predict(alg, st, G, bytes, m);
}

int pm_torus_choose(const pm_torus_shape_t *shape, int n, const int *coords, int root, size_t bytes,
                    const pm_torus_model_t *m, pm_torus_alg_t *best, double *pred)
{
    if (!m || !best) return PM_ERR_ARG;
    PM_GUARD(nullptr, 0, {
        choose(shape, n, coords, root, bytes, m, best, pred);
        return PM_OK;
    })
}

}  /* extern "C" */
