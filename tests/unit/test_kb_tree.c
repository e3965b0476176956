/*
 * Tree builders through the C API, checked by an independent checker:
 * one parent each, parent/children agree, spanning, fan-out and depth bounds,
 * contiguous blocks of the (rotated) chain for k-binomial trees, seed fig. 9,
 * postal trees (spanning, completion), and parameter validation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbinomial.h"

#define NMAX 257

/* A fixed pseudo-random permutation of 0..n-1 (Fisher-Yates on an LCG). */
static void shuffled(int n, int *ord, unsigned seed)
{
    for (int i = 0; i < n; ++i) {
        ord[i] = i;
    }
    for (int i = n - 1; i > 0; --i) {
        seed = seed * 1103515245u + 12345u;
        const int j = (int)((seed >> 8) % (unsigned)(i + 1));
        const int x = ord[i];
        ord[i] = ord[j];
        ord[j] = x;
    }
}

/* Chain = ordering rotated so that root comes first; pos[rank] = index. */
static void chain_of(int n, int root, const int *ord, int *chain, int *pos)
{
    int at = 0;
    for (int i = 0; i < n; ++i) {
        if ((ord ? ord[i] : i) == root) {
            at = i;
        }
    }
    for (int i = 0; i < n; ++i) {
        chain[i] = ord ? ord[(at + i) % n] : (at + i) % n;
        pos[chain[i]] = i;
    }
}

/* Results of the structural check. */
typedef struct {
    int order[NMAX];   /* BFS order */
    int size[NMAX];    /* subtree size */
    int minpos[NMAX];  /* smallest chain position in the subtree */
    int maxpos[NMAX];
    int level[NMAX];
    int max_fanout;
} shape_t;

/* Independent checker: one parent each, lists agree, spanning, depth field. */
static void check_structure(const kb_tree_t *t, int n, int root, const int *pos, shape_t *sh)
{
    assert_non_null(t);
    assert_int_equal(t->n, n);
    assert_int_equal(t->root, root);
    assert_int_equal(t->parent[root], KB_NO_PEER);
    assert_int_equal(t->child_off[0], 0);
    assert_int_equal(t->child_off[n], n - 1);
    int seen[NMAX] = {0};
    sh->max_fanout = 0;
    for (int v = 0; v < n; ++v) {
        const int d = t->child_off[v + 1] - t->child_off[v];
        assert_true(d >= 0);
        assert_int_equal(kb_tree_nchildren(t, v), d);
        if (d > sh->max_fanout) {
            sh->max_fanout = d;
        }
        for (int i = t->child_off[v]; i < t->child_off[v + 1]; ++i) {
            const int c = t->children[i];
            assert_in_range(c, 0, n - 1);
            assert_int_equal(t->parent[c], v);
            seen[c]++;
        }
    }
    for (int v = 0; v < n; ++v) {
        assert_int_equal(seen[v], v == root ? 0 : 1); /* one parent each */
    }
    /* Spanning: BFS from root reaches all n. */
    int head = 0, tail = 0, depth = 0;
    sh->order[tail++] = root;
    sh->level[root] = 0;
    while (head < tail) {
        const int v = sh->order[head++];
        for (int i = t->child_off[v]; i < t->child_off[v + 1]; ++i) {
            const int c = t->children[i];
            sh->level[c] = sh->level[v] + 1;
            if (sh->level[c] > depth) {
                depth = sh->level[c];
            }
            sh->order[tail++] = c;
        }
    }
    assert_int_equal(tail, n);
    assert_int_equal(t->depth, depth);
    for (int i = n - 1; i >= 0; --i) {
        const int v = sh->order[i];
        sh->size[v] = 1;
        sh->minpos[v] = sh->maxpos[v] = pos[v];
        for (int j = t->child_off[v]; j < t->child_off[v + 1]; ++j) {
            const int c = t->children[j];
            sh->size[v] += sh->size[c];
            if (sh->minpos[c] < sh->minpos[v]) {
                sh->minpos[v] = sh->minpos[c];
            }
            if (sh->maxpos[c] > sh->maxpos[v]) {
                sh->maxpos[v] = sh->maxpos[c];
            }
        }
    }
    assert_int_equal(sh->size[root], n);
    assert_int_equal(kb_tree_check(t), KB_OK);
}

/* k-binomial invariants: fan-out <= k, depth <= L1, every node's subtree is the
 * contiguous chain block starting at itself, children in send order own
 * blocks right to left with non-increasing sizes, one packet in L1 steps. */
