// Unit tests of radix_sort's CPU gold.
#include <stdlib.h>
#include <string.h>

#include "multi_gpu.h"
#include "radix_sort.h"
#include "unit.h"

// A reference: qsort on (key & mask, original index), which makes any sort stable.
typedef struct {
    uint32_t key, index;
    uint32_t mask;
} keyed;

static int by_key_then_index(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    uint32_t kx = x->key & x->mask, ky = y->key & y->mask;
    if (kx != ky)
        return kx < ky ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

// Sorts n keys (values = indices) with the gold and with qsort; true when they agree.
static int gold_matches_qsort(const uint32_t *input, size_t n, int bits)
{
    uint32_t *keys = malloc(n * 4), *values = malloc(n * 4), *sk = malloc(n * 4),
             *sv = malloc(n * 4);
    keyed *ref = malloc(n * sizeof *ref);
    const uint32_t mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
    for (size_t i = 0; i < n; i++) {
        keys[i] = input[i];
        values[i] = (uint32_t)i;
        ref[i] = (keyed){input[i], (uint32_t)i, mask};
    }
    radix_gold(keys, values, n, bits, sk, sv);
    qsort(ref, n, sizeof *ref, by_key_then_index);
    int same = 1;
    for (size_t i = 0; i < n; i++)
        same = same && keys[i] == ref[i].key && values[i] == ref[i].index;
    free(keys);
    free(values);
    free(sk);
    free(sv);
    free(ref);
    return same;
}

static uint32_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*state >> 32);
}

// By hand: 5 keys, two pairs of equal keys keep their order (values = indices).
static void test_small_by_hand(void)
{
    uint32_t keys[] = {7, 3, 0xFFFFFFFF, 3, 7}, values[] = {0, 1, 2, 3, 4}, sk[5], sv[5];
    radix_gold(keys, values, 5, 32, sk, sv);
    const uint32_t want_keys[] = {3, 3, 7, 7, 0xFFFFFFFF}, want_values[] = {1, 3, 0, 4, 2};
    EXPECT(memcmp(keys, want_keys, sizeof keys) == 0);
    EXPECT(memcmp(values, want_values, sizeof values) == 0);
}

// --bits 4: only the low nibble orders; keys keep their high bits, ties their order.
static void test_low_bits_only(void)
{
    uint32_t keys[] = {0x10, 0x01, 0x21, 0x00}, sk[4];
    radix_gold(keys, NULL, 4, 4, sk, NULL);
    const uint32_t want[] = {0x10, 0x00, 0x01, 0x21};
    EXPECT(memcmp(keys, want, sizeof keys) == 0);
}

// Random keys, every bit count (odd counts leave a last pass of fewer than 8 bits), and
// keys with few distinct values: the gold agrees with a stable qsort.
static void test_random_against_qsort(void)
{
    enum { N = 20011 };
    uint32_t *input = malloc(N * 4);
    uint64_t state = 42;
    for (int i = 0; i < N; i++)
        input[i] = next_random(&state);
    for (int bits = 1; bits <= 32; bits++)
        EXPECT(gold_matches_qsort(input, N, bits));
    for (int i = 0; i < N; i++)
        input[i] = (next_random(&state) % 8) * 0x20000001u;
    EXPECT(gold_matches_qsort(input, N, 32));
    EXPECT(gold_matches_qsort(input, 1, 32));
    free(input);
}

// The shares of --gpus: in order, no gaps, the first n % gpus one key more.
static void test_shares(void)
{
    const size_t ns[] = {1, 2, 7, 1000, 1u << 30};
    for (int t = 0; t < 5; t++)
        for (int gpus = 1; gpus <= 9; gpus++) {
            size_t next = 0;
            for (int r = 0; r < gpus; r++) {
                const radix_share s = radix_share_of(ns[t], gpus, r);
                EXPECT(s.first == next);
                EXPECT(s.count == ns[t] / gpus + ((size_t)r < ns[t] % gpus));
                next += s.count;
            }
            EXPECT(next == ns[t]);
        }
}

