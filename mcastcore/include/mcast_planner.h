/*
 * The one planner, the one algorithm registry and the machine model (pure C++17 core,
 * C API, no MPI).  Both components, mcast-inspect, perf/sim and the calibration tool
 * call these functions; nothing else decides how a broadcast runs.
 *
 *   mcast_plan_select(input) -> plan      which algorithm, shape, k, block size, window,
 *                                          sends in flight, predicted time, selected_by
 *   mcast_plan_schedule(plan, rank, M)    this rank's schedule for an M-byte message (the
 *                                          engine of mcast_engine.h runs it)
 *
 * Selection order: forced algorithm (and forced parameters) > decision rules > model.
 * A rule naming MCAST_RULE_PREVIOUS ("previous") hands its size class to the module
 * below ours (Open MPI's own choice): the plan is the model's, with defer set and
 * selected_by "previous:rules:LINE".  Under auto, when the model decides, the planner
 * also predicts what the module below would do (Open MPI 4.1's tuned fixed decision table,
 * modelled as one of our trees on rank order) and defers to it (selected_by "previous")
 * unless our best plan is predicted more than 5 % faster: a call is never served by a
 * plan the model expects to be slower than Open MPI's own.
 * The model predicts what the engine does on the machine model (mcast_loggp_t, one for
 * the network and one inside a node) with the tree recurrence below; every candidate the
 * registry can build is evaluated with it and the fastest wins (ties: registry order).
 *
 * Tree recurrence (FPFS, blocks of S bytes, m = ceil(M/S)).  For an edge u -> c with the
 * model of its kind (inside a node or across nodes):
 *   sigma = o_send + S*gap                          sender's injection per block
 *   delta = o_send + L + S*wire + o_recv + S*recv    send start -> receive complete
 *   occ   = sigma (S <= eager) or delta (rendezvous)  how long the send holds a slot
 * A node u holding block 0 at a(u) starts its i-th copy at
 *   s_i = max(s_{i-1} + sigma_{i-1}, s_{i-max_sends} + occ_{i-max_sends}),  s_0 = a(u)
 * except that where u has all its copies in flight at once (max_sends >= its children),
 * a copy to another node takes max(o_send, S*gap) of the sender instead of sigma (see
 * "Copies at once")
 * and child c_i holds it at a(c_i) = s_i + delta_i.  Blocks then leave u every
 *   P(u) = max(P(parent), sum_i sigma_i, sum_i occ_i / max_sends, o_recv + S*recv)
 * and the broadcast ends at max over leaves l of a(l) + (m - 1) P(l).
 * With the seeds' unit steps (o_send = 1, all else 0) this is L1 + (m-1)k on k-binomial
 * trees; on the LogGP network of the engine's simulator it is exact for a chain and
 * within a few percent elsewhere (tests/unit/test_mc_planner.c asserts both).
 *
 * Schedule families (scatter_allgather, twotree, circulant: mcast_families.h) are
 * predicted by their own cost models (mcast_level_predict_us) on the edge model of the
 * communicator (shm when every rank is on one node, else net, with the receiver's per-byte
 * copy added to the wire), for every block count (mcast_level_best_nblocks, blocks of at
 * least segment_min_bytes) and sends in flight 1 or 2 (max_sends = -1), and compete with
 * the trees on predicted time.  Their plans have no tree; mcast_plan_schedule gives each
 * rank its family schedule on the same chain (ordering) the trees use.
 *
 * Path-based worms rendered in software (`pathlg`, coll/pathmc, seed 001 sec. 5-6; only
 * with input.switch_net): the Less-Greedy phase plan of multi-drop worms along Partial
 * Ordered Chains, each worm a pipelined chain through its destinations (pm_worms.h,
 * pm_pathlg_render), as a tree predicted by the tree recurrence like the others.
 *
 * Hardware multicast (`mcast`, coll/pathmc, only where the glue opened a multicast group
 * on the communicator: input.mcast_transport): the root writes the message once as
 * datagrams of c bytes (c = mcast_chunk_bytes), every rank receives them, the reliable
 * protocol (pm_mcproto.h) acknowledges up a tree:
 *   T = L + max(M * max(gap, wire), ceil(M / c) * max(o_send, o_recv, 2 us)) + ceil(log2 n) * h
 *   h = o_send + L + o_recv            (one ACK hop), net model
 * (2 us: a system call per datagram at least).  Under auto it is a candidate only across
 * nodes (nnodes > 1, not all_local); forced, wherever the group is open.
 * It is not a schedule: mcast_plan_schedule refuses it; the glue runs it on its transport.
 *
 * Shared segment (`shm`, coll/kbinomial, only where every rank is on one node and the glue
 * offers a segment: input.shm_slot_bytes): the root copies the message into a ring of
 * slots, every other rank copies it out (mcast_shm.h, protocol and model), in chunks of
 * C = mcast_shm_chunk_bytes(M, shm_chunk_bytes, shm_slot_bytes, shm_slots, K < n):
 *   T = 2 h + C c + (m - 1) max(C c, C c n / K) + h (m - 1) + C c,   m = ceil(M / C)
 * with c = shm_copy_ns_per_byte, h = shm_handover_us, K = input.node_cores.  Not a
 * schedule either: the glue runs it (MPI_Bcast waiting, MPI_Ibcast from Open MPI's
 * progress engine).
 *
 * Two-level with the node's segment (`twolevel`, intra "shm", transport "pml+shm", where
 * the glue offers a segment per node: input.shm_slot_bytes on a communicator across
 * nodes): the leaders run the inter level (circulant or two-tree, nb blocks) over the
 * PML; each leader publishes a chunk into its node's segment once all of it arrived:
 *   T = max(T_inter + T_shm(ppn, min(C, M)), T_shm(ppn, M))
 * with T_shm the segment's model above over the fullest node's ppn ranks (C as there,
 * K = input.node_cores < ppn filling the ring).  The other ranks of a node have no op in
 * the schedule (MCAST_FAM_NODE_SEGMENT); mcast_plan_node_leader names each node's leader.
 *
 * Link sharing.  Where the input names a topology (input.topology, every rank's host) of
 * more than one switch (on one switch a host link carries only its rank's traffic, which
 * the models above charge already), each plan's traffic is routed (pm_route,
 * PM_ROUTE_DEFAULT) and the time is at least
 *   max over directed links l of B(l) * wire + o_send + L + o_recv     (net model)
 * B(l) being the bytes the plan moves over l: M per tree edge whose route uses l; for a
 * family, every rank's schedule's bytes (computed at up to 32 blocks).  For a pipelined
 * tree, an edge u -> c whose route's busiest link carries s > 1 tree edges passes a block
 * every s S wire at best: the recurrence's P(c) is at least that, so the fill comes on
 * top of the shared link's time and S is chosen with it (evidence E-LINK-2).  The
 * round-synchronous families (circulant, scatter + allgather, and the two-tree on a torus:
 * "Two-tree placement") are also charged the sum over their rounds (mcast_op_t.step) of
 * each round's busiest link, B_t(l) * wire: a round ends with its slowest transfer, and
 * rounds that load different links (a torus's x and y rings) do not overlap; rounds that
 * follow one another (the circulant's, synchronous across nodes; scatter + allgather's,
 * each forwarding what the last brought) also pay one message's overheads and route
 * latency each (rounds x (o_send + L + o_recv)).  On any network the synchronous
 * circulant's rounds cost at least a hop of one block each (rounds x (o_send + L + o_recv
 * + B wire)): with two sends in flight its family model alone charges about half of that.
 * The module below's modelled tree gets the same bound.  On a switch graph the routes are
 * up*-down* spread over parallel paths by destination (pathmc.h), as a subnet manager
 * balances them: a fat-tree given as a graph is not charged one spine.
 *
 * Blocks under the links' bound.  Where the two-tree's time is its links' bound (the
 * bound, taken at up to 32 blocks, exceeds the family model), every block size whose
 * family model stays under the bound is predicted the same, yet the pipeline's fill and
 * drain shrink with the block: the planner takes the finest such block (the most blocks,
 * down to the floor between nodes, segment_min_bytes), not the family model's own best
 * (evidence E-2TREE-3).
 *
 * Ties under the links' bound.  Where the bound decides several variants of one family
 * (the two-tree with standard and with synchronous sends, sends in flight), the variant
 * whose own model is faster wins the tie: the bound is a floor, and the plan with more
 * slack under it runs closer to it (evidence E-2TREE-1).
 *
 * Two-tree placement.  On a switch network (a topology of several switches that is not a
 * torus; at most 256 ranks) the planner chooses which rank plays each position of the
 * two-tree: discovery's ordering (a switch tour, a fat-tree's labels) suits a chain, and
 * the two trees' long edges meet on links it leaves to chance.  The root keeps position 0;
 * the others are permuted by simulated annealing (swaps of two positions, 400 n swaps up
 * to 25600, a fixed xorshift seed: every rank finds the same chain) against the sum over
 * directed links of 100 per edge beyond two (two edges are M bytes, the broadcast's own
 * floor) plus 0.05 x edges^2; the result replaces the ordering when its busiest link
 * carries less, or as much on fewer links (then less in all); where no link carries more
 * than two edges already (a fat-tree's label order) there is no search.  The two-tree is
 * then evaluated on both chains and the faster prediction wins; the plan carries its
 * chain (mcast_plan_info_t.chain).  On such a network the two-tree's time is
 *   T = T_family + max(0, bound(busiest link) - bound(M bytes)),   bound(b) = b wire + o_send + L + o_recv
 * (and at least the bound): a link carrying more than M bytes slows the trees' stream
 * through it by what it carries beyond M, and the pipeline's fill comes on top, where
 * max(T_family, bound) had the two overlap and predicted low.  The bound is the whole
 * broadcast's busiest link, not the rounds' sum: the rounds overlap (every rank forwards
 * blocks as they come), and the sum charged each round's busiest link as if it ran alone.
 * A torus keeps the ordering and the rounds' sum: the hosts there are the routers, a
 * placement that halves the busiest link made the two-tree slower, and the sum predicts
 * what runs.  Evidence E-2TREE-1 (also the placement's cost in planning time).
 *
 * Two-tree window.  Under window = 0 the two-tree posts as many receives ahead as a
 * block takes rounds to reach its deepest rank (mcast_level_rounds(level, n, 1)), plus
 * two, at least 4 and at least what its streams' skew needs (mcast_level_window): on a
 * flow-level network a block whose receive is not yet posted does not move, and the
 * pipeline stalls once fewer receives are posted than blocks are on their way down the
 * trees (evidence E-2TREE-3).  On a FIFO network a receive posted ahead costs a slot (and
 * its staging for a non-contiguous datatype), nothing else.
 *
 * Timed link sharing.  A message sent whole (one block) on a topology with more than one
 * switch meets the other messages of the same tree on the links: every directed link keeps
 * the intervals its messages occupy, S * wire each; a message entering the network at
 * s + o_send (s its send's start in the recurrence) takes, link after link of its route,
 * the first free interval at or after the time it reached that link, and arrives that much
 * later than s + delta.  The recurrence then takes the ranks in the order their message
 * arrives (parents still before children).  On one switch a host link carries what its
 * rank sends or receives, which the recurrence charges already.  Why: concurrent copies
 * share the links' bandwidth, which the recurrence alone does not see (evidence E-LINK-1).
 * Pipelined trees keep the steady-state bound above ("Link sharing").
 *
 * Route latency.  Where the input names the topology and the machine model a per-link
 * latency (mcast_machine_t.hop_latency_us H, net.latency_us being the latency of a route
 * of latency_links = R links), a network message from u to c has
 *   L(u, c) = max(0, latency_us + (links(u, c) - R) * H)
 * with links(u, c) its route's length (pm_route; 2 on one switch): a tree edge in the
 * recurrence uses its own L(u, c); a family's model uses the mean over its rounds of the
 * mean of L over the round's sends (its transfers follow the same skips every round), the
 * circulant with synchronous sends the mean over its rounds of the round's longest L (a
 * round of synchronous sends waits for its slowest transfer: evidence E-ROUTE-1), the
 * two-tree the mean L along the path to its deepest ranks, the slowest such path of its
 * blocks (a block's fill runs down the tree; most edges are short ones near the leaves,
 * every path crosses the long ones near the root: evidence E-ROUTE-2).
 * Orderings that keep neighbours close (POC, DOR) thus make short hops count as short;
 * without a topology every route costs latency_us.
 *
 * Sends in flight.  Under max_sends = -1 a rank with a child on another node sends its
 * copies of a block one after the other (FPFS: concurrent copies share the rank's link and
 * delay the first child, which pipelining pays for at every block), except for a message
 * sent whole that is eager (M <= net.eager_bytes) or whose copy's wire time is at most a
 * message's send overhead (M * wire <= o_send): its copies all leave at once, as stock's
 * trees send them.  Sharing then costs the first child at most the other copies' bytes,
 * once, while waiting for each send to complete costs a turn of the PML's progress per
 * copy (TCP: one event-loop pass; evidence E-SENDS-1), and where ranks yield when idle
 * and a core is busy, a scheduler turn (E-SENDS-2).  The recurrence resolves it alike.
 *
 * Copies at once.  Copies posted together overlap: the sender pays a copy's overhead
 * while the previous copy's bytes are on its link, so consecutive copies to other nodes
 * leave every max(o_send, S*gap) rather than every o_send + S*gap (LogGP's o and G; the
 * one-after-another discipline waits for each send's completion, which includes its
 * bytes).  Charged serially, flat trees were predicted far slower than they run and the
 * planner chose deeper, slower ones (evidence E-COPIES-1).  Inside a node the copies are
 * the CPU's own work and stay serial.
 *
 * Eager blocks over TCP.  On a model of the network (a machine file or self-calibration,
 * not the TCP rule), where the nodes talk over TCP the blocks the planner cuts (tree
 * segments, the families' blocks; under auto and for a forced algorithm without a forced
 * segment) stay 1 KiB below net.eager_bytes: a block above the eager size waits for its
 * receiver's match (rendezvous), and where the receiver shares its core with other work
 * each block waits for a scheduler turn; at 4 MiB on 4 hosts at 1 Gbit/s with a core
 * busy the circulant in 71 - 82 KB blocks took 142 - 227 ms, in blocks under the limit
 * 78 - 83, Open MPI's chain 77 - 85, all predicted 36 - 49 (evidence E-CAL-3 (14));
 * forced algorithms alike (E-TCP-4).  Just under it is not enough: Open MPI 5.0's ob1
 * sends eager only up to about 90 bytes below btl/tcp's 64 KiB (4.1 about 40), and blocks
 * a few hundred bytes under the limit, several in flight, ran 4 - 12x slower than blocks
 * 1 KiB under it in both (E-TCP-7).  A message sent whole is not cut;
 * scatter + allgather's shares are messages of its own geometry and stay as they are.
 *
 * Synchronous sends.  A standard eager send completes for the engine once handed over, so
 * max_sends does not bound what a rank has on the wire: a circulant rank forwards several
 * rounds' blocks at once, and where messages share a link (a flow-level simulator;
 * InfiniBand and TCP also arbitrate between connections) the block the next round needs
 * arrives late (evidence E-SYNC-2).  Across nodes the circulant therefore sends
 * synchronously (engine sync_sends, MCAST_XF_SYNC: the PML's synchronous mode), except
 * where the nodes talk over TCP (input.nodes_over_tcp): there a rank's eager messages to
 * different peers leave in the order posted, and the receiver's match each round only
 * adds its wait (a scheduler turn where ranks share cores): standard sends ran 1.3 - 2.2x
 * faster at 8 - 64 KiB and alike above (evidence E-SYNC-3).  Synchronous, its
 * model charges each send until delivery (no eager limit): a round costs
 * o_send + L + B w + W, W what a synchronous send waits for after its bytes arrived (the
 * receiver's match and acknowledgement): mcast_machine_t.sync_wait_us, by default
 * net.o_recv_us, measured by mcast-calibrate; 0 in perf/sim's machine files, since SMPI's
 * MPI_Issend completes when the bytes have arrived (evidence E-SYNC-1).
 * Where flows share a link (net.shared_flows 1) the two-tree's eager blocks, all posted at
 * once, share the sender's link and arrive together, late: there (sync_sends = -1) the
 * planner also evaluates the two-tree with synchronous sends and takes them where that
 * model is faster (a tie, as where the links' bound decides, keeps standard sends).  Under
 * max_sends = -1 it keeps K = ceil(slot / pace) + 2 sends in flight (at most 16),
 * slot = o_send + L + B w + W (a send's time until delivery), pace = max(o_send, B gap);
 * its model paces a rank's sends at max(o_send, B gap, slot / K), one send's overhead
 * overlapping the others' wire, and K flows still share the link (fam_twotree.cpp, "sends
 * in flight", "shared flows"; evidence E-2TREE-2).  On FIFO connections (shared_flows 0:
 * TCP, InfiniBand) only standard sends are evaluated.  edst (pathmc's four trees of a
 * torus) is weighed the same way with the same K (fam_multitree.cpp, "synchronous sends";
 * evidence E-EDST-2), and with them a lag: a rank sends a block no sooner than L unit
 * steps after it came, so that its next send does not wait for its block
 * (fam_multitree.cpp, "Lag"; the plan line's lag=L, mcast_plan_info_t.lag, recomputed by
 * mcast_plan_schedule for each message's blocks, alike on every rank; evidence E-EDST-1).
 * The other families and the single trees keep standard sends.
 *
 * Shared flows.  On a network where a sender's messages in flight share its link as
 * separate flows (net.shared_flows 1: SimGrid, and so perf/sim), a receive posted ahead
 * lets an eager block start before the previous one of the same connection has left,
 * and the two-tree's blocks arrive in bursts, the first of each late: its model adds
 * 1/2 min(W - 1, B w / (o_send + o_recv), ceil(m / 2) - 1) * B w to every first arrival
 * (fam_twotree.cpp; evidence E-2TREE-2, E-BURST-1, E-LAST-1).  In the tree recurrence an eager copy to another node holds its
 * slot for o_send only there (handed over, it is a flow of its own: occ = o_send), a
 * rank's blocks leave no faster than its CPU's share of each, o_recv + the o_send of
 * each copy to another node (sigma inside a node): P(u) also >= that, and the trees'
 * fill pays a quarter of the two-tree's burst per hop to another node,
 * 1/4 min(W - 1, S w / (o_send + o_recv), m - 1) S w (TREE_BURST, plan_tree_model.cpp;
 * no more blocks behind the first than the message has: evidence E-BURST-1).
 * Without these a chain's segment and a torus's snake against edst were mispredicted
 * (evidence E-TOUR-1).
 * A message sent whole (one block, eager) leaves the CPU o_send after the one before and
 * its bytes share the sender's one link with the copies still on it, equally (SimGrid's
 * max-min on one bottleneck is processor sharing; plan_tree_model.cpp share_link): a
 * rank's first child gets its copy later than alone, its last no earlier than all bytes'
 * wire time after the first left.  On a topology of more than one switch the whole tree
 * is a flow-level simulation instead (plan_tree_model.cpp flow_tree_time; SimGrid's
 * model): a copy's bytes start to move after its route's latency, every link of its route
 * carries them, the copies on a link share it by weighted max-min fairness in proportion
 * to the inverse of their route's latency, and a host's own link carries net.host_links
 * links' worth (a torus node's interface; with net.host_transit 1 one resource for what
 * the node sends, receives and forwards in transit, as SimGrid's torus limiter: the links'
 * bound and these flows charge it on every router a route passes, plan_routes.hpp
 * Routes::charged) and a link between switches net.switch_links.  As flows, trees sent whole are
 * predicted far closer than with one link per copy's sender; planning a large torus takes
 * a few times longer, which only a flow-level network pays (evidence E-FLOW-1).
 * A connection of TCP or InfiniBand is FIFO (net.shared_flows 0, the default): no term.
 * mcast-calibrate measures it.
 *
 * Unmodelled networks.  The built-in machine model describes an InfiniBand-class network
 * (microseconds of overhead per message, gigabytes per second, progress by polling).  Over
 * TCP without a machine file it predicts pipelines of small blocks that a TCP stack pays
 * for per message and per completion, and, with a core shared with other work, per
 * scheduler turn (docs/evidence.md, E-TCP-1).  Where the input says so
 * (input.unmodelled_network: the glue sets it for a communicator across nodes whose
 * point-to-point path is TCP, without a machine file), auto takes Open MPI 4.1's own
 * choice (tuned's fixed decision table): it hands the class to the module below
 * (selected_by "previous:unmodelled") unless compare_previous is 0, where it runs our copy
 * of it on rank order, whole messages, copies all at once (selected_by "unmodelled").
 * From 1 MiB, where that choice is tuned's linear tree or its chain (4 - 15 ranks), auto
 * runs our copy too: the same messages, measured faster through our engine quiet and with
 * a core busy (docs/evidence.md, E-TCP-3).  A nonblocking decision (input.nonblocking:
 * MPI_Ibcast, persistent starts, which the components never hand down) runs our copy of
 * whichever of Open MPI's two choices the model predicts faster, tuned's or libnbc's
 * (Open MPI's own MPI_Ibcast: a linear tree up to 4 ranks, a binomial tree above), libnbc's
 * on a tie; whole messages, copies all at once (E-TCP-6).  A
 * machine file (mcast-calibrate) describes the network and the rule no longer applies.
 * Forced algorithms and rules are not affected.
 *
 * Size classes.  A plan's decision depends on the message size only through its class
 * (four classes per power of two, centred on 2^(e + j/4) on a log scale: the sizes within
 * a factor 2^(1/8) of it), evaluated at its centre (powers of two are planned at their
 * own size; no size is more than 9.05 % from the size its plan was chosen for), so ranks that see
 * slightly different sizes (an erroneous program) still run the same tree and detect the
 * mismatch, and a program with many sizes needs few decisions.
 */
