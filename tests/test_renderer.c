// Unit tests of the renderer's scenes, per-pixel rules and CPU reference.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "renderer.h"
#include "unit.h"

static bool near(float a, float b) { return fabsf(a - b) < 1e-6f; }

static void test_scene_counts(void)
{
    const char *names[] = {"rgb",        "rgby",          "rand10k",   "rand100k", "rand1M",
                           "micro2M",    "biglittle",     "littlebig", "pattern",  "snow",
                           "snowsingle", "bouncingballs", "hypnosis",  "fireworks"};
    const int counts[] = {3,     4,    10000,  100000, 1000000, 2000000, 10000,
                          10000, 1217, 100000, 100000, 8,       24,      600};
    for (int i = 0; i < 14; i++) {
        render_scene *s = render_scene_create(names[i], 1);
        EXPECT(s != NULL && s->n == counts[i]);
        EXPECT(!strcmp(render_scene_names[i], names[i])); // --help's list is the same
        render_scene_destroy(s);
    }
    EXPECT(render_scene_names[14] == NULL);
    EXPECT(render_scene_create("rand10", 1) == NULL);
}

// Random scenes: radii, centres and colours in their ranges; depths far to near.
static void test_random_ranges_and_depth_order(void)
{
    const struct {
        const char *name;
        float rmin, rmax;
    } cases[] = {{"rand10k", .02f, .08f}, {"rand1M", .009f, .014f}, {"micro2M", .001f, .001f}};
    for (int c = 0; c < 3; c++) {
        render_scene *s = render_scene_create(cases[c].name, 7);
        bool radius = true, centre = true, colour = true, order = true;
        for (int i = 0; i < s->n; i++) {
            radius = radius && s->r[i] >= cases[c].rmin && s->r[i] <= cases[c].rmax;
            centre = centre && s->x[i] >= 0 && s->x[i] < 1 && s->y[i] >= 0 && s->y[i] < 1;
            for (int k = 0; k < 3; k++)
                colour = colour && s->rgb[3 * i + k] >= 0 && s->rgb[3 * i + k] < 1;
            order = order && (i == 0 || s->z[i] <= s->z[i - 1]);
        }
        EXPECT(radius && centre && colour && order);
        render_scene_destroy(s);
    }
    // biglittle: the last 1000 are the little ones, in the top-left corner.
    render_scene *s = render_scene_create("biglittle", 3);
    EXPECT(s->r[0] == .25f && s->r[8999] == .25f && s->r[9000] == .05f);
    bool corner = true;
    for (int i = 9000; i < 10000; i++)
        corner = corner && s->x[i] <= .25f && s->y[i] <= .25f;
    EXPECT(corner);
    render_scene_destroy(s);
}

static void test_seeds_and_frames(void)
{
    render_scene *a = render_scene_create("rand10k", 1), *b = render_scene_create("rand10k", 1),
                 *c = render_scene_create("rand10k", 2);
    EXPECT(!memcmp(a->x, b->x, 10000 * sizeof(float)) &&
           !memcmp(a->rgb, b->rgb, 30000 * sizeof(float)));
    EXPECT(memcmp(a->x, c->x, 10000 * sizeof(float)) != 0);
    render_scene_destroy(a);
    render_scene_destroy(b);
    render_scene_destroy(c);
    // Animated scenes: frame f depends on f alone; snow falls (y grows, wrapping).
    const char *animated[] = {"snow", "bouncingballs", "hypnosis", "fireworks"};
    for (int i = 0; i < 4; i++) {
        render_scene *s = render_scene_create(animated[i], 5);
        const size_t bytes = (size_t)s->n * sizeof(float);
        float *x0 = malloc(bytes), *y0 = malloc(bytes), *r0 = malloc(bytes);
        memcpy(x0, s->x, bytes);
        memcpy(y0, s->y, bytes);
        memcpy(r0, s->r, bytes);
        render_scene_at(s, 17);
        EXPECT(memcmp(y0, s->y, bytes) != 0 || memcmp(r0, s->r, bytes) != 0);
        render_scene_at(s, 0);
        EXPECT(!memcmp(x0, s->x, bytes) && !memcmp(y0, s->y, bytes) && !memcmp(r0, s->r, bytes));
        free(x0);
        free(y0);
        free(r0);
        render_scene_destroy(s);
    }
    render_scene *snow = render_scene_create("snow", 5);
    const float y = snow->y[0];
    render_scene_at(snow, 1);
    EXPECT(snow->y[0] > y || snow->y[0] < 0); // one frame down, or wrapped to the top
    render_scene_destroy(snow);
}

