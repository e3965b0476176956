/*
 * coll_pathmc core: topology models, routing, orderings, a link-contention
 * checker and the torus multicast family (separate addressing, U-torus,
 * S-torus, Md-torus, Mu-torus).
 *
 * Pure C++17 behind this C API: no MPI header, no communicator.  C++
 * exceptions never cross this boundary: every entry point catches and
 * returns PM_ERR_*.  Trees reuse the sibling core's kb_tree_t (CSR form,
 * KB_NO_PEER for the root's parent); trees built here are malloc'ed (struct
 * and each array) and freed with pm_tree_free() (kb_tree_free() is
 * compatible as long as it releases the same malloc'ed blocks).
 *
 * Group ranks are 0..n-1.  An "ordering" is a permutation: ordering[pos] is
 * the group rank at chain position pos (the input kb_tree_build() expects).
 *
 * ---------------------------------------------------------------------------
 * Native topology format (PM_FMT_NATIVE).  One statement per line; '#' starts
 * a comment; tokens are separated by blanks; names are [A-Za-z0-9_.:/-]+.
 *
 *   file      := { line }
 *   line      := torus | host | switch | link | fattree | routing | <empty>
 *   torus     := "torus" DIMS [ "mesh" | "torus" ] [ "unidirectional" | "bidirectional" ]
 *   DIMS      := INT { "x" INT }            e.g. 4x4, 8x8x2   (each 2..4096, at most 8 dims)
 *   host      := "host" NAME [ INT { INT } ] coordinates (torus files only, one per dim)
 *   switch    := "switch" NAME [ PORTS ]     graph files only
 *   link      := "link" NAME NAME [ CLASS ]  graph files only; CLASS is an INT >= 0 (default
 *                0 to a host, 1 between switches; PM_ROUTE_MINHOP's weight)
 *   fattree   := "fattree" M N               m-port n-tree IBFT(m,n), seed 004 sec 2.2
 *   routing   := "routing" ( "updown" | "minhop" )   graph files only, at most once:
 *                the fabric's routes, what PM_ROUTE_DEFAULT takes (default updown)
 *
 * A file is a torus file (one "torus" line first, then "host" lines with
 * coordinates; with no host line every router gets one host named
 * "n<c0>-<c1>-...", e.g. n0-3), a fat-tree file (one "fattree" line; hosts are
 * named "p<p0>-<p1>-..." after the seed's labels P(p0 p1 ... pn-1), switches
 * "sw<w0>-...-<wn-2>.<level>"), or a graph file ("switch", "host" without
 * coordinates, "link" lines; names must be declared before use).  Defaults:
 * "torus", "bidirectional".  A host may appear in several link lines only if
 * it is a switch; hosts have exactly one link.
 *
 * Also accepted: ibnetdiscover output and ibsim net files (PM_FMT_IBNET),
 * Slurm topology.conf (PM_FMT_SLURM).  PM_FMT_AUTO looks at the first
 * significant line.  Errors are reported as "file:line: message" in the
 * caller's buffer.  In every format each host has a link to a switch (an
 * unlinked host is an error at the line that declares it).
 *
 * Limits (pm_limits.h, docs/limits.md): file and line bytes, name bytes, hosts,
 * switches, ports and links, checked before anything is built; files are read
 * with kb_file_read() (regular files only: a directory, FIFO or /dev/zero is
 * refused with PM_ERR_IO and "path:0: not a regular file (...)").
 *
 * A loaded topology may be shared by several threads for the queries below and
 * pm_order_hosts(); pm_route, pm_check_contention and
 * pm_topology_set_updown_root update caches and need the caller's lock.
 * ------------------------------------------------------------------------- */
#ifndef PATHMC_H
#define PATHMC_H