#ifndef MCAST_PLANNER_H
#define MCAST_PLANNER_H

#include <stddef.h>
#include <stdint.h>
#include "kbinomial.h"
#include "mcast_engine.h"
#include "mcast_families.h"
#include "pathmc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Registry: every algorithm of both components, in one table.  Generates the MCA
 * enums, the ompi_info docs, rules-file validation, verbose names and
 * `mcast-inspect --list-algorithms`.
 * ------------------------------------------------------------------------- */
typedef enum {
    MCAST_COMP_KBINOMIAL = 1,
    MCAST_COMP_PATHMC = 2
} mcast_component_t;

typedef enum {
    MCAST_ALG_AUTO = 0,
    /* coll/kbinomial */
    MCAST_ALG_KBINOMIAL,
    MCAST_ALG_POSTAL,
    MCAST_ALG_BINOMIAL,
    MCAST_ALG_LINEAR,
    MCAST_ALG_CHAIN,
    MCAST_ALG_TWOLEVEL,
    MCAST_ALG_SCATTER_ALLGATHER,
    MCAST_ALG_TWOTREE,
    MCAST_ALG_CIRCULANT,
    /* coll/pathmc */
    MCAST_ALG_SEPARATE,
    MCAST_ALG_UTORUS,
    MCAST_ALG_STORUS,
    MCAST_ALG_MDTORUS,
    MCAST_ALG_MUTORUS,
    MCAST_ALG_MCAST,
    MCAST_ALG_PATHLG,
    /* coll/kbinomial, one node (appended: the ids above stay) */
    MCAST_ALG_SHM,
    /* coll/kbinomial (appended: the ids above stay) */
    MCAST_ALG_KNOMIAL,
    /* coll/pathmc (appended: the ids above stay) */
    MCAST_ALG_EDST,
    MCAST_ALG_COUNT
} mcast_alg_t;

