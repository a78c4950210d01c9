// The renderer's scenes: fixed ones (rgb, rgby, pattern), random ones from the suite's
// generator (common/rng.h) and -S, and animated ones computed for any frame from
// frame 0. Random circles: the depths are drawn first and sorted descending (index
// order = far to near), then each circle's radius, x, y and colour, each attribute
// from its own stream of the seed (stream 1: z, 2: radius, 3: x, 4: y, 5: colour).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cudalab.h"
#include "renderer.h"

const char *const render_scene_names[] = {"rgb",      "rgby",      "rand10k",    "rand100k",
                                          "rand1M",   "micro2M",   "biglittle",  "littlebig",
                                          "pattern",  "snow",      "snowsingle", "bouncingballs",
                                          "hypnosis", "fireworks", NULL};

enum { STREAM_Z = 1, STREAM_RADIUS, STREAM_X, STREAM_Y, STREAM_COLOUR, STREAM_MOTION };

static render_scene *scene_alloc(const char *name, int n, int animated, uint64_t seed)
{
    render_scene *s = cl_host_alloc(sizeof *s, "scene");
    memset(s, 0, sizeof *s);
    s->name = name;
    s->n = n;
    s->animated = animated;
    s->seed = seed;
    float **arrays[] = {&s->x, &s->y, &s->z, &s->r, &s->x0, &s->y0, &s->r0, &s->vx, &s->vy};
    for (int a = 0; a < (animated ? 9 : 4); a++)
        *arrays[a] = cl_host_alloc((size_t)n * sizeof(float), "scene");
    s->rgb = cl_host_alloc((size_t)n * 3 * sizeof(float), "scene");
    return s;
}

void render_scene_destroy(render_scene *s)
{
    if (!s)
        return;
    float *arrays[] = {s->x, s->y, s->z, s->r, s->rgb, s->x0, s->y0, s->r0, s->vx, s->vy};
    for (int a = 0; a < 10; a++)
        free(arrays[a]);
    free(s);
}

static float uniform(uint64_t seed, int stream, size_t i)
{
    return cl_rng_uniform_f32(cl_rng_key(seed, (uint64_t)stream), i);
}

static int descending(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x < y) - (x > y);
}

// Circles [first, first + count): depths from the range [first, first + count) of the
// sorted depths, radius in [rmin, rmax], centres in [xlo, xhi] x [ylo, yhi].
static void random_circles(render_scene *s, int first, int count, float rmin, float rmax, float xlo,
                           float xhi, float ylo, float yhi)
{
    for (int k = first; k < first + count; k++) {
        s->r[k] = rmin + (rmax - rmin) * uniform(s->seed, STREAM_RADIUS, (size_t)k);
        s->x[k] = xlo + (xhi - xlo) * uniform(s->seed, STREAM_X, (size_t)k);
        s->y[k] = ylo + (yhi - ylo) * uniform(s->seed, STREAM_Y, (size_t)k);
        for (int c = 0; c < 3; c++)
            s->rgb[3 * k + c] = uniform(s->seed, STREAM_COLOUR, 3 * (size_t)k + c);
    }
}

static void sorted_depths(render_scene *s)
{
    for (int k = 0; k < s->n; k++)
        s->z[k] = uniform(s->seed, STREAM_Z, (size_t)k);
    qsort(s->z, (size_t)s->n, sizeof(float), descending);
}

static void set_circle(render_scene *s, int k, float x, float y, float z, float r, float red,
                       float green, float blue)
{
    s->x[k] = x;
    s->y[k] = y;
    s->z[k] = z;
    s->r[k] = r;
    s->rgb[3 * k] = red;
    s->rgb[3 * k + 1] = green;
    s->rgb[3 * k + 2] = blue;
}

// Keeps frame 0 of an animated scene.
static void keep_frame0(render_scene *s)
{
    memcpy(s->x0, s->x, (size_t)s->n * sizeof(float));
    memcpy(s->y0, s->y, (size_t)s->n * sizeof(float));
    memcpy(s->r0, s->r, (size_t)s->n * sizeof(float));
}

enum { BALLS = 8, FIREWORKS = 10, SPARKS = 60, HYPNOSIS_RINGS = 24 };