#include <stddef.h>
#include <stdint.h>
#include "kbinomial.h"
#include "pm_limits.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes: the cores' one enum (mcast_status.h) under this header's names. */
typedef enum {
    PM_OK = MCAST_OK,
    PM_ERR_ARG = MCAST_ERR_ARG,
    PM_ERR_NOMEM = MCAST_ERR_NOMEM,
    PM_ERR_INTERNAL = MCAST_ERR_INTERNAL,
    PM_ERR_PARSE = MCAST_ERR_PARSE,
    PM_ERR_IO = MCAST_ERR_IO,
    PM_ERR_NOTFOUND = MCAST_ERR_NOTFOUND,
    PM_ERR_UNSUPPORTED = MCAST_ERR_UNSUPPORTED
} pm_status_t;

/* The one "no peer" value (same as the tree core's). */
#define PM_NO_PEER KB_NO_PEER

/* ---------------------------------------------------------------------------
 * A. Topology model and routing
 * ------------------------------------------------------------------------- */
typedef struct pm_topology pm_topology_t;   /* opaque */

typedef enum {
    PM_FMT_AUTO = 0,
    PM_FMT_NATIVE = 1,
    PM_FMT_IBNET = 2,   /* ibnetdiscover / ibsim net */
    PM_FMT_SLURM = 3    /* topology.conf */
} pm_format_t;

typedef enum {
    PM_TOPO_GRAPH = 0,  /* irregular switch network */
    PM_TOPO_TORUS = 1,  /* k-ary n-cube, torus or mesh */
    PM_TOPO_FATTREE = 2 /* m-port n-tree */
} pm_topo_kind_t;

typedef enum {
    PM_ROUTE_DEFAULT = 0, /* DOR on tori, fat-tree up/down on fat-trees, otherwise the
                           * graph file's "routing" (up*-down* by default) */
    PM_ROUTE_DOR = 1,     /* dimension-ordered, dimension 0 first (tori/meshes only) */
    PM_ROUTE_UPDOWN = 2,  /* up*-down* (levels from a BFS of the switches, any topology):
                           * a shortest legal path; where several exist, the one picked
                           * backwards from the destination by its host id, hop by hop
                           * (destinations spread over parallel paths, as OpenSM's
                           * balancing does) */
    PM_ROUTE_FATTREE = 3, /* ascend to the nearest common ancestor, descend (fat-trees only) */
    PM_ROUTE_MINHOP = 4   /* a shortest path over the switches, each link weighing its class
                           * (1 between switches by default: the fewest hops, OpenSM's
                           * default engine minhop), no turn forbidden; of those the fewest
                           * hops; where several remain, picked backwards from the
                           * destination by its host id as PM_ROUTE_UPDOWN does.  A graph
                           * file's "routing minhop" makes it PM_ROUTE_DEFAULT there; its
                           * "link A B CLASS" weighs a link (a dragonfly's global links at 3
                           * against its local links' 1 give its minimal routes: E-SWL-1). */
} pm_routing_t;

/* Link classes (pm_link_info). */
#define PM_LINK_HOST 0      /* host <-> switch/router */
#define PM_LINK_SWITCH 1    /* switch <-> switch (graph, fat-tree) */
#define PM_LINK_TORUS 2     /* torus links: class = PM_LINK_TORUS + dimension */

/* Load a topology file (format auto-detected).  errbuf receives
 * "path:line: message" on PM_ERR_PARSE/PM_ERR_IO (errbuf may be NULL). */
int pm_topology_load(const char *path, pm_topology_t **topo, char *errbuf, size_t errlen);
/* Same with an explicit format. */
int pm_topology_load_fmt(const char *path, pm_format_t fmt, pm_topology_t **topo,
                         char *errbuf, size_t errlen);
/* Parse from a NUL-terminated string; `name` is used in error messages. */
int pm_topology_parse_string(const char *text, pm_format_t fmt, const char *name,
                             pm_topology_t **topo, char *errbuf, size_t errlen);
