/*
 * Switch-based multidestination worms on irregular up*-down* networks
 * (seed 001 sec. 5: Sivaram, Kesavan, Panda, Stunkel): worm kinds and their
 * header encodings, decoding at a switch, the POC finder of Fig. 13, the
 * Greedy and Less-Greedy phase schedules (Figs. 15-16), reachability strings
 * (Fig. 18) for one-phase tree-based worms with header modification, the
 * checks (exact cover, legal up*-down* routes, no cyclic channel dependency
 * in a phase), and the product's software rendering of an LG plan as a tree.
 *
 * Same conventions as pathmc.h: pure C++17 behind a C API, PM_ERR_* codes,
 * errbuf receives a message.  Hosts are named by their index in the topology
 * (0 <= h < pm_topology_nhosts, the order of pm_topology_host_name); switches
 * by their index 0 <= s < pm_topology_nswitches (declaration order, the order
 * the up*-down* "lower id" rule uses).  "Processor" in the seed = host here.
 *
 * Header encodings (bytes, bits most significant first):
 *   byte 0              kind: 0x80 multidestination tag, 0x40 tree-based,
 *                       0x20 up/down bit (tree-based: 1 = still going up)
 *   SSR / multi-drop    byte 1: number of (switch, port string) pairs, then
 *                       per pair: switch id (16 bits, big endian) and a p-bit
 *                       string (ceil(p/8) bytes, bit i = port i of that switch,
 *                       p = the switch's port count) marking the host ports the
 *                       worm drops a copy to.  SSR is the one-pair case.
 *   tree-based          an N-bit destination string (ceil(N/8) bytes, bit h =
 *                       host h, N = number of hosts).
 * Decoding (seed sec. 5.2.3, 5.3.3): a multi-drop worm at a switch other than
 * its first pair's goes on towards it by minimal up*-down* routing (down links
 * only once it has gone down); at that switch it drops copies to the marked
 * host ports, strips the pair and goes on to the next pair's switch.  A
 * tree-based worm going up turns down where the switch's total reachability
 * string covers its header, else takes the first up port; going down it is
 * replicated to every down port whose restricted reachability string meets
 * the header, each copy carrying header AND that string (header modification).
 */
#ifndef PM_WORMS_H
#define PM_WORMS_H

#include <stddef.h>
#include <stdint.h>
#include "pathmc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    PM_WORM_SSR = 0,   /* single switch replication: destinations on one switch */
    PM_WORM_PATH = 1,  /* multi-drop path-based worm along a POC (Definition 3) */
    PM_WORM_TREE = 2   /* bit-string encoded tree-based worm (sec. 5.3) */
} pm_worm_kind_t;

typedef enum {
    PM_PHASE_GREEDY = 0,       /* every covered destination sends in the next step */
    PM_PHASE_LESS_GREEDY = 1   /* one sender per covered switch per step */
} pm_phase_alg_t;

/* Name of switch s (0 <= s < nswitches), NULL if out of range.  Owned by topo. */
const char *pm_topology_switch_name(const pm_topology_t *topo, int s);
/* Index of the switch at the other end of a host's link, <0 on error. */
int pm_topology_host_switch(const pm_topology_t *topo, int host);
/* Ports (0-based) a directed link leaves from and arrives at (either may be NULL). */
int pm_link_ports(const pm_topology_t *topo, int dlink, int *from_port, int *to_port);

/* ---------------------------------------------------------------------------
 * POC finder (Fig. 13).  T: the DAG of down links between BFS levels as the
 * DFS from the root meets them (children in port order); T': T reduced to the
 * participating switches (a switch with a destination or the source): an edge
 * a -> b where T has a path from a to b through non-participating switches
 * only; weights wt(s) = participating hosts on s and its T' descendants;
 * chains stripped heaviest first, each continued by its heaviest remaining T'
 * child.  Ties go to the lower switch index.  Weights are computed once
 * (step 4) and not updated while chains are stripped (step 5).
 * ------------------------------------------------------------------------- */
typedef struct pm_poc {
    int nswitches;
    int ndfs;
    int *dfs;          /* [ndfs] switches in DFS preorder from the root */
    int *t_off;        /* [nswitches+1] CSR: children of s in T */
    int *t_adj;
    int *rho;          /* [nswitches] participating hosts on s (source included) */
    int *tp_off;       /* [nswitches+1] CSR: children of s in T' (empty if s does not participate) */
    int *tp_adj;
    int *weight;       /* [nswitches] wt(s), 0 if s does not participate */
    int nchains;
    int *chain_off;    /* [nchains+1] CSR: the chains in stripping order */
    int *chains;
} pm_poc_t;

int pm_poc_find(const pm_topology_t *topo, int src_host, int ndst, const int *dst_hosts,
                pm_poc_t **poc, char *errbuf, size_t errlen);
void pm_poc_free(pm_poc_t *poc);