static void check_kbinomial(const kb_tree_t *t, int n, int root, int k, const int *pos)
{
    static shape_t sh;
    check_structure(t, n, root, pos, &sh);
    const int L = kb_L1(n, k);
    assert_true(sh.max_fanout <= k);
    assert_true(t->depth <= L);
    for (int v = 0; v < n; ++v) {
        assert_int_equal(sh.minpos[v], pos[v]);
        assert_int_equal(sh.maxpos[v] - sh.minpos[v] + 1, sh.size[v]);
        int right = sh.maxpos[v] + 1, prev = n + 1;
        for (int i = t->child_off[v]; i < t->child_off[v + 1]; ++i) {
            const int c = t->children[i];
            assert_int_equal(sh.maxpos[c] + 1, right); /* blocks tile from the right */
            assert_true(sh.size[c] <= prev);
            right = sh.minpos[c];
            prev = sh.size[c];
        }
        assert_int_equal(right, pos[v] + 1);
    }
    assert_int_equal(kb_sim_steps(t, 1, KB_DISC_FPFS), L);
}

static void test_kbinomial_sweep(void **state)
{
    (void)state;
    static int ord[NMAX], chain[NMAX], pos[NMAX];
    long trees = 0;
    for (int n = 1; n <= NMAX; ++n) {
        const int kmax = n > 1 ? kb_ceil_log2(n) : 1;
        for (int pass = 0; pass < 2; ++pass) {
            const int *o = NULL;
            if (pass == 1) {
                shuffled(n, ord, (unsigned)n);
                o = ord;
            }
            /* Identity: every root.  Shuffled: every 7th root and the last. */
            for (int root = 0; root < n; ++root) {
                if (pass == 1 && root % 7 != 0 && root != n - 1) {
                    continue;
                }
                chain_of(n, root, o, chain, pos);
                for (int k = 1; k <= kmax; ++k) {
                    const kb_tree_params_t p = {k, 1.0};
                    kb_tree_t *t = NULL;
                    assert_int_equal(kb_tree_build(KB_SHAPE_KBINOMIAL, n, root, o, &p, &t), KB_OK);
                    check_kbinomial(t, n, root, k, pos);
                    kb_tree_free(t);
                    ++trees;
                }
            }
        }
    }
    printf("[ kb ] k-binomial sweep: %ld trees (n <= %d, every k; identity ordering with every "
           "root, shuffled ordering with every 7th root)\n", trees, NMAX);
}

/* k larger than ceil(log2 n) is valid and gives the binomial tree. */
static void test_kbinomial_large_k_and_binomial(void **state)
{
    (void)state;
    static int chain[NMAX], pos[NMAX];
    for (int n = 1; n <= NMAX; ++n) {
        const int kb = n > 1 ? kb_ceil_log2(n) : 1;
        const kb_tree_params_t pk = {kb, 1.0}, pbig = {1000, 1.0};
        const int root = n / 3;
        kb_tree_t *a = NULL, *b = NULL, *c = NULL;
        assert_int_equal(kb_tree_build(KB_SHAPE_BINOMIAL, n, root, NULL, NULL, &a), KB_OK);
        assert_int_equal(kb_tree_build(KB_SHAPE_KBINOMIAL, n, root, NULL, &pk, &b), KB_OK);
        assert_int_equal(kb_tree_build(KB_SHAPE_KBINOMIAL, n, root, NULL, &pbig, &c), KB_OK);
        assert_memory_equal(a->parent, b->parent, (size_t)n * sizeof(int));
        assert_memory_equal(a->parent, c->parent, (size_t)n * sizeof(int));
        if (n > 1) {
            assert_memory_equal(a->children, b->children, (size_t)(n - 1) * sizeof(int));
            assert_memory_equal(a->children, c->children, (size_t)(n - 1) * sizeof(int));
        }
        chain_of(n, root, NULL, chain, pos);
        check_kbinomial(a, n, root, kb, pos);
        assert_int_equal(a->depth, kb_ceil_log2(n));
        /* n = 2^s: the classic binomial tree, parent(p) = p without its lowest set bit. */
        if ((n & (n - 1)) == 0) {
            for (int p = 1; p < n; ++p) {
                assert_int_equal(a->parent[chain[p]], chain[p & (p - 1)]);
            }
        }
        kb_tree_free(a);
        kb_tree_free(b);
        kb_tree_free(c);
    }
}