render_scene *render_scene_create(const char *name, uint64_t seed)
{
    render_scene *s = NULL;
    if (!strcmp(name, "rgb") || !strcmp(name, "rgby")) {
        s = scene_alloc(name, name[3] ? 4 : 3, 0, seed);
        set_circle(s, 0, .4f, .5f, .75f, .3f, 1, 0, 0);
        set_circle(s, 1, .5f, .5f, .5f, .3f, 0, 1, 0);
        set_circle(s, 2, .6f, .5f, .25f, .3f, 0, 0, 1);
        if (s->n == 4)
            set_circle(s, 3, .5f, .3f, .1f, .2f, 1, 1, 0);
    } else if (!strcmp(name, "rand10k") || !strcmp(name, "rand100k")) {
        s = scene_alloc(name, name[6] == 'k' ? 10000 : 100000, 0, seed);
        sorted_depths(s);
        random_circles(s, 0, s->n, .02f, .08f, 0, 1, 0, 1);
    } else if (!strcmp(name, "rand1M")) {
        s = scene_alloc(name, 1000000, 0, seed);
        sorted_depths(s);
        random_circles(s, 0, s->n, .009f, .014f, 0, 1, 0, 1);
    } else if (!strcmp(name, "micro2M")) {
        s = scene_alloc(name, 2000000, 0, seed);
        sorted_depths(s);
        random_circles(s, 0, s->n, .001f, .001f, 0, 1, 0, 1);
    } else if (!strcmp(name, "biglittle")) {
        // 9000 big circles anywhere, then 1000 little ones over the top-left corner.
        s = scene_alloc(name, 10000, 0, seed);
        sorted_depths(s);
        random_circles(s, 0, 9000, .25f, .25f, 0, 1, 0, 1);
        random_circles(s, 9000, 1000, .05f, .05f, 0, .25f, 0, .25f);
    } else if (!strcmp(name, "littlebig")) {
        // The little ones first (bottom-right corner), then the big ones over them.
        s = scene_alloc(name, 10000, 0, seed);
        sorted_depths(s);
        random_circles(s, 0, 1000, .05f, .05f, .75f, 1, .75f, 1);
        random_circles(s, 1000, 9000, .25f, .25f, 0, 1, 0, 1);
    } else if (!strcmp(name, "pattern")) {
        // A 16 x 16 grid of red circles, then a 31 x 31 grid of yellow ones between them.
        s = scene_alloc(name, 16 * 16 + 31 * 31, 0, seed);
        int k = 0;
        for (int j = 0; j < 16; j++)
            for (int i = 0; i < 16; i++)
                set_circle(s, k++, (i + .5f) / 16, (j + .5f) / 16, .75f, 1.0f / 32, 1, 0, 0);
        for (int j = 0; j < 31; j++)
            for (int i = 0; i < 31; i++)
                set_circle(s, k++, (i + 1.0f) / 32, (j + 1.0f) / 32, .25f, 1.0f / 32, 1, 1, 0);
    } else if (!strcmp(name, "snow") || !strcmp(name, "snowsingle")) {
        // Nearer flakes (smaller z) are larger and fall faster.
        s = scene_alloc(name, 100000, name[4] == '\0', seed);
        s->shading = SHADE_SNOW;
        sorted_depths(s);
        for (int k = 0; k < s->n; k++) {
            const float near = 1.0f - s->z[k];
            set_circle(s, k, uniform(seed, STREAM_X, (size_t)k), uniform(seed, STREAM_Y, (size_t)k),
                       s->z[k], .002f + .006f * near * near, 1, 1, 1);
            if (s->animated) {
                s->vy[k] = .001f + .006f * near;
                s->vx[k] = .001f * (uniform(seed, STREAM_MOTION, (size_t)k) - .5f);
            }
        }
    } else if (!strcmp(name, "bouncingballs")) {
        s = scene_alloc(name, BALLS, 1, seed);
        for (int k = 0; k < BALLS; k++) {
            set_circle(s, k, .2f + .6f * uniform(seed, STREAM_X, (size_t)k),
                       .1f + .4f * uniform(seed, STREAM_Y, (size_t)k),
                       1.0f - (k + 1.0f) / (BALLS + 1),
                       .04f + .06f * uniform(seed, STREAM_RADIUS, (size_t)k),
                       uniform(seed, STREAM_COLOUR, 3 * (size_t)k),
                       uniform(seed, STREAM_COLOUR, 3 * (size_t)k + 1),
                       uniform(seed, STREAM_COLOUR, 3 * (size_t)k + 2));
            s->vx[k] = .02f * (uniform(seed, STREAM_MOTION, 2 * (size_t)k) - .5f);
            s->vy[k] = -.01f * uniform(seed, STREAM_MOTION, 2 * (size_t)k + 1);
        }
    } else if (!strcmp(name, "hypnosis")) {
        s = scene_alloc(name, HYPNOSIS_RINGS, 1, seed);
        for (int k = 0; k < HYPNOSIS_RINGS; k++)
            set_circle(s, k, .5f, .5f, .5f, .72f - .03f * k, 0, 0, 0);
    } else if (!strcmp(name, "fireworks")) {
        s = scene_alloc(name, FIREWORKS * SPARKS, 1, seed);
        for (int f = 0; f < FIREWORKS; f++) {
            const float cx = .2f + .6f * uniform(seed, STREAM_X, (size_t)f),
                        cy = .2f + .4f * uniform(seed, STREAM_Y, (size_t)f);
            for (int j = 0; j < SPARKS; j++) {
                const int k = f * SPARKS + j;
                const float angle = 6.2831853f * (j + .5f) / SPARKS,
                            speed = .004f + .004f * uniform(seed, STREAM_MOTION, (size_t)k);
                set_circle(s, k, cx, cy, .5f, .012f, uniform(seed, STREAM_COLOUR, 3 * (size_t)f),
                           uniform(seed, STREAM_COLOUR, 3 * (size_t)f + 1),
                           uniform(seed, STREAM_COLOUR, 3 * (size_t)f + 2));
                s->vx[k] = speed * cosf(angle);
                s->vy[k] = speed * sinf(angle);
            }
        }
    }
    if (s && s->animated)
        keep_frame0(s);
    if (s)
        render_scene_at(s, 0);
    return s;
}

