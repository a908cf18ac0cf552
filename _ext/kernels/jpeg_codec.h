/* Region-of-interest JPEG decoding with libjpeg-turbo, for the decoders.
 *
 * Decodes only the rows of the region (jpeg_skip_scanlines) and only the iMCU columns that
 * cover it (jpeg_crop_scanline), optionally at 1/2, 1/4 or 1/8 scale in the DCT domain, with
 * the accurate integer IDCT (JDCT_ISLOW) and fancy upsampling, as DALI's CPU decoder does.  Rows
 * are decoded straight into the output rows, without a copy (but for CMYK, and for the first
 * and last rows of a region narrower than the image).
 *
 * libjpeg reports fatal errors through error_exit, which must not return: it longjmps back
 * here and the error text is returned to the caller.  Warnings are silent, except running out
 * of data ("Premature end of JPEG data"), which is an error as in DALI: libjpeg would pad the
 * image with gray.  CMYK (and YCCK) JPEGs decode to CMYK and convert as DALI does:
 * R = round(C * K / 255) on libjpeg's (Adobe, inverted) values, gray = trunc(0.299 R + 0.587 G +
 * 0.114 B) in float.  Everything runs without the GIL.
 */
#pragma once
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "jpeg_skip.h"

enum { DALI_JPEG_RGB = 0, DALI_JPEG_BGR = 1, DALI_JPEG_GRAY = 2 };
enum { DALI_CODES_EVERY = 0, DALI_CODES_SKIP = 1, DALI_CODES_APPROXIMATE = 2 };
/* Bytes a cropped row may have on either side of the region: 4 * 8 pixels of an iMCU column
 * (the largest sampling factor) and one more, 3 bytes each. */
enum { DALI_JPEG_MAX_SIDE = 3 * (4 * 8 + 1) };

typedef struct {
  struct jpeg_error_mgr pub;
  jmp_buf escape;
  int premature_end;
  char message[JMSG_LENGTH_MAX];
} dali_jpeg_error;

static void dali_jpeg_error_exit(j_common_ptr cinfo) {
  dali_jpeg_error* err = (dali_jpeg_error*)cinfo->err;
  (*cinfo->err->format_message)(cinfo, err->message);
  longjmp(err->escape, 1);
}

static void dali_jpeg_emit(j_common_ptr cinfo, int level) {
  dali_jpeg_error* err = (dali_jpeg_error*)cinfo->err;
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) err->premature_end = 1;
}

static void dali_jpeg_setup(struct jpeg_decompress_struct* cinfo, dali_jpeg_error* jerr) {
  cinfo->err = jpeg_std_error(&jerr->pub);
  cinfo->client_data = NULL;     /* jpeg_create_decompress keeps it (jpeg_skip.h sets it) */
  jerr->pub.error_exit = dali_jpeg_error_exit;
  jerr->pub.emit_message = dali_jpeg_emit;
  jerr->premature_end = 0;
}

static unsigned dali_exif_u16(const uint8_t* p, int big) {
  return big ? (unsigned)(p[0] << 8 | p[1]) : (unsigned)(p[1] << 8 | p[0]);
}

static uint32_t dali_exif_u32(const uint8_t* p, int big) {
  return big ? ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3])
             : ((uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]);
}

/* The Orientation tag (0x0112) of IFD0 in a TIFF-structured block (an APP1 "Exif" payload
 * after its 6-byte prefix); 1 (upright) when absent or malformed. */
static int dali_exif_orientation(const uint8_t* tiff, size_t size) {
  if (size < 8) return 1;
  int big;
  if (tiff[0] == 'M' && tiff[1] == 'M') big = 1;
  else if (tiff[0] == 'I' && tiff[1] == 'I') big = 0;
  else return 1;
  uint32_t ifd = dali_exif_u32(tiff + 4, big);
  if (ifd > size - 2) return 1;
  unsigned count = dali_exif_u16(tiff + ifd, big);
  for (unsigned i = 0; i < count; i++) {
    size_t entry = (size_t)ifd + 2 + 12 * (size_t)i;
    if (entry + 12 > size) break;
    if (dali_exif_u16(tiff + entry, big) == 0x0112) {
      unsigned v = dali_exif_u16(tiff + entry + 8, big);
      return v >= 1 && v <= 8 ? (int)v : 1;
    }
  }
  return 1;
}

/* Image size, number of components and EXIF orientation (1..8) of a JPEG; 0 on success,
 * else -1 with `err` filled. */
