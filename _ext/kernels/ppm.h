// Writes one uint8 HWC image (C = 1 or 3) as an ASCII PNM file, the format of DALI's
// DumpImage: "P3" (RGB) or "P2" (gray), "W H", "255", then one line per image row with every
// value followed by one space.  The row is formatted into a buffer from a table of the 256
// numbers' texts and written with one fwrite.  An existing file is overwritten in place and
// then cut to the new length, not truncated first: ext4 flushes a file truncated to zero and
// rewritten when it is closed (auto_da_alloc), which made rewriting a batch of small images
// every iteration ten times slower.  Returns 0, or errno when the file cannot be opened or
// written.
#pragma once
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

#include <fcntl.h>
#include <unistd.h>

namespace dali_ppm {

struct Number {
  char text[5];  // the digits, a space and the NUL of snprintf
  int len;
};

inline const Number* numbers() {
  static const Number* table = [] {
    static Number t[256];
    for (int v = 0; v < 256; v++) t[v].len = std::snprintf(t[v].text, 5, "%d ", v);
    return t;
  }();
  return table;
}

inline int write_pnm(const char* path, const uint8_t* data, int64_t h, int64_t w, int64_t c) {
  const Number* num = numbers();
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return errno ? errno : EIO;
  std::FILE* f = fdopen(fd, "wb");
  if (!f) {
    int e = errno ? errno : EIO;
    close(fd);
    return e;
  }
  int err = 0;
  if (std::fprintf(f, "%s\n%lld %lld\n255\n", c == 3 ? "P3" : "P2",
                   static_cast<long long>(w), static_cast<long long>(h)) < 0)
    err = errno ? errno : EIO;
  // nothrow: an exception must not cross the nogil caller (it would abort the process)
  std::unique_ptr<char[]> row(new (std::nothrow) char[static_cast<size_t>(w * c) * 4 + 1]);
  if (!row) err = ENOMEM;
  for (int64_t y = 0; y < h && !err; y++) {
    char* out = row.get();
    const uint8_t* px = data + y * w * c;
    for (int64_t k = 0; k < w * c; k++) {
      std::memcpy(out, num[px[k]].text, 4);
      out += num[px[k]].len;
    }
    *out++ = '\n';
    size_t len = static_cast<size_t>(out - row.get());
    if (std::fwrite(row.get(), 1, len, f) != len) err = errno ? errno : EIO;
  }
  if (!err && std::fflush(f) != 0) err = errno ? errno : EIO;
  if (!err && ftruncate(fd, static_cast<off_t>(std::ftell(f))) != 0) err = errno ? errno : EIO;
  if (std::fclose(f) != 0 && !err) err = errno ? errno : EIO;
  return err;
}

}  // namespace dali_ppm