/* Seed 001 fig. 9: 3-binomial and 4-binomial trees on 16 nodes. */
static void test_fig9(void **state)
{
    (void)state;
    static int chain[16], pos[16];
    static shape_t sh;
    chain_of(16, 0, NULL, chain, pos);
    kb_tree_t *t = NULL;
    const kb_tree_params_t p3 = {3, 1.0}, p4 = {4, 1.0};

    /* k = 3: L1 = 5; the first child covers the last N(4,3) = 15 places, which
     * is everything but the root; node 1 then sends blocks of 8, 4, 2. */
    assert_int_equal(kb_tree_build(KB_SHAPE_KBINOMIAL, 16, 0, NULL, &p3, &t), KB_OK);
    check_structure(t, 16, 0, pos, &sh);
    assert_int_equal(kb_L1(16, 3), 5);
    assert_int_equal(t->depth, 5);
    assert_int_equal(kb_tree_nchildren(t, 0), 1);
    assert_int_equal(t->children[t->child_off[0]], 1);
    assert_int_equal(sh.size[1], 15);
    static const int kids1[] = {8, 4, 2}, sizes1[] = {8, 4, 2};
    assert_int_equal(kb_tree_nchildren(t, 1), 3);
    for (int i = 0; i < 3; ++i) {
        assert_int_equal(t->children[t->child_off[1] + i], kids1[i]);
        assert_int_equal(sh.size[kids1[i]], sizes1[i]);
    }
    assert_int_equal(kb_sim_steps(t, 1, KB_DISC_FPFS), 5);
    kb_tree_free(t);

    /* k = 4: L1 = 4, the binomial tree: root -> 8, 4, 2, 1 with subtrees 8, 4, 2, 1. */
    assert_int_equal(kb_tree_build(KB_SHAPE_KBINOMIAL, 16, 0, NULL, &p4, &t), KB_OK);
    check_structure(t, 16, 0, pos, &sh);
    assert_int_equal(kb_L1(16, 4), 4);
    assert_int_equal(t->depth, 4);
    static const int kids0[] = {8, 4, 2, 1};
    assert_int_equal(kb_tree_nchildren(t, 0), 4);
    for (int i = 0; i < 4; ++i) {
        assert_int_equal(t->children[t->child_off[0] + i], kids0[i]);
        assert_int_equal(sh.size[kids0[i]], kids0[i]);
    }
    assert_int_equal(kb_sim_steps(t, 1, KB_DISC_FPFS), 4);
    kb_tree_free(t);
}

static void test_linear_chain(void **state)
{
    (void)state;
    static int ord[NMAX], chain[NMAX], pos[NMAX];
    static shape_t sh;
    for (int n = 1; n <= NMAX; n += 8) {
        shuffled(n, ord, 7u);
        for (int root = 0; root < n; root += 5) {
            chain_of(n, root, ord, chain, pos);
            kb_tree_t *t = NULL;
            assert_int_equal(kb_tree_build(KB_SHAPE_LINEAR, n, root, ord, NULL, &t), KB_OK);
            check_structure(t, n, root, pos, &sh);
            assert_int_equal(kb_tree_nchildren(t, root), n - 1);
            for (int i = 1; i < n; ++i) {
                assert_int_equal(t->children[t->child_off[root] + i - 1], chain[i]);
            }
            assert_int_equal(t->depth, n > 1 ? 1 : 0);
            kb_tree_free(t);
            assert_int_equal(kb_tree_build(KB_SHAPE_CHAIN, n, root, ord, NULL, &t), KB_OK);
            check_structure(t, n, root, pos, &sh);
            for (int i = 1; i < n; ++i) {
                assert_int_equal(t->parent[chain[i]], chain[i - 1]);
            }
            assert_int_equal(t->depth, n - 1);
            kb_tree_free(t);
        }
    }
}