/* Multicast transports a plan may name (mcast_plan_info_t.transport). */
#define MCAST_TRANSPORT_NONE 0
#define MCAST_TRANSPORT_IP 1 /* UDP to an IP multicast group */
#define MCAST_TRANSPORT_IB 2 /* InfiniBand UD multicast */

/* What carries a plan's bytes (mcast_plan_info_t.transport_kind; .transport is its name). */
typedef enum mcast_plan_transport {
    MCAST_PLAN_PML = 0,     /* "pml": point-to-point schedules over the PML */
    MCAST_PLAN_SHM = 1,     /* "shm": one node's shared segment */
    MCAST_PLAN_PML_SHM = 2, /* "pml+shm": the node leaders' schedule over the PML, every node's segment */
    MCAST_PLAN_MC_IP = 3,   /* "ip": multicast over UDP to an IP group */
    MCAST_PLAN_MC_IB = 4    /* "ib": InfiniBand UD multicast */
} mcast_plan_transport_t;

/* The name a rules line uses to hand a size class to the module below (not an algorithm
 * of the registry). */
#define MCAST_RULE_PREVIOUS "previous"

typedef struct mcast_alg_info {
    int id;                  /* mcast_alg_t */
    const char *name;        /* "kbinomial" */
    int component;           /* mcast_component_t mask; auto belongs to both */
    const char *description; /* one line */
} mcast_alg_info_t;

