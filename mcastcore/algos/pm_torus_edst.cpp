/*
 * Four arc-disjoint spanning trees of a 2D torus (ours, beyond seed 002: the torus
 * family's trees each use one tree's links; these four use all of them at once).
 *
 * Every link of a bidirectional torus is two arcs (one each way).  Rooted at R = (0, 0)
 * (coordinates relative to the root, X x Y routers, both >= 3, one rank per router),
 * tree t in {E, N, W, S} starts with the root's arc to its neighbour s_t in direction t.
 * A rank other than the root has four in-arcs and needs one parent in each tree, so the
 * trees are a choice, at every rank, of which in-arc serves which tree; a tree is then
 * acyclic when every rank joins it from a rank already in it.
 *
 * Two constructions, each improved by exchanges; the shallower wins (shallow_trees):
 *  - interleaved trees (skeleton_trees): in the quadrant x > 0, y > 0 tree E climbs the odd
 *    columns from its spine on row 0 and feeds each even column from its east neighbour;
 *    N runs east along the odd rows from its spine on column 0 and feeds each even row
 *    from the north; W runs east along the even rows and feeds the odd rows from the
 *    north; S climbs the even columns and feeds the odd ones from the east.  The four
 *    in-arcs of every rank go to four different trees, and each tree is a shortest-path
 *    tree up to a leaf's extra link.  The other quadrants are the same turned by quarter
 *    turns (tree t + k in quadrant k plays tree t's part); on the +x axis E runs its
 *    spine, N and S come from the side and W runs back from the far end.  The seams
 *    across the wrap break the pattern on odd sides: cycles there, which the exchanges
 *    mend (a rank a tree does not reach counts before everything else).
 *  - lock-step greedy (greedy_trees): the four trees grow breadth-first together; at step
 *    tau every rank still missing some trees gives its unused in-arcs from ranks that
 *    joined a tree at depth tau to those trees, as many as it can, keeping the in-arcs
 *    that serve the missing trees soonest.  About 1.5 x the diameter deep.
 *  - exchanges (local_search): at a rank on the way to the deepest ranks (or on a cycle)
 *    two trees swap their in-arcs when the trees get better: fewer ranks cut off by
 *    cycles, then shallower (the deepest, how many ranks there, one link above, the
 *    total).  A swap keeps every arc in one tree.  The budget counts rank visits, so
 *    every rank stops at the same trees.
 * Depth (links; the bound is 1 + the diameter, as the first rank of each tree is one link
 * from the root): 8 x 8 9, 16 x 16 17, 32 x 32 33 (the bound); every even shape in 4..32
 * within one link of it; odd sides one more (7 x 7 8, 15 x 15 16, 31 x 31 32); of the
 * shapes 3..16, 63 at the bound, 90 one above, 25 two, 18 more (a side of 3 or 5).  Built
 * once per shape in a process: 16 x 16 in 0.03 s, 32 x 32 in 0.3 s, 31 x 31 in 1.2 s (one
 * core of the 2-core machine that runs CI).
 *
 * Spine trees (spine_trees, the fallback should none of them be valid: never on 3..32),
 * 1 + (X - 1) + (Y - 1) links deep:
 *   E  R -> +x along row 0 to (X-1, 0); every (x, 0), x >= 1, -> +y up its column to
 *      (x, Y-1); every (X-1, y), y >= 1, -> +x across the wrap to (0, y)
 *   N  R -> +y along column 0; every (0, y) -> -x along its row to (1, y); every
 *      (x, Y-1), x >= 1, -> +y across the wrap to (x, 0)
 *   W  E turned by 180 degrees: -x along row 0, -y down the columns, -x into column 0
 *   S  N turned by 180 degrees: -y along column 0, +x along the rows, -y into row 0
 *
 * Either way no arc carries two trees, a rank has at most one parent per tree and four
 * children in all (its four out-arcs): with a quarter of the blocks down each tree, every
 * rank receives the message once and sends it at most once, the root too.  A pipeline
 * over them moves the message at up to four links' rate into every rank (the node's
 * injection then bounds it), against one link's for a chain.
 *
 * 8 x 8, tree E (depth of every rank; R = root, arrows = the arc into the rank):
 *
 *      y=7   < 3 v 2 < 5 v 4 ^ 7 ^ 8 ^ 7 ^ 6
 *      y=6   < 4 v 3 < 6 v 5 > 6 > 7 < 6 < 5
 *      y=5   < 5 v 4 < 7 v 6 v 7 > 8 v 7 > 8
 *      y=4   < 6 v 5 < 8 v 7 > 8 > 9 < 8 < 7
 *      y=3   < 7 v 6 < 9 v 8 ^ 7 > 8 ^ 7 ^ 6
 *      y=2   < 4 ^ 3 < 6 ^ 5 > 6 > 7 < 6 < 5
 *      y=1   < 3 ^ 2 < 5 ^ 4 > 5 > 6 v 7 v 6
 *      y=0     R > 1 > 2 > 3 > 4 > 5 > 6 > 7
 */
