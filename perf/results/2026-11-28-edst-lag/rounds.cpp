/* Unit-step rounds of edst's lagged greedy (mcast_multitree_rounds) on an X x X torus, root 0,
 * ranks in row-major order, for the lags and block counts given.
 * usage: rounds X LAGS(comma) M...   (build: see README.md, section 3) */
#include "mcast_families.h"
#include "pathmc.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
int main(int argc, char **argv)
{
    if (argc < 4) return 2;
    const int X = std::atoi(argv[1]), n = X * X;
    std::vector<int> co(2 * size_t(n));
    for (int i = 0; i < n; ++i) {
        co[2 * size_t(i)] = i % X;
        co[2 * size_t(i) + 1] = i / X;
    }
    pm_torus_shape_t sh = {2, {X, X}, 1, 1};
    kb_tree_t *t[PM_EDST_TREES];
    if (pm_torus_edst(&sh, n, co.data(), 0, t, nullptr, 0) != PM_OK) return 1;
    for (char *l = std::strtok(argv[2], ","); l != nullptr; l = std::strtok(nullptr, ",")) {
        std::printf("%dx%d lag %s:", X, X, l);
        for (int a = 3; a < argc; ++a)
            std::printf(" m %s %ld", argv[a], mcast_multitree_rounds(t, PM_EDST_TREES, uint32_t(std::atol(argv[a])), std::atoi(l)));
        std::printf("\n");
    }
    for (kb_tree_t *x : t) pm_tree_free(x);
    return 0;
}
