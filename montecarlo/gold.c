// montecarlo's host-side model arithmetic and CPU references.
#include <math.h>

#include "montecarlo.h"
#include "rng.h"

mc_model mc_model_practical(size_t npath, int nsteps, uint64_t seed, int generator)
{
    mc_model m = {.npath = npath,
                  .nsteps = nsteps,
                  .T = 1.0f,
                  .r = 0.05f,
                  .sigma = 0.1f,
                  .rho = 0.5f,
                  .seed = seed,
                  .generator = generator};
    m.alpha = sqrtf(1.0f - m.rho * m.rho);
    m.dt = m.T / (float)nsteps;
    m.con1 = 1.0f + m.r * m.dt;
    m.con2 = sqrtf(m.dt) * m.sigma;
    return m;
}

mc_estimate mc_estimate_from_sums(double sum, double sum_sq, size_t n)
{
    mc_estimate e = {.mean = sum / (double)n};
    double variance = sum_sq / (double)n - e.mean * e.mean;
    e.se = sqrt((variance > 0.0 ? variance : 0.0) / (double)n);
    return e;
}

double mc_distance(mc_estimate a, mc_estimate b)
{
    double combined = sqrt(a.se * a.se + b.se * b.se);
    double gap = fabs(a.mean - b.mean);
    if (combined == 0.0)
        return gap == 0.0 ? 0.0 : INFINITY;
    return gap / combined;
}

enum { GOLD_CHUNK = 4096 }; // paths a thread prices before its sums join the total

// One path in double. Step k takes the Box-Muller pair of uniforms 2k, 2k + 1 of the
// path's range: z1 = R cos(2 pi u2), z2 = R sin(2 pi u2), R = sqrt(-2 ln(1 - u1)).
static double gold_path(const mc_model *m, uint64_t key, size_t path)
{
    const double two_pi = 6.283185307179586;
    double rho = m->rho, alpha = sqrt(1.0 - rho * rho), dt = (double)m->T / m->nsteps;
    double con1 = 1.0 + (double)m->r * dt, con2 = sqrt(dt) * m->sigma;
    double s1 = 1.0, s2 = 1.0;
    uint64_t first = (uint64_t)path * 2 * (uint64_t)m->nsteps;
    for (int k = 0; k < m->nsteps; k++) {
        double u1 = cl_rng_uniform_f64(key, first + 2 * (uint64_t)k);
        double u2 = cl_rng_uniform_f64(key, first + 2 * (uint64_t)k + 1);
        double radius = sqrt(-2.0 * log(1.0 - u1));
        double y1 = radius * cos(two_pi * u2);
        double y2 = rho * y1 + alpha * radius * sin(two_pi * u2);
        s1 *= con1 + con2 * y1;
        s2 *= con1 + con2 * y2;
    }
    return fabs(s1 - 1.0) < 0.1 && fabs(s2 - 1.0) < 0.1 ? exp(-(double)m->r * m->T) : 0.0;
}

void mc_gold(const mc_model *m, size_t npath, double *sum, double *sum_sq)
{
    uint64_t key = cl_rng_key(m->seed, 0);
    size_t chunks = (npath + GOLD_CHUNK - 1) / GOLD_CHUNK;
    double total = 0.0, total_sq = 0.0;
    // Chunk sums join the totals in chunk order: the thread count does not matter.
#pragma omp parallel for ordered schedule(static, 1)
    for (size_t c = 0; c < chunks; c++) {
        size_t end = (c + 1) * GOLD_CHUNK < npath ? (c + 1) * GOLD_CHUNK : npath;
        double s = 0.0, s2 = 0.0;
        for (size_t p = c * GOLD_CHUNK; p < end; p++) {
            double v = gold_path(m, key, p);
            s += v;
            s2 += v * v;
        }
#pragma omp ordered
        {
            total += s;
            total_sq += s2;
        }
    }
    *sum = total;
    *sum_sq = total_sq;
}

enum { QUADRATIC_CHUNK = 1 << 20 };

void quadratic_cpu(const float *z, size_t n, float a, float b, float c, double *sums)
{
    size_t chunks = (n + QUADRATIC_CHUNK - 1) / QUADRATIC_CHUNK;
    double total = 0.0, total_sq = 0.0;
#pragma omp parallel for ordered schedule(static, 1)
    for (size_t k = 0; k < chunks; k++) {
        size_t end = (k + 1) * QUADRATIC_CHUNK < n ? (k + 1) * QUADRATIC_CHUNK : n;
        double s = 0.0, s2 = 0.0;
        for (size_t i = k * QUADRATIC_CHUNK; i < end; i++) {
            double x = z[i], f = (a * x + b) * x + c;
            s += f;
            s2 += f * f;
        }
#pragma omp ordered
        {
            total += s;
            total_sq += s2;
        }
    }
    sums[0] = total;
    sums[1] = total_sq;
}
