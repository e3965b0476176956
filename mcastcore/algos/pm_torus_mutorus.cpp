/*
 * Mu-torus (Robinson et al.; seed 002 sec 3, Fig. 1e): uniform partitioning.
 * The G-1 destinations, in Hamiltonian (snake) ranking order from the root,
 * are cut into p = ceil((G-1)/r) partitions of r consecutive destinations.
 * The root sends to each partition's head (phase 1); each head relays along
 * its partition as a chain (phase 2).  p = 1 (r >= G-1) is the S-torus chain.
 * r = 0 selects r = k (largest dimension), the seed's choice on its 4x4 torus.
 *
 * Model (eq. 10): t = 2o + (r-1) L_i for p >= 2, 2o + (G-2) L_i for p < 2.
 *
 *   G = 10, r = 4, snake order R d1 d2 ... d9:
 *     R -> d1 -> d2 -> d3 -> d4           partition 1 (head d1)
 *     R -> d5 -> d6 -> d7 -> d8           partition 2 (head d5)
 *     R -> d9                             partition 3 (head d9)
 */
#include "topo/pm_internal.h"

namespace pm {

void torus_mutorus(const TorusGroup &g, int r, Tree &t)
{
    std::vector<int> chain = g.snake_chain();
    int dest = (int)chain.size() - 1;
    bool single = r >= dest;
    for (int i = 1; i <= dest; ++i) {
        bool head = (i - 1) % r == 0;
        t.add(head ? g.root : chain[i - 1], chain[i], head || single ? 1 : 2);
    }
}

}  // namespace pm