/* ---------------------------------------------------------------------------
 * Multi-phase plans (sec. 5.2.4-5.2.5).  Worms: one per POC with a
 * destination (PM_WORM_PATH) or one per participating switch in POC order
 * (PM_WORM_SSR), stably sorted by decreasing destination count.  Greedy: in
 * step 0 the source sends the first worm; in every later step each holder
 * (the source, then the destinations in the order they were covered) sends
 * the next worm of the list.  Less-Greedy: the same, but only the source and
 * the first covered destination of each covered switch send.
 * ------------------------------------------------------------------------- */
typedef struct pm_worm {
    pm_worm_kind_t kind;
    int phase;        /* step in which it is sent, 0-based */
    int sender;       /* host (pm_mcast_plan) or group rank (pm_pathlg_render) */
    int ndests;
    int *dests;       /* destinations in drop order, same index space as sender */
    int nswitches;
    int *switches;    /* switches it drops at, in order (switch indices) */
} pm_worm_t;

typedef struct pm_mcast_plan {
    pm_worm_kind_t kind;
    pm_phase_alg_t alg;
    int source;       /* same index space as the worms' senders */
    int nphases;
    int nworms;
    pm_worm_t *worms; /* by phase, then sender order */
} pm_mcast_plan_t;

int pm_mcast_plan(const pm_topology_t *topo, pm_worm_kind_t kind, pm_phase_alg_t alg,
                  int src_host, int ndst, const int *dst_hosts, pm_mcast_plan_t **plan,
                  char *errbuf, size_t errlen);
void pm_mcast_plan_free(pm_mcast_plan_t *plan);
/* Human-readable plan, one worm per line (malloc'ed, free with pm_free):
 *   is_hosts = 1 (pm_mcast_plan, host indices printed by name):
 *     "phase 0: p10.1 -> s5[p5.1 p5.2] s3[p3.1 p3.2] s9[p9.1 p9.2]"
 *   is_hosts = 0 (pm_pathlg_render, group ranks):
 *     "phase 0: r0 -> r9 r10 r5 r6 r17 r18 via s5 s3 s9"                  */
char *pm_mcast_plan_describe(const pm_topology_t *topo, const pm_mcast_plan_t *plan, int is_hosts);

/* ---------------------------------------------------------------------------
 * Headers, reachability, decoding.
 * ------------------------------------------------------------------------- */
/* Encode a worm's header (SSR/PATH: its switches and drop ports; TREE: the
 * destination bit string with the up bit set).  *len receives the length;
 * PM_ERR_ARG if cap is too small (with *len set). */
int pm_worm_encode(const pm_topology_t *topo, const pm_worm_t *worm, uint8_t *buf, size_t cap,
                   size_t *len);
int pm_tree_header_encode(const pm_topology_t *topo, int ndst, const int *dst_hosts, uint8_t *buf,
                          size_t cap, size_t *len);

/* Reachability strings (Fig. 18): total string per switch, restricted string
 * per switch port (down ports only; up ports are all zero).  Strings are
 * N-bit host sets as in the tree header (ceil(N/8) bytes). */
typedef struct pm_reach pm_reach_t;
int pm_reach_build(const pm_topology_t *topo, pm_reach_t **reach);
void pm_reach_free(pm_reach_t *reach);
size_t pm_reach_bytes(const pm_reach_t *reach);
int pm_reach_total(const pm_reach_t *reach, int sw, uint8_t *bits);
int pm_reach_port(const pm_reach_t *reach, int sw, int port, uint8_t *bits);
/* Unrestricted per-port string (before step 2 of Fig. 18). */
int pm_reach_port_full(const pm_reach_t *reach, int sw, int port, uint8_t *bits);

/* One copy leaving a switch: directed link (pathmc.h numbering), the output
 * port, and its header at hdr_off/hdr_len in the caller's byte buffer. */
typedef struct pm_decode_out {
    int dlink;
    int port;
    int to_host;      /* host index if the port leads to a host, else -1 */
    size_t hdr_off;
    size_t hdr_len;
} pm_decode_out_t;

/* Decode a header arriving at switch sw over directed link in_dlink.  reach is
 * needed for tree-based headers (NULL otherwise); modify = 0 forwards the
 * unmodified header to every copy (to show Fig. 17(b)'s duplicates).
 * PM_ERR_ARG if maxouts or hdrcap is too small. */
int pm_worm_decode(const pm_topology_t *topo, const pm_reach_t *reach, int sw, int in_dlink,
                   const uint8_t *hdr, size_t len, int modify, pm_decode_out_t *outs, int maxouts,
                   int *nouts, uint8_t *hdrbuf, size_t hdrcap);

/* Follow a worm from its source host through every switch by decoding.
 * copies[h] (nhosts entries) receives how many copies host h got; links (may
 * be NULL) the directed links used, each copy's traversal once, *nlinks their
 * number.  PM_ERR_UNSUPPORTED if the worm loops (more hops than 4 x switches). */
int pm_worm_trace(const pm_topology_t *topo, const pm_reach_t *reach, int src_host,
                  const uint8_t *hdr, size_t len, int modify, int *copies, int *links, int maxlinks,
                  int *nlinks);

