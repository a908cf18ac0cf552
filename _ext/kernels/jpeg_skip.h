/* dali's entropy decoding for libjpeg-turbo's baseline Huffman scans (jpeg_codec.h).
 *
 * Where a block's AC coefficients are not needed (the rows that jpeg_skip_scanlines discards,
 * the iMCU columns outside jpeg_crop_scanline's window, the luma of a 1/8-scale decode), its
 * AC codes are skipped with a multi-symbol table: one lookup of the next DALI_SKIP_BITS bits
 * gives how many coefficients the complete symbols (code and value bits) inside them advance,
 * how many bits they take and whether an end-of-block ends them, so that one lookup passes 2-4
 * coefficients instead of one.  The DC code of every block is still decoded (the predictors).
 * Where a block's coefficients are needed, one lookup gives the next one or two coefficients
 * whose codes and value bits fit it (most of them), without libjpeg's separate reads of the
 * value bits: whole decodes take 10% less time than libjpeg's own decode_mcu on photos (the
 * same coefficients).  Decode scaling (`approximate`) also drops the high frequencies of
 * every block that a reduced IDCT takes: their codes are skipped too, after those of the low
 * frequencies it keeps.
 *
 * It is plugged in by replacing cinfo->entropy->decode_mcu, and decodes every MCU (a block that
 * needs some of its coefficients, as the chroma of a 4:2:0 image at 1/8 scale, up to the last
 * one it needs, with libjpeg's semantics).  The bit reader and DC predictors come from libjpeg
 * at the first MCU, and go back to it on a hand-back, through the start of libjpeg's private
 * huff_entropy_decoder (jdhuff.c: the public struct, the bit buffer, the predictors and the
 * restart count), a layout that has not changed from IJG 6b to libjpeg-turbo 3.1; the state
 * is checked when the decoder is installed.  Anything unusual in an MCU (a marker or the end
 * of the data where bits are still needed, a code that is not in the table, a restart marker
 * that is not the expected one) rewinds to the start of that MCU and hands the rest of the
 * scan to libjpeg, which then reports and fills it as it always does.  Installed only for
 * 8-bit baseline single-scan JPEGs whose data ends with EOI, so that libjpeg never runs out of
 * data while this decoder holds the bits, and only where jpegint.h is installed (Debian's and
 * most distributions' packages; not libjpeg-turbo's own install).
 *
 * The tables built from a JHUFF_TBL are kept in a small cache per thread, keyed by the table's
 * contents (compared byte for byte): the images of a data set mostly share their tables (the
 * standard ones, or their encoder's), and an image whose tables are all cached is worth the
 * decoder from far fewer skipped blocks.
 */
#pragma once
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#if !defined(__has_include) || __has_include(<jpegint.h>)
#include <jpegint.h>

#define DALI_SKIP_DECODER 1

#if JPEG_LIB_VERSION >= 70
#define DALI_DCT_SCALED_SIZE(c) ((c)->DCT_h_scaled_size)
#define DALI_MIN_DCT_SCALED_SIZE(cinfo) ((cinfo)->min_DCT_v_scaled_size)
#else
#define DALI_DCT_SCALED_SIZE(c) ((c)->DCT_scaled_size)
#define DALI_MIN_DCT_SCALED_SIZE(cinfo) ((cinfo)->min_DCT_scaled_size)
#endif

/* Bits a table lookup reads (12 and 13 ran at the same speed on the large-photo corpus; 12
 * builds in half the time). */
enum { DALI_SKIP_BITS = 12 };
/* Blocks an image must have to decode before the decoder is installed: its tables take ~80 us
 * to build (2 DC and 2 AC tables), a block saves 12-35 ns (skipped) or ~15 ns (decoded); with
 * every table cached (dali_skip_cache), the decoder's own cost (a few us on a 224x224 image)
 * is made up from about 200 blocks. */
enum { DALI_SKIP_MIN_BLOCKS = 8192, DALI_SKIP_MIN_BLOCKS_CACHED = 256 };
/* Tables a thread keeps (~33 KB each): the 2 DC and 2 AC tables of two encoders; and the
 * table sets of small images it remembers having left to libjpeg. */
enum { DALI_SKIP_CACHE_SIZE = 8, DALI_SKIP_SEEN = 8 };
/* The last zigzag index that decode scaling keeps of a block IDCT'd at 2x2 (its top-left 2x2),
 * 4x4 (the first four diagonals) and 8x8 (a 4:2:0 chroma at 1/2 scale: the first five).  On
 * the large-photo corpus the pipelines' PSNR against the exact path stays that of libjpeg's
 * reduced IDCT of every coefficient (min 38.4 dB); 5 for a 4x4 took it to 37.6 dB, and 2 for
 * a 2x2 besides to 33.8 dB (docs/large_images.md). */
