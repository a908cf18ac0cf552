// Persistent worker threads running one parallel-for job at a time.
//
// A job is `fn(ctx, item)` for item in order[0..n) (or 0..n).  The submitting thread works on
// the job too, then waits until every item is done, so a pool of `num_threads` has
// `num_threads - 1` workers.  Items are claimed with an atomic counter: no per-item locking.
// `fn` must not throw and must not touch Python objects without taking the GIL.
// Submissions from several threads are serialized by `submit_mutex_`.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace dali_ext {

typedef void (*item_fn)(void* ctx, int64_t item);

class ThreadPool {
 public:
  explicit ThreadPool(int num_threads) {
    int workers = num_threads > 1 ? num_threads - 1 : 0;
    for (int i = 0; i < workers; i++) threads_.emplace_back([this] { worker_loop(); });
  }

  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }

  int num_threads() const { return static_cast<int>(threads_.size()) + 1; }

  // Runs fn over the items; returns when all are done.  Call without the GIL.
  void run(item_fn fn, void* ctx, const int64_t* order, int64_t n) {
    if (n <= 0) return;
    std::lock_guard<std::mutex> submit(submit_mutex_);
    if (threads_.empty() || n == 1) {
      for (int64_t i = 0; i < n; i++) fn(ctx, order ? order[i] : i);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      fn_ = fn;
      ctx_ = ctx;
      order_ = order;
      n_ = n;
      next_.store(0);
      done_.store(0);
      generation_++;
    }
    wake_.notify_all();
    work();
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [this] { return done_.load() == n_ && active_ == 0; });
  }

 private:
  void work() {
    for (;;) {
      int64_t i = next_.fetch_add(1);
      if (i >= n_) return;
      fn_(ctx_, order_ ? order_[i] : i);
      if (done_.fetch_add(1) + 1 == n_) {
        std::lock_guard<std::mutex> lock(mutex_);
        finished_.notify_all();
      }
    }
  }

  void worker_loop() {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        active_++;
      }
      work();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        active_--;
      }
      finished_.notify_all();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex submit_mutex_;            // one job at a time
  std::mutex mutex_;                   // guards the job fields, generation_, active_, stop_
  std::condition_variable wake_;       // workers wait here for a new generation
  std::condition_variable finished_;   // the submitter waits here for the job to end
  item_fn fn_ = nullptr;
  void* ctx_ = nullptr;
  const int64_t* order_ = nullptr;
  int64_t n_ = 0;
  std::atomic<int64_t> next_{0};
  std::atomic<int64_t> done_{0};
  uint64_t generation_ = 0;
  int active_ = 0;
  bool stop_ = false;
};

}  // namespace dali_ext
