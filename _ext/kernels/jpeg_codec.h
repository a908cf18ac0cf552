/* Region-of-interest JPEG decoding with libjpeg-turbo, for the decoders.
 *
 * Decodes only the rows of the region (jpeg_skip_scanlines) and only the iMCU columns that
 * cover it (jpeg_crop_scanline), optionally at 1/2, 1/4 or 1/8 scale in the DCT domain.
 * libjpeg reports fatal errors through error_exit, which must not return: it longjmps back
 * here and the error text is returned to the caller.  Everything runs without the GIL.
 */
#pragma once
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <jpeglib.h>

typedef struct {
  struct jpeg_error_mgr pub;
  jmp_buf escape;
  char message[JMSG_LENGTH_MAX];
} dali_jpeg_error;

static void dali_jpeg_error_exit(j_common_ptr cinfo) {
  dali_jpeg_error* err = (dali_jpeg_error*)cinfo->err;
  (*cinfo->err->format_message)(cinfo, err->message);
  longjmp(err->escape, 1);
}

static void dali_jpeg_silence(j_common_ptr cinfo, int level) { (void)cinfo; (void)level; }

/* Image size and components of a JPEG; 0 on success, else -1 with `err` filled. */
static int dali_jpeg_info(const uint8_t* data, size_t size, int* width, int* height,
                          int* components, char* err, size_t errlen) {
  struct jpeg_decompress_struct cinfo;
  dali_jpeg_error jerr;
  cinfo.err = jpeg_std_error(&jerr.pub);
  jerr.pub.error_exit = dali_jpeg_error_exit;
  jerr.pub.emit_message = dali_jpeg_silence;
  if (setjmp(jerr.escape)) {
    snprintf(err, errlen, "%s", jerr.message);
    jpeg_destroy_decompress(&cinfo);
    return -1;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, (const unsigned char*)data, (unsigned long)size);
  jpeg_read_header(&cinfo, TRUE);
  *width = (int)cinfo.image_width;
  *height = (int)cinfo.image_height;
  *components = cinfo.num_components;
  jpeg_destroy_decompress(&cinfo);
  return 0;
}

/* Decode the region (x, y, w, h) of the image scaled by 1/`scale` (1, 2, 4 or 8; region in
 * scaled coordinates) into `out` (h rows of `out_stride` bytes, `channels` = 3 for RGB or 1
 * for gray).  0 on success, else -1 with `err` filled. */
static int dali_jpeg_decode_roi(const uint8_t* data, size_t size, int scale, int x, int y,
                                int w, int h, int channels, uint8_t* out, long out_stride,
                                uint8_t* row, char* err, size_t errlen) {
  struct jpeg_decompress_struct cinfo;
  dali_jpeg_error jerr;
  cinfo.err = jpeg_std_error(&jerr.pub);
  jerr.pub.error_exit = dali_jpeg_error_exit;
  jerr.pub.emit_message = dali_jpeg_silence;
  if (setjmp(jerr.escape)) {
    snprintf(err, errlen, "%s", jerr.message);
    jpeg_destroy_decompress(&cinfo);
    return -1;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, (const unsigned char*)data, (unsigned long)size);
  jpeg_read_header(&cinfo, TRUE);
  cinfo.out_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_EXT_RGB;
  cinfo.scale_num = 1;
  cinfo.scale_denom = (unsigned int)scale;
  cinfo.dct_method = JDCT_ISLOW;
  jpeg_start_decompress(&cinfo);
  if (x < 0 || y < 0 || w <= 0 || h <= 0 || x + w > (int)cinfo.output_width ||
      y + h > (int)cinfo.output_height) {
    snprintf(err, errlen, "region (%d, %d, %d, %d) is outside the %ux%u image", x, y, w, h,
             cinfo.output_width, cinfo.output_height);
    jpeg_destroy_decompress(&cinfo);
    return -1;
  }
  /* One more pixel on each side, so chroma upsampling at the region's edges sees the same
   * neighbours as in a full decode (crop_scanline then widens to whole iMCU columns). */
  int x0 = x > 0 ? x - 1 : 0;
  int x1 = x + w < (int)cinfo.output_width ? x + w + 1 : x + w;
  JDIMENSION xoff = (JDIMENSION)x0, cw = (JDIMENSION)(x1 - x0);
  if (x1 - x0 < (int)cinfo.output_width) jpeg_crop_scanline(&cinfo, &xoff, &cw);
  if (y > 0) jpeg_skip_scanlines(&cinfo, (JDIMENSION)y);
  int skip_cols = x - (int)xoff;
  for (int r = 0; r < h; r++) {
    JSAMPROW rows[1] = {row};
    jpeg_read_scanlines(&cinfo, rows, 1);
    memcpy(out + (long)r * out_stride, row + (long)skip_cols * channels, (size_t)w * channels);
  }
  jpeg_abort_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return 0;
}
