/* JPEG round trips for fn.jpeg_compression_distortion: an RGB image encoded with libjpeg-turbo
 * as OpenCV's imencode does it (jpeg_set_defaults: 4:2:0 chroma subsampling, accurate integer
 * DCT; jpeg_set_quality(quality, baseline tables)), then decoded by dali_jpeg_decode_roi
 * (accurate integer IDCT, fancy upsampling, as OpenCV's imdecode), which is what DALI's CPU
 * operator computes.  Errors longjmp back here as in jpeg_codec.h; no GIL needed.
 * Include after jpeg_codec.h.
 */
#pragma once
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <jpeglib.h>

/* Encode the h x w RGB image `src` (rows `stride` bytes apart) at `quality` (1..100) and
 * decode it into `dst` (h rows of w * 3 bytes).  0 on success, else -1 with `err` filled. */
static int dali_jpeg_round_trip(const uint8_t* src, int h, int w, long stride, int quality,
                                uint8_t* dst, char* err, size_t errlen) {
  struct jpeg_compress_struct cinfo;
  dali_jpeg_error jerr;
  unsigned char* volatile buf = NULL;
  unsigned long size = 0;
  cinfo.err = jpeg_std_error(&jerr.pub);
  jerr.pub.error_exit = dali_jpeg_error_exit;
  jerr.pub.emit_message = dali_jpeg_emit;
  jerr.premature_end = 0;
  if (setjmp(jerr.escape)) {
    snprintf(err, errlen, "%s", jerr.message);
    jpeg_destroy_compress(&cinfo);
    free(buf);
    return -1;
  }
  jpeg_create_compress(&cinfo);
  jpeg_mem_dest(&cinfo, (unsigned char**)&buf, &size);
  cinfo.image_width = (JDIMENSION)w;
  cinfo.image_height = (JDIMENSION)h;
  cinfo.input_components = 3;
  cinfo.in_color_space = JCS_EXT_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row[1] = {(JSAMPROW)(src + (long)cinfo.next_scanline * stride)};
    jpeg_write_scanlines(&cinfo, row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  int rc = dali_jpeg_decode_roi(buf, size, 1, 0, 0, w, h, DALI_JPEG_RGB, 0, 0, dst, (long)w * 3,
                                err, errlen);
  free(buf);
  return rc;
}
