// LZ4 block decompression (the raw block format: sequences of a token, literals and a match; no
// frame header), the kernel of fn.decoders.inflate.  One job decodes one compressed chunk into
// an output buffer of a given size: it stops at the buffer's end (status TRUNCATED) and zeroes
// what the chunk does not fill.
#pragma once

#include <cstdint>
#include <cstring>

namespace dali_lz4 {

enum { OK = 0, MALFORMED = 1, TRUNCATED = 2 };

struct Job {
  const uint8_t* src;
  int64_t src_size;
  uint8_t* dst;
  int64_t dst_size;
  int64_t written;       // out: decompressed bytes written
  int status;            // out
};

// A length's extension bytes (each 255 adds and continues); false past the input's end.
inline bool extend(const uint8_t* src, int64_t n, int64_t* ip, int64_t* len) {
  uint8_t b;
  do {
    if (*ip >= n) return false;
    b = src[(*ip)++];
    *len += b;
  } while (b == 255);
  return true;
}

inline int decode(const uint8_t* src, int64_t n, uint8_t* dst, int64_t cap, int64_t* written) {
  int64_t ip = 0, op = 0;
  *written = 0;
  if (n == 0) return MALFORMED;
  while (ip < n) {
    const uint8_t token = src[ip++];
    int64_t lit = token >> 4;
    if (lit == 15 && !extend(src, n, &ip, &lit)) return MALFORMED;
    if (lit > n - ip) return MALFORMED;
    if (lit > cap - op) {
      std::memcpy(dst + op, src + ip, (size_t)(cap - op));
      *written = cap;
      return TRUNCATED;
    }
    std::memcpy(dst + op, src + ip, (size_t)lit);
    ip += lit;
    op += lit;
    *written = op;
    if (ip == n) return OK;               // the last sequence: literals only
    if (n - ip < 2) return MALFORMED;
    const int64_t offset = (int64_t)src[ip] | ((int64_t)src[ip + 1] << 8);
    ip += 2;
    if (offset == 0 || offset > op) return MALFORMED;
    int64_t match = token & 15;
    if (match == 15 && !extend(src, n, &ip, &match)) return MALFORMED;
    match += 4;
    const int64_t fits = match < cap - op ? match : cap - op;
    const uint8_t* from = dst + op - offset;
    if (offset >= fits) {
      std::memcpy(dst + op, from, (size_t)fits);
    } else {
      for (int64_t k = 0; k < fits; k++) dst[op + k] = from[k];    // overlapping: a repeat
    }
    op += fits;
    *written = op;
    if (fits < match) return TRUNCATED;
  }
  return MALFORMED;                       // the input ended after a match
}

inline void run(Job* job) {
  job->status = decode(job->src, job->src_size, job->dst, job->dst_size, &job->written);
  if (job->written < job->dst_size) {
    std::memset(job->dst + job->written, 0, (size_t)(job->dst_size - job->written));
  }
}

}  // namespace dali_lz4
