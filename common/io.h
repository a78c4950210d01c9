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

// Writes BASE.png (with libpng) or BASE.ppm (as cl_image_write_file), and puts the
// name used in written_path. Returns 0, or -1 with errno set.
int cl_image_write(const char *base, int width, int height, const uint8_t *rgb, char *written_path,
                   size_t path_len);

// The extension cl_image_write uses: "png" or "ppm".
const char *cl_image_extension(void);

// Exits 2 ("FLAG PATH: directory DIR: why") unless the directory PATH would be written
// into exists and takes a new file (one is made and removed): checked before anything
// runs, not after the work.
void cl_require_writable_dir(const char *flag, const char *path);

// The prefix of numbered frames (NAME_0000.png, ...) that `flag` (e.g. "-f") names:
// NAME less a .png or .ppm extension, so "-f out.png" writes out_0000.png, not
// out.png_0000.png. Checked before anything runs: exits 2 naming the flag for another
// extension or when no file can be created in the directory. Returns out.
const char *cl_frame_prefix(const char *flag, const char *name, char *out, size_t len);

// An 8-bit RGB image, rows top to bottom, 3 bytes a pixel.
typedef struct {
    int width, height;
    uint8_t *rgb; // malloc'd; cl_image_free releases it
} cl_image;

// The largest image the readers accept: 2^15 pixels a side, 2^28 pixels in all.
enum { CL_IMAGE_MAX_SIDE = 1 << 15 };
#define CL_IMAGE_MAX_PIXELS ((size_t)1 << 28)

// Reads PATH by its extension: .ppm or .pnm (P3 text or P6 binary, maxval 255) or .png
// (through libpng; a build without it refuses PNG). Returns 0, or -1 with the problem
// in err ("truncated pixel data: 12 of 48 bytes", ...); nothing is allocated then.
int cl_image_read(const char *path, cl_image *image, char *err, size_t errlen);
void cl_image_free(cl_image *image);

// Writes PATH as PNG or PPM by its extension (.png, .ppm), under a temporary name and
// then renamed, so a failed write leaves no file. Returns 0, or -1 with the problem in
// err.
int cl_image_write_file(const char *path, int width, int height, const uint8_t *rgb, char *err,
                        size_t errlen);

// Float RGBA (any range) to 8-bit RGB: each channel clamped to [0, 1], * 255, rounded.
void cl_rgba_f32_to_rgb8(const float *rgba, size_t pixels, uint8_t *rgb);

#ifdef __cplusplus
}
#endif

#endif
