/*
 * Separate addressing (seed 002 sec 3, Fig. 1a): the root unicasts the
 * message to every destination, one after the other, in dimension-ordered
 * chain order.  One phase, no intermediate node.
 *
 * Model (eq. 8): t = (G-1)(o + t_process) + o   (+ beta*M*(G-1) for large M).
 *
 *   G = 10 on a 4x4 torus, root R:      R  1  2  3        R -> 1, R -> 2, ...
 *                                        4  5  6  7        R -> 9: nine serial
 *                                        8  9  .  .        sends, depth 1
 *                                        .  .  .  .
 */
#include "topo/pm_internal.h"

namespace pm {

void torus_separate(const TorusGroup &g, Tree &t)
{
    std::vector<int> chain = g.dor_chain();
    for (size_t i = 1; i < chain.size(); ++i) t.add(g.root, chain[i], 1);
}

}  // namespace pm