void pm_topology_free(pm_topology_t *topo);
/* A torus from per-rank node coordinates (e.g. PMIx fabric coordinates): rank r
 * is on host hosts[r] at coords[r*ndims .. r*ndims+ndims-1].  shape (ndims sizes,
 * each >= 2 and above every coordinate) gives a bidirectional torus; shape NULL gives
 * the smallest mesh holding every coordinate.  Ranks of one host must agree
 * (PM_ERR_ARG with the two ranks named otherwise). */
int pm_topology_from_coords(int n, const char *const *hosts, int ndims, const int *coords,
                            const int *shape, pm_topology_t **topo, char *errbuf, size_t errlen);

pm_topo_kind_t pm_topology_kind(const pm_topology_t *topo);
int pm_topology_nhosts(const pm_topology_t *topo);
int pm_topology_nswitches(const pm_topology_t *topo);
/* Directed links: each physical link l gives directed links 2l (a->b) and 2l+1 (b->a). */
int pm_topology_ndirected_links(const pm_topology_t *topo);
/* Name of host i (0 <= i < nhosts), NULL if out of range.  Owned by topo. */
const char *pm_topology_host_name(const pm_topology_t *topo, int i);
/* Torus geometry: ndims, dims[ndims], wrap (1 torus, 0 mesh), bidir (1/0).
 * PM_ERR_UNSUPPORTED for non-torus topologies.  dims may be NULL. */
int pm_topology_torus_shape(const pm_topology_t *topo, int *ndims, int *dims, int maxdims,
                            int *wrap, int *bidir);
/* Coordinates of a host's router (torus topologies). */
int pm_topology_host_coords(const pm_topology_t *topo, const char *host, int *coords,
                            int maxdims);
/* Up*-down* root switch by name (default: lowest switch id = first declared). */
int pm_topology_set_updown_root(pm_topology_t *topo, const char *switch_name);

/* Directed link info: endpoints as node names and class. */
int pm_link_info(const pm_topology_t *topo, int directed_link, const char **from,
                 const char **to, int *link_class);

/* Route between two hosts as a sequence of directed link ids (injection and
 * ejection links included; same host -> 0 links).  *nlinks receives the length;
 * PM_ERR_ARG if maxlinks is too small.  Deterministic. */
int pm_route(const pm_topology_t *topo, pm_routing_t routing, const char *src_host,
             const char *dst_host, int *links, int maxlinks, int *nlinks);
/* 1 if directed link is "up" under up*-down* (towards the root), else 0; <0 on error. */
int pm_updown_is_up(const pm_topology_t *topo, int directed_link);

/* ---------------------------------------------------------------------------
 * B2. Write a topology in ibnetdiscover format (for the generator and tools).
 * C.  Random irregular topology (seed 001 sec 6.3): s switches with k ports,
 *     p hosts, connectivity percentage (of the s*k - p free switch ports that
 *     get linked), seed.  Connected, no self links, at most one link per port.
 *     *out is malloc'ed ibnetdiscover text (free with pm_free()).
 * ------------------------------------------------------------------------- */
int pm_generate_irregular(int switches, int ports, int hosts, int connectivity_pct,
                          uint64_t seed, char **out);
int pm_generate_irregular_file(int switches, int ports, int hosts, int connectivity_pct,
                               uint64_t seed, const char *path);
void pm_free(void *p);

/* ---------------------------------------------------------------------------
 * D. Orderings
 * ------------------------------------------------------------------------- */
typedef enum {
    PM_ORDER_AUTO = 0,     /* DOR on tori, fat-tree labels on fat-trees, POC otherwise */
    PM_ORDER_DOR = 1,      /* dimension-ordered chain, dimension 0 most significant */
    PM_ORDER_SNAKE = 2,    /* Hamiltonian snake (reflected mixed-radix Gray) ranking */
    PM_ORDER_POC = 3,      /* DFS over up*-down* down links from the root (seed 001 Fig 13) */
    PM_ORDER_FATTREE = 4,  /* fat-tree label order p0 p1 ... pn-1 */
    PM_ORDER_TOUR = 5      /* irregular graphs: a Hamiltonian path of the switch graph from the
                            * root's switch, hosts of a switch together, where its chain loads
                            * the busiest directed link less than POC's (else POC) */
} pm_order_kind_t;