static int dali_jpeg_info(const uint8_t* data, size_t size, int* width, int* height,
                          int* components, int* orientation, char* err, size_t errlen) {
  struct jpeg_decompress_struct cinfo;
  dali_jpeg_error jerr;
  dali_jpeg_setup(&cinfo, &jerr);
  if (setjmp(jerr.escape)) {
    snprintf(err, errlen, "%s", jerr.message);
    jpeg_destroy_decompress(&cinfo);
    return -1;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, (const unsigned char*)data, (unsigned long)size);
  jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
  jpeg_read_header(&cinfo, TRUE);
  *width = (int)cinfo.image_width;
  *height = (int)cinfo.image_height;
  *components = cinfo.num_components;
  *orientation = 1;
  for (jpeg_saved_marker_ptr m = cinfo.marker_list; m != NULL; m = m->next) {
    if (m->data_length >= 6 && memcmp(m->data, "Exif\0\0", 6) == 0) {
      *orientation = dali_exif_orientation(m->data + 6, m->data_length - 6);
      break;
    }
  }
  jpeg_destroy_decompress(&cinfo);
  return 0;
}

/* Big-endian 16-bit value at p. */
static unsigned dali_be16(const uint8_t* p) { return (unsigned)(p[0] << 8 | p[1]); }

/* The header fields of dali_jpeg_info read by walking the markers up to SOS, without libjpeg
 * (which costs ~2 us a header in allocations; this, tens of nanoseconds).  Only headers that
 * are plainly valid are accepted: SOI, then well-formed APPn, COM, DQT, DHT and DRI segments,
 * one baseline, extended or progressive 8-bit SOF with 1..4 components and sampling factors
 * 1..4, and an SOS naming SOF components, each segment checked the way libjpeg's marker
 * reader and initial_setup check it.  Returns 0 with the fields filled, else -1: anything
 * else (an unusual marker, stray bytes, arithmetic or lossless coding, 12 bits, a truncated or
 * broken header) is left to dali_jpeg_info, so the results and error messages are libjpeg's. */
static int dali_jpeg_info_fast(const uint8_t* data, size_t size, int* width, int* height,
                               int* components, int* orientation) {
  if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) return -1;
  size_t pos = 2;
  int sof = 0, nc = 0, w = 0, h = 0, o = 0;
  uint8_t ids[4] = {0, 0, 0, 0};
  for (;;) {
    if (pos >= size || data[pos] != 0xFF) return -1;
    while (pos < size && data[pos] == 0xFF) pos++;
    if (pos + 2 >= size) return -1;
    unsigned marker = data[pos];
    size_t len = dali_be16(data + pos + 1);
    const uint8_t* seg = data + pos + 3;      /* the segment after its length */
    if (len < 2 || pos + 1 + len > size) return -1;
    size_t n = len - 2;
    pos += 1 + len;
    if (marker == 0xC0 || marker == 0xC1 || marker == 0xC2) {
      if (sof || n < 6 || seg[0] != 8) return -1;
      h = (int)dali_be16(seg + 1);
      w = (int)dali_be16(seg + 3);
      nc = seg[5];
      if (h < 1 || w < 1 || h > 65500 || w > 65500 || nc < 1 || nc > 4 ||
          n != 6 + 3 * (size_t)nc)
        return -1;
      for (int c = 0; c < nc; c++) {
        const uint8_t* comp = seg + 6 + 3 * c;
        int hs = comp[1] >> 4, vs = comp[1] & 15;
        if (hs < 1 || hs > 4 || vs < 1 || vs > 4 || comp[2] > 3) return -1;
        for (int k = 0; k < c; k++)
          if (ids[k] == comp[0]) return -1;
        ids[c] = comp[0];
      }
      sof = 1;
    } else if (marker == 0xDA) {
      if (!sof || n < 1) return -1;
      int ns = seg[0];
      if (ns < 1 || ns > 4 || n != 4 + 2 * (size_t)ns) return -1;
      for (int c = 0; c < ns; c++) {
        int found = 0;
        for (int k = 0; k < nc; k++) found |= ids[k] == seg[1 + 2 * c];
        for (int k = 0; k < c; k++) found &= seg[1 + 2 * k] != seg[1 + 2 * c];
        if (!found) return -1;
      }
      break;
    } else if (marker == 0xDB) {
      size_t at = 0;
      while (at < n) {
        int prec = seg[at] >> 4, tq = seg[at] & 15;
        size_t table = prec ? 128 : 64;
        if (prec > 1 || tq > 3 || at + 1 + table > n) return -1;
        at += 1 + table;
      }
    } else if (marker == 0xC4) {
      size_t at = 0;
      while (at < n) {
        unsigned index = seg[at];
        if ((index & 0xEC) != 0 || at + 17 > n) return -1;
        size_t count = 0;
        for (int k = 1; k <= 16; k++) count += seg[at + k];
        if (count > 256 || at + 17 + count > n) return -1;
        at += 17 + count;
      }
    } else if (marker == 0xDD) {
      if (n != 2) return -1;
    } else if (marker == 0xE1) {
      if (o == 0 && n >= 6 && memcmp(seg, "Exif\0\0", 6) == 0)
        o = dali_exif_orientation(seg + 6, n - 6);
    } else if (!(marker >= 0xE0 && marker <= 0xEF) && marker != 0xFE) {
      return -1;
    }
  }
  *width = w;
  *height = h;
  *components = nc;
  *orientation = o ? o : 1;
  return 0;
}

