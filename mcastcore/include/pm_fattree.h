/*
 * coll_pathmc core: cyclic multicast on m-port n-tree InfiniBand fat-trees
 * IBFT(m, n) (seed 004: Zhou, Lin, Chung, "Hardware supported multicast in
 * fat-tree-based InfiniBand networks").
 *
 * Pure C++17 behind this C API (no MPI, no OpenSM): every entry point
 * validates its arguments and returns PM_OK or a PM_ERR_* code of pathmc.h;
 * C++ exceptions never cross it.  The model is arithmetic (no graph object):
 * a pm_ft_t is a small value the caller owns.
 *
 * ---------------------------------------------------------------------------
 * Model (seed sec 2.2).  h = m/2.
 *   processing node P(p0 p1 ... pn-1), p0 in 0..m-1, pi in 0..h-1 (i >= 1);
 *     2 h^n nodes, PID(P(p)) = sum pi h^(n-1-i) (Definition 4), 0..2h^n-1.
 *   switch SW<w, l>, w = w0 ... wn-2, level l in 0..n-1 (0 = top):
 *     level 0: w in {0..h-1}^(n-1)            h^(n-1) switches
 *     level l >= 1: w0 in 0..m-1, wi in 0..h-1  2 h^(n-1) switches
 *   ports 1..m.  SW<w,l> port w'_l + 1 -- SW<w',l+1> port w_l + h + 1 when w
 *   and w' agree except at digit l; SW<w,n-1> port pn-1 + 1 -- P(p) when
 *   w = p0 ... pn-2.  Level 0 has m down ports, other levels ports 1..h go
 *   down and h+1..m go up.  Switch ids: level-major, inside a level w read as
 *   a mixed-radix number (w0 most significant).
 *
 *          IBFT(4, 3): 20 switches, 16 nodes (ports: 1 2 down, 3 4 up)
 *   level 0    SW<00,0>   SW<01,0>   SW<10,0>   SW<11,0>
 *   level 1    SW<00,1> SW<01,1> SW<10,1> SW<11,1> ... SW<30,1> SW<31,1>
 *   level 2    SW<00,2> SW<01,2> SW<10,2> SW<11,2> ... SW<30,2> SW<31,2>
 *   nodes      P(000) P(001)  P(010) P(011)  ...          P(310) P(311)
 *
 * LIDs (sec 3.1): LMC = log2(h^(n-1)), every node owns 2^LMC consecutive LIDs
 * BaseLID .. BaseLID + 2^LMC - 1.  The seed numbers them BaseLID = 2^LMC PID + 1
 * (PM_FT_LIDS_SEED: P(300) on IBFT(4,3) owns 49..52).  InfiniBand requires the
 * base LID of a port with LMC > 0 to have its LMC low bits clear and LID 0 is
 * reserved, so OpenSM cannot assign the seed's LIDs; PM_FT_LIDS_IBA shifts the
 * same layout by one block: BaseLID = 2^LMC (PID + 1) (P(300) owns 52..55).
 * Either way a LID is (owner PID, rank = LID - BaseLID), and every rule below is
 * stated in (PID, rank), so both layouts give the same paths.
 *
 * Cyclic path selection (sec 3.2): a source P(s) sending to P(p) with
 * alpha = |gcp(s, p)| uses rank(gcpg(s0 .. s_alpha, alpha + 1), P(s)), i.e. the
 * number written by its own digits s_alpha+1 .. s_n-1; sources with the same
 * lca level and the same suffix of length n - alpha - 1 form a cyclic group and
 * use the same LID.  One-to-one tables (sec 3.3.1): at SW<w, l>, a LID whose
 * owner P(p) lies below (w0 .. wl-1 = p0 .. pl-1) leaves on port pl + 1 (eq. 1),
 * any other LID of rank r goes up on port r_(l-1) + h + 1, where r_j is digit j
 * of r written with n-1 base-h digits (eq. 2).  Consequence used throughout:
 * source P(s) always climbs the same chain SW<s0..s_l-1 s_l+1..s_n-1, l>, so the
 * union of its routes to any member set is a tree that never splits while
 * ascending; the multicast table for (source, members) is that union (sec 3.3.2).
 * ------------------------------------------------------------------------- */
#ifndef PM_FATTREE_H
#define PM_FATTREE_H

#include <stddef.h>
#include <stdint.h>

#include "pathmc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PM_FT_MAX_N 8          /* tree height n */
#define PM_FT_MAX_M 62         /* ports per switch: a port set fits a uint64_t (bits 0..m) */
#define PM_FT_MAX_NODES (1 << 20)

