/*
 * Unit-step simulator of an m-packet broadcast on any tree, FPFS or FCFS.
 * Each node sends at most one packet copy per step; a copy sent in step t is
 * usable by its receiver from step t+1 (the root has all packets before step 1).
 *
 * Cost model (seed 001 sec. 4.2-4.3): FPFS forwards packet i to all children
 * (in child order) before packet i+1; FCFS sends all m packets to child 1, then
 * to child 2, ...  Each node's sends are a fixed sequence, so a node's send of
 * (packet i, child c) happens in step max(previous send step, arrival of i) + 1,
 * and one pass in BFS order gives every arrival time: O(n m), no step loop.
 * FPFS on a tree whose root has the largest fan-out: L1 + (m-1) delta_root steps.
 *
 * n = 4, m = 3, binomial tree 0 -> {2, 1}, 2 -> {3} (seed fig. 7a; [step]packet):
 *
 *   0 --[1]1 [3]2 [5]3--> 2 --[2]1 [4]2 [6]3--> 3
 *   0 --[2]1 [4]2 [6]3--> 1                         done after step 6
 *
 * and the chain 0 -> 1 -> 2 -> 3 (fig. 7b) is done after step 5.
 */
#include "base/kb_core.hpp"

#include <algorithm>

namespace kb {

long sim_steps(const kb_tree_t *tree, long m, kb_discipline_t disc)
{
    require(m >= 1, "m must be >= 1");
    require(disc == KB_DISC_FPFS || disc == KB_DISC_FCFS, "unknown discipline");
    const std::vector<int> order = checked_bfs_order(tree);
    const size_t n = size_t(tree->n);
    require(uint64_t(m) <= KB_SIM_MAX_CELLS / n, "n * m exceeds KB_SIM_MAX_CELLS");
    const size_t M = size_t(m);
    /* arrival[v*M + i]: step in which v receives packet i (0 = root, before step 1). */
    std::vector<long> arrival(n * M, 0);
    long last = 0;
    for (int v : order) {
        const int first = tree->child_off[v], end = tree->child_off[v + 1];
        const size_t nc = size_t(end - first);
        long busy = 0; /* step of v's previous send */
        for (size_t j = 0; j < nc * M; ++j) {
            /* FPFS: j = i*nc + c;  FCFS: j = c*M + i. */
            const size_t i = disc == KB_DISC_FPFS ? j / nc : j % M;
            const size_t c = disc == KB_DISC_FPFS ? j % nc : j / M;
            busy = std::max(busy, arrival[size_t(v) * M + i]) + 1;
            arrival[size_t(tree->children[first + int(c)]) * M + i] = busy;
            last = std::max(last, busy);
        }
    }
    return last;
}

} // namespace kb