// A team simulated on the CPU: each rank's keys sorted by the gold, bounds counted by
// binary search, as the GPUs' radix_bounds counts them.
typedef struct {
    int gpus;
    uint32_t mask;
    uint32_t **keys;
    size_t *count;
    int calls;
} cpu_team;

static void cpu_bounds(void *ctx, const uint32_t *probes, int nprobes, uint64_t *lt, uint64_t *le)
{
    cpu_team *t = ctx;
    t->calls++;
    for (int r = 0; r < t->gpus; r++)
        for (int j = 0; j < nprobes; j++) {
            lt[r * nprobes + j] =
                radix_first_above(t->keys[r], t->count[r], t->mask, probes[j], false);
            le[r * nprobes + j] =
                radix_first_above(t->keys[r], t->count[r], t->mask, probes[j], true);
        }
}

// radix_merge as its kernels run it: block starts by the merge path, then each of a
// block's threads its own `items` outputs from its start within the block's pieces.
static void cpu_merge(const uint32_t *keys, const uint32_t *values, uint32_t *out, uint32_t *outv,
                      size_t at, size_t na, size_t nb, uint32_t mask, size_t items, size_t threads)
{
    const size_t n = na + nb, block_items = items * threads;
    const uint32_t *a = keys + at, *b = a + na, *av = values + at, *bv = av + na;
    for (size_t d0 = 0; d0 < n; d0 += block_items) {
        const size_t d1 = d0 + block_items < n ? d0 + block_items : n;
        const size_t i0 = merge_split(a, na, b, nb, d0, mask), j0 = d0 - i0;
        const size_t i1 = merge_split(a, na, b, nb, d1, mask), j1 = d1 - i1;
        for (size_t mine = 0; d0 + mine < d1; mine += items) {
            const size_t count = d1 - d0 - mine < items ? d1 - d0 - mine : items;
            const size_t i = i0 + merge_split(a + i0, i1 - i0, b + j0, j1 - j0, mine, mask);
            merge_run(a, av, na, b, bv, nb, i, d0 + mine - i, count, mask, out + at + d0 + mine,
                      outv + at + d0 + mine);
        }
    }
}

