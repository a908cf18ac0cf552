// Persistent worker threads running one parallel-for job at a time.
//
// A job is `fn(ctx, item)` for item in order[0..n) (or 0..n).  The submitting thread works on
// the job too, then waits until every item is done, so a pool of `num_threads` has
// `num_threads - 1` workers.  Items are claimed with an atomic counter: no per-item locking.
// `fn` must not throw and must not touch Python objects without taking the GIL.
// Submissions from several threads are serialized by `submit_mutex_`.
//
// Interrupts: `run_until` also takes a counter (the SIGINT count, interrupt.h) and the value it
// had when the job was submitted.  Every thread checks it before claiming an item and stops
// claiming once it has changed; the items claimed so far are the prefix order[0..k) and all of
// them finish, so the caller learns k and can resume from there or give up.  Workers block
// SIGINT (they inherit the mask the constructor sets while creating them), so the signal is
// delivered to the Python threads and Python's handler runs there.
#pragma once
#include <signal.h>

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
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    pthread_sigmask(SIG_BLOCK, &block, &old);   // inherited by the threads made here
    for (int i = 0; i < workers; i++) threads_.emplace_back([this] { worker_loop(); });
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
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
    run_until(fn, ctx, order, n, nullptr, 0);
  }

  // Runs fn over the items until all are done or `*counter` differs from `since` (checked
  // before each item; a null counter never stops).  Returns how many items ran: the first
  // ones of the order.  Call without the GIL.
  int64_t run_until(item_fn fn, void* ctx, const int64_t* order, int64_t n,
                    const std::atomic<uint64_t>* counter, uint64_t since) {
    if (n <= 0) return 0;
    std::lock_guard<std::mutex> submit(submit_mutex_);
    if (threads_.empty() || n == 1) return run_inline(fn, ctx, order, n, counter, since);
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // A worker woken for the previous job may still be in work(), reading its fields.
      finished_.wait(lock, [this] { return active_ == 0; });
      fn_ = fn;
      ctx_ = ctx;
      order_ = order;
      n_ = n;
      counter_ = counter;
      since_ = since;
      next_.store(0);
      generation_++;
    }
    wake_.notify_all();
    work();
    std::unique_lock<std::mutex> lock(mutex_);
    // The caller's work() has returned: every item is claimed or the job was interrupted, and
    // no item is left running once no worker is active.
    finished_.wait(lock, [this] { return active_ == 0; });
    int64_t claimed = next_.load();
    return claimed < n_ ? claimed : n_;
  }

  // The same on the calling thread alone.
  static int64_t run_inline(item_fn fn, void* ctx, const int64_t* order, int64_t n,
                            const std::atomic<uint64_t>* counter, uint64_t since) {
    for (int64_t i = 0; i < n; i++) {
      if (counter && counter->load(std::memory_order_relaxed) != since) return i;
      fn(ctx, order ? order[i] : i);
    }
    return n < 0 ? 0 : n;
  }

 private:
  void work() {
    for (;;) {
      if (counter_ && counter_->load(std::memory_order_relaxed) != since_) return;
      int64_t i = next_.fetch_add(1);
      if (i >= n_) return;
      fn_(ctx_, order_ ? order_[i] : i);
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
  std::condition_variable finished_;   // the submitter waits here for active_ to reach 0
  item_fn fn_ = nullptr;
  void* ctx_ = nullptr;
  const int64_t* order_ = nullptr;
  int64_t n_ = 0;
  const std::atomic<uint64_t>* counter_ = nullptr;   // stop claiming once it differs from since_
  uint64_t since_ = 0;
  std::atomic<int64_t> next_{0};       // the next item to claim (may overshoot n_)
  uint64_t generation_ = 0;
  int active_ = 0;                     // workers inside work() for some generation
  bool stop_ = false;
};

// pool->run_until, or ThreadPool::run_inline for a null pool.
inline int64_t run_items(ThreadPool* pool, item_fn fn, void* ctx, const int64_t* order,
                         int64_t n, const std::atomic<uint64_t>* counter, uint64_t since) {
  if (pool == nullptr) return ThreadPool::run_inline(fn, ctx, order, n, counter, since);
  return pool->run_until(fn, ctx, order, n, counter, since);
}

}  // namespace dali_ext
