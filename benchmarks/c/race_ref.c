/* A plain C Sheep Race semifinal with the `greedy` pace policy: the speed reference.
 *
 * Written from the rules (shared/rulebooks/README.md) and the `greedy` specification in
 * README.md "Pace policies", not translated from the numba engine. It draws the dice
 * from the same SplitMix64 streams as sheepsim/rng.py (keyed by seed, game, DICE=0), so
 * for a given seed it must give exactly the engine's placings and turn counts:
 * benchmarks/bench_race.py checks that before timing both.
 *
 * Compiled with -DGREEDY_FROM_VALUES it plays the same `greedy` computed from the
 * sheep's values without a legal array (the algorithm of the engine's fast path), as a
 * second, tuned reference; the default build is the plain reference.
 *
 * Usage: race_ref SEED FIRST_GAME N_GAMES TRACK END_ZONE MAX_CUBES BLUE_TOTAL
 *                 DICE CARDS
 *   DICE  "1,2,3,4,5,6/1,2,3,0,0,0"  one die per '/', faces separated by ','
 *   CARDS "r,b,w,trot,gallop/..."      six cards, lanes 1-6
 * Prints the 216 joint (1st, 2nd, 3rd) lane counts (36a + 6b + c), the total turns, and
 * the wall-clock and CPU seconds of the simulation loop, one line each.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GOLDEN 0x9E3779B97F4A7C15ULL
#define M1 0xBF58476D1CE4E5B9ULL
#define M2 0x94D049BB133111EBULL
#define G1 0xFF51AFD7ED558CCDULL
#define G2 0xC4CEB9FE1A85EC53ULL

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * M1;
    z = (z ^ (z >> 27)) * M2;
    return z ^ (z >> 31);
}

typedef struct { uint64_t state, gamma; } stream_t;

static void seed_stream(stream_t *s, uint64_t seed, uint64_t game, uint64_t purpose) {
    uint64_t k = mix64(seed + GOLDEN);
    k = mix64(k ^ (game * M2 + GOLDEN));
    k = mix64(k ^ (purpose * G1 + M1));
    s->state = mix64(k);
    uint64_t z = k + GOLDEN;
    z = (z ^ (z >> 33)) * G1;
    z = (z ^ (z >> 33)) * G2;
    s->gamma = (z ^ (z >> 33)) | 1;
}

/* Lemire's multiply-shift on the top 32 bits, rejecting the biased low words. */
static inline int below(stream_t *s, uint64_t n) {
    uint64_t m, low;
    do {
        s->state += s->gamma;
        m = (mix64(s->state) >> 32) * n;
        low = m & 0xFFFFFFFFULL;
    } while (low < n && low < ((1ULL << 32) - n) % n);
    return (int)(m >> 32);
}

enum { RUNNING, FINISHED, EXHAUSTED };
enum { REST, WALK_RECOVER, WALK_FREE, WALK_WHITE, TROT_BLUE, TROT_WHITE, GALLOP_RED,
       GALLOP_BLUE2, GALLOP_WHITE, N_OPTIONS };
static const int CROSS_ORDER[8] = {WALK_FREE, WALK_RECOVER, TROT_BLUE, GALLOP_BLUE2,
                                   GALLOP_RED, WALK_WHITE, TROT_WHITE, GALLOP_WHITE};
static const int FAR_ORDER[9] = {GALLOP_RED, GALLOP_BLUE2, GALLOP_WHITE, TROT_BLUE,
                                 TROT_WHITE, WALK_FREE, WALK_RECOVER, WALK_WHITE, REST};

typedef struct { int pos, red, blue, white, trot, gallop, status, place; } sheep_t;

typedef struct {
    int track, ez_first, max_cubes, blue_total;
    int n_dice, nfaces[4], faces[4][16];
    int card[6][5];
} rules_t;

static inline int min_int(int a, int b) { return a < b ? a : b; }

static int distance(const sheep_t *s, int o) {
    if (o == REST) return 0;
    if (o <= WALK_WHITE) return 1;
    if (o <= TROT_WHITE) return s->trot;
    return s->gallop;
}

/* Net change of the cubes on the card if the supply has the cubes to recover. */
static int cube_change(int o, int supply) {
    switch (o) {
    case REST: return min_int(2, supply);
    case WALK_RECOVER: return min_int(1, supply);
    case WALK_FREE: return 0;
    case GALLOP_BLUE2: return -2;
    default: return -1;
    }
}

static void legal_options(const sheep_t *s, int supply, const rules_t *r, int legal[N_OPTIONS]) {
    int cubes = s->red + s->blue + s->white;
    int in_ez = s->pos >= r->ez_first;
    legal[GALLOP_RED] = s->red >= 1;
    legal[GALLOP_BLUE2] = s->blue >= 2;
    legal[GALLOP_WHITE] = s->white >= 1;
    legal[TROT_BLUE] = s->blue >= 1;
    legal[TROT_WHITE] = s->white >= 1;
    legal[WALK_WHITE] = s->white >= 1;
    legal[WALK_FREE] = in_ez && cubes >= 1;
    legal[WALK_RECOVER] = !in_ez && cubes >= 1 && cubes + min_int(1, supply) <= r->max_cubes;
    legal[REST] = !in_ez && cubes + min_int(2, supply) <= r->max_cubes;
}