/* Postal trees: structure and completion for every n <= 257. */
static void test_postal_sweep(void **state)
{
    (void)state;
    static const double lambdas[] = {1, 1.5, 2, 3, 5, 10};
    static int ord[NMAX], chain[NMAX], pos[NMAX];
    static shape_t sh;
    long trees = 0;
    for (int n = 1; n <= NMAX; ++n) {
        shuffled(n, ord, 99u + (unsigned)n);
        const int roots[] = {0, n / 2, n - 1};
        for (size_t il = 0; il < sizeof lambdas / sizeof lambdas[0]; ++il) {
            for (int ir = 0; ir < 3; ++ir) {
                const int root = roots[ir];
                const kb_tree_params_t p = {1, lambdas[il]};
                chain_of(n, root, ord, chain, pos);
                kb_tree_t *t = NULL;
                assert_int_equal(kb_tree_build(KB_SHAPE_POSTAL, n, root, ord, &p, &t), KB_OK);
                check_structure(t, n, root, pos, &sh);
                const double c = kb_postal_completion(n, lambdas[il]);
                assert_true(fabs(kb_sim_postal(t, lambdas[il]) - c) < 1e-9);
                if (lambdas[il] == 1.0) {
                    assert_true(c == kb_ceil_log2(n));
                    assert_int_equal(kb_tree_nchildren(t, root), kb_ceil_log2(n));
                }
                if (lambdas[il] >= n - 1) {
                    assert_int_equal(kb_tree_nchildren(t, root), n - 1); /* flat */
                }
                kb_tree_free(t);
                ++trees;
            }
        }
    }
    printf("[ kb ] postal sweep: %ld trees spanning, sim == min{t : F(t) >= n}\n", trees);
}

/* lambda = 1: a binomial tree.  For n = 2^s every node's children, in send
 * order, own subtrees of 2^(c-1), ..., 2, 1 nodes, as in the BINOMIAL shape. */
static void test_postal_lambda1_is_binomial(void **state)
{
    (void)state;
    static int chain[NMAX], pos[NMAX];
    static shape_t sp, sb;
    for (int n = 1; n <= 256; n *= 2) {
        chain_of(n, 0, NULL, chain, pos);
        const kb_tree_params_t p = {1, 1.0};
        kb_tree_t *tp = NULL, *tb = NULL;
        assert_int_equal(kb_tree_build(KB_SHAPE_POSTAL, n, 0, NULL, &p, &tp), KB_OK);
        assert_int_equal(kb_tree_build(KB_SHAPE_BINOMIAL, n, 0, NULL, NULL, &tb), KB_OK);
        check_structure(tp, n, 0, pos, &sp);
        check_structure(tb, n, 0, pos, &sb);
        for (int v = 0; v < n; ++v) {
            const int c = kb_tree_nchildren(tp, v);
            for (int i = 0; i < c; ++i) {
                assert_int_equal(sp.size[tp->children[tp->child_off[v] + i]], 1 << (c - 1 - i));
            }
        }
        for (int v = 0; v < n; ++v) {
            const int c = kb_tree_nchildren(tb, v);
            for (int i = 0; i < c; ++i) {
                assert_int_equal(sb.size[tb->children[tb->child_off[v] + i]], 1 << (c - 1 - i));
            }
        }
        assert_int_equal(tp->depth, tb->depth);
        assert_int_equal(kb_tree_nchildren(tp, 0), kb_tree_nchildren(tb, 0));
        kb_tree_free(tp);
        kb_tree_free(tb);
    }
    /* 4 nodes, lambda = 2: ties go to the old queue, so the root sends all three. */
    const kb_tree_params_t p2 = {1, 2.0};
    kb_tree_t *t = NULL;
    assert_int_equal(kb_tree_build(KB_SHAPE_POSTAL, 4, 0, NULL, &p2, &t), KB_OK);
    assert_int_equal(kb_tree_nchildren(t, 0), 3);
    assert_true(kb_sim_postal(t, 2.0) == 4.0);
    kb_tree_free(t);
}

/* k-nomial trees (tree.cpp's picture, n = 10, radix 3: 0 -> 9, 3, 6, 1, 2; 3 -> 4, 5;
 * 6 -> 7, 8), and for every n <= 130, radix 2..9 and root: a valid tree whose depth is
 * the most non-zero base-r digits of a position, every child c of v sits i * r^j places
 * after v along the chain with i in 1..r-1, and radix 2 on a power of two is the
 * binomial tree. */
