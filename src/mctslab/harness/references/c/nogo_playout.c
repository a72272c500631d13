/*
 * NoGo uniform random playouts: the careful C reference for mctslab's compiled NoGo kernels.
 *
 * Rules (as in mctslab's NoGo kernels, after Chou, Teytaud & Yen, "Revisiting MCTS on a normal form game:
 * NoGo", 2011): a Go board, Black first, no passing; a move is illegal if it captures (leaves an
 * adjacent opponent group without liberties) or is suicide; the player to move with no legal move
 * loses.
 *
 * The standard fast technique:
 *   - a board with a one-point border (stride size + 2), so neighbours need no bounds tests;
 *   - groups as circular lists of stones with a group id per stone (O(1) find; a merge relabels
 *     the smaller group), and per group the pseudo-liberties (pl = number of (stone, empty
 *     neighbour) pairs), their sum s1 and sum of squares s2: the group has exactly one liberty
 *     iff pl * s2 == s1 * s1 (all counted liberties equal; Cauchy-Schwarz), a NoGo group never
 *     has none;
 *   - nothing is ever removed in NoGo, so a point illegal for a player stays illegal: each player
 *     keeps a shrinking candidate list; the mover draws a uniform candidate, drops it for good if
 *     illegal and draws again (rejection sampling from a superset of the legal moves, so the move
 *     played is uniform over the legal moves); a played point leaves both lists at once.
 *
 * Exported (called through ctypes by mctslab.references):
 *   nogo_playouts(size, max_playouts, seconds, seed, out[4], elapsed)
 *       runs playouts from the empty board until max_playouts (if > 0) or seconds (if > 0) are
 *       reached, whichever comes first; only this loop is timed (CLOCK_MONOTONIC).
 *       out = {playouts, sum of game lengths, sum of squared lengths, first-player (Black) wins}.
 *   nogo_selfcheck(size, games, seed)
 *       plays random games and after every move compares the fast legality test with a
 *       brute-force one (flood fills) for every empty point and both colours, checks that every
 *       legal point is still in its player's candidate list, and that the loser really has no
 *       legal move. Returns the number of disagreements (0 when correct).
 */
#include <stdint.h>
#include <string.h>
#include <time.h>

#define MAXSIZE 19
#define MAXW (MAXSIZE + 2)
#define MAXP (MAXW * MAXW)
#define MAXN (MAXSIZE * MAXSIZE)
#define NONE 0xFFFFu
#define BATCH 64

enum { EMPTY = 0, BLACK = 1, WHITE = 2, EDGE = 3 };

typedef struct {
    int size, w, n, np;
    /* the empty position, copied at the start of every playout */
    uint8_t color0[MAXP];
    uint16_t cand0[MAXN];
    uint16_t pos0[MAXP];
    /* the playout position */
    uint8_t color[MAXP];
    uint16_t gid[MAXP];   /* group id (a stone of the group) of each stone */
    uint16_t next[MAXP];  /* circular list of the stones of a group */
    uint16_t gsize[MAXP]; /* stones in a group, by group id */
    int32_t pl[MAXP];     /* pseudo-liberties, by group id */
    int32_t s1[MAXP];     /* sum of the pseudo-liberty points */
    int32_t s2[MAXP];     /* sum of their squares (< 2^31 up to 19x19) */
    uint16_t cand[2][MAXN];
    uint16_t pos[2][MAXP]; /* index of a point in cand[c], NONE if absent */
    int ncand[2];
} Board;

/* wyrand (Wang Yi): a fast 64-bit generator with good statistical quality. */
static inline uint64_t rng_next(uint64_t *s) {
    *s += 0xa0761d6478bd642full;
    __uint128_t t = (__uint128_t)*s * (*s ^ 0xe7037ed1a0b428dbull);
    return (uint64_t)(t >> 64) ^ (uint64_t)t;
}

