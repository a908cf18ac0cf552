// Ctrl-C for nogil jobs: a SIGINT handler that counts signals and chains to the previous one.
// The count (`stop_count`) is what the thread pool watches; interpreter shutdown increments it
// too (`count_stop`), so background jobs stop when the main thread has gone.
//
// Python's own SIGINT handler only records the signal; Python acts on it (KeyboardInterrupt)
// when the main thread next runs bytecode or calls PyErr_CheckSignals(), which a long nogil
// call delays until it returns.  `install_sigint_counter()` puts `on_sigint` in front of the
// handler in place (Python's): it calls that handler, then increments `stop_count`, which the
// thread pool checks between items (thread_pool_impl.h).  The previous handler runs first, so
// by the time a thread sees the count change, Python has recorded the signal too.
//
// Python replaces the handler whenever `signal.signal(SIGINT, ...)` is called, so the entry
// points call install_sigint_counter() (with the GIL, like signal.signal) before every job; it
// is one sigaction() query when the counter is already in place.  Default and ignored
// dispositions are left alone: there is then no Python handler to chain to.
// Only this file's translation unit (thread_pool.pyx) includes it.
#pragma once
#include <errno.h>
#include <signal.h>

#include <atomic>
#include <cstdint>

namespace dali_ext {

static std::atomic<uint64_t> stop_count{0};
static struct sigaction previous_sigint;   // written only while on_sigint is not installed

static_assert(std::atomic<uint64_t>::is_always_lock_free,
              "the SIGINT counter must be lock-free to be touched in a signal handler");

static void on_sigint(int sig, siginfo_t* info, void* context) {
  int saved_errno = errno;
  if (previous_sigint.sa_flags & SA_SIGINFO) {
    previous_sigint.sa_sigaction(sig, info, context);
  } else if (previous_sigint.sa_handler != SIG_DFL && previous_sigint.sa_handler != SIG_IGN) {
    previous_sigint.sa_handler(sig);
  }
  stop_count.fetch_add(1);
  errno = saved_errno;
}

static void count_stop() { stop_count.fetch_add(1); }

// 1: the counter is in place; 0: SIGINT has the default or ignored disposition; -1: failed.
static int install_sigint_counter() {
  struct sigaction current;
  if (sigaction(SIGINT, nullptr, &current) != 0) return -1;
  if (current.sa_flags & SA_SIGINFO) {
    if (current.sa_sigaction == on_sigint) return 1;
  } else if (current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN) {
    return 0;
  }
  previous_sigint = current;
  struct sigaction mine = current;   // same mask and flags (Python's SA_ONSTACK)
  mine.sa_flags |= SA_SIGINFO;
  mine.sa_sigaction = on_sigint;
  return sigaction(SIGINT, &mine, nullptr) == 0 ? 1 : -1;
}

}  // namespace dali_ext
