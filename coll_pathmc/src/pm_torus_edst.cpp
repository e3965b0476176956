/*
 * Four arc-disjoint spanning trees of a 2D torus (ours, beyond seed 002: the torus
 * family's trees each use one tree's links; these four use all of them at once).
 *
 * Every link of a bidirectional torus is two arcs (one each way).  Rooted at R = (0, 0)
 * (coordinates relative to the root, X x Y routers, both >= 3, one rank per router):
 *
 *   E  R -> +x along row 0 to (X-1, 0); every (x, 0), x >= 1, -> +y up its column to
 *      (x, Y-1); every (X-1, y), y >= 1, -> +x across the wrap to (0, y)
 *   N  R -> +y along column 0; every (0, y) -> -x along its row to (1, y); every
 *      (x, Y-1), x >= 1, -> +y across the wrap to (x, 0)
 *   W  E turned by 180 degrees: -x along row 0, -y down the columns, -x into column 0
 *   S  N turned by 180 degrees: -y along column 0, +x along the rows, -y into row 0
 *
 * E uses +x arcs of row 0 and the +x arcs into column 0, S the other +x arcs; N uses the
 * -x arcs of rows >= 1 that do not end in column 0, W the rest; E the +y arcs of columns
 * >= 1 that do not end in row 0, N the others; W and S share the -y arcs the same way.
 * So no arc carries two trees (tests/unit/test_pm_edst.c checks every shape 3..9 and
 * root).  A rank has at most one parent per tree and four children in all (its four
 * out-arcs): with a quarter of the blocks down each tree, every rank receives the
 * message once and sends it at most once, the root too, and each tree is 1 + (X - 1) +
 * (Y - 1) links deep.  A pipeline over them moves the message at up to four links' rate
 * into every rank (the node's injection then bounds it), against one link's for a chain.
 *
 * 4 x 4, tree E (R = root; arrows are arcs):
 *
 *      y=3   .  ^  ^  ^->.        column 0 (x = 0) is reached across the wrap
 *      y=2   .  ^  ^  ^->.        from x = 3 in every row y >= 1
 *      y=1   .  ^  ^  ^->.
 *      y=0   R->o->o->o
 */
#include "pm_internal.h"

#include <algorithm>

namespace pm {

void torus_edst(const TorusGroup &g, Tree t[PM_EDST_TREES])
{
    if (g.shape.ndims != 2 || !g.shape.wrap || !g.shape.bidir)
        throw ArgError(PM_ERR_UNSUPPORTED, "edst: needs a 2D torus with bidirectional links");
    const int X = g.shape.dims[0], Y = g.shape.dims[1];
    if (X < 3 || Y < 3) throw ArgError(PM_ERR_UNSUPPORTED, "edst: needs every dimension >= 3");
    if ((long)X * Y != g.n)
        throw ArgError(PM_ERR_UNSUPPORTED, "edst: needs one rank on every router of the torus");
    /* member at relative coordinates (x, y) */
    std::vector<int> at((size_t)X * Y, -1);
    const int x0 = g.c[g.root][0], y0 = g.c[g.root][1];
    for (int m = 0; m < g.n; ++m) {
        const int x = ((g.c[m][0] - x0) % X + X) % X, y = ((g.c[m][1] - y0) % Y + Y) % Y;
        int &slot = at[(size_t)y * X + x];
        if (slot != -1) throw ArgError(PM_ERR_UNSUPPORTED, "edst: needs one rank on every router of the torus");
        slot = m;
    }
    auto r = [&](int x, int y) { return at[(size_t)(((y % Y) + Y) % Y) * X + ((x % X) + X) % X]; };
    for (int i = 0; i < PM_EDST_TREES; ++i) t[i].init(g.n, g.root);
    /* children in send order: the spine's next rank (the longer way on) first, then the
     * branch, then the arc across the wrap (a leaf) */
    for (int i = 1; i < X; ++i) t[0].add(r(i - 1, 0), r(i, 0), 0);       /* E: +x spine */
    for (int i = 1; i < Y; ++i) t[1].add(r(0, i - 1), r(0, i), 0);       /* N: +y spine */
    for (int i = 1; i < X; ++i) t[2].add(r(1 - i, 0), r(-i, 0), 0);      /* W: -x spine */
    for (int i = 1; i < Y; ++i) t[3].add(r(0, 1 - i), r(0, -i), 0);      /* S: -y spine */
    for (int x = 1; x < X; ++x)
        for (int y = 1; y < Y; ++y) {
            t[0].add(r(x, y - 1), r(x, y), 0);     /* E: +y branches */
            t[2].add(r(-x, 1 - y), r(-x, -y), 0);  /* W: -y branches */
        }
    for (int y = 1; y < Y; ++y)
        for (int x = 1; x < X; ++x) {
            t[1].add(r(1 - x, y), r(-x, y), 0);    /* N: -x branches */
            t[3].add(r(x - 1, -y), r(x, -y), 0);   /* S: +x branches */
        }
    for (int y = 1; y < Y; ++y) {
        t[0].add(r(X - 1, y), r(0, y), 0);         /* E: +x wraps into column 0 */
        t[2].add(r(1, -y), r(0, -y), 0);           /* W: -x wraps into column 0 */
    }
    for (int x = 1; x < X; ++x) {
        t[1].add(r(x, Y - 1), r(x, 0), 0);         /* N: +y wraps into row 0 */
        t[3].add(r(x, 1), r(x, 0), 0);             /* S: -y wraps into row 0 */
    }
}

}  // namespace pm