enum { DALI_SKIP_LAST_2 = 4, DALI_SKIP_LAST_4 = 9, DALI_SKIP_LAST_8 = 14 };

typedef struct {
  /* Skip entry: bits 0-5 the bits taken (6 bits: the shift takes them unmasked), 6 an
   * end-of-block last, 7-13 the coefficients advanced (with an end-of-block, those before it
   * and one more: the entry is taken where k plus them is at most 64); 0 when the first symbol
   * does not fit.  Two bytes, so that a scan's two tables stay in the L1 cache. */
  uint16_t skip[1 << DALI_SKIP_BITS];
  uint16_t single[1 << DALI_SKIP_BITS];    /* code length << 8 | symbol; 0: longer code */
  /* AC tables: the next one or two symbols whose codes and value bits fit the lookup and whose
   * values fit a byte, in one lookup: bits 0-3 the bits the first takes, 4-7 those both take
   * (the first's when there is no second), 8-11 / 12-15 the runs of zeros before them, 16-23 /
   * 24-31 their values (0: an end-of-block); 0: the first is not here (a longer code, a larger
   * value, ZRL). */
  uint32_t pair[1 << DALI_SKIP_BITS];
  int32_t maxcode[18];
  int32_t valoffset[18];
  uint8_t huffval[256];
} dali_huff_table;

/* The first fields of libjpeg's huff_entropy_decoder (jdhuff.c), with its bitread_perm_state
 * as a struct of its own (its padding is part of the layout). */
typedef struct {
  size_t get_buffer;
  int bits_left;
} dali_libjpeg_bits;

typedef struct {
  struct jpeg_entropy_decoder pub;
  dali_libjpeg_bits bits;
  int last_dc_val[MAX_COMPS_IN_SCAN];
  unsigned int restarts_to_go;
} dali_libjpeg_huff;

typedef struct {
  const uint8_t* p;      /* next byte to read (at a marker's first 0xFF once one is reached) */
  const uint8_t* start;  /* where libjpeg's source was when the reader took over */
  const uint8_t* end;
  int bytes;             /* data bytes read from start (an 0xFF data byte is two there) */
  uint64_t buf;          /* bits, most significant first */
  int cnt;               /* bits in buf */
  int fill;              /* zero bits appended after a marker (or the end of the data) */
  int marker;            /* the marker's code once reached (-1 before; 0 at the end of data) */
} dali_bit_reader;

/* The last zigzag index a block in the window needs (0: its DC alone; 63: every coefficient);
 * DALI_BLOCK_SKIP: none (a component the output does not use). */
enum { DALI_BLOCK_SKIP = -1, DALI_BLOCK_FULL = DCTSIZE2 - 1 };

typedef struct {
  boolean (*libjpeg_decode_mcu)(j_decompress_ptr, JBLOCKROW*);
  const dali_huff_table* dc[D_MAX_BLOCKS_IN_MCU];
  const dali_huff_table* ac[D_MAX_BLOCKS_IN_MCU];
  int comp[D_MAX_BLOCKS_IN_MCU];                 /* component of each block, in the scan */
  int8_t last[D_MAX_BLOCKS_IN_MCU];              /* in the window: DALI_BLOCK_* or 0..63 */
  JDIMENSION mcu_col;
  int ours;              /* the bit reader and predictors are here, not in libjpeg */
  int handed_back;       /* libjpeg decodes the rest of the scan */
  dali_bit_reader br;
  int pred[MAX_COMPS_IN_SCAN];
  unsigned int restarts_to_go;
} dali_skip_decoder;

static const int dali_natural_order[80] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33,
    40, 48, 41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36,
    29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54,
    47, 55, 62, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63};