/* One row of `w` CMYK pixels to RGB, BGR or GRAY. */
static void dali_cmyk_row(const uint8_t* src, uint8_t* dst, int w, int color) {
  for (int i = 0; i < w; i++) {
    const uint8_t* p = src + 4 * i;
    int k = p[3];
    int r = (p[0] * k + 127) / 255, g = (p[1] * k + 127) / 255, b = (p[2] * k + 127) / 255;
    if (color == DALI_JPEG_GRAY) {
      dst[i] = (uint8_t)(0.299f * (float)r + 0.587f * (float)g + 0.114f * (float)b);
    } else if (color == DALI_JPEG_BGR) {
      dst[3 * i] = (uint8_t)b;
      dst[3 * i + 1] = (uint8_t)g;
      dst[3 * i + 2] = (uint8_t)r;
    } else {
      dst[3 * i] = (uint8_t)r;
      dst[3 * i + 1] = (uint8_t)g;
      dst[3 * i + 2] = (uint8_t)b;
    }
  }
}

/* Decode the region (x, y, w, h) of the image scaled by 1/`scale` (1, 2, 4 or 8; region in
 * scaled coordinates) into `out` (h rows of `out_stride` bytes; 3 bytes a pixel for RGB/BGR,
 * 1 for GRAY).  `codes`: DALI_CODES_EVERY has libjpeg decode every Huffman code;
 * DALI_CODES_SKIP has dali's entropy decoder take them, faster, skipping the AC codes that
 * nothing reads (jpeg_skip.h; the same pixels);
 * DALI_CODES_APPROXIMATE also drops the high frequencies of the blocks a reduced IDCT takes
 * (dali_skip_last; decode scaling: other pixels, close to the exact ones).  0 on success, else
 * -1 with `err` filled. */