int mcast_registry_count(void);
const mcast_alg_info_t *mcast_registry_get(int id); /* NULL if out of range */
/* Id of `name`, or -1. */
int mcast_registry_lookup(const char *name);

/* ---------------------------------------------------------------------------
 * Machine model: LogGP parameters across nodes and inside a node, with provenance.
 * ------------------------------------------------------------------------- */
typedef struct mcast_machine {
    mcast_loggp_t net;            /* between nodes */
    mcast_loggp_t shm;            /* inside one node */
    char source[512];             /* "defaults" or the file and its provenance line */
    /* Route length (header, "Route latency"): net.latency_us is the latency of a route of
     * latency_links links; each link more or less adds or saves hop_latency_us.  Used only
     * where the input names the topology; 0 (the default) = every route alike. */
    double hop_latency_us;
    double latency_links;
    /* The shared segment inside a node (mcast_shm.h): memcpy cost per byte and the
     * hand-over of a chunk from one core to another (shm.copy_ns_per_byte,
     * shm.handover_us in the file). */
    double shm_copy_ns_per_byte;
    double shm_handover_us;
    /* What a synchronous send waits for after its bytes arrived (the receiver's match and
     * its acknowledgement; header, "Synchronous sends"): net.sync_wait_us in the file;
     * negative (the default) = net.o_recv_us. */
    double sync_wait_us;
    /* The smallest block the planner's search may choose where a communicator spans nodes
     * (net.segment_min_bytes in the file; 0, the default = 8 KiB: real stacks' per-message
     * costs the model does not see, mcast_forced_t.segment_min_bytes).  A network whose
     * per-message costs the model charges exactly (a simulator) may lower it; a forced
     * segment_min_bytes overrides it. */
    size_t net_segment_min_bytes;
    /* A host's own link to the network (injection and ejection) carries host_links times a
     * link's bytes per us (net.host_links in the file; 0, the default, = 1).  Used where
     * whole messages are modelled as flows over a topology's links (header, "Shared
     * flows"): a torus router's host interface is often wider than one torus link. */
    double host_links;
    /* 1: a node's interface is one resource for what its host sends, receives and what
     * leaves its router in transit (net.host_transit in the file; 0, the default: a host's
     * injection and ejection are two links, transit passes the router only).  SimGrid's
     * torus charges a node's limiter on every hop that leaves it and at the destination
     * (TorusZone::get_local_route); perf/sim's torus machine files set it. */
    int host_transit;
    /* A link between two switches (or routers) carries switch_links times a link's bytes
     * per us (net.switch_links in the file; 0, the default, = 1), where a topology names
     * the routes: links' bound, timed link sharing, flows, two-tree placement.  Leaf
     * uplinks faster than the hosts' links (perf/sim's mixed family): self-calibration
     * measures it where the topology has switch links (header, "Self-calibration"). */
    double switch_links;
} mcast_machine_t;

/* The built-in model: InfiniBand-class network, shared memory with single copy. */
void mcast_machine_default(mcast_machine_t *m);
/* Machine file (written by hand or mcast_machine_write; format in docs/machine-model.md):
 *   # comments; "version 1" first; then "net.KEY VALUE" / "shm.KEY VALUE" lines, the keys
 *   of the one table in machine.cpp (mcast_machine_key_get; mcast-inspect --machine-keys);
 *   "provenance TEXT" (kept in m->source).  Missing keys keep their built-in values.
 *   Errors as "file:line: message". */
int mcast_machine_parse(const char *text, const char *name, mcast_machine_t *m, char *errbuf,
                        size_t errlen);
int mcast_machine_load(const char *path, mcast_machine_t *m, char *errbuf, size_t errlen);
/* Writes a machine file (provenance as given). */
int mcast_machine_write(const char *path, const mcast_machine_t *m, const char *provenance);
/* Folds every key's value into the FNV-1a hash h (what ranks compare: one table, machine.cpp,
 * so a new key cannot be left out). */
uint64_t mcast_machine_digest(uint64_t h, const mcast_machine_t *m);
/* The keys of the machine file, in the writer's order: name ("net.o_send_us"), meaning
 * (Markdown) and built-in value.  KB_ERR_ARG for i outside [0, count). */
int mcast_machine_key_count(void);
int mcast_machine_key_get(int i, const char **name, const char **doc, double *builtin);

/* ---------------------------------------------------------------------------
 * Planner
 * ------------------------------------------------------------------------- */
/* What the user forced (MCA parameters); 0 / negative fields leave the choice to the model. */
typedef struct mcast_forced {
    int algorithm;            /* mcast_alg_t; MCAST_ALG_AUTO = choose */
    int k;                    /* k-binomial fan-out or knomial radix (>= 2), 0 = model */
    size_t segment_bytes;     /* 0 = model (or whole message where the model has no say) */
    size_t segment_min_bytes; /* model's segment search; 0 = auto: 8 KiB where the
                                 communicator spans nodes, 1 KiB on one node (blocks of a
                                 few KiB between nodes cost more per message than the
                                 model charges: evidence E-SEG-1) */
    size_t segment_max_bytes; /* the model's largest segment: tree segments and the
                                 families' blocks (not scatter + allgather's shares, not a
                                 tree's whole message); default 1 MiB */
    int window;               /* receives posted ahead, >= 1; 0 = auto (the default): 1 for
                                 the circulant (a block a round, each round from another
                                 rank: one receive at a time keeps drifting ranks from
                                 taking two rounds' blocks at once), the two-tree's depth
                                 in rounds + 2 (header, "Two-tree window"), 4 for the
                                 others */
    int max_sends;            /* >= 1; 0 = window * children; -1 = auto (1 across nodes,
                                 0 inside one node) */
    int discipline;           /* kb_discipline_t */
    double lambda;            /* postal lambda, 0 = the model's choice (edge model's lambda or a
                                 half-integer up to twice it, whichever it predicts fastest) */
    int postal_pipelining;    /* postal trees forward segment by segment */
    int mu_r;                 /* Mu-torus partition length, 0 = largest dimension */
    int compare_previous;     /* under auto (model): hand a class to the module below when
                                 its predicted time (Open MPI's tuned fixed decision,
                                 modelled) is within 5 % of our best plan's (default 1) */
    int allgather;            /* scatter_allgather's allgather: 0 = model, 1 = ring
                                 (MCAST_SAG_RING), 2 = recursive doubling (MCAST_SAG_RD) */
    int sync_sends;           /* synchronous sends across nodes (header, "Synchronous
                                 sends"): -1 = the circulant's (default), 0 = none,
                                 1 = every schedule family's (circulant, two-tree,
                                 scatter_allgather); the model follows */
} mcast_forced_t;

/* Defaults of every field (what the components register). */
void mcast_forced_default(mcast_forced_t *f);