/* The tables of a (validated: jpeg_start_decompress built libjpeg's from it) JHUFF_TBL. */
static void dali_huff_build(dali_huff_table* t, const JHUFF_TBL* h, int ac) {
  int size[257], code[257], n = 0;
  for (int l = 1; l <= 16; l++)
    for (int i = 0; i < h->bits[l] && n < 256; i++) size[n++] = l;
  int c = 0, si = n ? size[0] : 0;
  for (int p = 0; p < n;) {
    while (p < n && size[p] == si) code[p++] = c++;
    c <<= 1;
    si++;
  }
  for (int l = 1, p = 0; l <= 16; l++) {
    t->maxcode[l] = -1;
    t->valoffset[l] = 0;
    int count = 0;
    while (p + count < n && size[p + count] == l) count++;
    if (count) {
      t->valoffset[l] = p - code[p];
      t->maxcode[l] = code[p + count - 1];
      p += count;
    }
  }
  t->maxcode[17] = 0x7FFFFFFF;
  memcpy(t->huffval, h->huffval, 256);
  memset(t->single, 0, sizeof t->single);
  for (int i = 0; i < n; i++) {
    if (size[i] > DALI_SKIP_BITS) continue;
    int lo = code[i] << (DALI_SKIP_BITS - size[i]), hi = (code[i] + 1) << (DALI_SKIP_BITS - size[i]);
    for (int j = lo; j < hi; j++) t->single[j] = (uint16_t)(size[i] << 8 | h->huffval[i]);
  }
  if (!ac) return;
  const int mask = (1 << DALI_SKIP_BITS) - 1;
  for (int pat = 0; pat <= mask; pat++) {
    uint32_t e = 0;
    int pos = 0;
    for (int i = 0; i < 2; i++) {
      int one = t->single[(pat << pos) & mask], l = one >> 8, r = (one >> 4) & 15, sz = one & 15;
      if (l == 0 || pos + l + sz > DALI_SKIP_BITS || sz > 7 || (sz == 0 && r != 0)) break;
      int x = sz ? (pat >> (DALI_SKIP_BITS - pos - l - sz)) & ((1 << sz) - 1) : 0;
      int v = sz == 0 ? 0 : x < (1 << (sz - 1)) ? x - (1 << sz) + 1 : x;
      pos += l + sz;
      e |= (uint32_t)r << (8 + 4 * i) | (uint32_t)(uint8_t)(int8_t)v << (16 + 8 * i);
      if (i == 0) e |= (uint32_t)pos;
      if (sz == 0) break;                            /* nothing follows an end-of-block */
    }
    t->pair[pat] = e ? e | (uint32_t)pos << 4 : 0;
  }
  for (int pat = 0; pat <= mask; pat++) {
    int pos = 0, k = 0, eob = 0;
    while (k < 64) {
      int e = t->single[(pat << pos) & mask], l = e >> 8, r = (e >> 4) & 15, s = e & 15;
      if (l == 0 || pos + l + s > DALI_SKIP_BITS) break;
      pos += l + s;
      if (!s && r != 15) {
        eob = 1;
        break;
      }
      k += s ? r + 1 : 16;
    }
    t->skip[pat] = pos ? (uint16_t)(pos | eob << 6 | (k + eob) << 7) : 0;
  }
}

/* A thread's built tables.  The decoder of a decompression points into its thread's cache
 * until dali_skip_free (one decompression at a time on a thread), so an install never evicts
 * the tables it has taken itself (`use`: the install that last took an entry). */
typedef struct {
  int ac;                     /* with the skip table (an AC table) */
  unsigned long long use;     /* 0: empty */
  uint8_t bits[17];           /* the key: JHUFF_TBL's bits and huffval */
  dali_huff_table table;      /* huffval: the rest of the key */
} dali_skip_cache_entry;

typedef struct {
  unsigned long long installs;
  long builds;
  dali_skip_cache_entry entries[DALI_SKIP_CACHE_SIZE];
  uint64_t seen[DALI_SKIP_SEEN];  /* dali_skip_hash of small images' tables, not built */
  int seen_next;
} dali_skip_cache;

static __thread dali_skip_cache dali_skip_tables;

/* The cached table of `h` (-1 when none). */
static int dali_skip_cache_find(const dali_skip_cache* c, const JHUFF_TBL* h, int ac) {
  for (int i = 0; i < DALI_SKIP_CACHE_SIZE; i++) {
    const dali_skip_cache_entry* e = &c->entries[i];
    if (e->use && e->ac == ac && memcmp(e->bits, h->bits, sizeof e->bits) == 0 &&
        memcmp(e->table.huffval, h->huffval, sizeof e->table.huffval) == 0)
      return i;
  }
  return -1;
}

static uint64_t dali_skip_hash_bytes(uint64_t x, const uint8_t* p, size_t n) {
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    x = (x ^ w) * 0x9E3779B97F4A7C15ULL;
    x ^= x >> 29;
  }
  for (; n; n--, p++) x = (x ^ *p) * 0x9E3779B97F4A7C15ULL;
  return x;
}

/* A hash of the Huffman tables of a scan (validated by dali_skip_install). */
static uint64_t dali_skip_hash(j_decompress_ptr cinfo) {
  uint64_t x = 0;
  for (int c = 0; c < cinfo->comps_in_scan; c++) {
    const JHUFF_TBL* t[2] = {cinfo->dc_huff_tbl_ptrs[cinfo->cur_comp_info[c]->dc_tbl_no],
                             cinfo->ac_huff_tbl_ptrs[cinfo->cur_comp_info[c]->ac_tbl_no]};
    for (int i = 0; i < 2; i++) {
      x = dali_skip_hash_bytes(x, t[i]->bits, sizeof t[i]->bits);
      x = dali_skip_hash_bytes(x, t[i]->huffval, sizeof t[i]->huffval);
    }
  }
  return x;
}