/* greedy: cross if any option does (CROSS_ORDER); else the farthest move that does not
 * exhaust the sheep (ties by FAR_ORDER); else the farthest. */
static int greedy(const sheep_t *s, int supply, const rules_t *r, const int legal[N_OPTIONS]) {
    for (int i = 0; i < 8; i++) {
        int o = CROSS_ORDER[i];
        if (legal[o] && s->pos + distance(s, o) > r->track) return o;
    }
    int cubes = s->red + s->blue + s->white;
    for (int avoid = 1; avoid >= 0; avoid--) {
        int best = -1, best_d = -1;
        for (int i = 0; i < 9; i++) {
            int o = FAR_ORDER[i], d = distance(s, o), end = s->pos + d;
            if (!legal[o] || d <= best_d) continue;
            if (avoid && end >= r->ez_first && end <= r->track && cubes + cube_change(o, supply) == 0)
                continue;
            best = o;
            best_d = d;
        }
        if (best >= 0) return best;
    }
    return -1;
}

#ifdef GREEDY_FROM_VALUES
/* The same greedy from the sheep's values, the legal options derived inline: the
 * algorithm of the engine's `greedy` fast path (sheepsim.games.race.policies.
 * greedy_option), for comparing like with like. Built with -DGREEDY_FROM_VALUES; the
 * default build (the reference) fills the legal array and loops over the orders. */
static inline void farther(int *best, int *best_d, int o, int ok, int d) {
    if (ok && d > *best_d) { *best = o; *best_d = d; }
}

static int greedy_fused(const sheep_t *s, int supply, const rules_t *r) {
    int red = s->red, blue = s->blue, white = s->white, pos = s->pos;
    int trot = s->trot, gallop = s->gallop, cubes = red + blue + white;
    int in_ez = pos >= r->ez_first;
    int walk_free = in_ez && cubes >= 1;
    int walk_recover = !in_ez && cubes >= 1 && cubes + min_int(1, supply) <= r->max_cubes;
    int rest = !in_ez && cubes + min_int(2, supply) <= r->max_cubes;
    int need = r->track + 1 - pos;
    if (need <= 1) {
        if (walk_free) return WALK_FREE;
        if (walk_recover) return WALK_RECOVER;
    }
    if (trot >= need && blue >= 1) return TROT_BLUE;
    if (gallop >= need) {
        if (blue >= 2) return GALLOP_BLUE2;
        if (red >= 1) return GALLOP_RED;
    }
    if (white >= 1) {
        if (need <= 1) return WALK_WHITE;
        if (trot >= need) return TROT_WHITE;
        if (gallop >= need) return GALLOP_WHITE;
    }
    int gez = pos + gallop >= r->ez_first, tez = pos + trot >= r->ez_first, last1 = cubes == 1;
    int o = -1, d = -1;
    farther(&o, &d, GALLOP_RED, red >= 1 && !(gez && last1), gallop);
    farther(&o, &d, GALLOP_BLUE2, blue >= 2 && !(gez && cubes == 2), gallop);
    farther(&o, &d, GALLOP_WHITE, white >= 1 && !(gez && last1), gallop);
    farther(&o, &d, TROT_BLUE, blue >= 1 && !(tez && last1), trot);
    farther(&o, &d, TROT_WHITE, white >= 1 && !(tez && last1), trot);
    farther(&o, &d, WALK_FREE, walk_free, 1);
    farther(&o, &d, WALK_RECOVER, walk_recover, 1);
    farther(&o, &d, WALK_WHITE, white >= 1 && !(pos + 1 >= r->ez_first && last1), 1);
    farther(&o, &d, REST, rest, 0);
    if (o >= 0) return o;
    farther(&o, &d, GALLOP_RED, red >= 1, gallop);
    farther(&o, &d, GALLOP_BLUE2, blue >= 2, gallop);
    farther(&o, &d, GALLOP_WHITE, white >= 1, gallop);
    farther(&o, &d, TROT_BLUE, blue >= 1, trot);
    farther(&o, &d, TROT_WHITE, white >= 1, trot);
    farther(&o, &d, WALK_WHITE, white >= 1, 1);
    return o;
}
#endif

static int lazy_sheep(const sheep_t sh[6]) {
    int best = -1;
    for (int l = 0; l < 6; l++)
        if (sh[l].status == RUNNING && (best < 0 || sh[l].pos <= sh[best].pos)) best = l;
    return best;
}