typedef struct mcast_plan_input {
    int component;                 /* whose algorithms are eligible (mcast_component_t) */
    int n;
    int root;
    size_t bytes;                  /* signature bytes of this call */
    const int *chain;              /* [n] ordering for this root (root first); NULL = ranks
                                      from the root on, cyclically */
    const int *node_of_rank;       /* [n] node index; NULL = every rank on its own node
                                      unless all_local */
    int all_local;                 /* every rank on one node */
    int nnodes;
    const pm_torus_shape_t *torus; /* pathmc: torus shape and coordinates, or NULL */
    const int *torus_coords;       /* [n * torus->ndims] */
    const mcast_machine_t *machine;
    const mcast_forced_t *forced;
    int mcast_transport;           /* pathmc: a multicast group every rank of the
                                      communicator joined and probed: MCAST_TRANSPORT_* */
    size_t mcast_chunk_bytes;      /* its datagram payload (agreed), 0 = 1400 */
    const pm_topology_t *switch_net; /* pathmc: an irregular switch network (a topology
                                      file every rank read alike) naming every rank's
                                      host, or NULL (pathlg needs it) */
    const char *const *hosts;      /* [n] host of each rank in switch_net's / topology's names */
    const pm_topology_t *topology; /* a network topology naming every rank's host (any kind;
                                      every rank read it alike), or NULL: the model then
                                      charges link sharing (header) */
    const kb_rules_t *rules;       /* decision rules (kbinomial), or NULL */
    const char *selected_by;       /* with a forced algorithm: report this instead of
                                      "forced" (the forced values are a cached decision) */
    int exact_bytes;               /* 0 (the components): decide at the size class's
                                      representative; 1 (model checks): predict and plan
                                      for `bytes` itself */
    size_t shm_slot_bytes;         /* kbinomial, one node: the shared segment's slot (the
                                      largest chunk; 0 = no segment: shm not a candidate) */
    int shm_slots;                 /* its slot count (>= 2) */
    size_t shm_chunk_bytes;        /* the smallest chunk (mcast_shm_chunk_bytes; 0 = a slot) */
    int node_cores;                /* cores the node's ranks share (0 = one per rank) */
    int unmodelled_network;        /* 1: the nodes talk over a network the machine model
                                      does not describe (no machine file, TCP): under auto
                                      Open MPI's own choice (header, "Unmodelled networks") */
    int nodes_over_tcp;            /* 1: the nodes' point-to-point path is TCP (the glue's
                                      mcast_network_tcp, agreed): the circulant sends
                                      standard (header, "Synchronous sends"), the
                                      planner's blocks stay eager ("Eager blocks over TCP") */
    int nonblocking;               /* 1: the plan serves MPI_Ibcast and persistent starts
                                      (never handed to the module below): on an unmodelled
                                      network libnbc's choice is a candidate too (header,
                                      "Unmodelled networks") */
} mcast_plan_input_t;

typedef struct mcast_plan mcast_plan_t; /* opaque */

/* The plan for the input (see the header comment).  KB_ERR_ARG when a forced algorithm
 * does not apply (e.g. a torus algorithm without torus) or the input is invalid, with
 * the reason in errbuf (may be NULL); KB_ERR_NOMEM.  The plan owns its tree and chain. */
int mcast_plan_select(const mcast_plan_input_t *in, mcast_plan_t **out, char *errbuf,
                      size_t errlen);
void mcast_plan_free(mcast_plan_t *p);

/* Block geometry of the plan for an M-byte message: block bytes and count.  A block is
 * at most 16 MiB and a message at most 65536 blocks (a plan's segment is adjusted for
 * the message at hand; every rank does the same for the same size). */
int mcast_plan_blocks(const mcast_plan_t *p, size_t bytes, size_t *block_bytes, uint32_t *nblocks);
/* Rank `rank`'s schedule for an M-byte message (free with mcast_sched_free). */
int mcast_plan_schedule(const mcast_plan_t *p, int rank, size_t bytes, mcast_sched_t **out);
/* Engine parameters of the plan for `rank` and an M-byte message. */
int mcast_plan_engine_params(const mcast_plan_t *p, int rank, size_t bytes,
                             mcast_engine_params_t *ep);

typedef struct mcast_plan_info {
    int algorithm;            /* mcast_alg_t that runs */
    const char *name;
    int k;                    /* k-binomial fan-out or knomial radix; 0 for the others */
    size_t segment_bytes;     /* 0 = whole message */
    double lambda;            /* postal, else 0 */
    int window;               /* resolved (>= 1) */
    int max_sends;            /* resolved (>= 1 per rank is computed per rank; 0 here = per children) */
    int discipline;
    double predicted_us;      /* at the class's representative size */
    const char *selected_by;  /* "forced", "rules:LINE", "model" */
    const kb_tree_t *tree;    /* over group ranks (tree plans); NULL for a schedule family
                                 (scatter_allgather, twotree, circulant: see family) and
                                 for edst (ntrees, trees) */
    int ntrees;               /* edst: its arc-disjoint trees (block j down tree j mod
                                 ntrees), else 0 */
    const kb_tree_t *const *trees;
    int lag;                  /* edst: a rank sends a block no sooner than `lag` unit steps
                                 after it arrived (mcast_multitree_lag at the class's size;
                                 1 = as soon as held), else 1 */
    int family;               /* mcast_family_t of a family plan, else -1 */
    double previous_us;       /* auto: the module below's predicted time, -1 if not compared */
    const char *transport;    /* "pml" (point-to-point schedules), "ip" or "ib" (mcast),
                                 "shm" (one node's segment), "pml+shm" (twolevel: the
                                 leaders' schedule over the PML, every node's segment):
                                 the name of transport_kind */
    int transport_kind;       /* mcast_plan_transport_t */
    const char *previous;     /* its algorithm (tuned's name), "" if not compared */
    int variant;              /* the family's variant (scatter_allgather: MCAST_SAG_*) */
    const int *chain;         /* [n] root first */
    int n, root;
    size_t class_bytes;       /* representative size of the class the decision used */
    int defer;                /* pass the call to the module below: a "previous" rule, or
                                 pathmc under auto when a kbinomial plan is better */
    int shm_slots;            /* shm: the segment's slots, their bytes and the smallest */
    size_t shm_slot_bytes;    /* chunk (segment_bytes: the class's chunk) */
    size_t shm_chunk_bytes;
    int shm_fit_ring;         /* shm: chunks fill the ring (more ranks than cores) */
    const int *node_of_rank;  /* [n] the input's node indices, or NULL (none given) */
    int runner_up;            /* under auto, selected_by model: the best plan of another
                                 algorithm (mcast_alg_t), MCAST_ALG_AUTO if none */
    double runner_up_us;      /* its predicted time, -1 if none */
} mcast_plan_info_t;
int mcast_plan_get_info(const mcast_plan_t *p, mcast_plan_info_t *info);
/* transport "pml+shm" (twolevel, intra=shm): the leader of rank's node for this plan (the
 * node's first rank on the chain: it receives across nodes and is the root of the node's
 * segment), or -1 (not such a plan, bad rank). */
int mcast_plan_node_leader(const mcast_plan_t *p, int rank);
/* "k=2 segment_bytes=8192 window=4 max_sends=1 discipline=fpfs predicted_us=12.3
 *  selected_by=model" (the verbose line's tail). */
int mcast_plan_describe(const mcast_plan_t *p, char *buf, size_t len);

/* A size class's choice (the component's two steps, which mcast-inspect and perf/sim take
 * too): the planner decides the class once per communicator on root 0's chain (every rank
 * knows that chain, so every rank decides alike), and the plan of any root is that choice
 * built on the root's own chain. */
typedef struct mcast_class_choice {
    int defer;             /* the module below serves the class */
    int algorithm;         /* mcast_alg_t */
    int k;
    size_t segment_bytes;  /* SIZE_MAX: the whole message */
    double lambda;
    int allgather;         /* scatter_allgather's variant + 1, else 0 */
    int max_sends;         /* a tree's sends in flight as selected (mcast_forced_t), -1 auto */
    char selected_by[64];  /* "model", "rules:3", "forced", "previous", ... */
} mcast_class_choice_t;
/* The choice a plan selected on root 0's chain stands for. */
int mcast_class_choice_of(const mcast_plan_t *p, mcast_class_choice_t *c);
/* Forces that choice on the input of another root's plan: *f's algorithm, k, segment,
 * lambda (and allgather, and max_sends unless auto: the unmodelled copy's copies at
 * once), no rules, the choice's selected_by reported (in->selected_by
 * points into *c: keep c alive until mcast_plan_select returns).  KB_ERR_ARG for a NULL
 * argument or a deferred choice (the module below has no plan of ours). */
int mcast_class_choice_force(const mcast_class_choice_t *c, mcast_plan_input_t *in,
                             mcast_forced_t *f);

