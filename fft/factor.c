// fft's planner arithmetic (host, no device): how v7 factors a length into stages of its
// codelets, and how v5..v7 split a long transform into passes. fft.cu and staged.cu plan
// with these; the unit tests check them at every length to 16384.
#include <string.h>

#include "fft.h"

// The primes of the HUGE kernels' stages (staged.cu): 37 .. 47, each in a kernel compiled
// apart for its registers, with the radices to 16 only beside it.
static bool is_huge_prime(int r) { return r == 37 || r == 41 || r == 43 || r == 47; }
static bool has_huge_prime(int m)
{
    return m % 37 == 0 || m % 41 == 0 || m % 43 == 0 || m % 47 == 0;
}

// Whether r is a radix of v7's stages: 2 .. 16 (6, 10, 12, 14 and 15 codelets of two coprime
// factors), and either a large stage (up to 31: the LARGE kernels), a prime 17 .. 31 or a
// product of two coprime radices (18 20 21 22 24 26 28 30), or (huge) a prime 37 .. 47.
static bool is_stage_radix(int r, bool huge)
{
    if (r >= 2 && r <= 16)
        return true;
    if (huge)
        return is_huge_prime(r);
    return r >= 17 && r <= 31 && r != 25 && r != 27; // 25, 27: no coprime factors
}

// The radices (at most `largest`, non-increasing) of m in exactly `stages` stages whose sum
// is least, into radix; -1 when there are none.
static int least_radix_sum(int m, int stages, int largest, bool huge, unsigned char *radix)
{
    if (stages == 0)
        return m == 1 ? 0 : -1;
    long long reach = 1; // the most `stages` radices of at most `largest` make
    for (int s = 0; s < stages; s++)
        reach *= largest;
    if (reach < m)
        return -1;
    int best = -1;
    unsigned char rest[FFT_STAGED_MAX_STAGES];
    for (int r = largest; r >= 2; r--) {
        if (m % r != 0 || !is_stage_radix(r, huge))
            continue;
        const int sum = least_radix_sum(m / r, stages - 1, r, huge, rest);
        if (sum >= 0 && (best < 0 || r + sum < best)) {
            best = r + sum;
            radix[0] = (unsigned char)r;
            memcpy(radix + 1, rest, stages - 1);
        }
    }
    return best;
}

// The fewest stages of radices to `largest` (least sum among them) into radix; 0: none.
static int fewest_stages(int m, int largest, bool huge, unsigned char *radix)
{
    for (int stages = 1; stages <= FFT_STAGED_MAX_STAGES; stages++)
        if (least_radix_sum(m, stages, largest, huge, radix) >= 0)
            return stages;
    return 0;
}

// Whether m, whose radices to 16 take `small` stages, should take the large ones (18 .. 30:
// products of two coprime codelets) of `radix`, one stage fewer. A large stage runs in the
// LARGE kernels: 128 registers a thread, half the threads an SM of the others' 64. That
// pays only where the stage saved is one of four or more, and where the first stage's
// butterflies (m / radix[0], one a thread) fill at least half a block, the threads a large
// stage leaves idle not costing the block its lead. The H200 sweep of every length to
// 16384 whose factors are at most 13 and that large radices shorten, against its radices to
// 16 (time over cuFFT's): 2 -> 1 stage 1.40x slower (8 lengths), 3 -> 2 1.24x (70); 4 -> 3
// with 96 .. 127 first butterflies 1.13x (12), from 128 0.88x (153). A length with a prime
// 17 .. 31 runs LARGE anyway: its large stages pay (0.85x, 194 lengths).
static bool large_stages_pay(int m, int small, const unsigned char *radix)
{
    return small >= 4 && m / radix[0] >= FFT_STAGED_THREADS / 2;
}

