// Files for people and scripts: NumPy .npy arrays (--dump) and images (PNG through
// libpng when the build found it, binary PPM otherwise).
#ifndef CUDALAB_IO_H
#define CUDALAB_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Writes a C-order .npy file (format version 1.0). dtype is NumPy's descr string:
// "<f4", "<f8", "<i4", "<u4", "|u1". Returns 0, or -1 with errno set.
int cl_npy_write(const char *path, const char *dtype, const void *data, size_t elem_size, int ndim,
                 const size_t *shape);

// --dump: writes PREFIX_<role>.npy (role: input, output, gold) as a 1-D or 2-D
// array; exits 2 naming the path when it cannot be written.
void cl_dump_npy(const char *prefix, const char *role, const char *dtype, const void *data,
                 size_t elem_size, int ndim, const size_t *shape);

// 8-bit RGB, rows top to bottom.
int cl_write_ppm(const char *path, int width, int height, const uint8_t *rgb);
#ifdef CL_HAVE_PNG
int cl_write_png(const char *path, int width, int height, const uint8_t *rgb);
#endif

// Writes BASE.png (with libpng) or BASE.ppm, and puts the name used in written_path.
// Returns 0, or -1 with errno set.
int cl_image_write(const char *base, int width, int height, const uint8_t *rgb, char *written_path,
                   size_t path_len);

// The extension cl_image_write uses: "png" or "ppm".
const char *cl_image_extension(void);

// Float RGBA (any range) to 8-bit RGB: each channel clamped to [0, 1], * 255, rounded.
void cl_rgba_f32_to_rgb8(const float *rgba, size_t pixels, uint8_t *rgb);

#ifdef __cplusplus
}
#endif

#endif