/* Whether the tables of a small image are worth building: only once an earlier image on this
 * thread has wanted the same ones (a data set that shares its tables pays for them once; one
 * whose images each have their own tables never does). */
static int dali_skip_seen(dali_skip_cache* c, j_decompress_ptr cinfo) {
  uint64_t key = dali_skip_hash(cinfo);
  for (int i = 0; i < DALI_SKIP_SEEN; i++)
    if (c->seen[i] == key) return 1;
  c->seen[c->seen_next] = key;
  c->seen_next = (c->seen_next + 1) % DALI_SKIP_SEEN;
  return 0;
}

/* The table of `h`, built into the least recently used entry that this install (c->installs)
 * has not taken when it is not cached. */
static const dali_huff_table* dali_skip_cache_take(dali_skip_cache* c, const JHUFF_TBL* h,
                                                   int ac) {
  int i = dali_skip_cache_find(c, h, ac);
  if (i < 0) {
    i = 0;
    for (int j = 1; j < DALI_SKIP_CACHE_SIZE; j++)
      if (c->entries[i].use == c->installs ||
          (c->entries[j].use != c->installs && c->entries[j].use < c->entries[i].use))
        i = j;
    dali_skip_cache_entry* e = &c->entries[i];
    dali_huff_build(&e->table, h, ac);
    memcpy(e->bits, h->bits, sizeof e->bits);
    e->ac = ac;
    c->builds++;
  }
  c->entries[i].use = c->installs;
  return &c->entries[i].table;
}

/* The byte-wise refill, at 0xFF bytes, markers and the end of the data (by value: the hot loops
 * keep their reader in registers). */
static dali_bit_reader dali_br_refill_bytes(dali_bit_reader b) {
  while (b.cnt <= 56) {
    unsigned c = 0;
    if (b.marker < 0) {
      if (b.p >= b.end) {
        b.marker = 0;
      } else if (*b.p != 0xFF) {
        c = *b.p++;
        b.bytes++;
      } else if (b.p + 1 < b.end && b.p[1] == 0) {
        c = 0xFF;
        b.p += 2;
        b.bytes++;
      } else {
        b.marker = b.p + 1 < b.end ? b.p[1] : 0;
      }
    }
    if (b.marker >= 0) b.fill += 8;
    b.buf |= (uint64_t)c << (56 - b.cnt);
    b.cnt += 8;
  }
  return b;
}

/* The hot functions take a reader that is a local of their caller (dali_skip_mcu), so that it
 * stays in registers (behind a pointer into the decoder, the build's -fno-strict-aliasing has
 * it stored back after every step). */
#define DALI_INLINE static inline __attribute__((always_inline))

DALI_INLINE void dali_br_refill(dali_bit_reader* b) {
  while (b->marker < 0 && b->end - b->p >= 8) {
    uint64_t v;
    memcpy(&v, b->p, 8);
    /* Whole bytes at once up to the first 0xFF byte (the lowest top bit of `ff`). */
    uint64_t x = ~v, ff = (x - 0x0101010101010101ULL) & ~x & 0x8080808080808080ULL;
    int full = (63 - b->cnt) >> 3, take = full;
    if (ff && (int)(__builtin_ctzll(ff) >> 3) < take) take = (int)(__builtin_ctzll(ff) >> 3);
    if (take) {
      v = __builtin_bswap64(v) >> (64 - 8 * take);
      b->buf |= v << (64 - 8 * take - b->cnt);
      b->cnt += 8 * take;
      b->p += take;
      b->bytes += take;
    }
    if (take == full) return;
    /* At an 0xFF byte (within the 8 read): a stuffed 0xFF 0x00 is a data byte, and the
     * bytes after it are taken the same way; anything else is a marker. */
    if (b->p[1] != 0) break;
    b->buf |= (uint64_t)0xFF << (56 - b->cnt);
    b->cnt += 8;
    b->p += 2;
    b->bytes++;
    if (b->cnt > 56) return;
  }
  *b = dali_br_refill_bytes(*b);
}

#define DALI_PEEK(b, n) ((uint32_t)((b)->buf >> (64 - (n))))
#define DALI_DROP(b, n) ((b)->buf <<= (n), (b)->cnt -= (n))

/* One symbol by the canonical code lengths (codes longer than the lookup); -1 for a code
 * that is not in the table.  Needs 16 bits in the reader. */
