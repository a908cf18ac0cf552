// The pixel-wise masks of fn.readers.coco (_ext/kernels/coco_masks.pyx): DALI's construction,
// step for step.  Each polygon becomes a run-length encoding (RLE, column-major runs starting
// with background) the way the COCO API rasterises polygons (rleFrPoly: vertices upsampled by
// 5, boundary points downsampled); the polygons of one label are merged (union); an
// RLE-annotated object sets its label's RLE unless the label also has polygons (their merge
// replaces it, as in DALI); the labels are then combined in ascending order, run by run, where
// a later label wins on overlaps except on the last run of what was combined before; the
// result is painted column by column into an h x w int32 mask.
#ifndef DALI_EXT_KERNELS_COCO_MASKS_H_
#define DALI_EXT_KERNELS_COCO_MASKS_H_

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

namespace dali_coco {

struct Rle {
    int64_t h = 0, w = 0;
    std::vector<uint32_t> cnts;
};

// Polygons whose upsampled outline would exceed this many points are refused (coordinates far
// outside any image; the COCO API would overflow or exhaust memory).
const int64_t kMaxOutline = int64_t(1) << 27;

// false when the polygon is refused (see kMaxOutline).
inline bool from_poly(const float* xy, int64_t k, int64_t h, int64_t w, Rle* out) {
    const double scale = 5;
    for (int64_t j = 0; j < 2 * k; j++)
        if (!(std::fabs(scale * xy[j]) < 1e9)) return false;
    std::vector<int> x(k + 1), y(k + 1);
    for (int64_t j = 0; j < k; j++) x[j] = static_cast<int>(scale * xy[j * 2] + .5);
    for (int64_t j = 0; j < k; j++) y[j] = static_cast<int>(scale * xy[j * 2 + 1] + .5);
    x[k] = x[0];
    y[k] = y[0];
    int64_t m = 0;
    for (int64_t j = 0; j < k; j++)
        m += std::max(std::abs(x[j] - x[j + 1]), std::abs(y[j] - y[j + 1])) + 1;
    if (m > kMaxOutline) return false;
    std::vector<int> u(m), v(m);
    m = 0;
    for (int64_t j = 0; j < k; j++) {
        int xs = x[j], xe = x[j + 1], ys = y[j], ye = y[j + 1];
        int dx = std::abs(xe - xs), dy = std::abs(ys - ye), t;
        bool flip = (dx >= dy && xs > xe) || (dx < dy && ys > ye);
        if (flip) {
            t = xs; xs = xe; xe = t;
            t = ys; ys = ye; ye = t;
        }
        double s = dx >= dy ? static_cast<double>(ye - ys) / dx
                            : static_cast<double>(xe - xs) / dy;
        if (dx >= dy) {
            for (int d = 0; d <= dx; d++) {
                t = flip ? dx - d : d;
                u[m] = t + xs;
                v[m] = static_cast<int>(ys + s * t + .5);
                m++;
            }
        } else {
            for (int d = 0; d <= dy; d++) {
                t = flip ? dy - d : d;
                v[m] = t + ys;
                u[m] = static_cast<int>(xs + s * t + .5);
                m++;
            }
        }
    }
    std::vector<uint32_t> a;
    a.reserve(m + 1);
    for (int64_t j = 1; j < m; j++) {
        if (u[j] == u[j - 1]) continue;
        double xd = static_cast<double>(u[j] < u[j - 1] ? u[j] : u[j] - 1);
        xd = (xd + .5) / scale - .5;
        if (std::floor(xd) != xd || xd < 0 || xd > w - 1) continue;
        double yd = static_cast<double>(v[j] < v[j - 1] ? v[j] : v[j - 1]);
        yd = (yd + .5) / scale - .5;
        if (yd < 0) yd = 0;
        else if (yd > h) yd = static_cast<double>(h);
        yd = std::ceil(yd);
        a.push_back(static_cast<uint32_t>(static_cast<int>(xd) * static_cast<int>(h) +
                                          static_cast<int>(yd)));
    }
    a.push_back(static_cast<uint32_t>(h * w));
    std::sort(a.begin(), a.end());
    uint32_t p = 0;
    for (auto& e : a) {
        uint32_t t = e;
        e -= p;
        p = t;
    }
    out->h = h;
    out->w = w;
    out->cnts.clear();
    size_t j = 0;
    out->cnts.push_back(a[j++]);
    while (j < a.size()) {
        if (a[j] > 0) {
            out->cnts.push_back(a[j++]);
        } else {
            j++;
            if (j < a.size()) out->cnts.back() += a[j++];
        }
    }
    return true;
}

// The union of `rles` (all of the same size), as the COCO API's rleMerge.
inline void merge(const std::vector<Rle>& rles, Rle* out) {
    if (rles.empty()) {
        *out = Rle();
        return;
    }
    int64_t h = rles[0].h, w = rles[0].w;
    std::vector<uint32_t> cnts = rles[0].cnts;
    for (size_t i = 1; i < rles.size(); i++) {
        const Rle& B = rles[i];
        if (B.h != h || B.w != w) {
            *out = Rle();
            return;
        }
        std::vector<uint32_t> A = cnts, merged;
        if (A.empty() || B.cnts.empty()) break;
        uint32_t ca = A[0], cb = B.cnts[0], c, cc = 0, ct = 1;
        bool v = false, va = false, vb = false, vp;
        size_t a = 1, b = 1;
        while (ct > 0) {
            c = std::min(ca, cb);
            cc += c;
            ct = 0;
            ca -= c;
            if (!ca && a < A.size()) { ca = A[a++]; va = !va; }
            ct += ca;
            cb -= c;
            if (!cb && b < B.cnts.size()) { cb = B.cnts[b++]; vb = !vb; }
            ct += cb;
            vp = v;
            v = va || vb;
            if (v != vp || ct == 0) {
                merged.push_back(cc);
                cc = 0;
            }
        }
        cnts.swap(merged);
    }
    out->h = h;
    out->w = w;
    out->cnts = cnts;
}

struct Sample {
    int64_t h, w;
    int64_t n_objects;
    const int32_t* labels;        // per object
    int64_t n_polygons;
    const int32_t* polygons;      // (n, 3): object, first vertex, end vertex
    const float* vertices;        // (V, 2)
    int64_t n_rles;
    const int32_t* rle_objects;   // object of each RLE
    const int64_t* rle_dims;      // (n, 2): h, w of each RLE
    const int64_t* rle_starts;    // (n + 1) offsets into rle_counts
    const uint32_t* rle_counts;
    int32_t* out;                 // h * w
    int error;                    // 1: a label is negative, 3: a polygon is refused
};

inline void paint(Sample* s) {
    int64_t h = s->h, w = s->w;
    memset(s->out, 0, sizeof(int32_t) * h * w);
    std::set<int> labels(s->labels, s->labels + s->n_objects);
    if (labels.empty()) return;
    if (*labels.begin() < 0) {
        s->error = 1;
        return;
    }
    std::map<int, std::vector<Rle>> from_polygons;
    for (int64_t p = 0; p < s->n_polygons; p++) {
        const int32_t* poly = s->polygons + 3 * p;
        int label = s->labels[poly[0]];
        Rle r;
        if (!from_poly(s->vertices + 2 * poly[1], poly[2] - poly[1], h, w, &r)) {
            s->error = 3;
            return;
        }
        from_polygons[label].push_back(std::move(r));
    }
    std::vector<Rle> R(*labels.rbegin() + 1);
    for (int64_t k = 0; k < s->n_rles; k++) {
        Rle& r = R[s->labels[s->rle_objects[k]]];
        r.h = s->rle_dims[2 * k];
        r.w = s->rle_dims[2 * k + 1];
        r.cnts.assign(s->rle_counts + s->rle_starts[k], s->rle_counts + s->rle_starts[k + 1]);
    }
    for (const auto& entry : from_polygons) merge(entry.second, &R[entry.first]);

    // the labels combined in ascending order: runs (cnts) with a label each (vals)
    int first = *labels.begin();
    std::vector<uint32_t> cnts(R[first].cnts);
    std::vector<int> vals(cnts.size());
    for (size_t a = 0; a < cnts.size(); a++) vals[a] = a % 2 ? first : 0;
    if (cnts.empty()) {              // DALI's A starts as one empty run (zeroed buffers)
        cnts.push_back(0);
        vals.push_back(0);
    }
    size_t used = R[first].cnts.size();
    std::vector<uint32_t> new_cnts;
    std::vector<int> new_vals;
    for (auto it = std::next(labels.begin()); it != labels.end(); ++it) {
        const Rle& B = R[*it];
        if (B.cnts.empty()) continue;
        uint32_t cnt_a = cnts[0], cnt_b = B.cnts[0];
        int next_val_a = vals[0], val_a = next_val_a, val_b = *it;
        bool next_vb = false, vb = false;
        size_t seq_a = 1, seq_b = 1;
        new_cnts.clear();
        new_vals.clear();
        uint32_t total = 1;
        while (total > 0) {
            uint32_t c = std::min(cnt_a, cnt_b);
            total = 0;
            cnt_a -= c;
            if (!cnt_a && seq_a < used) {
                cnt_a = cnts[seq_a];
                next_val_a = vals[seq_a];
                seq_a++;
            }
            total += cnt_a;
            cnt_b -= c;
            if (!cnt_b && seq_b < B.cnts.size()) {
                cnt_b = B.cnts[seq_b++];
                next_vb = !next_vb;
            }
            total += cnt_b;
            int value;
            if (val_a && vb) value = !cnt_a ? val_a : val_b;
            else if (val_a) value = val_a;
            else if (vb) value = val_b;
            else value = 0;
            new_vals.push_back(value);
            new_cnts.push_back(c);
            val_a = next_val_a;
            vb = next_vb;
            if (cnt_a == 0) break;
        }
        cnts = new_cnts;
        vals = new_vals;
        used = cnts.size();
    }
    int64_t x = 0, y = 0;
    for (size_t i = 0; i < used; i++) {
        for (uint32_t j = 0; j < cnts[i]; j++) {
            if (x >= w) return;                 // runs past the image: DALI writes out of bounds
            s->out[x + y * w] = vals[i];
            if (++y >= h) {
                y = 0;
                x++;
            }
        }
    }
}

}  // namespace dali_coco

// paint() without exceptions: 0, 1 (a negative label), 2 (out of memory) or 3 (a polygon
// whose coordinates are out of range).
inline int dali_coco_paint(dali_coco::Sample* s) {
    try {
        s->error = 0;
        dali_coco::paint(s);
        return s->error;
    } catch (...) {
        return 2;
    }
}

#endif  // DALI_EXT_KERNELS_COCO_MASKS_H_