// The whole sort of --gpus done on the CPU: shares sorted, cut, dealt out, each rank's
// runs sorted again (m2) and merged (m3); the ranks' results laid end to end must be the
// gold's stable sort of the whole input, key and value (the global index) alike, each
// rank holding its share's count; at most `bits` + 1 rounds of bounds.
static int cpu_sort_across(const uint32_t *input, size_t n, int gpus, int bits)
{
    const uint32_t mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
    uint32_t *keys[16] = {0}, *values[16] = {0};
    size_t count[16] = {0};
    uint32_t *sk = malloc(n * 4 + 4), *sv = malloc(n * 4 + 4);
    for (int r = 0; r < gpus; r++) {
        const radix_share s = radix_share_of(n, gpus, r);
        count[r] = s.count;
        keys[r] = malloc(s.count * 4 + 4);
        values[r] = malloc(s.count * 4 + 4);
        for (size_t i = 0; i < s.count; i++) {
            keys[r][i] = input[s.first + i];
            values[r][i] = (uint32_t)(s.first + i);
        }
        radix_gold(keys[r], values[r], s.count, bits, sk, sv);
    }
    cpu_team team = {gpus, mask, keys, count, 0};
    uint64_t cuts[16 * 17];
    radix_find_cuts(n, gpus, bits, cpu_bounds, &team, cuts);
    uint32_t *got_keys = malloc(n * 4 + 4), *got_values = malloc(n * 4 + 4),
             *m3_keys = malloc(n * 4 + 4), *m3_values = malloc(n * 4 + 4);
    int ok = team.calls <= bits + 1;
    size_t at = 0;
    for (int d = 0; d < gpus; d++) {
        const size_t start = at;
        for (int r = 0; r < gpus; r++) {
            const uint64_t from = cuts[r * (gpus + 1) + d], to = cuts[r * (gpus + 1) + d + 1];
            ok = ok && from <= to && to <= count[r];
            for (uint64_t i = from; i < to && ok; i++, at++) {
                got_keys[at] = keys[r][i];
                got_values[at] = values[r][i];
            }
        }
        ok = ok && at - start == radix_share_of(n, gpus, d).count;
        if (!ok)
            continue;
        // m3: the runs merged by radix_merge_plan's rounds (radix_merge as its kernels run
        // it), between the received runs and a second buffer, as merge_received does
        size_t run[16];
        radix_merge_step steps[32];
        for (int r = 0; r < gpus; r++)
            run[r] = cuts[r * (gpus + 1) + d + 1] - cuts[r * (gpus + 1) + d];
        int result;
        const int nsteps = radix_merge_plan(run, gpus, steps, &result);
        uint32_t *buf_k[2] = {m3_keys + start, sk}, *buf_v[2] = {m3_values + start, sv};
        memcpy(buf_k[0], got_keys + start, (at - start) * 4);
        memcpy(buf_v[0], got_values + start, (at - start) * 4);
        ok = nsteps < 2 * gpus;
        for (int k = 0; k < nsteps && ok; k++) {
            const radix_merge_step *st = &steps[k];
            const int from = st->from, to = 1 - from;
            ok = st->at + st->na + st->nb <= at - start;
            if (ok && st->nb > 0)
                cpu_merge(buf_k[from], buf_v[from], buf_k[to], buf_v[to], st->at, st->na, st->nb,
                          mask, 8, 256);
            else if (ok) {
                memcpy(buf_k[to] + st->at, buf_k[from] + st->at, st->na * 4);
                memcpy(buf_v[to] + st->at, buf_v[from] + st->at, st->na * 4);
            }
        }
        if (result == 1) { // into the rank's result (m3_keys) from the other buffer
            memcpy(m3_keys + start, sk, (at - start) * 4);
            memcpy(m3_values + start, sv, (at - start) * 4);
        }
        radix_gold(got_keys + start, got_values + start, at - start, bits, sk, sv);
    }
    uint32_t *want_keys = malloc(n * 4 + 4), *want_values = malloc(n * 4 + 4);
    for (size_t i = 0; i < n; i++) {
        want_keys[i] = input[i];
        want_values[i] = (uint32_t)i;
    }
    radix_gold(want_keys, want_values, n, bits, sk, sv);
    ok = ok && at == n && memcmp(got_keys, want_keys, n * 4) == 0 &&
         memcmp(got_values, want_values, n * 4) == 0 && memcmp(m3_keys, want_keys, n * 4) == 0 &&
         memcmp(m3_values, want_values, n * 4) == 0;
    for (int r = 0; r < gpus; r++) {
        free(keys[r]);
        free(values[r]);
    }
    free(sk);
    free(sv);
    free(got_keys);
    free(got_values);
    free(m3_keys);
    free(m3_values);
    free(want_keys);
    free(want_values);
    return ok;
}

// Pass p's digit of a sort of `bits` bits (common/sort.cu's passes).
static unsigned pass_digit(uint32_t key, int p, int bits)
{
    const int width = bits - 8 * p < 8 ? bits - 8 * p : 8;
    return (key >> (8 * p)) & ((1u << width) - 1);
}

