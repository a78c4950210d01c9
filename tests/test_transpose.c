// Unit tests of transpose's CPU gold.
#include <stdlib.h>

#include "transpose.h"
#include "unit.h"

// Every element lands at its mirrored place, on shapes that end inside a 32 x 32 block and
// on the degenerate ones (a row, a column, one element).
static void test_gold_shapes(void)
{
    static const size_t shapes[][2] = {{1, 1}, {1, 37}, {37, 1}, {33, 65}, {97, 33}, {64, 64}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const size_t rows = shapes[s][0], cols = shapes[s][1];
        float *a = malloc(rows * cols * sizeof *a), *b = malloc(rows * cols * sizeof *b);
        for (size_t i = 0; i < rows * cols; i++)
            a[i] = (float)i;
        transpose_gold(a, b, rows, cols);
        size_t bad = 0;
        for (size_t r = 0; r < rows; r++)
            for (size_t c = 0; c < cols; c++)
                bad += b[c * rows + r] != (float)(r * cols + c);
        EXPECT(bad == 0);
        free(a), free(b);
    }
}

// Twice is the identity.
static void test_gold_twice(void)
{
    const size_t rows = 100, cols = 70;
    float *a = malloc(rows * cols * sizeof *a), *b = malloc(rows * cols * sizeof *b),
          *c = malloc(rows * cols * sizeof *c);
    for (size_t i = 0; i < rows * cols; i++)
        a[i] = (float)(i * 7 % 13) - 6.5f;
    transpose_gold(a, b, rows, cols);
    transpose_gold(b, c, cols, rows);
    size_t bad = 0;
    for (size_t i = 0; i < rows * cols; i++)
        bad += c[i] != a[i];
    EXPECT(bad == 0);
    free(a), free(b), free(c);
}

int main(void)
{
    RUN_TEST(test_gold_shapes);
    RUN_TEST(test_gold_twice);
    return UNIT_RESULT();
}