typedef enum {
    PM_FT_LIDS_SEED = 0,   /* BaseLID = 2^LMC PID + 1   (seed sec 3.1) */
    PM_FT_LIDS_IBA = 1     /* BaseLID = 2^LMC (PID + 1) (aligned, what OpenSM can assign) */
} pm_ft_lid_layout_t;

typedef struct pm_ft {
    int m, n, half;        /* IBFT(m, n), half = m/2 */
    int lmc;               /* log2(half^(n-1)) */
    int lids_per_node;     /* 2^lmc */
    int nnodes;            /* 2 half^n */
    int nswitches;         /* (2n - 1) half^(n-1) */
    int lid_origin;        /* BaseLID(P(0...0)): 1 (seed) or 2^lmc (IBA) */
    pm_ft_lid_layout_t layout;
} pm_ft_t;

/* m even, 2 <= m <= PM_FT_MAX_M, m/2 a power of two (LMC is an integer),
 * 1 <= n <= PM_FT_MAX_N, at most PM_FT_MAX_NODES nodes. */
int pm_ft_init(pm_ft_t *ft, int m, int n, pm_ft_lid_layout_t layout);

/* ---------------------------------------------------------------- labels */
/* digits[0..n-1] of P(pid) and back. */
int pm_ft_node_digits(const pm_ft_t *ft, int pid, int *digits);
int pm_ft_node_pid(const pm_ft_t *ft, const int *digits);   /* PID, or PM_ERR_ARG */
/* "300" (one character per digit, m <= 10 only), "3.0.0", "3-0-0", "p3-0-0",
 * "P(300)" -> PID; PM_ERR_ARG if malformed or out of range. */
int pm_ft_node_parse(const pm_ft_t *ft, const char *text);
/* Seed label "300" (digits concatenated when m <= 10, else "12.3.0"). */
int pm_ft_node_label(const pm_ft_t *ft, int pid, char *buf, size_t len);
/* Host name as in the native "fattree" topology and our net files: "p3-0-0". */
int pm_ft_node_name(const pm_ft_t *ft, int pid, char *buf, size_t len);

int pm_ft_switch_id(const pm_ft_t *ft, int level, const int *w);   /* id, or PM_ERR_ARG */
int pm_ft_switch_coords(const pm_ft_t *ft, int sw, int *level, int *w);   /* w[0..n-2] */
/* "SW<20,1>" (seed notation, digits as in pm_ft_node_label). */
int pm_ft_switch_label(const pm_ft_t *ft, int sw, char *buf, size_t len);
/* "sw2-0.1" (native topology and net files). */
int pm_ft_switch_name(const pm_ft_t *ft, int sw, char *buf, size_t len);
/* "sw2-0.1" or "SW<20,1>" -> id. */
int pm_ft_switch_parse(const pm_ft_t *ft, const char *text);

/* ---------------------------------------------------------------- ports */
typedef struct pm_ft_peer {
    int is_node;   /* 1: a processing node (id = PID, port = 1); 0: a switch */
    int id;
    int port;      /* port number on the peer */
} pm_ft_peer_t;
int pm_ft_port_peer(const pm_ft_t *ft, int sw, int port, pm_ft_peer_t *peer);
/* 1 if port leads to a higher switch (lower level number), 0 if down. */
int pm_ft_port_is_up(const pm_ft_t *ft, int sw, int port);
/* Leaf switch and port of P(pid). */
int pm_ft_node_attach(const pm_ft_t *ft, int pid, int *sw, int *port);

/* ---------------------------------------------------------------- Definitions 1-4 */
int pm_ft_gcp(const pm_ft_t *ft, int a, int b);   /* alpha = |gcp|, n if a == b */
/* lca(P(a), P(b)) = {SW<w, alpha> : w0..w_alpha-1 = a0..a_alpha-1}; ids ascending
 * into ids[0..max-1], *count their number (half^(n-1-alpha)); returns alpha.
 * PM_ERR_ARG if a == b (no common ancestor switch level). */
int pm_ft_lca(const pm_ft_t *ft, int a, int b, int *ids, int max, int *count);
/* rank(gcpg(x, alpha), P(pid)) = sum_{i >= alpha} pi half^(n-1-i); alpha 0 gives the PID. */
long pm_ft_gcpg_rank(const pm_ft_t *ft, int pid, int alpha);
long pm_ft_gcpg_size(const pm_ft_t *ft, int alpha);   /* nodes in one gcpg(x, alpha) */