// One scatter as scatter.c runs it on every GPU, over places [lo, hi) of the whole
// sequence (each rank's places in order: parts end to end), by pass p's digit, each
// rank's places in `chunks` chunks of whole tiles of `tile` places: each chunk's counts,
// the rank's counts their sums, the chunks' starts, each chunk's keys stored in place
// order (a pass of cl_sort_spread_pass) into to_k/to_v. With `mirrored`, a rank stores
// the places of other parts in its mirror (radix_mirror_at), and the chunk's copies
// (radix_chunk_copies) carry them on: every place must arrive, and once.
enum { SIM_CHUNKS = 5 };
static int cpu_scatter(const uint32_t *from_k, const uint32_t *from_v, uint32_t *to_k,
                       uint32_t *to_v, uint64_t lo, uint64_t hi, const uint64_t *first, int gpus,
                       int p, int bits, int chunks, size_t tile, bool mirrored, uint64_t *counts)
{
    static unsigned chunk_counts[16][SIM_CHUNKS][256];
    const uint64_t n = first[gpus];
    uint32_t *mirror_k = malloc(n * 4 + 4), *mirror_v = malloc(n * 4 + 4);
    uint8_t *arrived = calloc(n + 1, 1);
    int ok = 1;
    memset(counts, 0, (size_t)gpus * 256 * sizeof *counts);
    memset(chunk_counts, 0, sizeof chunk_counts);
    for (int g = 0; g < gpus; g++) {
        const uint64_t a = first[g] > lo ? first[g] : lo, b = first[g + 1] < hi ? first[g + 1] : hi;
        for (int c = 0; c < chunks && a < b; c++) {
            size_t from, count;
            radix_chunk(b - a, chunks, c, tile, &from, &count);
            for (uint64_t i = a + from; i < a + from + count; i++)
                chunk_counts[g][c][pass_digit(from_k[i], p, bits)]++;
        }
        for (int c = 0; c < chunks; c++)
            for (int d = 0; d < 256; d++)
                counts[g * 256 + d] += chunk_counts[g][c][d];
    }
    for (int g = 0; g < gpus; g++) {
        const uint64_t a = first[g] > lo ? first[g] : lo, b = first[g + 1] < hi ? first[g + 1] : hi;
        unsigned long long starts[SIM_CHUNKS][256];
        radix_scatter_starts(counts, gpus, g, lo, starts[0]);
        radix_chunk_starts(chunk_counts[g], chunks, starts);
        for (int c = 0; c < chunks && a < b; c++) {
            unsigned long long chunk_starts[256];
            size_t from, count;
            memcpy(chunk_starts, starts[c], sizeof chunk_starts);
            radix_chunk(b - a, chunks, c, tile, &from, &count);
            for (uint64_t i = a + from; i < a + from + count; i++) {
                const uint64_t at = starts[c][pass_digit(from_k[i], p, bits)]++;
                int part = 0;
                while (at >= first[part + 1])
                    part++;
                if (mirrored && part != g) {
                    // within the mirror's n - count places
                    const uint64_t m = radix_mirror_at(first, g, part) + (at - first[part]);
                    ok = ok && m < n - (first[g + 1] - first[g]);
                    mirror_k[m] = from_k[i];
                    mirror_v[m] = from_v[i];
                } else {
                    to_k[at] = from_k[i];
                    to_v[at] = from_v[i];
                    arrived[at]++;
                }
            }
            radix_copy copies[256 + 16];
            const int ncopies = mirrored ? radix_chunk_copies(chunk_starts, chunk_counts[g][c],
                                                              first, gpus, g, copies)
                                         : 0;
            for (int k = 0; k < ncopies; k++) {
                const uint64_t m = radix_mirror_at(first, g, copies[k].part) + copies[k].at,
                               at = first[copies[k].part] + copies[k].at;
                for (uint64_t j = 0; j < copies[k].count; j++) {
                    to_k[at + j] = mirror_k[m + j];
                    to_v[at + j] = mirror_v[m + j];
                    arrived[at + j]++;
                }
            }
        }
    }
    for (uint64_t i = lo; i < hi; i++)
        ok = ok && arrived[i] == 1;
    free(mirror_k);
    free(mirror_v);
    free(arrived);
    return ok;
}