#include "topo/pm_internal.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

namespace pm {

namespace {

using Parents = std::array<std::vector<int>, PM_EDST_TREES>;  /* relative ids y * X + x */
const int kDx[PM_EDST_TREES] = {1, 0, -1, 0}, kDy[PM_EDST_TREES] = {0, 1, 0, -1};  /* E N W S */
const int kUnset = -1;

struct Grid {
    int X, Y;
    int id(int x, int y) const { return (((y % Y) + Y) % Y) * X + ((x % X) + X) % X; }
    int nb(int v, int d) const { return id(v % X + kDx[d], v / X + kDy[d]); }
    int dist(int a, int b) const
    {
        const int dx = std::abs(a % X - b % X), dy = std::abs(a / X - b / X);
        return std::min(dx, X - dx) + std::min(dy, Y - dy);
    }
};

/* The lock-step greedy of the file comment; false when it stalls (then par is partial). */
bool greedy_trees(const Grid &G, Parents &par)
{
    const int n = G.X * G.Y, T = PM_EDST_TREES;
    const int inf = 1 << 29;
    std::array<std::vector<int>, PM_EDST_TREES> depth;
    std::vector<unsigned char> used((size_t)n, 0);   /* bit d: the in-arc from nb(v, d) */
    int start[PM_EDST_TREES];
    for (int t = 0; t < T; ++t) {
        depth[t].assign(n, inf);
        par[t].assign(n, kUnset);
        depth[t][0] = 0;
        start[t] = G.nb(0, t);
        depth[t][start[t]] = 1;
        par[t][start[t]] = 0;
        used[start[t]] |= (unsigned char)(1u << ((t + 2) % 4));  /* from the root */
    }
    long missing = (long)T * (n - 1) - T;
    struct Claim { int t, v, u, d; };
    std::vector<Claim> claims;
    for (int tau = 1; missing > 0; ++tau) {
        claims.clear();
        bool frontier = false;
        for (int t = 0; t < T && !frontier; ++t)
            for (int v = 0; v < n && !frontier; ++v) frontier = depth[t][v] == tau;
        if (!frontier) return false;
        for (int v = 1; v < n; ++v) {
            int miss[PM_EDST_TREES], nm = 0;
            for (int t = 0; t < T; ++t)
                if (depth[t][v] == inf) miss[nm++] = t;
            if (nm == 0) continue;
            /* cand[i]: bit d when tree miss[i] may take the in-arc from nb(v, d) now */
            unsigned cand[PM_EDST_TREES] = {0, 0, 0, 0};
            bool any = false;
            for (int i = 0; i < nm; ++i)
                for (int d = 0; d < 4; ++d)
                    if (!(used[v] >> d & 1) && depth[miss[i]][G.nb(v, d)] == tau) {
                        cand[i] |= 1u << d;
                        any = true;
                    }
            if (!any) continue;
            /* every choice: tree miss[i] takes direction pick[i] (4 = none), distinct */
            int pick[PM_EDST_TREES], best[PM_EDST_TREES];
            long best_key[3] = {0, 0, 0};
            bool have = false;
            int total = 1;
            for (int i = 0; i < nm; ++i) total *= 5;
            for (int code = 0; code < total; ++code) {
                int c = code;
                unsigned taken = 0;
                bool ok = true;
                int cnt = 0;
                for (int i = 0; i < nm; ++i, c /= 5) {
                    pick[i] = c % 5;
                    if (pick[i] == 4) continue;
                    if (!(cand[i] >> pick[i] & 1) || (taken >> pick[i] & 1)) { ok = false; break; }
                    taken |= 1u << pick[i];
                    ++cnt;
                }
                if (!ok) continue;
                /* how soon the trees left without v could still take it */
                long worst = 0, sum = 0;
                for (int i = 0; i < nm; ++i) {
                    if (pick[i] != 4) continue;
                    long e = inf;
                    for (int d = 0; d < 4; ++d) {
                        if ((used[v] >> d & 1) || (taken >> d & 1)) continue;
                        const int w = G.nb(v, d), dw = depth[miss[i]][w];
                        e = std::min(e, (long)(dw != inf ? dw : 1 + G.dist(start[miss[i]], w)) + 1);
                    }
                    worst = std::max(worst, e);
                    sum += e;
                }
                const long key[3] = {-cnt, worst, sum};
                if (!have || std::lexicographical_compare(key, key + 3, best_key, best_key + 3)) {
                    have = true;
                    std::copy(key, key + 3, best_key);
                    std::copy(pick, pick + nm, best);
                }
            }
            for (int i = 0; i < nm; ++i)
                if (best[i] != 4) claims.push_back({miss[i], v, G.nb(v, best[i]), best[i]});
        }
        for (const Claim &c : claims) {
            depth[c.t][c.v] = tau + 1;
            par[c.t][c.v] = c.u;
            used[c.v] |= (unsigned char)(1u << c.d);
            --missing;
        }
    }
    return true;
}

/* The spine trees of the file comment. */
void spine_trees(const Grid &G, Parents &par)
{
    const int X = G.X, Y = G.Y, n = X * Y;
    for (int t = 0; t < PM_EDST_TREES; ++t) par[t].assign(n, kUnset);
    auto add = [&](int t, int px, int py, int cx, int cy) { par[t][G.id(cx, cy)] = G.id(px, py); };
    for (int i = 1; i < X; ++i) add(0, i - 1, 0, i, 0);       /* E: +x spine */
    for (int i = 1; i < Y; ++i) add(1, 0, i - 1, 0, i);       /* N: +y spine */
    for (int i = 1; i < X; ++i) add(2, 1 - i, 0, -i, 0);      /* W: -x spine */
    for (int i = 1; i < Y; ++i) add(3, 0, 1 - i, 0, -i);      /* S: -y spine */
    for (int x = 1; x < X; ++x)
        for (int y = 1; y < Y; ++y) {
            add(0, x, y - 1, x, y);       /* E: +y branches */
            add(2, -x, 1 - y, -x, -y);    /* W: -y branches */
        }
    for (int y = 1; y < Y; ++y)
        for (int x = 1; x < X; ++x) {
            add(1, 1 - x, y, -x, y);      /* N: -x branches */
            add(3, x - 1, -y, x, -y);     /* S: +x branches */
        }
    for (int y = 1; y < Y; ++y) {
        add(0, X - 1, y, 0, y);           /* E: +x wraps into column 0 */
        add(2, 1, -y, 0, -y);             /* W: -x wraps into column 0 */
    }
    for (int x = 1; x < X; ++x) {
        add(1, x, Y - 1, x, 0);           /* N: +y wraps into row 0 */
        add(3, x, 1, x, 0);               /* S: -y wraps into row 0 */
    }
}

/* The interleaved trees of the file comment: tree t's parent direction at (x, y) from the
 * rule for the first quadrant, turned by k quarter turns (k: the quadrant). */
int skeleton_dir(int t, int x, int y)
{
    const int k = x > 0 && y >= 0 ? 0 : x <= 0 && y > 0 ? 1 : x < 0 && y <= 0 ? 2 : 3;
    for (int i = 0; i < k; ++i) {  /* (x, y) -> (y, -x): a quarter turn back */
        const int x1 = y, y1 = -x;
        x = x1;
        y = y1;
    }
    const int tt = ((t - k) % 4 + 4) % 4;
    int d;
    if (y == 0) {                  /* the +x axis: E's spine, N and S from the side, W back */
        static const int axis[4] = {2, 1, 0, 3};
        d = axis[tt];
    } else {
        const bool xo = (x & 1) != 0, yo = (y & 1) != 0;
        switch (tt) {
        case 0: d = xo ? 3 : 0; break;   /* E: odd columns up, even ones from the east */
        case 1: d = yo ? 2 : 1; break;   /* N: odd rows east, even ones from the north */
        case 2: d = yo ? 1 : 2; break;   /* W: even rows east, odd ones from the north */
        default: d = xo ? 0 : 3; break;  /* S: even columns up, odd ones from the east */
        }
    }
    return (d + k) % 4;
}

bool skeleton_trees(const Grid &G, Parents &par)
{
    const int n = G.X * G.Y;
    for (int t = 0; t < PM_EDST_TREES; ++t) par[t].assign(n, kUnset);
    auto rep = [](int a, int K) { return a <= K / 2 ? a : a - K; };
    for (int v = 1; v < n; ++v) {
        const int x = rep(v % G.X, G.X), y = rep(v / G.X, G.Y);
        unsigned seen = 0;
        for (int t = 0; t < PM_EDST_TREES; ++t) {
            const int d = skeleton_dir(t, x, y);
            if (seen >> d & 1) return false;   /* two trees on one in-arc */
            seen |= 1u << d;
            par[t][v] = G.nb(v, d);
        }
    }
    /* the root's four arcs go to the four trees' first ranks */
    for (int t = 0; t < PM_EDST_TREES; ++t)
        if (par[t][G.nb(0, t)] != 0) return false;
    return true;
}

/* Depth of every relative id in one tree; a rank on a cycle or below one gets kCut.
 * Returns how many such ranks. */
const int kCut = 1 << 29;
long tree_depths(const std::vector<int> &par, std::vector<int> &d, std::vector<int> &path)
{
    const int n = (int)par.size();
    long cut = 0;
    d.assign(n, -1);
    d[0] = 0;
    for (int v = 0; v < n; ++v) {
        path.clear();
        int w = v;
        while (d[w] == -1) {
            d[w] = -2;                         /* on this walk */
            path.push_back(w);
            w = par[w];
        }
        if (d[w] == -2 || d[w] == kCut) {      /* closed a cycle, or hangs below one */
            for (int u : path) d[u] = kCut;
            cut += (long)path.size();
            continue;
        }
        for (auto it = path.rbegin(); it != path.rend(); ++it) d[*it] = d[par[*it]] + 1;
    }
    return cut;
}

struct Score {
    long cut = 0;   /* ranks a tree does not reach (cycles): must end at 0 */
    int deepest = 0;
    long at_deepest = 0, next_deepest = 0, sum = 0;
    bool operator<(const Score &o) const
    {
        if (cut != o.cut) return cut < o.cut;
        if (deepest != o.deepest) return deepest < o.deepest;
        if (at_deepest != o.at_deepest) return at_deepest < o.at_deepest;
        if (next_deepest != o.next_deepest) return next_deepest < o.next_deepest;
        return sum < o.sum;
    }
};

Score score_of(const std::array<std::vector<int>, PM_EDST_TREES> &d)
{
    Score s;
    for (const auto &dt : d)
        for (int x : dt)
            if (x != kCut) s.deepest = std::max(s.deepest, x);
    for (const auto &dt : d)
        for (int x : dt) {
            if (x == kCut) {
                ++s.cut;
                continue;
            }
            s.at_deepest += x == s.deepest;
            s.next_deepest += x == s.deepest - 1;
            s.sum += x;
        }
    return s;
}

/* Shallower trees by exchanges (file comment): at a rank on the way to the deepest ranks,
 * two trees swap their in-arcs when that keeps both trees acyclic and improves the score
 * (deepest, how many ranks there, how many one link above, total depth).  Budget: rank
 * visits, the same on every rank, so every rank stops at the same trees. */
Score local_search(Parents &par, long &budget)
{
    const int n = (int)par[0].size(), T = PM_EDST_TREES;
    std::array<std::vector<int>, PM_EDST_TREES> d, nd;
    std::vector<int> path;
    for (int t = 0; t < T; ++t) tree_depths(par[t], d[t], path);
    Score s = score_of(d);
    std::vector<char> cand((size_t)n);
    for (;;) {
        std::fill(cand.begin(), cand.end(), 0);
        for (int t = 0; t < T; ++t)
            for (int w = 0; w < n; ++w)
                if (d[t][w] >= s.deepest - 1)
                    for (int u = w; u != 0 && !cand[u]; u = par[t][u]) cand[u] = 1;
        bool moved = false;
        for (int v = 1; v < n && !moved; ++v) {
            if (!cand[v]) continue;
            for (int a = 0; a < T && !moved; ++a)
                for (int b = a + 1; b < T && !moved; ++b) {
                    if (par[a][v] == 0 || par[b][v] == 0) continue;
                    if (budget <= 0) return s;
                    budget -= 2L * n;
                    std::swap(par[a][v], par[b][v]);
                    nd = d;
                    tree_depths(par[a], nd[a], path);
                    tree_depths(par[b], nd[b], path);
                    const Score s2 = score_of(nd);
                    if (s2 < s) {
                        s = s2;
                        d.swap(nd);
                        moved = true;
                        continue;
                    }
                    std::swap(par[a][v], par[b][v]);
                }
        }
        if (!moved) return s;
    }
}

/* Links below each relative id in one tree (0 for a leaf). */
std::vector<int> heights(const std::vector<int> &par)
{
    const int n = (int)par.size();
    std::vector<int> depth, path, h(n, 0), order(n);
    tree_depths(par, depth, path);   /* acyclic here: shallow_trees keeps only such trees */
    for (int v = 0; v < n; ++v) order[v] = v;
    std::sort(order.begin(), order.end(), [&](int a, int b) { return depth[a] > depth[b] || (depth[a] == depth[b] && a < b); });
    for (int v : order)
        if (v != 0) h[par[v]] = std::max(h[par[v]], h[v] + 1);
    return h;
}

/* The better of the interleaved and the greedy trees after the exchanges (budget 4e8
 * rank visits in all; the greedy is skipped when the interleaved trees reach the bound),
 * else the spine trees; built once per shape in a process (they are relative to the
 * root). */
Parents shallow_trees(const Grid &G)
{
    static std::mutex lock;
    static std::map<std::pair<int, int>, Parents> cache;
    {
        std::lock_guard<std::mutex> g(lock);
        auto it = cache.find({G.X, G.Y});
        if (it != cache.end()) return it->second;
    }
    long budget = 400000000L;
    Parents best, cur;
    Score best_s;
    bool have = false;
    if (skeleton_trees(G, cur)) {   /* odd sides: cycles at the seams, the exchanges mend them */
        const Score s = local_search(cur, budget);
        if (s.cut == 0) {
            best_s = s;
            best = cur;
            have = true;
        }
    }
    const int bound = 1 + G.X / 2 + G.Y / 2;
    if ((!have || best_s.deepest > bound) && greedy_trees(G, cur)) {
        const Score s = local_search(cur, budget);
        if (s.cut == 0 && (!have || s < best_s)) {
            best = cur;
            best_s = s;
            have = true;
        }
    }
    if (!have) spine_trees(G, best);
    std::lock_guard<std::mutex> g(lock);
    cache.emplace(std::make_pair(G.X, G.Y), best);
    return best;
}

}  // namespace

void torus_edst(const TorusGroup &g, Tree t[PM_EDST_TREES])
{
    if (g.shape.ndims != 2 || !g.shape.wrap || !g.shape.bidir)
        throw ArgError(PM_ERR_UNSUPPORTED, "edst: needs a 2D torus with bidirectional links");
    const int X = g.shape.dims[0], Y = g.shape.dims[1];
    if (X < 3 || Y < 3) throw ArgError(PM_ERR_UNSUPPORTED, "edst: needs every dimension >= 3");
    if ((long)X * Y != g.n)
        throw ArgError(PM_ERR_UNSUPPORTED, "edst: needs one rank on every router of the torus");
    const Grid G{X, Y};
    /* member at relative coordinates (x, y) */
    std::vector<int> at((size_t)X * Y, -1);
    const int x0 = g.c[g.root][0], y0 = g.c[g.root][1];
    for (int m = 0; m < g.n; ++m) {
        int &slot = at[(size_t)G.id(g.c[m][0] - x0, g.c[m][1] - y0)];
        if (slot != -1) throw ArgError(PM_ERR_UNSUPPORTED, "edst: needs one rank on every router of the torus");
        slot = m;
    }
    const Parents par = shallow_trees(G);
    /* children in send order: the deepest subtree first (its blocks have farthest to go),
     * then by direction E N W S of the arc */
    for (int i = 0; i < PM_EDST_TREES; ++i) {
        t[i].init(g.n, g.root);
        const std::vector<int> h = heights(par[i]);
        std::vector<int> kids;
        for (int u = 0; u < X * Y; ++u) {
            kids.clear();
            for (int d = 0; d < 4; ++d) {
                const int v = G.nb(u, d);
                if (v != 0 && par[i][v] == u) kids.push_back(v);
            }
            std::stable_sort(kids.begin(), kids.end(), [&](int a, int b) { return h[a] > h[b]; });
            for (int v : kids) t[i].add(at[u], at[v], 0);
        }
    }
}

}  // namespace pm
