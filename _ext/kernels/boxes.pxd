# Bounding-box kernels (boxes.h).  The crop window search of fn.random_bbox_crop: one job per
# sample, reading the corners of all the batch's boxes, drawing from the sample's Philox stream
# and writing the window found (relative corners, and the anchor in pixels for a fixed size),
# how it was found and the best overlap seen; the boxes clamped to the windows and which survive
# (one loop on the caller).  The SSD encoding of fn.box_encoder: one job per
# sample, matching its boxes to the anchors and writing the encoded boxes and labels.  The
# rotation of fn.bbox_rotate: one job per sample, writing the moved boxes and which to keep.
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t


cdef extern from "boxes.h" nogil:
    enum:
        DALI_BOX_FOUND
        DALI_BOX_NO_CROP
        DALI_BOX_BEST
        DALI_BOX_GAVE_UP

    ctypedef struct dali_box_params:
        const float* lo
        const float* hi
        int ndim
        uint64_t key
        uint32_t stream
        const double* thresholds
        int n_thresholds
        int no_crop
        int num_attempts
        int64_t limit
        int keep_best
        int iou
        int all_boxes
        double prune
        double smin, smax
        double aspect[6]
        int fixed

    ctypedef struct dali_box_job:
        const dali_box_params* p
        int64_t sample_id
        int64_t first, count
        double in_size[3]
        double crop_size[3]
        float crop_lo[3]
        float crop_hi[3]
        double anchor[3]
        int status
        double best

    void dali_box_search(dali_box_job* job)

    void dali_box_crop(const float* lo, const float* hi, int nd, const int64_t* counts,
                       int64_t n, const float* crop_lo, const float* crop_hi,
                       const uint8_t* nocrop, int prune_given, float prune, float* new_lo,
                       float* new_hi, uint8_t* keep, int64_t* kept)

    ctypedef struct dali_encode_params:
        const float* anchors
        const float* centers
        int64_t num_anchors
        float criteria
        int offset
        float scale
        float means[4]
        float stds[4]

    ctypedef struct dali_encode_job:
        const dali_encode_params* p
        const float* boxes
        const int32_t* labels
        int64_t label_stride
        int64_t count
        float* out_boxes
        int32_t* out_labels
        float* scratch
        int64_t* forced

    void dali_encode_run(const dali_encode_job* job)

    enum:
        DALI_ROT_EXPAND
        DALI_ROT_HALFWAY
        DALI_ROT_FIXED

    ctypedef struct dali_rot_job:
        const float* src
        float* dst
        uint8_t* keep
        int64_t count
        double c, s
        double h, w, out_h, out_w
        int swap

    void dali_rot_run(const dali_rot_job* job, int xywh, int normalized, int mode,
                      double threshold)


cdef extern from "philox_blocks.h" nogil:
    void dali_philox_detect()