// m4 done on the CPU with the plans the GPUs get (radix_scatter_starts, radix_runs_cut,
// radix_segments): the top digit's scatter, the runs a boundary cuts refined by the next
// digits, each rank's segments sorted by the lower digits; the parts end to end must be
// the gold's stable sort of the whole input, each rank holding its share's count.
static int cpu_scatter_sort(const uint32_t *input, size_t n, int gpus, int bits)
{
    const int passes = (bits + 7) / 8, top = passes - 1;
    uint64_t first[17], counts[16 * 256], top_counts[16 * 256], runs[2 * 16], next[2 * 16 * 16];
    for (int g = 0; g <= gpus; g++)
        first[g] = g < gpus ? radix_share_of(n, gpus, g).first : n;
    uint32_t *in_k = malloc(n * 4 + 4), *in_v = malloc(n * 4 + 4), *box_k = malloc(n * 4 + 4),
             *box_v = malloc(n * 4 + 4), *other_k = malloc(n * 4 + 4), *other_v = malloc(n * 4 + 4),
             *sk = malloc(n * 4 + 4), *sv = malloc(n * 4 + 4);
    for (size_t i = 0; i < n; i++) {
        in_k[i] = input[i];
        in_v[i] = (uint32_t)i;
    }
    // The first scatter in chunks of 64-key tiles (the GPUs' are 8192 keys: these inputs
    // are small) through mirrors and copies, the refining ones in one, stored in place.
    int ok = cpu_scatter(in_k, in_v, box_k, box_v, 0, n, first, gpus, top, bits, SIM_CHUNKS, 64,
                         true, top_counts);
    int nruns = radix_runs_cut(top_counts, gpus, 0, first, runs);
    ok = ok && nruns < gpus;
    for (int p = top - 1; p >= 0 && ok; p--) {
        int nnext = 0;
        for (int k = 0; k < nruns; k++) {
            const uint64_t lo = runs[2 * k], hi = runs[2 * k + 1];
            ok = cpu_scatter(box_k, box_v, other_k, other_v, lo, hi, first, gpus, p, bits, 1, 64,
                             false, counts) &&
                 ok;
            memcpy(box_k + lo, other_k + lo, (hi - lo) * 4);
            memcpy(box_v + lo, other_v + lo, (hi - lo) * 4);
            nnext += radix_runs_cut(counts, gpus, lo, first, next + 2 * nnext);
        }
        ok = nnext < gpus;
        nruns = nnext;
        memcpy(runs, next, 2 * (size_t)nnext * sizeof *runs);
    }
    for (int g = 0; g < gpus && ok; g++) {
        cl_sort_segments seg;
        radix_segments(top_counts, gpus, first, g, &seg);
        const size_t count = first[g + 1] - first[g];
        ok = seg.first[256] == count && seg.first_tile[256] <= CL_SORT_FINISH_TILES(count);
        for (int d = 0; d < 256 && ok && top > 0; d++) {
            const size_t at = first[g] + seg.first[d], len = seg.first[d + 1] - seg.first[d];
            ok = seg.first[d] <= seg.first[d + 1] && seg.first_tile[d + 1] - seg.first_tile[d] ==
                                                         (len + CL_SORT_TILE - 1) / CL_SORT_TILE;
            radix_gold(box_k + at, box_v + at, len, 8 * top, sk, sv);
        }
    }
    radix_gold(in_k, in_v, n, bits, sk, sv); // the want: the whole input's stable sort
    ok = ok && memcmp(box_k, in_k, n * 4) == 0 && memcmp(box_v, in_v, n * 4) == 0;
    free(in_k);
    free(in_v);
    free(box_k);
    free(box_v);
    free(other_k);
    free(other_v);
    free(sk);
    free(sv);
    return ok;
}