DALI_INLINE int dali_huff_slow(dali_bit_reader* b, const dali_huff_table* t) {
  int l = 1;
  int32_t code = (int32_t)DALI_PEEK(b, 1);
  while (code > t->maxcode[l]) {
    if (++l > 16) return -1;
    code = (int32_t)DALI_PEEK(b, l);
  }
  DALI_DROP(b, l);
  return t->huffval[(code + t->valoffset[l]) & 0xFF];
}

/* The next symbol and, in *v, the value of the bits that follow it (HUFF_EXTEND: its low 4 bits
 * are their count; 0 when none); -1 for a code that is not in the table.  The code and its
 * value bits are dropped in one shift, the value taken beside it. */
DALI_INLINE int dali_huff_decode(dali_bit_reader* b, const dali_huff_table* t, int* v) {
  if (b->cnt < 32) dali_br_refill(b);
  int e = t->single[DALI_PEEK(b, DALI_SKIP_BITS)], l = e >> 8, rs = e & 255;
  if (!l) {
    rs = dali_huff_slow(b, t);
    if (rs < 0) return -1;
  }
  int s = rs & 15;
  int x = (int)((b->buf << l) >> 1 >> (63 - s));
  *v = x < (1 << s >> 1) ? x - (1 << s) + 1 : x;
  DALI_DROP(b, l + s);
  return rs;
}

/* Skip a block's AC codes from zigzag index k on; -1 on a code not in the table. */
DALI_INLINE int dali_skip_ac(dali_bit_reader* b, const dali_huff_table* t, int k) {
  while (k < 64) {
    if (b->cnt < DALI_SKIP_BITS) dali_br_refill(b);
    uint32_t e = t->skip[DALI_PEEK(b, DALI_SKIP_BITS)];
    /* Every symbol of the entry is the block's (the last starts before index 64). */
    if (e && k + (int)(e >> 7) <= 64) {
      DALI_DROP(b, e & 63);
      if (e & 64) return 0;
      k += (int)(e >> 7);
      continue;
    }
    /* One symbol: a code in the lookup whose value bits are not, a longer code, or the end of
     * a block without an end-of-block. */
    if (b->cnt < 32) dali_br_refill(b);
    int one = t->single[DALI_PEEK(b, DALI_SKIP_BITS)], rs;
    if (one) {
      DALI_DROP(b, one >> 8);
      rs = one & 255;
    } else {
      rs = dali_huff_slow(b, t);
      if (rs < 0) return -1;
    }
    int r = rs >> 4, s = rs & 15;
    if (s) {
      DALI_DROP(b, s);
      k += r + 1;
    } else if (r == 15) {
      k += 16;
    } else {
      return 0;
    }
  }
  return 0;
}

/* Decode a block's AC coefficients up to zigzag index `last` (1..63) into `block` as libjpeg
 * does, and skip the rest; -1 on a code not in the table.  With `last` 63 (a constant where it
 * is inlined) every coefficient is written as libjpeg writes it, one that corrupt data puts past
 * index 63 too (through the padding of the natural order). */
DALI_INLINE int dali_decode_ac(dali_bit_reader* b, const dali_huff_table* t, JCOEF* block,
                               int last) {
  int k = 1;
  while (k <= last) {
    if (b->cnt < DALI_SKIP_BITS) dali_br_refill(b);
    uint32_t e = t->pair[DALI_PEEK(b, DALI_SKIP_BITS)];
    if (e) {
      int v = (int8_t)(e >> 16);
      if (!v) {                                      /* end of block */
        DALI_DROP(b, e & 15);
        return 0;
      }
      k += (e >> 8) & 15;
      if (k <= last || last == DALI_BLOCK_FULL) block[dali_natural_order[k]] = (JCOEF)v;
      /* The second symbol, where there is one and the first has not ended the block (or gone
       * past `last`); else the first is written again. */
      int two = ((e >> 4) & 15) != (e & 15) && k < 63 && k <= last;
      int v2 = (int8_t)(e >> 24);
      DALI_DROP(b, two ? (e >> 4) & 15 : e & 15);
      if (!two) {
        k++;
        continue;
      }
      k += 1 + (int)((e >> 12) & 15);
      if (k <= last || last == DALI_BLOCK_FULL) block[dali_natural_order[k]] = (JCOEF)v2;
      k++;
      if (!v2) return 0;                             /* an end-of-block second */
      continue;
    }
    int v, rs = dali_huff_decode(b, t, &v);
    if (rs < 0) return -1;
    if (rs & 15) {
      k += rs >> 4;
      if (k <= last || last == DALI_BLOCK_FULL) block[dali_natural_order[k]] = (JCOEF)v;
      k++;
    } else {
      if (rs != 0xF0) return 0;
      k += 16;
    }
  }
  return last == DALI_BLOCK_FULL ? 0 : dali_skip_ac(b, t, k);
}