/* The components' decision, in two steps, for the component, mcast-inspect and perf/sim
 * alike (each gives only its own discovery, as `input`):
 *   1. mcast_decide_class: the planner at the class's representative size on root 0's
 *      input: the class's choice (every root of the class gets it, so every rank decides
 *      it alike whatever the roots it sees);
 *   2. mcast_plan_on_root: that choice built on the root's input (its chain).
 * `input(ctx, root, bytes, in, f)` fills *in and *f (in->forced = f) for that root and
 * size; what they point to stays valid until its next call; KB_OK or a KB_ERR_*.
 * mcast_decide_class also hands back the step's plan when plan0 is not NULL (the caller
 * frees it).  mcast_plan_on_root: KB_ERR_ARG for a deferred choice. */
typedef int (*mcast_input_fn_t)(void *ctx, int root, size_t bytes, mcast_plan_input_t *in,
                                mcast_forced_t *f);
int mcast_decide_class(mcast_input_fn_t input, void *ctx, size_t class_bytes,
                       mcast_class_choice_t *choice, mcast_plan_t **plan0, char *why,
                       size_t why_len);
int mcast_plan_on_root(const mcast_class_choice_t *choice, mcast_input_fn_t input, void *ctx,
                       int root, size_t bytes, mcast_plan_t **out, char *why, size_t why_len);
/* The runner-up of a class whose choice is ours by the model (plan0: mcast_decide_class's
 * plan; selected_by "model", not deferred), for verification on live calls: the best plan
 * of another algorithm where it is predicted within `within` (a fraction) of plan0's time,
 * as a class choice of its own (selected_by "model:runner-up"; mcast_plan_on_root builds
 * it on any root).  1 with *runner set, 0 when there is none (or within <= 0), or a
 * KB_ERR_* (KB_ERR_NOMEM: this rank alone; decide again later). */
int mcast_decide_runner_up(mcast_input_fn_t input, void *ctx, const mcast_plan_t *plan0,
                           double within, mcast_class_choice_t *runner, char *why,
                           size_t why_len);

/* Verification on live calls (issue 47).  A size class decided by the model (selected_by
 * "model", "previous", "unmodelled" or "previous:unmodelled"; never a forced algorithm or
 * a rule) is checked on the application's first blocking calls of that class: they run
 * the chosen candidate and the other one (our plan where the module below was chosen, the
 * module below where ours was) in turn, chosen first, 1 + `trials` calls each (the first
 * call of each warms it up: plans built, buffers touched, connections made; not counted):
 * above the eager size inside a node (mcast_verify_order) one after the other, each one's
 * calls in a row, since a copy timed after the other candidate's measured more than in a
 * loop of its own; at and below it call by call (E-VERIFY-7).
 * Where ours was chosen and the model's margin is small (mcast_decide_runner_up: the best
 * plan of another algorithm predicted within a fraction of it), that runner-up is a third
 * candidate (mcast_verify_add_runner_up): chosen, other, runner-up.  Each rank
 * times its own calls; after the last trial call the ranks agree on the slowest rank's
 * median per candidate (MPI_MAX over mcast_verify_local) and every rank concludes alike
 * from those numbers: another candidate wins only if it is faster than the chosen one by
 * more than `margin` (a fraction; the fastest such one).  The verdict holds for `recheck`
 * calls of the class, then the trials run again (the interval doubling each time);
 * recheck 0: never.  Calls are counted per class, the same on every rank (every rank
 * makes the same blocking calls in the same order, and a class depends only on the type
 * signature's bytes).  Nonblocking calls use the same state through mcast_verify_pick_at
 * / _record_at (the glue's agreement there is the shared segment's board, mcast_shm.h). */
#define MCAST_VERIFY_MAX_TRIALS 8
#define MCAST_VERIFY_CANDIDATES 3 /* at most: chosen, other, runner-up */
enum { MCAST_VERIFY_CHOSEN = 0, MCAST_VERIFY_OTHER = 1, MCAST_VERIFY_RUNNER_UP = 2 };
typedef struct mcast_verify {
    int trials;               /* per candidate, 1..MCAST_VERIFY_MAX_TRIALS (0: off) */
    double margin;
    uint64_t recheck;         /* calls until the next trials (0: never again) */
    int candidates;           /* 2, or 3 with a runner-up */
    int calls;                /* calls made in the current trials */
    int verdict;              /* MCAST_VERIFY_*: what runs once settled */
    int settled;              /* the trials of this round are over */
    int rounds;               /* trials concluded so far */
    uint64_t settled_calls;   /* calls since the last conclusion */
    double t[MCAST_VERIFY_CANDIDATES][MCAST_VERIFY_MAX_TRIALS];
    double agreed[MCAST_VERIFY_CANDIDATES]; /* the last agreed times (seconds), per candidate */
    uint32_t seen;            /* mcast_verify_record_at: the trial calls recorded (bit = index) */
    int blocks;               /* mcast_verify_order: each candidate's calls in a row (else turns) */
} mcast_verify_t;
/* Two candidates; trials clamped to 1..MCAST_VERIFY_MAX_TRIALS (trials <= 0: off, every
 * call CHOSEN); margin clamped to [0, 1). */
void mcast_verify_init(mcast_verify_t *v, int trials, double margin, uint64_t recheck);
/* The order of the trial calls for a class of class_bytes, before the first call: each
 * candidate's calls in a row where class_bytes > eager_bytes (the machine model's
 * shm.eager_bytes), else call by call (the default after init). */
void mcast_verify_order(mcast_verify_t *v, size_t class_bytes, size_t eager_bytes);
/* The runner-up as a third candidate, before the first call: 1, else 0 (off, or calls
 * made: nothing changes). */
int mcast_verify_add_runner_up(mcast_verify_t *v);
/* Whether the selected_by of a class's choice is the model's (verification applies). */
int mcast_verify_applies(const char *selected_by);
/* The candidate this call runs (MCAST_VERIFY_*). */
int mcast_verify_pick(const mcast_verify_t *v);
/* Whether the call mcast_verify_pick names now is a counted trial call (not a warm-up, not
 * a settled class's): 1, else 0. */
int mcast_verify_counts(const mcast_verify_t *v);
/* This call ran `cand` and took `seconds` here (a failed call: pass a negative time, it
 * counts as slowest).  1: the trials are over and the ranks must now agree
 * (mcast_verify_local, MPI_MAX over the ranks, mcast_verify_conclude), else 0. */
int mcast_verify_record(mcast_verify_t *v, int cand, double seconds);
/* This rank's median time per candidate over the trials just made: out[v->candidates]. */
void mcast_verify_local(const mcast_verify_t *v, double *out);
/* Concludes from the agreed (slowest rank's) times, agreed[v->candidates] (NULL: none):
 * returns the verdict. */
int mcast_verify_conclude(mcast_verify_t *v, const double *agreed);
/* The last round's cost, from the agreed times (seconds): what its calls of the candidates
 * other than the verdict took beyond the verdict's time, (trials + 1) calls each, warm-up
 * included; 0 before a conclusion or where a time is unmeasured. */
double mcast_verify_cost(const mcast_verify_t *v);
/* Nonblocking calls (MPI_Ibcast): they start from Open MPI's progress engine and may
 * complete in any order, so a call's index in its class (0, 1, ...: taken at the call, the
 * same on every rank) names its candidate and its trial.  pick_at: the candidate of call
 * `index`: during the trials (index < candidates (trials + 1)) the candidates in the
 * order mcast_verify_order set, as for blocking calls, chosen first; after them the
 * verdict once concluded, -1 before (that call waits for the agreement).  record_at: trial call `index` took `seconds` here (negative: it failed);
 * 1 when it completes the trials (each index counts once), then mcast_verify_local, the
 * agreement and mcast_verify_conclude as for blocking calls; else 0.  One round: the
 * verdict holds (the recheck is for blocking calls). */
int mcast_verify_pick_at(const mcast_verify_t *v, int64_t index);
int mcast_verify_record_at(mcast_verify_t *v, int64_t index, double seconds);
/* Whether call `index` is a counted trial call (not a warm-up, not after the trials). */
int mcast_verify_counts_at(const mcast_verify_t *v, int64_t index);
/* This rank's least time per candidate over the trials just made, out[v->candidates]:
 * what nonblocking trials compare (a plan's first calls at a size may be slow, and
 * another process only adds time: E-VERIFY-4, E-VERIFY-6). */