int fft_staged_radices(int m, int max_prime, unsigned char *radix)
{
    if (m < 2)
        return 0;
    int rest = m;
    for (int p = 2; p <= max_prime; p++)
        while (rest % p == 0)
            rest /= p;
    if (rest != 1)
        return 0;
    if (has_huge_prime(m)) // a prime 37 .. 47: the HUGE kernels, radices to 16 beside it
        return fewest_stages(m, max_prime, true, radix);
    const int small = fewest_stages(m, 16, false, radix); // 0: m has a prime 17 .. 31
    if (max_prime <= 16)
        return small;
    unsigned char large[FFT_STAGED_MAX_STAGES];
    const int stages = fewest_stages(m, max_prime < 31 ? max_prime : 31, false, large);
    if (small > 0 && !(stages < small && large_stages_pay(m, small, large)))
        return small;
    memcpy(radix, large, stages);
    return stages;
}

bool fft_split_passes(int n, int count, int max_m, int max_prime, int *m)
{
    static const int prime[] = {47, 43, 41, 37, 31, 29, 23, 19, 17, 13, 11, 7, 5, 3, 2};
    int primes[32], np = 0, rest = n; // n <= 2^27: 27 prime factors at most
    for (int i = 0; i < (int)(sizeof prime / sizeof prime[0]); i++)
        while (prime[i] <= max_prime && rest % prime[i] == 0) {
            primes[np++] = prime[i];
            rest /= prime[i];
        }
    if (rest != 1) // a prime factor above max_prime: Bluestein's algorithm
        return false;
    for (int i = 0; i < count; i++)
        m[i] = 1;
    for (int i = 0; i < np; i++) {
        int smallest = 0;
        for (int k = 1; k < count; k++)
            smallest = m[k] < m[smallest] ? k : smallest;
        m[smallest] *= primes[i];
    }
    for (int i = 0; i < count; i++)
        if (m[i] > max_m)
            return false;
    return true;
}

int fft_dif_slot(const unsigned char *radix, int stages, int k)
{
    int slot = 0;
    for (int s = 0; s < stages; s++) { // k's digits, lowest first, reversed by Horner's rule
        slot = slot * radix[s] + k % radix[s];
        k /= radix[s];
    }
    return slot;
}

// --- the whole-transform kernels' buffers (staged.cu) ----------------------------------------
//
// A stage's warp reads or writes 32 points at once, 8 bytes each: the 32 banks of shared
// memory serve it in two wavefronts when its slots fall on 16 different bank pairs (slot
// mod 16), and in as many as the most slots on one pair otherwise. Butterfly i of stage s
// (radix R, ns the radices before it, count = m / R) is butterfly j = i mod count of
// transform c = i / count, and with g = j / ns, jm = j mod ns it reads points j + q count
// and writes points g R ns + jm + q ns (q < R). Lanes that write R points apart (ns = 1)
// meet on few bank pairs when R is even; lanes in groups of ns, R ns apart, likewise for
// most ns. In the layout here point x of transform c of the buffer between stages b - 1
// and b is at c pitch_b + x + pad_b floor(x / G_b), G_b = ns of stage b: the writer's
// groups pad_b slots apart beside their R ns points, and for both sides the slot of q is
// linear in q (the writer's g R ns + jm + q ns lies in group g; the reader's x / G_b =
// j / ns + q m / (ns R)): base + q stride, where a floor a point cost three instructions.

enum { LAYOUT_WARPS = 4, LAYOUT_MAX = 15, LAYOUT_POINTS = LAYOUT_WARPS * 32 * 64 };

// The points a stage's first LAYOUT_WARPS warps touch in a buffer whose groups are G points:
// for each warp and q, the lanes' transform c, point x and group x / G, in warp order.
typedef struct {
    int lanes[LAYOUT_WARPS * 64]; // lanes of each (warp, q) access
    int accesses, points;
    int c[LAYOUT_POINTS], x[LAYOUT_POINTS], group[LAYOUT_POINTS];
} layout_points;