// The box [int((x - r) W), int((x + r) W) + 1) clamped; coverage by the pixel centre,
// r^2 inclusive.
static void test_box_and_coverage(void)
{
    render_box b = render_circle_box(.5f, .5f, .25f, 8, 8);
    EXPECT(b.x0 == 2 && b.x1 == 7 && b.y0 == 2 && b.y1 == 7);
    b = render_circle_box(.0f, 1.0f, .5f, 10, 10);
    EXPECT(b.x0 == 0 && b.x1 == 6 && b.y0 == 5 && b.y1 == 10);
    b = render_circle_box(-3.0f, .5f, .1f, 10, 10); // off the image: empty
    EXPECT(b.x0 >= b.x1);
    // Pixel (1, 0) of a 4 x 4 image has its centre at (.375, .125): distance .25 from
    // (.125, .125); a circle of radius .25 there covers it, one of .2499 does not.
    const float d2 = render_distance2(.125f, .125f, 1, 0, 4, 4);
    EXPECT(near(d2, .0625f) && render_covered(d2, .25f) && !render_covered(d2, .2499f));
}

static void test_shading(void)
{
    float colour[3];
    const float red[3] = {1, 0, 0};
    EXPECT(render_shade(SHADE_FLAT, red, .3f, .1f, 0, colour) == .5f && colour[0] == 1 &&
           colour[1] == 0);
    // Snow at the centre: white, alpha .5 clamp(.6 + .4 (1 - z)); at the rim (.8, .8, 1),
    // alpha times exp(-4).
    float a = render_shade(SHADE_SNOW, red, 1.0f, .1f, 0, colour);
    EXPECT(near(a, .3f) && colour[0] == 1 && colour[1] == 1 && colour[2] == 1);
    a = render_shade(SHADE_SNOW, red, 0.0f, .1f, .01f, colour);
    EXPECT(near(a, .5f * expf(-4)) && near(colour[0], .8f) && near(colour[1], .8f) &&
           colour[2] == 1);
    a = render_shade(SHADE_SNOW, red, 0.0f, 1.0f, .25f * .25f + 0.0f, colour); // d = .25
    EXPECT(near(colour[0], 1) && near(colour[1], 1));
    render_shade(SHADE_SNOW, red, 0.0f, 1.0f, .375f * .375f, colour); // d = .375: halfway
    EXPECT(near(colour[0], .9f) && near(colour[1], .95f));
    EXPECT(render_background(SHADE_FLAT, 3, 10) == 1.0f);
    EXPECT(near(render_background(SHADE_SNOW, 0, 10), .85f) &&
           near(render_background(SHADE_SNOW, 5, 10), .625f));
}

// Red then blue over the same pixels of white: blue over (red over white) =
// .5 (0, 0, 1) + .5 (.5 (1, 0, 0) + .5 (1, 1, 1)) = (.5, .25, .75).
static void test_cpu_order(void)
{
    float x[2] = {.5f, .5f}, y[2] = {.5f, .5f}, z[2] = {.6f, .3f}, r[2] = {.3f, .3f},
          rgb[6] = {1, 0, 0, 0, 0, 1};
    render_scene s = {
        .name = "two", .n = 2, .shading = SHADE_FLAT, .x = x, .y = y, .z = z, .r = r, .rgb = rgb};
    float image[8 * 8 * 4];
    render_clear_cpu(image, 8, 8, SHADE_FLAT);
    render_cpu(&s, image, 8, 8);
    const float *centre = image + 4 * (4 * 8 + 4), *corner = image;
    EXPECT(near(centre[0], .5f) && near(centre[1], .25f) && near(centre[2], .75f) &&
           near(centre[3], 2.0f));
    EXPECT(corner[0] == 1 && corner[1] == 1 && corner[2] == 1 && corner[3] == 1);
    // The other order gives another colour: order matters.
    float x2[2] = {.5f, .5f}, rgb2[6] = {0, 0, 1, 1, 0, 0};
    s.x = x2;
    s.rgb = rgb2;
    render_clear_cpu(image, 8, 8, SHADE_FLAT);
    render_cpu(&s, image, 8, 8);
    EXPECT(near(centre[0], .75f) && near(centre[1], .25f) && near(centre[2], .5f));
}