/* libjpeg's bit buffer, predictors and restart count into the decoder; 0 when libjpeg has
 * reached a marker or run out of data (it keeps the scan). */
static int dali_skip_take(j_decompress_ptr cinfo, dali_skip_decoder* d) {
  dali_libjpeg_huff* h = (dali_libjpeg_huff*)cinfo->entropy;
  if (cinfo->unread_marker != 0 || h->pub.insufficient_data || h->bits.bits_left < 0 ||
      h->bits.bits_left > 64)
    return 0;
  dali_bit_reader* b = &d->br;
  b->p = b->start = cinfo->src->next_input_byte;
  b->end = b->p + cinfo->src->bytes_in_buffer;
  b->bytes = 0;
  b->cnt = h->bits.bits_left;
  b->buf = b->cnt ? (uint64_t)h->bits.get_buffer << (64 - b->cnt) : 0;
  b->fill = 0;
  b->marker = -1;
  for (int c = 0; c < cinfo->comps_in_scan; c++) d->pred[c] = h->last_dc_val[c];
  d->restarts_to_go = h->restarts_to_go;
  return 1;
}

/* The decoder's state back into libjpeg: the unread whole bytes that the reader read are given
 * back to the source (an 0xFF data byte is two bytes there: the reader never reads 0xFF 0xFF),
 * the rest stays in libjpeg's bit buffer (at most what it held when the reader took over). */
static void dali_skip_give(j_decompress_ptr cinfo, dali_skip_decoder* d) {
  dali_libjpeg_huff* h = (dali_libjpeg_huff*)cinfo->entropy;
  dali_bit_reader* b = &d->br;
  int real = b->cnt - b->fill, back = real >> 3;
  if (back > b->bytes) back = b->bytes;
  int keep = real - 8 * back;
  const uint8_t* p = b->p;
  for (int i = 0; i < back; i++) p -= p[-1] == 0 && p - 2 >= b->start && p[-2] == 0xFF ? 2 : 1;
  cinfo->src->next_input_byte = p;
  cinfo->src->bytes_in_buffer = (size_t)(b->end - p);
  h->bits.get_buffer = keep ? (size_t)(b->buf >> (64 - keep)) : 0;
  h->bits.bits_left = keep;
  for (int c = 0; c < cinfo->comps_in_scan; c++) h->last_dc_val[c] = d->pred[c];
  h->restarts_to_go = d->restarts_to_go;
}

/* A restart marker where one is due, as libjpeg's process_restart takes it when the marker is
 * the expected one; 0 otherwise (libjpeg then resynchronises as it does). */
static int dali_skip_restart(j_decompress_ptr cinfo, dali_skip_decoder* d) {
  dali_bit_reader* b = &d->br;
  if (b->marker < 0) {
    b->cnt = b->fill = 0;
    b->buf = 0;
    dali_br_refill(b);
  }
  if (b->marker != JPEG_RST0 + cinfo->marker->next_restart_num) return 0;
  b->p += 2;
  b->start = b->p;
  b->bytes = 0;
  b->buf = 0;
  b->cnt = b->fill = 0;
  b->marker = -1;
  cinfo->marker->next_restart_num = (cinfo->marker->next_restart_num + 1) & 7;
  for (int c = 0; c < cinfo->comps_in_scan; c++) d->pred[c] = 0;
  d->restarts_to_go = cinfo->restart_interval;
  return 1;
}

/* One MCU decoded here; 0 when it must be left to libjpeg (from its start). */
static int dali_skip_mcu(j_decompress_ptr cinfo, dali_skip_decoder* d, JBLOCKROW* data,
                         int inside) {
  if (cinfo->restart_interval && d->restarts_to_go == 0 && !dali_skip_restart(cinfo, d))
    return 0;
  dali_bit_reader br = d->br, *b = &br;
  for (int k = 0; k < cinfo->blocks_in_MCU; k++) {
    int last = inside ? d->last[k] : DALI_BLOCK_SKIP;
    int diff, s = dali_huff_decode(b, d->dc[k], &diff);
    if (s < 0 || s > 15) return 0;
    int c = d->comp[k];
    d->pred[c] = (int)((unsigned)d->pred[c] + (unsigned)diff);
    if (last != DALI_BLOCK_SKIP) data[k][0][0] = (JCOEF)d->pred[c];
    if ((last == DALI_BLOCK_FULL ? dali_decode_ac(b, d->ac[k], data[k][0], DALI_BLOCK_FULL)
         : last > 0              ? dali_decode_ac(b, d->ac[k], data[k][0], last)
                                 : dali_skip_ac(b, d->ac[k], 1)) < 0)
      return 0;
  }
  if (b->cnt < b->fill) return 0;                  /* read past a marker */
  if (cinfo->restart_interval) d->restarts_to_go--;
  d->br = br;
  return 1;
}