// Stage (radix R, ns the radices before it) of m-point transforms, `transforms` a block,
// reading (write false) or writing the buffer.
static void stage_points(layout_points *pt, int m, int transforms, int R, int ns, bool write, int G)
{
    const int count = m / R, total = transforms * count;
    pt->accesses = pt->points = 0;
    for (int w = 0; w < LAYOUT_WARPS && 32 * w < total; w++)
        for (int q = 0; q < R; q++) {
            int lanes = 0;
            for (int i = 32 * w; i < 32 * w + 32 && i < total; i++, lanes++) {
                const int c = i / count, j = i % count, g = j / ns, jm = j % ns;
                const int x = write ? g * R * ns + jm + q * ns : j + q * count;
                pt->c[pt->points] = c;
                pt->x[pt->points] = x;
                pt->group[pt->points++] = x / G;
            }
            pt->lanes[pt->accesses++] = lanes;
        }
}

// The wavefronts of those accesses in the layout (pad, pitch): a warp's 8-byte accesses
// take two wavefronts when its (distinct) slots fall on 16 bank pairs, else as many as the
// most slots on one pair.
static long layout_wavefronts(const layout_points *pt, int pad, int pitch)
{
    long sum = 0;
    for (int a = 0, p = 0; a < pt->accesses; a++) {
        int pairs[16] = {0}, most = 0;
        for (int l = 0; l < pt->lanes[a]; l++, p++) {
            const int k = ++pairs[(pt->c[p] * pitch + pt->x[p] + pad * pt->group[p]) & 15];
            most = k > most ? k : most;
        }
        sum += most;
    }
    return sum;
}

int fft_staged_layout(int m, const unsigned char *radix, int stages, int transforms,
                      bool read_first, bool write_last, int *pad, int *pitch)
{
    layout_points writer, reader;
    int ns = 1, widest = m;
    for (int b = 0; b <= stages; b++) {
        // Stage b - 1 writes buffer b, stage b reads it; G: the radices before stage b.
        const bool written = b > 0 && (b < stages || write_last);
        const bool read = b < stages && (b > 0 || read_first);
        const int G = ns;
        writer.accesses = reader.accesses = 0;
        if (written)
            stage_points(&writer, m, transforms, radix[b - 1], G / radix[b - 1], true, G);
        if (read)
            stage_points(&reader, m, transforms, radix[b], G, false, G);
        // pad: none at the ends (G = 1 or m), at most G / 8 slots a group (an eighth more
        // memory); then extra (between transforms): at most m / 8, one at least. The fewest
        // wavefronts, and of those the fewest slots.
        const int max_pad = b == 0 || b == stages ? 0 : G / 8 < LAYOUT_MAX ? G / 8 : LAYOUT_MAX;
        const int max_extra = transforms == 1      ? 0
                              : m / 8 < 1          ? 1
                              : m / 8 < LAYOUT_MAX ? m / 8
                                                   : LAYOUT_MAX;
        int best_pad = 0, extra = 0;
        long best = -1;
        for (int round = 0; round < 2; round++) // the pad, then the extra
            for (int k = 0; k <= (round == 0 ? max_pad : max_extra); k++) {
                const int try_pad = round == 0 ? k : best_pad, try_extra = round == 0 ? 0 : k;
                const int try_pitch = m + try_pad * (m / G) + try_extra;
                const long cost = layout_wavefronts(&writer, try_pad, try_pitch) +
                                  layout_wavefronts(&reader, try_pad, try_pitch);
                if (best < 0 || cost < best) {
                    best = cost;
                    best_pad = try_pad;
                    extra = try_extra;
                }
            }
        pad[b] = best_pad;
        pitch[b] = m + best_pad * (m / G) + extra;
        widest = pitch[b] > widest ? pitch[b] : widest;
        if (b < stages)
            ns *= radix[b];
    }
    return transforms * widest;
}