/* uniform in [0, n) by multiply-shift (bias below n / 2^32, negligible here) */
static inline uint32_t rng_below(uint64_t *s, uint32_t n) {
    return (uint32_t)(((uint64_t)(uint32_t)rng_next(s) * n) >> 32);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void setup(Board *b, int size) {
    b->size = size;
    b->w = size + 2;
    b->n = size * size;
    b->np = b->w * b->w;
    memset(b->color0, EDGE, sizeof b->color0);
    for (int i = 0; i < MAXP; i++) b->pos0[i] = NONE;
    int k = 0;
    for (int r = 0; r < size; r++)
        for (int c = 0; c < size; c++) {
            int p = (r + 1) * b->w + c + 1;
            b->color0[p] = EMPTY;
            b->cand0[k] = (uint16_t)p;
            b->pos0[p] = (uint16_t)k;
            k++;
        }
}

static inline void reset(Board *b) {
    memcpy(b->color, b->color0, (size_t)b->np);
    for (int c = 0; c < 2; c++) {
        memcpy(b->cand[c], b->cand0, (size_t)b->n * sizeof(uint16_t));
        memcpy(b->pos[c], b->pos0, (size_t)b->np * sizeof(uint16_t));
        b->ncand[c] = b->n;
    }
}

static inline int in_atari(const Board *b, int g) {
    return (int64_t)b->pl[g] * b->s2[g] == (int64_t)b->s1[g] * b->s1[g];
}

/* Is the empty point p legal for colour col? Illegal if a neighbouring opponent group is in
   atari (its only liberty is p: playing captures), or if p has no empty neighbour and every
   neighbouring own group is in atari (suicide). The four neighbours are unrolled by hand, which
   gcc -O2 does not do for a loop over an offset array (measured: +20% playouts/s on 9x9). */
static inline int is_legal(const Board *b, int p, int col) {
    const int w = b->w;
    int lib = 0;
#define LOOK(q)                                         \
    {                                                   \
        int k_ = b->color[q];                           \
        if (k_ == EMPTY) {                              \
            lib = 1;                                    \
        } else if (k_ != EDGE) {                        \
            int atari_ = in_atari(b, b->gid[q]);        \
            if (k_ == col) lib |= !atari_;              \
            else if (atari_) return 0;                  \
        }                                               \
    }
    LOOK(p - w) LOOK(p - 1) LOOK(p + 1) LOOK(p + w)
#undef LOOK
    return lib;
}

/* Merge group h into group g (g the larger): relabel h's stones, splice the circular lists. */
static inline void merge(Board *b, int g, int h) {
    int s = h;
    do { b->gid[s] = (uint16_t)g; s = b->next[s]; } while (s != h);
    uint16_t t = b->next[g];
    b->next[g] = b->next[h];
    b->next[h] = t;
    b->gsize[g] += b->gsize[h];
    b->pl[g] += b->pl[h];
    b->s1[g] += b->s1[h];
    b->s2[g] += b->s2[h];
}

static inline void place(Board *b, int p, int col) {
    const int w = b->w;
    int32_t pl = 0, s1 = 0, s2 = 0;
    b->color[p] = (uint8_t)col;
    b->gid[p] = (uint16_t)p;
    b->next[p] = (uint16_t)p;
    b->gsize[p] = 1;
    /* an empty neighbour is a pseudo-liberty of the new stone; p stops being one of every
       neighbouring group (once per adjacency, as pseudo-liberties count adjacencies) */
#define TOUCH(q)                        \
    {                                   \
        int k_ = b->color[q];           \
        if (k_ == EMPTY) {              \
            pl += 1;                    \
            s1 += (q);                  \
            s2 += (q) * (q);            \
        } else if (k_ != EDGE) {        \
            int g_ = b->gid[q];         \
            b->pl[g_] -= 1;             \
            b->s1[g_] -= p;             \
            b->s2[g_] -= p * p;         \
        }                               \
    }
    TOUCH(p - w) TOUCH(p - 1) TOUCH(p + 1) TOUCH(p + w)
#undef TOUCH
    b->pl[p] = pl;
    b->s1[p] = s1;
    b->s2[p] = s2;
#define JOIN(q)                                                     \
    if (b->color[q] == col) {                                       \
        int g_ = b->gid[q], h_ = b->gid[p];                         \
        if (g_ != h_) {                                             \
            if (b->gsize[g_] >= b->gsize[h_]) merge(b, g_, h_);     \
            else merge(b, h_, g_);                                  \
        }                                                           \
    }
    JOIN(p - w) JOIN(p - 1) JOIN(p + 1) JOIN(p + w)
#undef JOIN
}

static inline void list_remove(Board *b, int c, int p) {
    uint16_t i = b->pos[c][p];
    if (i == NONE) return;
    int last = b->cand[c][--b->ncand[c]];
    b->cand[c][i] = (uint16_t)last;
    b->pos[c][last] = i;
    b->pos[c][p] = NONE;
}

/* Draw the mover's move uniformly among its legal moves; -1 if it has none. */
static inline int draw_move(Board *b, int c, uint64_t *rng) {
    uint16_t *cl = b->cand[c];
    uint16_t *ps = b->pos[c];
    int k = b->ncand[c];
    while (k > 0) {
        int i = (int)rng_below(rng, (uint32_t)k);
        int p = cl[i];
        if (is_legal(b, p, c + 1)) {
            b->ncand[c] = k;
            return p;
        }
        k--; /* illegal for good: drop it */
        int last = cl[k];
        cl[i] = (uint16_t)last;
        ps[last] = (uint16_t)i;
        ps[p] = NONE;
    }
    b->ncand[c] = 0;
    return -1;
}

/* One playout from the empty board; returns the winner (0 Black, 1 White), length in *len. */
static inline int playout(Board *b, uint64_t *rng, int *len) {
    reset(b);
    int c = 0, moves = 0;
    for (;;) {
        int p = draw_move(b, c, rng);
        if (p < 0) break;
        list_remove(b, 0, p);
        list_remove(b, 1, p);
        place(b, p, c + 1);
        moves++;
        c ^= 1;
    }
    *len = moves;
    return c ^ 1;
}

int nogo_playouts(int size, int64_t max_playouts, double seconds, uint64_t seed, int64_t *out,
                  double *elapsed) {
    Board board; /* on the stack (about 13 kB): calls are re-entrant */
    Board *b = &board;
    if (size < 2 || size > MAXSIZE) return -1;
    setup(b, size);
    uint64_t rng = seed;
    int64_t count = 0, total = 0, total_sq = 0, first = 0;
    double t0 = now(), t = 0.0;
    for (;;) {
        for (int i = 0; i < BATCH; i++) {
            int len;
            int winner = playout(b, &rng, &len);
            count++;
            total += len;
            total_sq += (int64_t)len * len;
            first += (winner == 0);
            if (max_playouts > 0 && count >= max_playouts) break;
        }
        t = now() - t0;
        if (max_playouts > 0 && count >= max_playouts) break;
        if (seconds > 0 && t >= seconds) break;
        if (max_playouts <= 0 && seconds <= 0) break;
    }
    out[0] = count;
    out[1] = total;
    out[2] = total_sq;
    out[3] = first;
    *elapsed = t;
    return 0;
}

/* ---- self-check: brute force by flood fill ---------------------------------------------- */

static int group_has_liberty(const uint8_t *color, int w, int start, uint8_t *seen, uint16_t *st) {
    int col = color[start], sp = 0, found = 0;
    int touched[MAXN], nt = 0;
    seen[start] = 1;
    touched[nt++] = start;
    st[sp++] = (uint16_t)start;
    while (sp > 0 && !found) {
        int p = st[--sp];
        const int nb[4] = {p - w, p - 1, p + 1, p + w};
        for (int d = 0; d < 4; d++) {
            int q = nb[d];
            if (color[q] == EMPTY) { found = 1; break; }
            if (color[q] == col && !seen[q]) {
                seen[q] = 1;
                touched[nt++] = q;
                st[sp++] = (uint16_t)q;
            }
        }
    }
    for (int i = 0; i < nt; i++) seen[touched[i]] = 0;
    return found;
}

static int brute_legal(const Board *b, int p, int col) {
    uint8_t tmp[MAXP], seen[MAXP];
    uint16_t st[MAXP];
    if (b->color[p] != EMPTY) return 0;
    memcpy(tmp, b->color, (size_t)b->np);
    memset(seen, 0, sizeof seen);
    tmp[p] = (uint8_t)col;
    const int w = b->w;
    const int nb[4] = {p - w, p - 1, p + 1, p + w};
    for (int d = 0; d < 4; d++) {
        int q = nb[d];
        if (tmp[q] == 3 - col && !group_has_liberty(tmp, w, q, seen, st)) return 0;
    }
    return group_has_liberty(tmp, w, p, seen, st);
}

int nogo_selfcheck(int size, int games, uint64_t seed) {
    Board board;
    Board *b = &board;
    if (size < 2 || size > MAXSIZE) return -1;
    setup(b, size);
    uint64_t rng = seed;
    int errors = 0;
    for (int g = 0; g < games; g++) {
        reset(b);
        int c = 0;
        for (;;) {
            for (int r = 0; r < size; r++)
                for (int x = 0; x < size; x++) {
                    int p = (r + 1) * b->w + x + 1;
                    for (int col = 1; col <= 2; col++) {
                        int bl = brute_legal(b, p, col);
                        if (b->color[p] == EMPTY && is_legal(b, p, col) != bl) errors++;
                        if (bl && b->pos[col - 1][p] == NONE) errors++; /* dropped a legal point */
                    }
                }
            int p = draw_move(b, c, &rng);
            if (p < 0) {
                for (int q = 0; q < b->np; q++) errors += brute_legal(b, q, c + 1);
                break;
            }
            list_remove(b, 0, p);
            list_remove(b, 1, p);
            place(b, p, c + 1);
            c ^= 1;
        }
    }
    return errors;
}