/* ---------------------------------------------------------------- LIDs, cyclic groups */
int pm_ft_base_lid(const pm_ft_t *ft, int pid);
/* Owner and rank of a node LID; PM_ERR_NOTFOUND if no node owns it. */
int pm_ft_lid_owner(const pm_ft_t *ft, int lid, int *pid, int *rank);
/* CG(P(dst), level, y) of source P(src): level = lca level (= |gcp|), y = the
 * last n - level - 1 digits of src as a number (*suffix), *suffix_len digits. */
int pm_ft_cyclic_group(const pm_ft_t *ft, int dst, int src, int *level, int *suffix, int *suffix_len);
/* Members of CG(P(dst), level, suffix), ascending PIDs. */
int pm_ft_cyclic_group_members(const pm_ft_t *ft, int dst, int level, int suffix, int *out, int max,
                               int *count);
int pm_ft_select_rank(const pm_ft_t *ft, int src, int dst);   /* rank of dst's LID src uses */
int pm_ft_select_lid(const pm_ft_t *ft, int src, int dst);

/* ---------------------------------------------------------------- forwarding */
/* Output port at switch sw for LID rank `rank` of P(dst) (eqs. 1, 2). */
int pm_ft_lft_port(const pm_ft_t *ft, int sw, int dst, int rank);
int pm_ft_lft_port_lid(const pm_ft_t *ft, int sw, int lid);
/* Ports towards switch `target` at every switch (min hop, lowest port first;
 * 0 at target itself): port_at[nswitches].  For switch LIDs in real tables. */
int pm_ft_switch_route_ports(const pm_ft_t *ft, int target, unsigned char *port_at);

typedef struct pm_ft_hop {
    int sw, in_port, out_port;
} pm_ft_hop_t;
/* Route of a packet from P(src) with DLID lid, following the one-to-one tables. */
int pm_ft_route(const pm_ft_t *ft, int src, int lid, pm_ft_hop_t *hops, int max, int *nhops);

/* ---------------------------------------------------------------- multicast tables */
/* A multicast forwarding table: mft[sw] is a port set, bit k = port k. */
typedef enum {
    PM_FT_MFT_UNION = 0,   /* seed sec 3.3.2: union of the output ports of the routes */
    PM_FT_MFT_TREE = 1     /* InfiniBand form: also each switch's arrival port and the
                              source's own port, so any member may send on it */
} pm_ft_mft_form_t;
/* Cyclic MFT of one source and a member set (the source may be listed). */
int pm_ft_mft_cyclic(const pm_ft_t *ft, int src, const int *members, int nmembers,
                     pm_ft_mft_form_t form, uint64_t *mft);
/* The MFT of one InfiniBand group (one MLID) whose senders are `sources`: the
 * union of the sources' cyclic trees when every source then reaches every other
 * port exactly once, else the cyclic tree of the first source (the sources are
 * members of the group; ports = members).  *tree_src = -1 for the union, else
 * the source whose tree was used. */
int pm_ft_mft_group(const pm_ft_t *ft, const int *sources, int nsources, const int *members,
                    int nmembers, uint64_t *mft, int *tree_src);
/* OpenSM 3.3's scheme: one spanning tree rooted at the switch whose largest hop
 * count to a member (+1 for a node) is smallest (ties: lowest switch id), each
 * member reached from there on the first least-hop port; switch arrival ports
 * and member ports set.  *root may be NULL. */
int pm_ft_mft_opensm(const pm_ft_t *ft, const int *members, int nmembers, uint64_t *mft, int *root);

/* ---------------------------------------------------------------- checks, loads */
/* Directed links: out of switch sw port k (1..m): sw*m + k-1; out of node P(pid)
 * into its leaf switch: nswitches*m + pid. */
int pm_ft_ndlinks(const pm_ft_t *ft);
int pm_ft_dlink_info(const pm_ft_t *ft, int dlink, int *is_node, int *id, int *port);

typedef struct pm_ft_check {
    int reached;      /* members (other than the source) that got exactly one copy */
    int missed;       /* members that got none */
    int duplicated;   /* members that got more than one */
    int spurious;     /* nodes outside the member set that got a copy */
    int up_splits;    /* switch arrivals forwarded on more than one up port */
    int down_up;      /* arrivals from above forwarded up again */
    int revisits;     /* switch arrivals beyond the first (duplication in the fabric) */
    int loop;         /* 1: forwarding did not stop within (nswitches + nnodes) m arrivals */
    long copies;      /* directed links traversed */
} pm_ft_check_t;
/* Forward one packet from P(src) as InfiniBand does (every port of the MFT
 * except the arrival port).  load (may be NULL) += 1 per traversed directed
 * link.  A correct multicast: missed = duplicated = spurious = up_splits =
 * down_up = revisits = loop = 0. */