void mcast_verify_least(const mcast_verify_t *v, double *out);

/* Self-calibration across nodes (issue 47; docs/machine-model.md, "Self-calibration").
 * Where a communicator spans nodes and no machine file is given (any network: over TCP
 * the built-in model does not describe it, E-TCP-1; elsewhere it describes no machine of
 * the user's, E-SIM-4), the glue measures the network at the communicator's
 * first blocking broadcast of at least coll_kbinomial_self_calibrate_from bytes (64 KiB;
 * smaller size classes keep the built-in model, over TCP its rule: E-CAL-3 (12), (13)) (once per job: later
 * communicators whose ranks all hold the model take it from the first call's exchange):
 * disjoint pairs of nodes spread over the communicator (mcast_probe_pairs: node i with
 * node i + ceil(N/2), the lowest rank of each, at most max_pairs).  Every pair at once runs ping-pongs at the sizes
 * mcast_probe_size(0 .. MCAST_PROBE_SIZES - 1), MCAST_PROBE_REPS times each after one
 * warm-up.  Then the streaming pairs (mcast_probe_streaming: pair 0 and pair npairs / 2),
 * one after the other so that no other stream shares their links (a torus's or a tapered
 * tree's links between far nodes would: evidence E-CAL-3), run streams: a posts
 * MCAST_PROBE_STREAM_BLOCKS sends of MCAST_PROBE_STREAM_SMALL bytes at once, then as many
 * of MCAST_PROBE_STREAM_BYTES, and b answers the last with an empty message (the time
 * from the first post to the answer), MCAST_PROBE_STREAM_REPS times each, in turn (the
 * first streaming pair after a warm-up): the two differ only in
 * bytes, so whatever a message costs (its posting, a latency per message where a transport
 * delivers one after the other) drops out.  A stream, not a ping-pong, gives the
 * per-byte cost: the rate a link sustains once a token bucket's burst, a switch's buffer
 * or a TCP window is spent, which small ping-pongs do not reach (E-CAL-3).  The pair's a
 * keeps the least time of each one's repetitions (another process on a host only adds
 * time) and the least time to post a send; every rank then holds every pair's (an
 * allreduce) and fits the same model: per-byte cost = (large-block stream - small-block
 * stream) / the bytes between them, each stream the least over the streaming pairs,
 * refused when it does not stand out of the repetitions' noise: the larger of the two
 * streams' gaps between their least and second least time (over every repetition of the
 * streaming pairs) must be at most half of large - small (a host so busy that whole
 * streams are slowed measures its scheduler, not its link: E-CAL-3); per-message intercept = the
 * empty ping-pong's half round trip (the larger size gives only a posting time), the
 * median over the pairs; o_send = o_recv = the posting time (median over the pairs, at
 * most half the intercept), latency = the rest, gap = wire = the per-byte cost, recv 0.
 * After its streams the first streaming pair also measures whether a sender's messages
 * share its link (net.shared_flows): b posts the receives of MCAST_PROBE_FLOW_LARGE and
 * MCAST_PROBE_FLOW_SMALL bytes, a sends both at once, large first, MCAST_PROBE_FLOW_REPS
 * times after two warm-ups; shared when the small one completed first in more than half
 * of them and the large one's excess wire time is at least o
 * (mcast_probe_shared_flows, also mcast-calibrate's rule).
 * After its ping-pongs every pair also times what a synchronous send waits for
 * (sync_wait_us; header, "Synchronous sends"), where the caller gives ops->ssend: a sends
 * an empty message synchronously to b's posted receive and b answers, MCAST_PROBE_REPS
 * times after one warm-up; the ssend takes o_send + L + W, so W = its least time - the
 * empty half round trip + o_recv, the median over the pairs, at least 0 (mcast-calibrate
 * measures it alike; a network that acknowledges a match pays about a half round trip
 * more, SMPI none: E-SYNC-1, E-SYNC-4).
 * mcast_probe_fit sets those net keys of *m (the other keys stay) and m->source;
 * KB_ERR_ARG with *why when the measurements cannot be a network (no pair, a time that
 * does not grow with the bytes, ...). */
#define MCAST_PROBE_MAX_PAIRS 8
#define MCAST_PROBE_SIZES 2
#define MCAST_PROBE_REPS 3
#define MCAST_PROBE_STREAM_REPS 2
#define MCAST_PROBE_STREAM_BLOCKS 8
#define MCAST_PROBE_STREAM_SMALL 16384
#define MCAST_PROBE_STREAM_BYTES 32768
#define MCAST_PROBE_FLOW_LARGE 24576 /* + FLOW_SMALL <= STREAM_BYTES: b's two receives */
#define MCAST_PROBE_FLOW_SMALL 4096
#define MCAST_PROBE_FLOW_REPS 8
typedef struct mcast_probe_pair {
    int a, b;         /* ranks: a starts each ping-pong and stream and keeps the times */
    int links;        /* the route's links a -> b where a topology names them (0: unknown) */
    int latency_only; /* 1: a pair of the route latency's (empty ping-pongs only) */
    int trunk;        /* 1: a pair of the switch links' (streams at once, after the rest) */
    int fan;          /* 1: a pair of the host links' (one a streams to its b's at once, last) */
} mcast_probe_pair_t;
typedef struct mcast_probe_sample {
    double post_us;                        /* least time to post a send */
    double half_rtt_us[MCAST_PROBE_SIZES]; /* least half round trip per size */
    double stream_us[2]; /* least time of the small- and large-block stream (0: none) */
    double stream2_us[2]; /* the second least of each (the repetitions' spread) */
    double flow_first;   /* fraction of flow repetitions the small message completed
                          * first (NaN: not measured; only pair 0 measures it) */
    double sync_us;      /* least time of an empty synchronous send to a posted receive
                          * (0: not measured: sync_wait_us is left as it was) */
    double half_rtt_spread_us; /* the empty ping-pong's second least less its least */
    int links;           /* the pair's route length (0: unknown; mcast_probe_pair_t) */
    int latency_only;    /* 1: only half_rtt_us[0] was measured (a pair of the route
                          * latency's: it enters the per-link latency's fit only) */
    int trunk;           /* 1: a pair of the switch links': only stream_us[r] was measured,
                          * the time of its stream in the r-th run of all of them at once
                          * (NaN: failed); it enters the switch links' fit only */
    int fan;             /* 1: a pair of the host links': stream_us[r] is the time of
                          * the r-th run of its a's small blocks to all its b's at once,
                          * stream2_us[r] of the large blocks (every fan sample holds the
                          * same; NaN: failed); it enters the host links' fit only */
} mcast_probe_sample_t;
/* The measurement itself, over the caller's point-to-point calls (the component's PML,
 * mcast-calibrate's MPI): this rank's (me) part among pairs[0 .. npairs) as
 * mcast_probe_pairs gave them: nothing when it is in no pair, else its pair's ping-pongs
 * and, for a streaming pair, its streams (after an empty message from the previous
 * streaming pair's a; its a then sends one to the next's).  ops->isend posts a send into
 * slot 0 .. MCAST_PROBE_STREAM_BLOCKS - 1, ops->waitall completes slots [0, n); send / recv
 * block; each returns 0 on success.  buf holds MCAST_PROBE_STREAM_BYTES (its bytes are
 * never looked at).  A pair's a fills rows[k * MCAST_PROBE_ROW ..) for its pair k: 1
 * (done), the posting time, the ping-pongs' and the two streams' least times, then the two
 * streams' second least (0 when not streaming), the empty ping-pong's second least less its
 * least (MCAST_PROBE_ROW_SPREAD), then the synchronous send's least time (0
 * without ops->ssend); pair 0's b fills the last entry (1 + the flow fraction); the others leave
 * rows alone.  ops->irecv posts a receive into slot 0 or 1 and ops->waitany completes one
 * of slots [0, n) and sets its index (b of pair 0 only).  A pair of the route latency's
 * (latency_only, after the others in pairs: mcast_probe_pairs_routed) runs first, its a
 * filling 1, the posting time, the empty half round trip and its spread of its row.  The
 * pairs of the switch links' (trunk, last in pairs; at least two) run after everything
 * else (mcast_probe_pairs_routed), their a filling 1 and the two runs' stream times into
 * its row's first two stream entries.  Returns 0 or the
 * first error (a peer may then wait: the caller's transport failed). */