static boolean dali_skip_decode_mcu(j_decompress_ptr cinfo, JBLOCKROW* data) {
  dali_skip_decoder* d = (dali_skip_decoder*)cinfo->client_data;
  JDIMENSION col = d->mcu_col;
  d->mcu_col = col + 1 < cinfo->MCUs_per_row ? col + 1 : 0;
  if (d->handed_back) return d->libjpeg_decode_mcu(cinfo, data);
  int inside = data != NULL && col >= cinfo->master->first_iMCU_col &&
               col <= cinfo->master->last_iMCU_col;
  if (!d->ours && !dali_skip_take(cinfo, d)) {
    d->handed_back = 1;
    return d->libjpeg_decode_mcu(cinfo, data);
  }
  d->ours = 1;
  dali_bit_reader start = d->br;
  int pred[MAX_COMPS_IN_SCAN];
  unsigned int restarts_to_go = d->restarts_to_go;
  int restart_num = cinfo->marker->next_restart_num;
  memcpy(pred, d->pred, sizeof pred);
  if (dali_skip_mcu(cinfo, d, data, inside)) return TRUE;
  /* Back to the start of the MCU, and libjpeg from there on. */
  d->br = start;
  memcpy(d->pred, pred, sizeof pred);
  d->restarts_to_go = restarts_to_go;
  cinfo->marker->next_restart_num = restart_num;
  if (data != NULL)
    for (int k = 0; k < cinfo->blocks_in_MCU; k++) memset(data[k][0], 0, sizeof(JBLOCK));
  dali_skip_give(cinfo, d);
  d->ours = 0;
  d->handed_back = 1;
  return d->libjpeg_decode_mcu(cinfo, data);
}

/* The last zigzag index of a component's blocks that the decode reads: the DC alone for a 1x1
 * IDCT (1/8 scale), every coefficient otherwise; with `approximate` (decode scaling), the
 * blocks of a reduced decode (scale 2, 4 or 8; a whole-scale one stays exact) keep their low
 * frequencies alone (DALI_SKIP_LAST_*), the others taken as zero, so that the codes of the
 * rest are skipped. */
static int dali_skip_last(j_decompress_ptr cinfo, const jpeg_component_info* comp,
                          int approximate) {
  int size = DALI_DCT_SCALED_SIZE(comp), full = DALI_BLOCK_FULL;
  if (!comp->component_needed) return DALI_BLOCK_SKIP;
  if (size == 1) return 0;
  if (!approximate || DALI_MIN_DCT_SCALED_SIZE(cinfo) >= DCTSIZE) return full;
  return size == 2 ? DALI_SKIP_LAST_2 : size == 4 ? DALI_SKIP_LAST_4 : DALI_SKIP_LAST_8;
}

/* Blocks whose codes a decode of `height` output rows from y reads: those of the iMCU rows
 * that jpeg_skip_scanlines skips and of the rows of the window, across the image. */
static long dali_skip_blocks(j_decompress_ptr cinfo, int y, int height) {
  long lines = (long)cinfo->max_v_samp_factor * DALI_MIN_DCT_SCALED_SIZE(cinfo);
  long rows = (y + height + lines - 1) / lines;
  return rows * (long)cinfo->MCUs_per_row * cinfo->blocks_in_MCU;
}

/* Installs the decoder on a started decompression (after jpeg_crop_scanline) that will output
 * `height` rows from y, when the scan is one it can take and its blocks are worth the tables
 * (`approximate`: dali_skip_last).  Returns the decoder, for dali_skip_free after the
 * decompression, or NULL. */