static int dali_jpeg_decode_roi_codes(const uint8_t* data, size_t size, int scale, int x,
                                      int y, int w, int h, int color, int fast_idct, int codes,
                                      uint8_t* out, long out_stride, char* err,
                                      size_t errlen) {
  struct jpeg_decompress_struct cinfo;
  dali_jpeg_error jerr;
  uint8_t* volatile row = NULL;
  dali_skip_decoder* volatile skip = NULL;
  int channels = color == DALI_JPEG_GRAY ? 1 : 3;
  dali_jpeg_setup(&cinfo, &jerr);
  if (setjmp(jerr.escape)) {
    snprintf(err, errlen, "%s", jerr.message);
    jpeg_destroy_decompress(&cinfo);
    free(row);
    dali_skip_free(skip);
    return -1;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, (const unsigned char*)data, (unsigned long)size);
  jpeg_read_header(&cinfo, TRUE);
  int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
  cinfo.out_color_space = cmyk ? JCS_CMYK
                          : color == DALI_JPEG_GRAY ? JCS_GRAYSCALE
                          : color == DALI_JPEG_BGR ? JCS_EXT_BGR : JCS_EXT_RGB;
  cinfo.scale_num = 1;
  cinfo.scale_denom = (unsigned int)scale;
  cinfo.dct_method = fast_idct ? JDCT_IFAST : JDCT_ISLOW;
  cinfo.do_fancy_upsampling = TRUE;
  jpeg_start_decompress(&cinfo);
  int out_w = (int)cinfo.output_width, out_h = (int)cinfo.output_height;
  if (x < 0 || y < 0 || w <= 0 || h <= 0 || x + w > out_w || y + h > out_h) {
    snprintf(err, errlen, "region (%d, %d, %d, %d) is outside the %dx%d image", x, y, w, h,
             out_w, out_h);
    jpeg_destroy_decompress(&cinfo);
    return -1;
  }
  /* One more pixel on each side, so chroma upsampling at the region's edges sees the same
   * neighbours as in a full decode (crop_scanline then widens to whole iMCU columns). */
  int x0 = x > 0 ? x - 1 : 0;
  int x1 = x + w < out_w ? x + w + 1 : x + w;
  JDIMENSION xoff = 0, cw = (JDIMENSION)out_w;
  if (x1 - x0 < out_w) {
    xoff = (JDIMENSION)x0;
    cw = (JDIMENSION)(x1 - x0);
    jpeg_crop_scanline(&cinfo, &xoff, &cw);
  }
  if (codes != DALI_CODES_EVERY)
    skip = dali_skip_install(&cinfo, data, size, y, h, codes == DALI_CODES_APPROXIMATE);
  if (y > 0) jpeg_skip_scanlines(&cinfo, (JDIMENSION)y);
  if (xoff == 0 && (int)cw == w && !cmyk) {
    /* The whole (cropped) width: decode straight into the output rows. */
    JSAMPROW rows[16];
    int r = 0;
    while (r < h) {
      int n = h - r < 16 ? h - r : 16;
      for (int k = 0; k < n; k++) rows[k] = out + (long)(r + k) * out_stride;
      JDIMENSION got = jpeg_read_scanlines(&cinfo, rows, (JDIMENSION)n);
      if (got == 0) break;
      r += (int)got;
    }
  } else {
    int row_channels = cmyk ? 4 : channels;
    row = (uint8_t*)malloc((size_t)cw * row_channels + 64);
    if (row == NULL) {
      snprintf(err, errlen, "out of memory");
      jpeg_destroy_decompress(&cinfo);
      dali_skip_free(skip);
      return -1;
    }
    int skip_cols = x - (int)xoff;
    /* libjpeg writes a row's cw pixels from column xoff: `before` bytes ahead of the region's
     * row and `after` bytes past it (at most an iMCU column and a pixel).  Rows other than the
     * first and the last, whose sides may lie outside `out`, are decoded in place, and the
     * bytes on either side (the previous row's end, the next row's start, or what lies between
     * rows) are put back afterwards: no copy of the row. */
    size_t row_bytes = (size_t)w * channels;
    size_t before = (size_t)skip_cols * channels, after = ((size_t)cw - skip_cols - w) * channels;
    uint8_t saved_before[DALI_JPEG_MAX_SIDE], saved_after[DALI_JPEG_MAX_SIDE];
    int in_place = !cmyk && before <= DALI_JPEG_MAX_SIDE && after <= DALI_JPEG_MAX_SIDE &&
                   before <= row_bytes && after <= row_bytes;
    for (int r = 0; r < h; r++) {
      uint8_t* dst = out + (long)r * out_stride;
      if (in_place && r > 0 && r < h - 1) {
        memcpy(saved_before, dst - before, before);
        memcpy(saved_after, dst + row_bytes, after);
        JSAMPROW rows[1] = {dst - before};
        jpeg_read_scanlines(&cinfo, rows, 1);
        memcpy(dst - before, saved_before, before);
        memcpy(dst + row_bytes, saved_after, after);
        continue;
      }
      JSAMPROW rows[1] = {row};
      jpeg_read_scanlines(&cinfo, rows, 1);
      if (cmyk)
        dali_cmyk_row(row + (long)skip_cols * 4, dst, w, color);
      else
        memcpy(dst, row + (long)skip_cols * channels, row_bytes);
    }
  }
  int premature = jerr.premature_end;
  jpeg_abort_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  free(row);
  dali_skip_free(skip);
  if (premature) {
    snprintf(err, errlen, "Premature end of JPEG data");
    return -1;
  }
  return 0;
}

/* dali_jpeg_decode_roi_codes with the codes nothing reads skipped (and, with `approximate`, the
 * high frequencies of reduced blocks dropped). */
static int dali_jpeg_decode_roi(const uint8_t* data, size_t size, int scale, int x, int y,
                                int w, int h, int color, int fast_idct, int approximate,
                                uint8_t* out, long out_stride, char* err, size_t errlen) {
  return dali_jpeg_decode_roi_codes(data, size, scale, x, y, w, h, color, fast_idct,
                                    approximate ? DALI_CODES_APPROXIMATE : DALI_CODES_SKIP, out,
                                    out_stride, err, errlen);
}