int pm_ft_mft_check(const pm_ft_t *ft, const uint64_t *mft, int src, const int *members,
                    int nmembers, pm_ft_check_t *res, long *load);
/* load += 1 on every directed link of the unicast route P(src) -> DLID lid. */
int pm_ft_route_load(const pm_ft_t *ft, int src, int lid, long *load);

/* Multicast schemes compared in the seed (sec 4) plus the InfiniBand group form. */
typedef enum {
    PM_FT_SCHEME_CYCLIC = 0,        /* one cyclic table per source (the seed's: an MLID per source) */
    PM_FT_SCHEME_CYCLIC_GROUP = 1,  /* one MLID for the group: pm_ft_mft_group (the OpenSM plugin) */
    PM_FT_SCHEME_OPENSM = 2,        /* one shared spanning tree over members and sources */
    PM_FT_SCHEME_UNICAST = 3,       /* a separate unicast copy per member on the cyclic LFTs */
    PM_FT_NSCHEMES = 4
} pm_ft_scheme_t;
const char *pm_ft_scheme_name(pm_ft_scheme_t scheme);   /* "cyclic", ...; NULL if unknown */
int pm_ft_scheme_lookup(const char *name);              /* id or PM_ERR_NOTFOUND */
/* Every source sends one packet to the member set under `scheme`: load[dlink]
 * += packets per directed link; *total (may be NULL) sums the forwarding
 * checks of all sources (unicast: one route per member counts as reached). */
int pm_ft_scheme_load(const pm_ft_t *ft, pm_ft_scheme_t scheme, const int *sources, int nsources,
                      const int *members, int nmembers, long *load, pm_ft_check_t *total);

/* ---------------------------------------------------------------- files */
/* Deterministic GUIDs of our net files: switch node/port GUID, node port GUID
 * (the CA's node GUID is the port GUID - 1, as ibsim numbers CA ports). */
uint64_t pm_ft_switch_guid(const pm_ft_t *ft, int sw);
uint64_t pm_ft_node_port_guid(const pm_ft_t *ft, int pid);
/* GUID -> switch id / PID, PM_ERR_NOTFOUND if not one of ours. */
int pm_ft_guid_lookup(const pm_ft_t *ft, uint64_t guid, int *is_node, int *id);

/* ibsim net file (ibnetdiscover syntax, switchguid=/caguid= lines before each
 * node, names S-sw2-0.1 / H-p3-0-0, descriptions sw2-0.1 / p3-0-0).
 * *out is malloc'ed text, free with pm_free(). */
int pm_ft_write_ibnet(const pm_ft_t *ft, char **out);
/* Switch LIDs: switch_lids[nswitches], or NULL for the default
 * lid_origin + nnodes 2^LMC + sw (right after the node LIDs). */
/* OpenSM guid2lid file: "0xGUID 0xMIN 0xMAX" per port, each entry followed by an
 * empty line (OpenSM's database parser ends an entry at an empty line). */
int pm_ft_write_guid2lid(const pm_ft_t *ft, const int *switch_lids, char **out);
/* Read switch LIDs from a guid2lid text (our GUIDs); node LIDs in it must be
 * the model's (PM_ERR_PARSE with the offending line in errbuf otherwise). */
int pm_ft_read_guid2lid(const pm_ft_t *ft, const char *text, int *switch_lids, char *errbuf,
                        size_t errlen);
/* Unicast tables of every switch in `dump_fts` format (also what OpenSM's
 * `-R file -U` reads): node LIDs by eqs. 1-2, switch LIDs by pm_ft_switch_route_ports. */
int pm_ft_write_lfts(const pm_ft_t *ft, const int *switch_lids, char **out);
/* Multicast tables in `dump_fts -M` format for groups (mlid[g], mft of group g
 * at mfts[g * nswitches ...]). */
int pm_ft_write_mfts(const pm_ft_t *ft, const int *switch_lids, int ngroups, const int *mlids,
                     const uint64_t *mfts, char **out);

#ifdef __cplusplus
}
#endif
#endif /* PM_FATTREE_H */