static dali_skip_decoder* dali_skip_install(j_decompress_ptr cinfo, const uint8_t* data,
                                            size_t size, int y, int height, int approximate) {
  if (cinfo->progressive_mode || cinfo->arith_code ||
      cinfo->data_precision != 8 || cinfo->inputctl->has_multiple_scans || cinfo->Ss != 0 ||
      cinfo->Se != DCTSIZE2 - 1 || cinfo->Ah != 0 || cinfo->Al != 0 ||
      cinfo->blocks_in_MCU > D_MAX_BLOCKS_IN_MCU || cinfo->comps_in_scan > MAX_COMPS_IN_SCAN ||
      size < 2 || data[size - 2] != 0xFF || data[size - 1] != JPEG_EOI ||
      cinfo->client_data != NULL)
    return NULL;
  /* A reduced decode that approximates is always taken: its pixels are then the same whatever
   * the window. */
  long blocks = dali_skip_blocks(cinfo, y, height);
  int always = approximate && DALI_MIN_DCT_SCALED_SIZE(cinfo) < DCTSIZE;
  if (blocks < DALI_SKIP_MIN_BLOCKS_CACHED && !always) return NULL;
  dali_libjpeg_huff* h = (dali_libjpeg_huff*)cinfo->entropy;
  if (h->bits.bits_left != 0 || h->bits.get_buffer != 0 || h->pub.insufficient_data ||
      h->restarts_to_go != cinfo->restart_interval || cinfo->unread_marker != 0)
    return NULL;
  dali_skip_cache* cache = &dali_skip_tables;
  int cached = 1;
  for (int c = 0; c < cinfo->comps_in_scan; c++) {
    jpeg_component_info* comp = cinfo->cur_comp_info[c];
    int dc = comp->dc_tbl_no, ac = comp->ac_tbl_no;
    if (h->last_dc_val[c] != 0 || dc < 0 || dc >= NUM_HUFF_TBLS || ac < 0 ||
        ac >= NUM_HUFF_TBLS || cinfo->dc_huff_tbl_ptrs[dc] == NULL ||
        cinfo->ac_huff_tbl_ptrs[ac] == NULL)
      return NULL;
    cached &= dali_skip_cache_find(cache, cinfo->dc_huff_tbl_ptrs[dc], 0) >= 0 &&
              dali_skip_cache_find(cache, cinfo->ac_huff_tbl_ptrs[ac], 1) >= 0;
  }
  if (blocks < DALI_SKIP_MIN_BLOCKS && !cached && !always && !dali_skip_seen(cache, cinfo))
    return NULL;
  dali_skip_decoder* d = (dali_skip_decoder*)calloc(1, sizeof(dali_skip_decoder));
  if (d == NULL) return NULL;
  cache->installs++;
  int k = 0;
  for (int c = 0; c < cinfo->comps_in_scan; c++) {
    jpeg_component_info* comp = cinfo->cur_comp_info[c];
    const dali_huff_table* dc =
        dali_skip_cache_take(cache, cinfo->dc_huff_tbl_ptrs[comp->dc_tbl_no], 0);
    const dali_huff_table* ac =
        dali_skip_cache_take(cache, cinfo->ac_huff_tbl_ptrs[comp->ac_tbl_no], 1);
    int last = dali_skip_last(cinfo, comp, approximate);
    for (int i = 0; i < comp->MCU_blocks; i++, k++) {
      d->dc[k] = dc;
      d->ac[k] = ac;
      d->comp[k] = c;
      d->last[k] = (int8_t)last;
    }
  }
  if (k != cinfo->blocks_in_MCU) {
    free(d);
    return NULL;
  }
  d->libjpeg_decode_mcu = cinfo->entropy->decode_mcu;
  cinfo->client_data = d;
  cinfo->entropy->decode_mcu = dali_skip_decode_mcu;
  return d;
}

static void dali_skip_free(dali_skip_decoder* d) { free(d); }

/* The calling thread's cache: the tables it holds, has built, and the decoders installed with
 * them (for tests). */
static void dali_skip_cache_info(int* entries, long* builds, long* installs) {
  *entries = 0;
  for (int i = 0; i < DALI_SKIP_CACHE_SIZE; i++) *entries += dali_skip_tables.entries[i].use != 0;
  *builds = dali_skip_tables.builds;
  *installs = (long)dali_skip_tables.installs;
}

/* Empties the calling thread's cache (for tests: the next decodes build their tables). */
static void dali_skip_cache_clear(void) {
  for (int i = 0; i < DALI_SKIP_CACHE_SIZE; i++) dali_skip_tables.entries[i].use = 0;
  for (int i = 0; i < DALI_SKIP_SEEN; i++) dali_skip_tables.seen[i] = 0;
}

#else  /* libjpeg-turbo's own installs leave jpegint.h out: libjpeg decodes every code. */

#define DALI_SKIP_DECODER 0

typedef struct dali_skip_decoder dali_skip_decoder;

static dali_skip_decoder* dali_skip_install(j_decompress_ptr cinfo, const uint8_t* data,
                                            size_t size, int y, int height, int approximate) {
  (void)cinfo, (void)data, (void)size, (void)y, (void)height, (void)approximate;
  return NULL;
}

static void dali_skip_free(dali_skip_decoder* d) { (void)d; }

static void dali_skip_cache_info(int* entries, long* builds, long* installs) {
  *entries = 0, *builds = 0, *installs = 0;
}

static void dali_skip_cache_clear(void) {}

#endif
