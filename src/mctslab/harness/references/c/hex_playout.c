/*
 * Hex random fills: the careful C reference for mctslab's compiled Hex kernels.
 *
 * Rules (as in mctslab's Hex kernels): a size x size rhombus; Black (first player) joins top and bottom,
 * White left and right; the neighbours of (r, c) are (r, c+-1), (r+-1, c), (r-1, c+1) and
 * (r+1, c-1). Exactly one player is connected on a full board, and filling a decided game never
 * changes its winner, so the standard random playout is a fill: shuffle the empty cells
 * (Fisher-Yates), give them alternately to Black and White, then find the winner once with a flood
 * fill from Black's top-row stones. This is the same algorithm as mctslab's Numba kernel, so the
 * two are compared like for like.
 *
 * The board has a one-cell border (stride size + 2), so the six neighbours need no bounds tests.
 * Every fill rewrites every cell, so nothing is reset between playouts, and the permutation is
 * reshuffled in place (a uniform shuffle of any permutation is uniform).
 *
 * Exported (called through ctypes by mctslab.references):
 *   hex_playouts(size, max_playouts, seconds, seed, out[4], elapsed)
 *       fills until max_playouts (if > 0) or seconds (if > 0) are reached, whichever first; only
 *       this loop is timed (CLOCK_MONOTONIC). out = {playouts, sum of fill lengths, sum of their
 *       squares, first-player (Black) wins}; a fill's length is the number of cells.
 *   hex_selfcheck(size, fills, seed)
 *       after each fill checks that Black has ceil(N/2) stones and that exactly one of "Black
 *       joins top-bottom" (the fast flood fill) and "White joins left-right" (a second,
 *       independent flood fill) holds. Returns the number of violations (0 when correct).
 */
#include <stdint.h>
#include <string.h>
#include <time.h>

#define MAXSIZE 19
#define MAXW (MAXSIZE + 2)
#define MAXP (MAXW * MAXW)
#define MAXN (MAXSIZE * MAXSIZE)
#define BATCH 256

enum { EMPTY = 0, BLACK = 1, WHITE = 2, EDGE = 3, MARK = 4 };

typedef struct {
    int size, w, n;
    int dir[6];
    uint16_t perm[MAXN]; /* the board cells, shuffled in place by every fill */
    uint8_t board[MAXP];
    uint16_t stack[MAXN];
} Hex;

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

static void setup(Hex *h, int size) {
    int w = size + 2;
    h->size = size;
    h->w = w;
    h->n = size * size;
    const int dir[6] = {-1, 1, -w, w, -w + 1, w - 1};
    memcpy(h->dir, dir, sizeof dir);
    memset(h->board, EDGE, sizeof h->board);
    int k = 0;
    for (int r = 0; r < size; r++)
        for (int c = 0; c < size; c++) {
            int p = (r + 1) * w + c + 1;
            h->board[p] = EMPTY;
            h->perm[k++] = (uint16_t)p;
        }
}

/* Shuffle and fill alternately, Black first. */
static inline void fill(Hex *h, uint64_t *rng) {
    const int n = h->n;
    uint16_t *perm = h->perm;
    uint8_t *board = h->board;
    for (int i = 0; i < n; i++) {
        int j = i + (int)rng_below(rng, (uint32_t)(n - i));
        uint16_t p = perm[j];
        perm[j] = perm[i];
        perm[i] = p;
        board[p] = (uint8_t)(BLACK + (i & 1));
    }
}

/* Does Black join top and bottom? Depth-first flood fill from the top-row Black stones. */
static inline int black_wins(Hex *h) {
    const int w = h->w, size = h->size;
    const int bottom = size * w; /* cells at or after this index are on the bottom row */
    uint8_t *board = h->board;
    uint16_t *st = h->stack;
    const int d0 = h->dir[0], d1 = h->dir[1], d2 = h->dir[2];
    const int d3 = h->dir[3], d4 = h->dir[4], d5 = h->dir[5];
    int sp = 0;
    for (int c = 1; c <= size; c++) {
        int p = w + c;
        if (board[p] == BLACK) {
            board[p] = MARK;
            st[sp++] = (uint16_t)p;
        }
    }
#define VISIT(q)                      \
    if (board[q] == BLACK) {          \
        board[q] = MARK;              \
        st[sp++] = (uint16_t)(q);     \
    }
    while (sp > 0) {
        int p = st[--sp];
        if (p >= bottom) return 1;
        VISIT(p + d3) VISIT(p + d5) VISIT(p + d1) VISIT(p + d0) VISIT(p + d4) VISIT(p + d2)
    }
#undef VISIT
    return 0;
}

int hex_playouts(int size, int64_t max_playouts, double seconds, uint64_t seed, int64_t *out,
                 double *elapsed) {
    Hex hex; /* on the stack (about 1.6 kB): calls are re-entrant */
    Hex *h = &hex;
    if (size < 1 || size > MAXSIZE) return -1;
    setup(h, size);
    uint64_t rng = seed;
    int64_t count = 0, first = 0;
    double t0 = now(), t = 0.0;
    for (;;) {
        for (int i = 0; i < BATCH; i++) {
            fill(h, &rng);
            first += black_wins(h);
            count++;
            if (max_playouts > 0 && count >= max_playouts) break;
        }
        t = now() - t0;
        if (max_playouts > 0 && count >= max_playouts) break;
        if (seconds > 0 && t >= seconds) break;
        if (max_playouts <= 0 && seconds <= 0) break;
    }
    out[0] = count;
    out[1] = count * h->n;
    out[2] = count * h->n * h->n;
    out[3] = first;
    *elapsed = t;
    return 0;
}

/* ---- self-check --------------------------------------------------------------------------- */

/* Does White join left and right? Breadth-first, on a copy, written independently. */
static int white_wins(const Hex *h) {
    uint8_t b[MAXP];
    int queue[MAXN], head = 0, tail = 0;
    const int w = h->w, size = h->size;
    memcpy(b, h->board, sizeof b);
    for (int r = 1; r <= size; r++) {
        int p = r * w + 1;
        if (b[p] == WHITE) { b[p] = MARK; queue[tail++] = p; }
    }
    while (head < tail) {
        int p = queue[head++];
        if (p % w == size) return 1; /* rightmost column */
        for (int d = 0; d < 6; d++) {
            int q = p + h->dir[d];
            if (b[q] == WHITE) { b[q] = MARK; queue[tail++] = q; }
        }
    }
    return 0;
}

int hex_selfcheck(int size, int fills, uint64_t seed) {
    Hex hex;
    Hex *h = &hex;
    if (size < 1 || size > MAXSIZE) return -1;
    setup(h, size);
    uint64_t rng = seed;
    int errors = 0;
    for (int f = 0; f < fills; f++) {
        fill(h, &rng);
        int blacks = 0;
        for (int i = 0; i < h->n; i++) blacks += h->board[h->perm[i]] == BLACK;
        errors += blacks != (h->n + 1) / 2;
        int white = white_wins(h);
        int black = black_wins(h);
        errors += black == white;
    }
    return errors;
}
