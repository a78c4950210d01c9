// Unit tests of tridiag's CPU gold (the Thomas algorithm).
#include <math.h>
#include <stdlib.h>

#include "tridiag.h"
#include "unit.h"

// A dense solve by Gaussian elimination (no pivoting needed: diagonally dominant).
static void dense_solve(int n, double *matrix, double *rhs)
{
    for (int k = 0; k < n; k++)
        for (int r = k + 1; r < n; r++) {
            double f = matrix[r * n + k] / matrix[k * n + k];
            for (int j = k; j < n; j++)
                matrix[r * n + j] -= f * matrix[k * n + j];
            rhs[r] -= f * rhs[k];
        }
    for (int r = n - 1; r >= 0; r--) {
        for (int j = r + 1; j < n; j++)
            rhs[r] -= matrix[r * n + j] * rhs[j];
        rhs[r] /= matrix[r * n + r];
    }
}

// Two systems of each size, different coefficients, niter 1 and 3: Thomas agrees
// with the dense solve applied niter times.
static void test_thomas_against_dense(void)
{
    const int sizes[] = {1, 2, 3, 7};
    for (int t = 0; t < 4; t++) {
        const int n = sizes[t];
        for (int niter = 1; niter <= 3; niter += 2) {
            tridiag_shape shape = {n, 2, niter, 1.5f};
            float a[14], b[14], c[14], d[14];
            for (int k = 0; k < 2 * n; k++) {
                int i = k % n;
                a[k] = i ? -0.5f - 0.1f * (float)k : 0.0f;
                c[k] = i < n - 1 ? 0.25f * (float)(k % 3) - 0.3f : 0.0f;
                b[k] = 2.0f + 0.2f * (float)k;
                d[k] = 1.0f - 0.3f * (float)k;
            }
            double x[14];
            tridiag_gold(a, b, c, d, x, shape);
            for (int s = 0; s < 2; s++) {
                double want[7], matrix[49];
                for (int i = 0; i < n; i++)
                    want[i] = d[s * n + i];
                for (int it = 0; it < niter; it++) {
                    for (int i = 0; i < n * n; i++)
                        matrix[i] = 0.0;
                    for (int i = 0; i < n; i++) {
                        int k = s * n + i;
                        matrix[i * n + i] = b[k];
                        if (i > 0)
                            matrix[i * n + i - 1] = a[k];
                        if (i < n - 1)
                            matrix[i * n + i + 1] = c[k];
                        want[i] *= shape.lambda;
                    }
                    dense_solve(n, matrix, want);
                }
                for (int i = 0; i < n; i++)
                    EXPECT(fabs(x[s * n + i] - want[i]) <= 1e-12 * (1.0 + fabs(want[i])));
            }
        }
    }
}

// By hand: NX = 2, [[4, 1], [2, 3]] x = [5, 5] gives x = [1, 1]; NX = 1: x = d / b.
static void test_hand_computed(void)
{
    float a[2] = {0.0f, 2.0f}, b[2] = {4.0f, 3.0f}, c[2] = {1.0f, 0.0f}, d[2] = {5.0f, 5.0f};
    double x[2];
    tridiag_gold(a, b, c, d, x, (tridiag_shape){2, 1, 1, 1.0f});
    EXPECT(fabs(x[0] - 1.0) < 1e-15 && fabs(x[1] - 1.0) < 1e-15);
    tridiag_gold(a, b, c, d, x, (tridiag_shape){1, 2, 1, 1.0f}); // two 1x1 systems
    EXPECT(fabs(x[0] - 5.0 / 4.0) < 1e-15 && fabs(x[1] - 5.0 / 3.0) < 1e-15);
}

// The practical's system: A = tridiag(-1, 3, -1), x = 1: far from the ends one solve
// keeps 1 (3 - 1 - 1 = 1), the end rows see one neighbour: x0 < 1.
static void test_practical_interior(void)
{
    enum { N = 128 };
    float a[N], b[N], c[N], d[N];
    for (int i = 0; i < N; i++) {
        a[i] = i ? -1.0f : 0.0f;
        c[i] = i < N - 1 ? -1.0f : 0.0f;
        b[i] = 3.0f;
        d[i] = 1.0f;
    }
    double x[N];
    tridiag_gold(a, b, c, d, x, (tridiag_shape){N, 1, 1, 1.0f});
    EXPECT(fabs(x[N / 2] - 1.0) < 1e-12 && x[0] < 1.0 && fabs(x[0] - x[N - 1]) < 1e-12);
}

int main(void)
{
    RUN_TEST(test_thomas_against_dense);
    RUN_TEST(test_hand_computed);
    RUN_TEST(test_practical_interior);
    return UNIT_RESULT();
}