static void test_knomial(void **state)
{
    (void)state;
    const kb_tree_params_t p3 = {3, 1.0};
    kb_tree_t *t = NULL;
    assert_int_equal(kb_tree_build(KB_SHAPE_KNOMIAL, 10, 0, NULL, &p3, &t), KB_OK);
    const int root_kids[] = {9, 3, 6, 1, 2};
    assert_int_equal(kb_tree_nchildren(t, 0), 5);
    for (int i = 0; i < 5; ++i) {
        assert_int_equal(t->children[t->child_off[0] + i], root_kids[i]);
    }
    assert_int_equal(t->parent[4], 3);
    assert_int_equal(t->parent[5], 3);
    assert_int_equal(t->parent[7], 6);
    assert_int_equal(t->parent[8], 6);
    assert_int_equal(t->depth, 2);
    kb_tree_free(t);
    const kb_tree_params_t p1 = {1, 1.0};
    assert_int_equal(kb_tree_build(KB_SHAPE_KNOMIAL, 10, 0, NULL, &p1, &t), KB_ERR_ARG);
    assert_null(t);
    for (int n = 1; n <= 130; ++n) {
        for (int r = 2; r <= 9; ++r) {
            const kb_tree_params_t p = {r, 1.0};
            for (int root = 0; root < n; root += (n > 20 ? 7 : 1)) {
                assert_int_equal(kb_tree_build(KB_SHAPE_KNOMIAL, n, root, NULL, &p, &t), KB_OK);
                assert_int_equal(kb_tree_check(t), KB_OK);
                int depth = 0; /* one hop per non-zero base-r digit of the position */
                for (int v = 1; v < n; ++v) {
                    int digits = 0;
                    for (int x = v; x > 0; x /= r) {
                        digits += x % r != 0;
                    }
                    depth = digits > depth ? digits : depth;
                }
                assert_int_equal(t->depth, depth);
                for (int v = 0; v < n; ++v) {
                    const int pos = (v - root + n) % n;
                    for (int i = t->child_off[v]; i < t->child_off[v + 1]; ++i) {
                        int off = (t->children[i] - root + n) % n - pos;
                        assert_true(off > 0);
                        while (off % r == 0) {
                            off /= r;
                        }
                        assert_true(off < r);
                    }
                }
                kb_tree_free(t);
            }
        }
    }
    for (int n = 2; n <= 128; n *= 2) {
        kb_tree_t *b = NULL;
        const kb_tree_params_t p2 = {2, 1.0};
        assert_int_equal(kb_tree_build(KB_SHAPE_KNOMIAL, n, 1, NULL, &p2, &t), KB_OK);
        assert_int_equal(kb_tree_build(KB_SHAPE_BINOMIAL, n, 1, NULL, &p2, &b), KB_OK);
        for (int v = 0; v < n; ++v) {
            assert_int_equal(t->parent[v], b->parent[v]);
        }
        kb_tree_free(t);
        kb_tree_free(b);
    }
}

static void test_single_node(void **state)
{
    (void)state;
    static const kb_shape_t shapes[] = {KB_SHAPE_LINEAR, KB_SHAPE_BINOMIAL, KB_SHAPE_KBINOMIAL,
                                        KB_SHAPE_POSTAL, KB_SHAPE_CHAIN, KB_SHAPE_KNOMIAL};
    const kb_tree_params_t p = {3, 2.5};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) {
        kb_tree_t *t = NULL;
        assert_int_equal(kb_tree_build(shapes[i], 1, 0, NULL, &p, &t), KB_OK);
        assert_int_equal(t->n, 1);
        assert_int_equal(t->depth, 0);
        assert_int_equal(t->parent[0], KB_NO_PEER);
        assert_int_equal(kb_tree_nchildren(t, 0), 0);
        assert_int_equal(kb_tree_check(t), KB_OK);
        assert_int_equal(kb_sim_steps(t, 5, KB_DISC_FPFS), 0);
        assert_true(kb_sim_postal(t, 2.5) == 0.0);
        kb_tree_free(t);
    }
}

