/*
 * U-torus (Robinson, McKinley, Cheng; seed 002 sec 3, Fig. 1b): binomial tree
 * by recursive halving over the dimension-ordered chain (root first, ring
 * offsets from the root).  In step j every holder at a chain position that
 * is a multiple of 2h (h = 2^(L-1-j), L = ceil(log2 G)) sends to position +h.
 * The messages of one step span disjoint chain intervals, so with
 * dimension-ordered routing they share no link.
 *
 * Model (eq. 11 simplified): ceil(log2 G) steps; the deepest path has
 * floor(log2 G) - 1 intermediate nodes:  t = 2o + (floor(log2 G)-1) L_i.
 *
 *   G = 10, chain positions:  step 1: 0->8
 *     0 - 1 - 2 - 3 - 4       step 2: 0->4
 *     5 - 6 - 7 - 8 - 9       step 3: 0->2, 4->6, 8->9
 *                             step 4: 0->1, 2->3, 4->5, 6->7
 */
#include "topo/pm_internal.h"

namespace pm {

void torus_utorus(const TorusGroup &g, Tree &t)
{
    std::vector<int> chain = g.dor_chain();
    int G = (int)chain.size(), L = 0;
    while ((1 << L) < G) ++L;
    for (int j = 0; j < L; ++j) {
        int h = 1 << (L - 1 - j);
        for (int p = 0; p + h < G; p += 2 * h) t.add(chain[p], chain[p + h], j + 1);
    }
}

}  // namespace pm