// Uniform keys, few values, all equal, sorted and reversed, low bits only, on 1 to 7
// ranks, down to one key a rank: every cut exact and stable, the received runs sorted
// (m2) and merged by m3's rounds, and m4's scatters (the same inputs, and keys that all
// share their top digit: a run across every GPU).
static void test_cuts_give_the_stable_sort(void)
{
    enum { N = 5003 };
    uint32_t *input = malloc(N * 4);
    uint64_t state = 7;
    for (int kind = 0; kind < 5; kind++) {
        for (int i = 0; i < N; i++) {
            const uint32_t r = next_random(&state);
            input[i] = kind == 0   ? r
                       : kind == 1 ? (r % 8) * 0x20000001u
                       : kind == 2 ? 5
                       : kind == 3 ? (uint32_t)i * 3
                                   : 0xFFFFFFFFu - (uint32_t)i;
        }
        for (int gpus = 1; gpus <= 7; gpus++) {
            EXPECT(cpu_sort_across(input, N, gpus, 32));
            EXPECT(cpu_sort_across(input, N, gpus, 3));
            EXPECT(cpu_sort_across(input, (size_t)gpus, gpus, 32));
            EXPECT(cpu_sort_across(input, 2 * (size_t)gpus + 1, gpus, 17));
            EXPECT(cpu_scatter_sort(input, N, gpus, 32));
            EXPECT(cpu_scatter_sort(input, N, gpus, 3));
            EXPECT(cpu_scatter_sort(input, N, gpus, 9));
            EXPECT(cpu_scatter_sort(input, (size_t)gpus, gpus, 32));
            EXPECT(cpu_scatter_sort(input, 2 * (size_t)gpus + 1, gpus, 17));
        }
    }
    for (int i = 0; i < N; i++)
        input[i] = 0x42000000u | (next_random(&state) & 0xFFFFFF);
    for (int gpus = 1; gpus <= 7; gpus++)
        EXPECT(cpu_scatter_sort(input, N, gpus, 32));
    free(input);
}

// m4's chunks: whole tiles, end to end, covering a rank's places, none past the share.
static void test_chunks(void)
{
    const size_t lens[] = {0, 1, 63, 64, 65, 640, 641, 8192 * 8 + 1, 536870912};
    for (size_t k = 0; k < sizeof lens / sizeof *lens; k++)
        for (int chunks = 1; chunks <= 9; chunks++) {
            size_t at = 0, from, count;
            for (int c = 0; c < chunks; c++) {
                radix_chunk(lens[k], chunks, c, 64, &from, &count);
                EXPECT(from == at && (from % 64 == 0 || count == 0));
                at += count;
            }
            EXPECT(at == lens[k]);
        }
}

// The merge as the GPU runs it (multi_gpu_kernels.cu), on the CPU: block starts by
// merge_split over the whole runs, each thread's start by merge_split within its block's
// pieces, `items` outputs a thread by merge_run; against the gold's stable sort of the
// two runs laid end to end (a first among equal keys).
static int merge_matches_gold(const uint32_t *input, size_t na, size_t nb, int bits, size_t items,
                              size_t threads)
{
    const uint32_t mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
    const size_t n = na + nb;
    uint32_t *keys = malloc(n * 4 + 4), *values = malloc(n * 4 + 4), *sk = malloc(n * 4 + 4),
             *sv = malloc(n * 4 + 4), *out = malloc(n * 4 + 4), *outv = malloc(n * 4 + 4);
    for (size_t i = 0; i < n; i++) {
        keys[i] = input[i];
        values[i] = (uint32_t)i;
    }
    radix_gold(keys, values, na, bits, sk, sv);
    radix_gold(keys + na, values + na, nb, bits, sk, sv);
    cpu_merge(keys, values, out, outv, 0, na, nb, mask, items, threads);
    radix_gold(keys, values, n, bits, sk, sv); // stable: a's keys before b's equal ones
    const int same = memcmp(out, keys, n * 4) == 0 && memcmp(outv, values, n * 4) == 0;
    free(keys);
    free(values);
    free(sk);
    free(sv);
    free(out);
    free(outv);
    return same;
}