/* One semifinal; fills places[3] with the lanes placed 1st-3rd; returns the turns. */
static int run_semifinal(const rules_t *r, stream_t *dice, int places[3]) {
    sheep_t sh[6];
    int supply = r->blue_total, n_placed = 0, n_running = 6, turns = 0, legal[N_OPTIONS];
    for (int l = 0; l < 6; l++) {
        sheep_t s = {0, r->card[l][0], r->card[l][1], r->card[l][2], r->card[l][3],
                     r->card[l][4], RUNNING, 0};
        sh[l] = s;
        supply -= s.blue;
    }
    for (;;) {
        if (n_placed >= 3 || n_running == 0) break;
        if (supply == 0) {  /* variants only: nobody can move again */
            int stuck = 1;
            for (int l = 0; l < 6; l++)
                if (sh[l].status == RUNNING && sh[l].red + sh[l].blue + sh[l].white > 0) stuck = 0;
            if (stuck) break;
        }
        int total = 0;
        for (int d = 0; d < r->n_dice; d++) total += r->faces[d][below(dice, (uint64_t)r->nfaces[d])];
        int lane = total >= 9 ? -1 : (total <= 6 ? total - 1 : 12 - total);
        if (lane < 0 || sh[lane].status != RUNNING) lane = lazy_sheep(sh);
        sheep_t *s = &sh[lane];
#ifdef GREEDY_FROM_VALUES
        int o = greedy_fused(s, supply, r);
#else
        legal_options(s, supply, r, legal);
        int o = greedy(s, supply, r, legal);
#endif
        int change = cube_change(o, supply);
        if (o == REST || o == WALK_RECOVER || o == TROT_BLUE || o == GALLOP_BLUE2) {
            s->blue += change;
            supply -= change;
        } else if (o == GALLOP_RED) {
            s->red -= 1;
        } else if (o != WALK_FREE) {
            s->white -= 1;
        }
        s->pos += distance(s, o);
        turns++;
        if (s->pos > r->track) {
            s->pos = r->track + 1;
            s->status = FINISHED;
            s->place = ++n_placed;
            n_running--;
        } else if (s->pos >= r->ez_first && s->red + s->blue + s->white == 0) {
            s->status = EXHAUSTED;
            n_running--;
        }
    }
    while (n_placed < 3) {  /* the rest by distance, ties to the lowest lane */
        int best = -1;
        for (int l = 0; l < 6; l++)
            if (sh[l].place == 0 && (best < 0 || sh[l].pos > sh[best].pos)) best = l;
        sh[best].place = ++n_placed;
    }
    for (int l = 0; l < 6; l++)
        if (sh[l].place >= 1 && sh[l].place <= 3) places[sh[l].place - 1] = l;
    return turns;
}

static int parse_rows(const char *text, int rows[][16], int max_rows, int lengths[]) {
    int n = 0, k = 0;
    const char *p = text;
    lengths[0] = 0;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || n >= max_rows || k >= 16) return -1;
        rows[n][k++] = (int)v;
        lengths[n] = k;
        p = end;
        if (*p == ',') p++;
        else if (*p == '/') { p++; n++; k = 0; if (n < max_rows) lengths[n] = 0; }
        else if (*p) return -1;
    }
    return n + 1;
}

int main(int argc, char **argv) {
    if (argc != 10) {
        fprintf(stderr, "usage: %s SEED FIRST N TRACK END_ZONE MAX_CUBES BLUE DICE CARDS\n", argv[0]);
        return 2;
    }
    uint64_t seed = strtoull(argv[1], NULL, 10), first = strtoull(argv[2], NULL, 10);
    long n = strtol(argv[3], NULL, 10);
    rules_t r;
    r.track = atoi(argv[4]);
    r.ez_first = r.track - atoi(argv[5]) + 1;
    r.max_cubes = atoi(argv[6]);
    r.blue_total = atoi(argv[7]);
    r.n_dice = parse_rows(argv[8], r.faces, 4, r.nfaces);
    int card_rows[6][16], card_len[6];
    if (r.n_dice < 1 || parse_rows(argv[9], card_rows, 6, card_len) != 6) {
        fprintf(stderr, "bad DICE or CARDS\n");
        return 2;
    }
    for (int l = 0; l < 6; l++) {
        if (card_len[l] != 5) { fprintf(stderr, "a card needs 5 numbers\n"); return 2; }
        memcpy(r.card[l], card_rows[l], sizeof r.card[l]);
    }
    static long joint[216];
    long turns = 0;
    int places[3];
    stream_t dice;
    struct timespec t0, t1;
    clock_t c0 = clock();
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long g = 0; g < n; g++) {
        seed_stream(&dice, seed, first + (uint64_t)g, 0);
        turns += run_semifinal(&r, &dice, places);
        joint[36 * places[0] + 6 * places[1] + places[2]]++;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    clock_t c1 = clock();
    for (int i = 0; i < 216; i++) printf("%ld%c", joint[i], i == 215 ? '\n' : ' ');
    printf("%ld\n%.6f\n%.6f\n", turns,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
           (double)(c1 - c0) / CLOCKS_PER_SEC);
    return 0;
}