/* The ordering PM_ORDER_AUTO stands for on this topology (DOR on tori, fat-tree labels on
 * fat-trees, TOUR on other switch graphs), and an ordering's name ("auto", "dor", "snake",
 * "poc", "fattree", "tour"; NULL for an unknown kind). */
pm_order_kind_t pm_order_auto(const pm_topology_t *topo);
const char *pm_order_name(pm_order_kind_t kind);

/*
 * hosts[r] is the host of group rank r (several ranks may share a host).
 * root: a group rank to put first (the chain is then relative to the root:
 * torus coordinates are taken modulo the ring from the root's, POC and label
 * orders are rotated), or -1 for the absolute order.  Ranks on one host stay
 * consecutive in rank order.  Unknown host -> PM_ERR_NOTFOUND with the name in
 * errbuf.
 */
int pm_order_hosts(const pm_topology_t *topo, pm_order_kind_t kind, int n,
                   const char *const *hosts, int root, int *ordering,
                   char *errbuf, size_t errlen);

/* Hierarchical order: node-major, then package (socket), numa, core, rank. */
typedef struct pm_locality {
    int host_id;
    int package_id;
    int numa_id;
    int core_id;
} pm_locality_t;
int pm_order_hierarchical(int n, const pm_locality_t *loc, int *ordering);

/* ---------------------------------------------------------------------------
 * E. Contention checker
 * ------------------------------------------------------------------------- */
typedef struct pm_msg {
    int step;   /* >= 0 */
    int src;    /* group rank */
    int dst;    /* group rank */
} pm_msg_t;

/*
 * Routes every message host(src) -> host(dst) and counts, for each step s,
 * the conflicting pairs: sum over directed links of C(c, 2) where c is the
 * number of step-s messages using the link.  conflicts[0..nsteps-1] receives
 * the per-step counts (nsteps must exceed the largest step), *total their sum.
 */
int pm_check_contention(const pm_topology_t *topo, pm_routing_t routing, int n,
                        const char *const *hosts, int nmsgs, const pm_msg_t *msgs,
                        int nsteps, long *conflicts, long *total,
                        char *errbuf, size_t errlen);

/*
 * FPFS single-packet schedule of a tree: the root holds the message at step 0;
 * a node that holds it at step t sends to its j-th child (j = 0, 1, ...) in
 * step t + j, and that child holds it from step t + j + 1.  *msgs is malloc'ed
 * (free with pm_free()), *nmsgs = n - 1, *nsteps = last step + 1.
 */
int pm_plan_from_tree(const kb_tree_t *tree, pm_msg_t **msgs, int *nmsgs, int *nsteps);

void pm_tree_free(kb_tree_t *tree);

/* ---------------------------------------------------------------------------
 * F. Torus multicast family (seed 002) and G. registry
 * ------------------------------------------------------------------------- */
typedef enum {
    PM_TORUS_SEPARATE = 0,
    PM_TORUS_UTORUS = 1,
    PM_TORUS_STORUS = 2,
    PM_TORUS_MDTORUS = 3,
    PM_TORUS_MUTORUS = 4,
    PM_TORUS_NALGS = 5
} pm_torus_alg_t;

typedef struct pm_torus_algorithm {
    int id;                   /* pm_torus_alg_t */
    const char *name;         /* "separate", "utorus", ... */
    const char *description;
} pm_torus_algorithm_t;

int pm_torus_algorithm_count(void);
/* NULL if out of range. */
const pm_torus_algorithm_t *pm_torus_algorithm_get(int index);
/* Id of the algorithm called `name`, PM_ERR_NOTFOUND if unknown. */
int pm_torus_algorithm_lookup(const char *name);