static void test_tree_validation(void **state)
{
    (void)state;
    kb_tree_t *t = (kb_tree_t *)0x1;
    const kb_tree_params_t ok = {2, 2.0}, k0 = {0, 2.0}, kneg = {-5, 2.0};
    const kb_tree_params_t l_small = {2, 0.5}, l_nan = {2, NAN}, l_inf = {2, INFINITY};
    const int dup[4] = {0, 1, 1, 3}, out_of_range[4] = {0, 1, 2, 4}, neg[4] = {0, -1, 2, 3};
    assert_int_equal(kb_tree_build(KB_SHAPE_KBINOMIAL, 0, 0, NULL, &ok, &t), KB_ERR_ARG);
    assert_null(t);
    assert_int_equal(kb_tree_build(KB_SHAPE_LINEAR, -4, 0, NULL, &ok, &t), KB_ERR_ARG);
    assert_int_equal(kb_tree_build(KB_SHAPE_LINEAR, 4, 4, NULL, &ok, &t), KB_ERR_ARG);
    assert_int_equal(kb_tree_build(KB_SHAPE_LINEAR, 4, -1, NULL, &ok, &t), KB_ERR_ARG);
    assert_int_equal(kb_tree_build(KB_SHAPE_KBINOMIAL, 4, 0, NULL, &k0, &t), KB_ERR_ARG);
    assert_int_equal(kb_tree_build(KB_SHAPE_KBINOMIAL, 4, 0, NULL, &kneg, &t), KB_ERR_ARG);
    assert_int_equal(kb_tree_build(KB_SHAPE_KBINOMIAL, 4, 0, NULL, NULL, &t), KB_ERR_ARG);
    assert_int_equal(kb_tree_build(KB_SHAPE_POSTAL, 4, 0, NULL, NULL, &t), KB_ERR_ARG);
    assert_int_equal(kb_tree_build(KB_SHAPE_POSTAL, 4, 0, NULL, &l_small, &t), KB_ERR_ARG);
    assert_int_equal(kb_tree_build(KB_SHAPE_POSTAL, 4, 0, NULL, &l_nan, &t), KB_ERR_ARG);
    assert_int_equal(kb_tree_build(KB_SHAPE_POSTAL, 4, 0, NULL, &l_inf, &t), KB_ERR_ARG);
    assert_int_equal(kb_tree_build(KB_SHAPE_CHAIN, 4, 0, dup, &ok, &t), KB_ERR_ARG);
    assert_int_equal(kb_tree_build(KB_SHAPE_CHAIN, 4, 0, out_of_range, &ok, &t), KB_ERR_ARG);
    assert_int_equal(kb_tree_build(KB_SHAPE_CHAIN, 4, 0, neg, &ok, &t), KB_ERR_ARG);
    assert_int_equal(kb_tree_build((kb_shape_t)99, 4, 0, NULL, &ok, &t), KB_ERR_ARG);
    assert_int_equal(kb_tree_build(KB_SHAPE_CHAIN, 4, 0, NULL, &ok, NULL), KB_ERR_ARG);
    assert_null(t);
    kb_tree_free(NULL);
    assert_int_equal(kb_tree_nchildren(NULL, 0), 0);

    /* kb_tree_check rejects every kind of corruption. */
    assert_int_equal(kb_tree_check(NULL), KB_ERR_ARG);
    assert_int_equal(kb_tree_build(KB_SHAPE_BINOMIAL, 8, 0, NULL, NULL, &t), KB_OK);
    assert_int_equal(kb_tree_nchildren(t, 8), 0);
    assert_int_equal(kb_tree_nchildren(t, -1), 0);
    assert_int_equal(kb_tree_check(t), KB_OK);
    t->depth++;
    assert_int_equal(kb_tree_check(t), KB_ERR_ARG);
    t->depth--;
    t->parent[t->children[0]] = 7;
    assert_int_equal(kb_tree_check(t), KB_ERR_ARG);
    t->parent[t->children[0]] = 0;
    const int c0 = t->children[0];
    t->children[0] = 0; /* root listed as its own child: a cycle */
    assert_int_equal(kb_tree_check(t), KB_ERR_ARG);
    t->children[0] = 99;
    assert_int_equal(kb_tree_check(t), KB_ERR_ARG);
    t->children[0] = c0;
    t->child_off[8] = 6;
    assert_int_equal(kb_tree_check(t), KB_ERR_ARG);
    t->child_off[8] = 7;
    t->root = 3;
    assert_int_equal(kb_tree_check(t), KB_ERR_ARG);
    t->root = 0;
    assert_int_equal(kb_tree_check(t), KB_OK);
    assert_int_equal(kb_sim_steps(t, 3, KB_DISC_FPFS), 9);
    kb_tree_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kbinomial_sweep),
        cmocka_unit_test(test_kbinomial_large_k_and_binomial),
        cmocka_unit_test(test_fig9),
        cmocka_unit_test(test_linear_chain),
        cmocka_unit_test(test_postal_sweep),
        cmocka_unit_test(test_postal_lambda1_is_binomial),
        cmocka_unit_test(test_knomial),
        cmocka_unit_test(test_single_node),
        cmocka_unit_test(test_tree_validation),
    };
    return cmocka_run_group_tests_name("kb_tree", tests, NULL, NULL);
}
