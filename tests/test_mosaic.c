// Unit tests of mosaic's CPU versions and synthetic image.
#include <stdlib.h>
#include <string.h>

#include "mosaic.h"
#include "unit.h"

// A 5 x 3 image, c = 2, one channel shown (all three equal): cells by hand.
//   row 0:  10  20 | 30  40 | 50
//   row 1:  11  21 | 31  41 | 51
//   ------------------------------
//   row 2:  12  22 | 32  42 | 52
// Cell (0,0): 10+20+11+21 = 62 / 4 = 15.5 -> 16 (halves round up); (1,0): 142 / 4 =
// 35.5 -> 36; (2,0), partial 1x2: 101 / 2 = 50.5 -> 51; (0,1), partial 2x1: 34 / 2 = 17;
// (1,1): 74 / 2 = 37; (2,1), one pixel: 52.
static void test_partial_cells_by_hand(void)
{
    const uint8_t grey[15] = {10, 20, 30, 40, 50, 11, 21, 31, 41, 51, 12, 22, 32, 42, 52};
    const uint8_t want[15] = {16, 16, 36, 36, 51, 16, 16, 36, 36, 51, 17, 17, 37, 37, 52};
    uint8_t in[45], out[45], out2[45];
    for (int p = 0; p < 15; p++)
        in[3 * p] = in[3 * p + 1] = in[3 * p + 2] = grey[p];
    uint64_t totals[3], totals2[3];
    mosaic_shape s = {5, 3, 2};
    mosaic_gold(in, out, s, totals);
    for (int p = 0; p < 15; p++)
        EXPECT(out[3 * p] == want[p] && out[3 * p + 1] == want[p] && out[3 * p + 2] == want[p]);
    EXPECT(totals[0] == 465 && totals[1] == 465 && totals[2] == 465); // 465 / 15 = 31
    EXPECT(mosaic_average(totals[0], 15) == 31);
    mosaic_openmp(in, out2, s, totals2);
    EXPECT(memcmp(out, out2, sizeof out) == 0 && memcmp(totals, totals2, sizeof totals) == 0);
}

// The rounding rule: nearest, halves up, no overflow at the largest sums.
static void test_rounding(void)
{
    EXPECT(mosaic_average(5, 2) == 3); // 2.5 -> 3
    EXPECT(mosaic_average(7, 3) == 2); // 2.33 -> 2
    EXPECT(mosaic_average(8, 3) == 3); // 2.67 -> 3
    EXPECT(mosaic_average(0, 9) == 0);
    const uint64_t pixels = (uint64_t)1 << 28; // the largest image, all 255
    EXPECT(mosaic_average(255 * pixels, pixels) == 255);
}

// One pixel; and c = 1 is the identity.
static void test_one_pixel_and_identity(void)
{
    uint8_t one[3] = {1, 2, 3}, out[3];
    uint64_t totals[3];
    mosaic_gold(one, out, (mosaic_shape){1, 1, 1}, totals);
    EXPECT(memcmp(one, out, 3) == 0 && totals[0] == 1 && totals[2] == 3);
    enum { W = 37, H = 23 };
    uint8_t *image = malloc(W * H * 3), *copy = malloc(W * H * 3);
    mosaic_synthetic(image, W, H, 5);
    mosaic_gold(image, copy, (mosaic_shape){W, H, 1}, totals);
    EXPECT(memcmp(image, copy, W * H * 3) == 0);
    free(image);
    free(copy);
}

// A cell as large as the image: every pixel becomes the image's average.
static void test_one_cell(void)
{
    enum { W = 31, H = 17 };
    uint8_t *image = malloc(W * H * 3), *out = malloc(W * H * 3);
    mosaic_synthetic(image, W, H, 9);
    uint64_t totals[3];
    mosaic_gold(image, out, (mosaic_shape){W, H, 31}, totals);
    for (int p = 0; p < W * H; p++)
        for (int c = 0; c < 3; c++)
            EXPECT(out[3 * p + c] == mosaic_average(totals[c], W * H));
    free(image);
    free(out);
}

// The synthetic image: deterministic, seed-dependent, and not flat (it has detail).
static void test_synthetic_image(void)
{
    enum { W = 64, H = 48 };
    uint8_t *a = malloc(W * H * 3), *b = malloc(W * H * 3), *c = malloc(W * H * 3);
    mosaic_synthetic(a, W, H, 1);
    mosaic_synthetic(b, W, H, 1);
    mosaic_synthetic(c, W, H, 2);
    EXPECT(memcmp(a, b, W * H * 3) == 0);
    EXPECT(memcmp(a, c, W * H * 3) != 0);
    int lo = 255, hi = 0;
    for (int i = 0; i < W * H * 3; i++) {
        lo = a[i] < lo ? a[i] : lo;
        hi = a[i] > hi ? a[i] : hi;
    }
    EXPECT(hi - lo > 100);
    free(a);
    free(b);
    free(c);
}

int main(void)
{
    RUN_TEST(test_partial_cells_by_hand);
    RUN_TEST(test_rounding);
    RUN_TEST(test_one_pixel_and_identity);
    RUN_TEST(test_one_cell);
    RUN_TEST(test_synthetic_image);
    return UNIT_RESULT();
}