#define PM_MAX_DIMS 8

typedef struct pm_torus_shape {
    int ndims;               /* 1..PM_MAX_DIMS */
    int dims[PM_MAX_DIMS];   /* k per dimension, >= 2 */
    int wrap;                /* 1 torus, 0 mesh */
    int bidir;               /* 1 bidirectional links, 0 unidirectional (+ direction) */
} pm_torus_shape_t;

typedef struct pm_torus_stats {
    int phases;          /* distinct communication phases (seed sec 3) */
    int steps;           /* FPFS unit steps until the last member holds the message */
    int depth;           /* edges on the deepest root-leaf path */
    int intermediates;   /* h_i: relaying nodes on the deepest path = max(0, depth-1) */
} pm_torus_stats_t;

/*
 * Build algorithm `alg` for a group of n members; member r sits at router
 * coords[r*ndims .. r*ndims+ndims-1] (several members may share a router).
 * r_part: Mu-torus partition length (0 = the largest torus dimension k, as
 * the seed does); ignored by the others.  *tree is over group ranks, children
 * in send order; stats may be NULL.
 */
int pm_torus_build(pm_torus_alg_t alg, const pm_torus_shape_t *shape, int n,
                   const int *coords, int root, int r_part, kb_tree_t **tree,
                   pm_torus_stats_t *stats);

/*
 * Four arc-disjoint spanning trees of a 2D torus rooted at `root` (pm_torus_edst.cpp):
 * bidirectional links with wrap-around, both dimensions >= 3, exactly one member on
 * every router (n = dims[0] * dims[1]).  No arc (one direction of a link) is in two
 * trees; every member has at most four children in all.  trees[i] over group ranks,
 * children in send order; free each with pm_tree_free.  PM_ERR_UNSUPPORTED (reason in
 * errbuf) when the torus does not qualify.
 */
#define PM_EDST_TREES 4
int pm_torus_edst(const pm_torus_shape_t *shape, int n, const int *coords, int root,
                  kb_tree_t *trees[PM_EDST_TREES], char *errbuf, size_t errlen);

/* Stats of an arbitrary tree (phases reported as 0: unknown for foreign trees). */
int pm_tree_stats(const kb_tree_t *tree, pm_torus_stats_t *stats);

/*
 * Latency model (seed 002 eqs. 6-12, microseconds):
 *   L_i(alg)  = 2 o + t_process(alg)
 *   separate  : t = (G-1)(o + t_process) + o           + beta*M*steps
 *   others    : t = 2 o + h_i * L_i                     + beta*M*steps
 * where h_i is the number of intermediate nodes on the deepest path and steps
 * the serialised sends on the critical path (stats.steps; = G-1 for separate).
 * The beta term is ours (store-and-forward bandwidth for large messages).
 */
typedef struct pm_torus_model {
    double o_us;                            /* send = receive overhead */
    double t_process_us[PM_TORUS_NALGS];    /* per-algorithm processing time */
    double beta_us_per_byte;                /* per byte per serialised send */
} pm_torus_model_t;

/* Seed 002 Table 1 and Fig. 8 (SCI, 128-byte messages): o = 1.994 us,
 * t_process = 7, 629, 265, 206, 201 us; beta = 1/(200 MB/s). */
void pm_torus_model_default(pm_torus_model_t *model);
/* Predicted time of a built tree; -1 on bad input. */
double pm_torus_predict_us(pm_torus_alg_t alg, const pm_torus_stats_t *stats, int G,
                           size_t bytes, const pm_torus_model_t *model);
/* Build every algorithm and return the fastest (ties -> lower id). */
int pm_torus_choose(const pm_torus_shape_t *shape, int n, const int *coords, int root,
                    size_t bytes, const pm_torus_model_t *model, pm_torus_alg_t *best,
                    double *predicted_us);

#ifdef __cplusplus
}
#endif
#endif /* PATHMC_H */