// Every scene as cpuref draws it at 64 x 64 (frame 0, and frame 3 of the animated
// ones), each channel rounded to 8 bits, hashed (FNV-1a, 64 bits): a change to a
// scene's generator, its animation or the CPU reference shows here, without a GPU.
// The table was written from this code's images on 2026-11-23 (RENDER_PRINT_HASHES=1
// prints the current values, to update it deliberately).
static uint64_t image_hash(const float *image, int pixels)
{
    uint64_t h = 1469598103934665603ull;
    for (int p = 0; p < pixels; p++)
        for (int ch = 0; ch < 3; ch++) {
            const float v = image[4 * p + ch];
            const unsigned byte = (unsigned)lrintf((v < 0 ? 0 : v > 1 ? 1 : v) * 255.0f);
            h = (h ^ byte) * 1099511628211ull;
        }
    return h;
}

static const struct {
    const char *scene;
    int frame;
    uint64_t hash;
} scene_hashes[] = {
#include "renderer_scene_hashes.inc"
};

static void test_scene_images_unchanged(void)
{
    enum { SIDE = 64 };
    static float image[SIDE * SIDE * 4];
    const int print = getenv("RENDER_PRINT_HASHES") != NULL;
    int checked = 0;
    for (size_t i = 0; render_scene_names[i]; i++) {
        render_scene *scene = render_scene_create(render_scene_names[i], 1);
        for (int frame = 0; frame <= (scene->animated ? 3 : 0); frame += 3) {
            render_scene_at(scene, frame);
            render_clear_cpu(image, SIDE, SIDE, scene->shading);
            render_cpu(scene, image, SIDE, SIDE);
            const uint64_t h = image_hash(image, SIDE * SIDE);
            if (print)
                printf("    {\"%s\", %d, 0x%016llxull},\n", scene->name, frame,
                       (unsigned long long)h);
            int found = 0;
            for (size_t j = 0; j < sizeof scene_hashes / sizeof scene_hashes[0]; j++)
                if (strcmp(scene_hashes[j].scene, scene->name) == 0 &&
                    scene_hashes[j].frame == frame) {
                    found = 1;
                    if (scene_hashes[j].hash != h)
                        printf("  %s frame %d: image hash 0x%016llx, stored 0x%016llx\n",
                               scene->name, frame, (unsigned long long)h,
                               (unsigned long long)scene_hashes[j].hash);
                    EXPECT(scene_hashes[j].hash == h);
                }
            EXPECT(found);
            checked++;
        }
        render_scene_destroy(scene);
    }
    EXPECT(checked == (int)(sizeof scene_hashes / sizeof scene_hashes[0]));
}

// The CMU renderer checker's points: 2 for correct, 10 for speed.
static void test_score(void)
{
    EXPECT(render_score(1.0, 0.5, true) == 12.0);
    EXPECT(render_score(1.0, 1.2, true) == 12.0);      // within 1.2x: all 10 speed points
    EXPECT(render_score(1.0, 1.3, true) == 2.0 + 8.0); // ceil(10 / 1.3) = 8
    EXPECT(render_score(1.0, 10.0, true) == 3.0);      // ceil(1) at 10x
    EXPECT(render_score(1.0, 10.5, true) == 2.0);      // past 10x: correct, no speed points
    EXPECT(render_score(1.0, 0.5, false) == 0.0);
}

int main(void)
{
    RUN_TEST(test_scene_counts);
    RUN_TEST(test_random_ranges_and_depth_order);
    RUN_TEST(test_seeds_and_frames);
    RUN_TEST(test_box_and_coverage);
    RUN_TEST(test_shading);
    RUN_TEST(test_cpu_order);
    RUN_TEST(test_score);
    RUN_TEST(test_scene_images_unchanged);
    return UNIT_RESULT();
}
