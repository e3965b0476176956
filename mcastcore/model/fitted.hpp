/*
 * The cost model's fitted constants, in one place (issue 45).  Each was fitted on a named
 * network and is cited by its evidence id (docs/evidence.md: what was fitted, on what, with
 * which command, and when to fit it again).  What is a property of a user's network belongs
 * in the machine file instead (mcastcore/plan/machine.cpp), where mcast-calibrate
 * measures it; these describe how a schedule's messages queue, which the machine file does
 * not say.  Policy constants (margins, floors) stay next to the rule that uses them.
 * Why each holds beyond the simulator it was fitted on, or that it was not checked there:
 * evidence E-FIT-1.
 */
#ifndef MCAST_FITTED_HPP
#define MCAST_FITTED_HPP

namespace mcast_fit {

/* edst's lag (fam_multitree.cpp, "Lag"): a hop with its queueing behind the rank's other
 * sends is about 1.7 model hops; lag 1 keeps 0.8 of a hop's slack of the greedy's.
 * Fitted on SimGrid's tori (perf/sim): evidence E-EDST-1. */
constexpr double MULTITREE_LAG_HOPS = 1.7;
constexpr double MULTITREE_LAG1_HOP = 0.8;

/* The trees' share of the two-tree's burst per hop to another node where flows share a
 * link (net.shared_flows 1; plan_tree_model.cpp, "Shared flows"; edst's is 1/2).  Fitted
 * on SimGrid's pipelined chains (perf/sim): evidence E-TOUR-1. */
constexpr double TREE_BURST = 0.25;

/* The two-tree's burst where flows share a link (fam_twotree.cpp, "Shared flows"): the
 * share of min(W - 1, B w / spacing, blocks behind the first) block wire times a first
 * arrival is late.  Fitted on SimGrid's nine perf/sim platforms after the engine's receive
 * change: evidence E-LAST-1 (the form: E-2TREE-2, its bound: E-BURST-1). */
constexpr double TWOTREE_BURST = 0.5;

/* The circulant's round after the first block costs max(g, (A - B / q) h) (fam_circulant.cpp):
 * the share of rounds whose forwarded block arrived too recently grows with q.  Fitted on
 * the core's simulated network (mcast_simnet_run): evidence E-CIRC-2. */
constexpr double CIRCULANT_ROUND_A = 0.6;
constexpr double CIRCULANT_ROUND_B = 0.9;

} // namespace mcast_fit

#endif
