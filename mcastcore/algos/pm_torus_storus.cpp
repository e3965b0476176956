/*
 * S-torus (Robinson et al.; seed 002 sec 3, Fig. 1c): one path-based worm
 * visits the destinations in Hamiltonian (snake) ranking order, rotated so the
 * root comes first; emulated with unicasts it is a chain.  One phase.
 *
 * Model (eq. 12): t = 2o + (G-2) L_i.
 *
 *   G = 10 on a 4x4 torus, root R at rank 0 of the snake:
 *       R -> a -> b -> c          snake ranks  0  1  2  3
 *                      |                       7  6  5  4
 *       f <- e <- d <--+                       8  9 10 11
 *       |                                     15 14 13 12
 *       +--> g -> h -> i          (members at any ranks, visited in rank order)
 */
#include "topo/pm_internal.h"

namespace pm {

void torus_storus(const TorusGroup &g, Tree &t)
{
    std::vector<int> chain = g.snake_chain();
    for (size_t i = 1; i < chain.size(); ++i) t.add(chain[i - 1], chain[i], 1);
}

}  // namespace pm