// Runs of every relation: empty, one key, uneven, all equal across both, few values,
// low bits only; blocks and threads of the GPU's shape and of odd small ones.
static void test_merge_path(void)
{
    enum { N = 9001 };
    uint32_t *input = malloc(N * 4);
    uint64_t state = 11;
    for (int kind = 0; kind < 3; kind++) {
        for (int i = 0; i < N; i++) {
            const uint32_t r = next_random(&state);
            input[i] = kind == 0 ? r : kind == 1 ? (r % 5) * 0x30000001u : 42;
        }
        const size_t splits[][2] = {{0, 0},       {0, 9},    {9, 0},    {1, 1},
                                    {4500, 4501}, {7, 8994}, {8994, 7}, {3000, 6001}};
        for (int t = 0; t < 8; t++) {
            EXPECT(merge_matches_gold(input, splits[t][0], splits[t][1], 32, 8, 256));
            EXPECT(merge_matches_gold(input, splits[t][0], splits[t][1], 32, 3, 4));
            EXPECT(merge_matches_gold(input, splits[t][0], splits[t][1], 5, 8, 3));
        }
    }
    free(input);
}

// The device's generator and the host's are one function: spot values by hand.
static void test_input_keys(void)
{
    uint32_t few[8];
    radix_few_values(1, few);
    EXPECT(radix_input_key(RADIX_INPUT_SORTED, 0, 4, 0, few) == 0);
    EXPECT(radix_input_key(RADIX_INPUT_SORTED, 2, 4, 0, few) == 0x80000000u);
    EXPECT(radix_input_key(RADIX_INPUT_REVERSED, 3, 4, 0, few) == 0x3FFFFFFFu);
    EXPECT(radix_input_key(RADIX_INPUT_ZERO, 3, 4, 0, few) == 0);
    EXPECT(radix_input_key(RADIX_INPUT_UNIFORM, 0, 4, 0, few) == 0x7b1dcdafu);
    bool in_few = true;
    for (size_t i = 0; i < 100; i++) {
        const uint32_t k = radix_input_key(RADIX_INPUT_FEW, i, 100, 9, few);
        bool found = false;
        for (int j = 0; j < 8; j++)
            found = found || k == few[j];
        in_few = in_few && found;
    }
    EXPECT(in_few);
    // sorted past 2^32 keys (a sort across GPUs): floor(i 2^32 / n) exactly, ascending,
    // where i << 32 itself would overflow 64 bits
    const size_t big = (size_t)3 << 33;
    const size_t at[] = {0, 1, 3, (size_t)1 << 32, big / 3 + 1, big / 2, big - 2, big - 1};
    bool exact = true, ascending = true;
    for (int j = 0; j < 8; j++) {
        const unsigned __int128 want = ((unsigned __int128)at[j] << 32) / big;
        const uint32_t k = radix_input_key(RADIX_INPUT_SORTED, at[j], big, 0, few);
        exact = exact && k == (uint32_t)want;
        ascending = ascending &&
                    (j == 0 || k >= radix_input_key(RADIX_INPUT_SORTED, at[j - 1], big, 0, few));
    }
    EXPECT(exact && ascending);
    EXPECT(radix_input_key(RADIX_INPUT_SORTED, big - 1, big, 0, few) == 0xFFFFFFFFu);
}

int main(void)
{
    RUN_TEST(test_small_by_hand);
    RUN_TEST(test_low_bits_only);
    RUN_TEST(test_random_against_qsort);
    RUN_TEST(test_shares);
    RUN_TEST(test_cuts_give_the_stable_sort);
    RUN_TEST(test_chunks);
    RUN_TEST(test_merge_path);
    RUN_TEST(test_input_keys);
    return UNIT_RESULT();
}