#define MCAST_PROBE_ROW (2 + MCAST_PROBE_SIZES + 4 + 3)
#define MCAST_PROBE_ROW_SPREAD (2 + MCAST_PROBE_SIZES + 4) /* the empty ping-pong's spread */
typedef struct mcast_probe_ops {
    void *ctx;
    double (*now_us)(void *ctx);
    int (*isend)(void *ctx, int peer, const void *buf, size_t bytes, int slot);
    int (*waitall)(void *ctx, int nslots);
    int (*send)(void *ctx, int peer, const void *buf, size_t bytes);
    int (*recv)(void *ctx, int peer, void *buf, size_t bytes);
    int (*irecv)(void *ctx, int peer, void *buf, size_t bytes, int slot);
    int (*waitany)(void *ctx, int nslots, int *index);
    /* a blocking synchronous send (MPI_Ssend); NULL: the synchronous wait is not measured */
    int (*ssend)(void *ctx, int peer, const void *buf, size_t bytes);
} mcast_probe_ops_t;
int mcast_probe_run(const mcast_probe_ops_t *ops, int me, const mcast_probe_pair_t *pairs,
                    int npairs, void *buf, double *rows);
/* net.shared_flows from the flow measurement: 1 when the small message completed first in
 * more than half the repetitions (first, NaN: not measured) and it could have: the wire
 * time of the bytes by which the large message exceeds the small one (at wire ns/B) is at
 * least o_send, the small one's later start.  Shared, the small one leaves with half the
 * link and is done first only then; FIFO, never.  The route's latency delays both alike
 * and does not enter (E-CAL-4). */
int mcast_probe_shared_flows(double first, size_t large, size_t small, double wire_ns_per_byte,
                             double o_send_us);
/* 1 when pair k of npairs runs the streams: pair 0 and pair npairs / 2. */
int mcast_probe_streaming(int npairs, int k);
/* The fit from every pair's row (rows[npairs * MCAST_PROBE_ROW], the same on every rank:
 * the a's rows summed over the ranks); a pair whose row is not done fails the fit.
 * mcast_probe_fit_pairs: the same where pairs[0 .. npairs) are the pairs the rows were
 * measured on (their links and latency_only enter: mcast_probe_pairs_routed); pairs NULL
 * = mcast_probe_fit_rows. */
int mcast_probe_fit_rows(const double *rows, int npairs, mcast_machine_t *m, char *why,
                         size_t len);
int mcast_probe_fit_pairs(const double *rows, const mcast_probe_pair_t *pairs, int npairs,
                          mcast_machine_t *m, char *why, size_t len);
size_t mcast_probe_size(int i); /* 0 outside [0, MCAST_PROBE_SIZES) */
/* The pairs of a communicator of n ranks whose node indices are node_of[0..n): returns
 * how many (0: fewer than two nodes). */
int mcast_probe_pairs(int n, const int *node_of, int max_pairs, mcast_probe_pair_t *pairs);
/* Route latency (header, "Route latency"; E-HOP-1).  Where a topology of more than one
 * switch names every rank's host (hosts[n] in its names; every rank read it alike), the
 * pairs of mcast_probe_pairs (their links set) and after them at most as many pairs of
 * the route latency's (latency_only 1): in turn, each far pair's a that is in no such pair
 * yet with the nearest node in none (the fewest links; the lowest such).  These run only
 * empty ping-pongs (a warm-up and MCAST_PROBE_REPS, before the other pairs' part); the
 * fit then takes the per-link latency as the median of the slopes between every two pairs
 * of different links (empty half round trip over links: Theil-Sen), kept only where it is
 * above 0 and over the range of links adds more than 3 times the larger of the pairs'
 * median distance from the line and their median spread between repetitions
 * (hop_latency_us; none where the links are all alike), and latency_links as the far
 * pairs' median links (latency_us is theirs).
 * Switch links (E-SWL-1): on such a topology of switches (not a torus), after those at
 * most MCAST_PROBE_TRUNK_PAIRS pairs of the switch links' (trunk 1): disjoint pairs of
 * nodes (no node in two) whose routes all cross one link between two switches, the link
 * that takes the most such pairs (every node's lowest rank; sources sampled evenly so that
 * at most 16384 routes are looked at; the lowest link on a tie; none under two pairs).
 * After every other pair's part (and an empty ping-pong of each trunk pair: its
 * connection), every rank in a pair tells the first trunk pair's a, which then starts
 * them all at once (an empty message to each other a), a warm-up and two timed runs: each
 * a times one stream of MCAST_PROBE_STREAM_BLOCKS blocks of MCAST_PROBE_STREAM_SMALL as
 * the streaming pairs do and tells the first a when done.  The K pairs' bytes all cross that
 * link, so it carries K S bytes (S a stream's) in about the slowest stream's time T of a
 * run: the fit takes a switch link's per-byte time as T / (K S) (T the least over the two
 * runs of their slowest stream) and net.switch_links = net.wire_ns_per_byte over it, 1
 * where that is within 15 % of 1 (a stream's fixed part counts in T, its staggered start
 * does not: equal links measure a little under 1, E-SWL-1) or within the two runs' and
 * the streams' relative spread together (as the host links'): the link's capacity where the
 * streams filled it, else a lower bound.  Refused when a trunk pair failed or the two runs
 * differ by more than half the faster one.
 * Host links (E-HOST-1): on such a topology (a torus too), last, the host links' pairs
 * (fan 1): the first node's lowest rank a and the nearest other nodes (fewest links)
 * whose routes from a leave by different links (on a torus its directions; where every
 * route's first link is a's own, any near nodes), MCAST_PROBE_FAN_PEERS of them or 2
 * (none under 2).  After everything else (and an empty ping-pong with each b: its
 * connection) a warm-up and two timed runs of each of the streams' block sizes: a posts
 * MCAST_PROBE_STREAM_BLOCKS blocks of MCAST_PROBE_STREAM_SMALL (then of
 * MCAST_PROBE_STREAM_BYTES) spread evenly over its b's at once and waits for each b's
 * empty answer.  As for the streams, the large blocks' least time less the small ones'
 * over the bytes between them is a per-byte cost (each receiver's per-message costs
 * drop out); net.host_links = the streams'
 * per-byte cost over it, 1 where within 15 % of 1 or within the fan's and the streams'
 * relative spread together (noise over what the bytes added, each), at most the b's
 * count and at least 1 (a's own link carries both); refused where the difference does
 * not stand out of the runs' noise (twice the larger gap between a size's two runs).  A torus node's
 * interface, a host with several rails.
 * Without such a topology: mcast_probe_pairs.  pairs holds MCAST_PROBE_MAX_ALL; returns
 * how many. */
#define MCAST_PROBE_TRUNK_PAIRS 8
#define MCAST_PROBE_FAN_PEERS 4
#define MCAST_PROBE_MAX_ALL (2 * MCAST_PROBE_MAX_PAIRS + MCAST_PROBE_TRUNK_PAIRS + MCAST_PROBE_FAN_PEERS)
int mcast_probe_pairs_routed(int n, const int *node_of, const pm_topology_t *topology,
                             const char *const *hosts, int max_pairs, mcast_probe_pair_t *pairs);
int mcast_probe_fit(const mcast_probe_sample_t *s, int npairs, mcast_machine_t *m, char *why,
                    size_t len);

/* Size class of a message size, and the representative size of a class. */
int mcast_size_class(size_t bytes);
size_t mcast_class_bytes(int cls);

/* Predicted time (us) of an M-byte broadcast on a tree with S-byte segments (0 = whole
 * message) under the recurrence above; node_of_rank as in the input.  -1 on bad input. */
double mcast_model_tree_us(const kb_tree_t *tree, size_t bytes, size_t segment_bytes,
                           int max_sends, const int *node_of_rank, int all_local,
                           const mcast_machine_t *machine);

/* 64-bit digest of every field of a forced-parameter set and a machine model (for the
 * per-communicator agreement of decision inputs). */
uint64_t mcast_forced_digest(const mcast_forced_t *f, const mcast_machine_t *m);

#ifdef __cplusplus
}
#endif
#endif /* MCAST_PLANNER_H */