/* ---------------------------------------------------------------------------
 * Checks.
 * ------------------------------------------------------------------------- */
typedef struct pm_plan_check {
    int missing;          /* destinations never covered */
    int duplicates;       /* extra copies (a destination covered twice counts 1) */
    int strays;           /* copies to hosts outside the destination set */
    int not_ready;        /* worms whose sender does not hold the message in that phase */
    int illegal_routes;   /* worms whose route takes an up link after a down link */
    int cyclic_phases;    /* phases whose worms' channel dependencies form a cycle */
} pm_plan_check_t;

/* All checks on a pm_mcast_plan (host index space).  PM_OK when the checks
 * ran (look at *report: all zero = correct plan). */
int pm_mcast_plan_check(const pm_topology_t *topo, const pm_mcast_plan_t *plan, int src_host,
                        int ndst, const int *dst_hosts, pm_plan_check_t *report, char *errbuf,
                        size_t errlen);
/* 1 if the directed links (switch-to-switch; host links are ignored) never
 * take an up link after a down link, 0 if they do, <0 on error. */
int pm_route_is_updown(const pm_topology_t *topo, const int *links, int nlinks);
/* 1 if the channel dependency graph of these worms (each copy: its input link
 * -> each output link at every switch) has a cycle, 0 if not.  Worms are given
 * as headers from source hosts (tree-based ones with reach). */
int pm_worms_cyclic(const pm_topology_t *topo, const pm_reach_t *reach, int nworms,
                    const int *src_hosts, const uint8_t *const *hdrs, const size_t *lens);

/* ---------------------------------------------------------------------------
 * The product's rendering (registry name "pathlg"): the LG (or Greedy) plan
 * of path-based worms over the group's hosts, rendered in software as a tree
 * over group ranks: each worm is a chain sender -> d1 -> d2 ... through its
 * destinations in POC order (one host write per hop); a destination's children
 * are its chain successor first, then the first destination of each worm it
 * sends in later phases, then the other ranks on its host.  Ranks sharing a
 * host: the lowest rank (the root on the root's host) stands for the host.
 * Predicted time: FPFS unit steps of the tree for m = ceil(bytes/seg)
 * segments (the count kb_sim_steps simulates, from Lemma 1 in closed form:
 * max over ranks of first arrival + (m-1) x largest ancestor fan-out), times
 * alpha + beta*seg; seg is searched over powers of two in [min_seg_bytes,
 * max_seg_bytes] and bytes itself.
 * Chain hops follow down* paths along disjoint POCs and never share a link in
 * a step (Theorem 4); a worm's first hop can: when the contention checker
 * finds conflicts, worms are reassigned among the holders eligible in their
 * phase (at most min(600, 200000/n) trials) while the count drops; `conflicts`
 * is what is left.
 * ------------------------------------------------------------------------- */
typedef struct pm_pathlg_params {
    pm_worm_kind_t kind;           /* PM_WORM_PATH (the seed's choice) or PM_WORM_SSR */
    pm_phase_alg_t alg;            /* PM_PHASE_LESS_GREEDY (the seed's choice) or GREEDY */
    size_t bytes;                  /* message size */
    kb_linear_model_t model;       /* step time alpha + beta * segment */
    size_t min_seg_bytes;          /* 0, 0: unsegmented */
    size_t max_seg_bytes;
} pm_pathlg_params_t;

typedef struct pm_pathlg_result {
    kb_tree_t *tree;               /* over group ranks, children in send order; pm_tree_free */
    pm_mcast_plan_t *plan;         /* worms over group ranks (host representatives) */
    size_t seg_bytes;              /* chosen segment size (bytes if unsegmented) */
    long steps;                    /* FPFS unit steps for ceil(bytes/seg_bytes) segments */
    double predicted_us;           /* steps * (alpha + beta * seg_bytes) */
    long conflicts;                /* link conflicts left in the tree's FPFS steps
                                      (pm_check_contention on pm_plan_from_tree) */
} pm_pathlg_result_t;

/* Defaults: PATH, LESS_GREEDY, bytes 0, the kbinomial defaults alpha 2 us,
 * beta 0.1 ns/B, unsegmented. */
void pm_pathlg_params_default(pm_pathlg_params_t *params);
/* hosts[r]: host name of group rank r (several ranks may share a host);
 * root: group rank of the source.  The topology must be an irregular switch
 * graph (PM_TOPO_GRAPH; PM_ERR_UNSUPPORTED otherwise); unknown host names give
 * PM_ERR_NOTFOUND.  On success *out owns tree and plan (pm_pathlg_result_free). */
int pm_pathlg_render(const pm_topology_t *topo, int n, const char *const *hosts, int root,
                     const pm_pathlg_params_t *params, pm_pathlg_result_t *out, char *errbuf,
                     size_t errlen);
void pm_pathlg_result_free(pm_pathlg_result_t *out);

#ifdef __cplusplus
}
#endif
#endif /* PM_WORMS_H */