// x wrapped into [-r, 1 + r): a flake leaving one edge enters at the other.
static float wrap(float v, float r)
{
    const float span = 1.0f + 2.0f * r;
    float t = fmodf(v + r, span);
    if (t < 0)
        t += span;
    return t - r;
}

void render_scene_at(render_scene *s, int frame)
{
    if (!s->animated)
        return;
    const float t = (float)frame;
    if (s->shading == SHADE_SNOW) {
        for (int k = 0; k < s->n; k++) {
            s->x[k] = wrap(s->x0[k] + s->vx[k] * t, s->r0[k]);
            s->y[k] = wrap(s->y0[k] + s->vy[k] * t, s->r0[k]);
        }
    } else if (!strcmp(s->name, "bouncingballs")) {
        // Gravity .0015 a frame; the floor gives back 85% of the speed, the walls all of it.
        for (int k = 0; k < s->n; k++) {
            float x = s->x0[k], y = s->y0[k], vx = s->vx[k], vy = s->vy[k];
            const float r = s->r0[k];
            for (int f = 0; f < frame; f++) {
                vy += .0015f;
                x += vx;
                y += vy;
                if (y + r > 1.0f) {
                    y = 1.0f - r;
                    vy = -.85f * vy;
                }
                if (x - r < 0.0f || x + r > 1.0f) {
                    x = x - r < 0.0f ? r : 1.0f - r;
                    vx = -vx;
                }
            }
            s->x[k] = x;
            s->y[k] = y;
        }
    } else if (!strcmp(s->name, "hypnosis")) {
        // Rings grow by .004 a frame: circle k (largest first) has radius .72 - .03 k
        // plus the growth since the last whole ring, and the colours move out a ring
        // each time the growth passes .03.
        const int shift = (int)floorf((.004f * t) / .03f); // rings passed by
        const float phase = fmodf(.004f * t, .03f);
        for (int k = 0; k < s->n; k++) {
            const int ring = ((k - shift) % HYPNOSIS_RINGS + HYPNOSIS_RINGS) % HYPNOSIS_RINGS;
            const float v = ring % 2 ? 1.0f : .1f;
            s->r[k] = .72f - .03f * k + phase;
            s->rgb[3 * k] = v;
            s->rgb[3 * k + 1] = ring % 4 == 1 ? .3f : v;
            s->rgb[3 * k + 2] = v;
        }
    } else {
        // Fireworks: each burst lives 60 frames from its own start; sparks fly out,
        // fall (gravity .0001 a frame^2) and shrink, then the burst starts again.
        for (int k = 0; k < s->n; k++) {
            const int burst = k / SPARKS;
            const float age = (float)((frame + burst * 7) % SPARKS);
            s->x[k] = s->x0[k] + s->vx[k] * age;
            s->y[k] = s->y0[k] + s->vy[k] * age + .00005f * age * age;
            s->r[k] = .002f + .010f * (1.0f - age / SPARKS);
        }
    }
}
