/* pool.c: persistent worker threads.
 *
 * A pool of n threads starts n-1 pthreads once; the caller of an operation
 * is thread 0. An operation is a loop over nitems items that threads claim
 * in chunks of grain from a shared counter, so whoever runs does the work:
 * a worker the OS has descheduled (other processes on the cores) delays
 * nothing, and the caller alone finishes the loop if no worker shows up.
 * This matters on small machines: a fixed split with a barrier waits for
 * the slowest thread's time slice.
 *
 * The job is published in a 64-bit ticket: the generation (high 32 bits),
 * an open flag, and the number of workers inside the job. A worker joins by
 * compare-and-swap only while the job is open; when every item is done the
 * caller closes the job and waits for the workers inside to leave, so a
 * late worker can never touch the next job's counters. Idle workers spin
 * on the ticket for a short while (about the gap between two kernels of a
 * token) and then sleep on a condition variable, so an idle pool costs no
 * CPU. The spin-then-wait shape follows ggml-cpu's threadpool
 * (ggml-cpu.c: ggml_graph_compute_poll_for_work). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
static inline void cpu_relax(void) { _mm_pause(); }
#elif defined(__aarch64__)
static inline void cpu_relax(void) { __asm__ __volatile__("yield"); }
#else
static inline void cpu_relax(void) {}
#endif

/* SPIN_ROUNDS bounds the busy wait of an idle worker (tens of µs). */
#define SPIN_ROUNDS 8192

#define T_OPEN ((uint64_t)1 << 31)
#define T_JOINED ((uint64_t)0x7fffffff)
#define T_GEN(t) ((t) >> 32)

struct lrt_pool {
  int n;
  const kernels *k;
  pthread_t *threads;
  pthread_mutex_t op_mu; /* one operation at a time */
  pthread_mutex_t mu;    /* guards sleeping workers */
  pthread_cond_t cv;
  _Atomic uint64_t ticket;
  _Atomic int sleepers;
  _Atomic int stop;
  /* the current job */
  task_fn fn;
  void *arg;
  int64_t nitems, grain;
  _Atomic int64_t next;
  _Atomic int64_t done;
  void *scratch;
  size_t scratch_cap;
};

/* work claims chunks of the current job until none is left. */
static void work(lrt_pool *p) {
  for (;;) {
    const int64_t lo = atomic_fetch_add_explicit(&p->next, p->grain, memory_order_relaxed);
    if (lo >= p->nitems) return;
    const int64_t hi = lo + p->grain < p->nitems ? lo + p->grain : p->nitems;
    p->fn(p->arg, lo, hi);
    atomic_fetch_add_explicit(&p->done, hi - lo, memory_order_release);
  }
}

/* joinable reports whether ticket t holds an open job newer than seen. */
static inline int joinable(uint64_t t, uint64_t seen) { return T_GEN(t) != seen && (t & T_OPEN); }

static void *worker(void *varg) {
  lrt_pool *p = varg;
  uint64_t seen = 0;
  for (;;) {
    uint64_t t = atomic_load_explicit(&p->ticket, memory_order_acquire);
    if (atomic_load_explicit(&p->stop, memory_order_acquire)) return NULL;
    if (!joinable(t, seen)) {
      int spins = 0;
      while (!joinable(t = atomic_load_explicit(&p->ticket, memory_order_acquire), seen) &&
             !atomic_load_explicit(&p->stop, memory_order_relaxed)) {
        if (++spins < SPIN_ROUNDS) {
          /* yield now and then: on a busy machine the thread we wait for
           * may need this core */
          if (spins % 256 == 0)
            sched_yield();
          else
            cpu_relax();
          continue;
        }
        pthread_mutex_lock(&p->mu);
        atomic_fetch_add(&p->sleepers, 1);
        while (!joinable(atomic_load(&p->ticket), seen) && !atomic_load(&p->stop))
          pthread_cond_wait(&p->cv, &p->mu);
        atomic_fetch_sub(&p->sleepers, 1);
        pthread_mutex_unlock(&p->mu);
        spins = 0;
      }
      continue;
    }
    if (!atomic_compare_exchange_weak_explicit(&p->ticket, &t, t + 1, memory_order_acq_rel,
                                               memory_order_acquire))
      continue;
    seen = T_GEN(t);
    work(p);
    atomic_fetch_sub_explicit(&p->ticket, 1, memory_order_release);
  }
}

/* wake wakes sleeping workers after a change of ticket or stop. */
static void wake(lrt_pool *p) {
  if (atomic_load(&p->sleepers) > 0) { /* seq_cst: after the ticket store */
    pthread_mutex_lock(&p->mu);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
  }
}

lrt_pool *lrt_pool_new(int32_t nthreads, const char *isa) {
  const kernels *k = lrt_kernels(isa);
  if (!k) return NULL;
  if (nthreads < 1) nthreads = 1;
  if (nthreads > 512) nthreads = 512;
  lrt_pool *p = calloc(1, sizeof(*p));
  if (!p) return NULL;
  p->n = nthreads;
  p->k = k;
  pthread_mutex_init(&p->op_mu, NULL);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  p->threads = calloc((size_t)nthreads, sizeof(pthread_t));
  if (!p->threads) {
    free(p);
    return NULL;
  }
  for (int i = 1; i < nthreads; i++) {
    if (pthread_create(&p->threads[i], NULL, worker, p) != 0) {
      p->n = i; /* stop and join the ones started */
      lrt_pool_free(p);
      return NULL;
    }
  }
  return p;
}

void lrt_pool_free(lrt_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->op_mu);
  atomic_store(&p->stop, 1);
  pthread_mutex_lock(&p->mu);
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  for (int i = 1; i < p->n; i++) pthread_join(p->threads[i], NULL);
  pthread_mutex_unlock(&p->op_mu);
  pthread_mutex_destroy(&p->op_mu);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->cv);
  free(p->threads);
  free(p->scratch);
  free(p);
}

int32_t lrt_pool_threads(const lrt_pool *p) { return p ? p->n : 0; }

const kernels *pool_kernels(const lrt_pool *p) { return p->k; }

void pool_begin(lrt_pool *p) { pthread_mutex_lock(&p->op_mu); }
void pool_end(lrt_pool *p) { pthread_mutex_unlock(&p->op_mu); }

/* spin_wait pauses, yielding the core now and then in case the thread we
 * wait for is not running. */
static inline void spin_wait(int *spins) {
  if (++*spins % 256 == 0)
    sched_yield();
  else
    cpu_relax();
}

void pool_run(lrt_pool *p, task_fn fn, void *arg, int64_t nitems, int64_t grain) {
  if (nitems <= 0) return;
  if (grain < 1) grain = 1;
  if (p->n == 1 || nitems <= grain) {
    fn(arg, 0, nitems);
    return;
  }
  p->fn = fn;
  p->arg = arg;
  p->nitems = nitems;
  p->grain = grain;
  atomic_store_explicit(&p->next, 0, memory_order_relaxed);
  atomic_store_explicit(&p->done, 0, memory_order_relaxed);
  /* publish: a new generation, open, nobody inside (the last job drained) */
  const uint64_t gen = T_GEN(atomic_load(&p->ticket)) + 1;
  atomic_store(&p->ticket, (gen << 32) | T_OPEN);
  wake(p);
  work(p);
  int spins = 0;
  while (atomic_load_explicit(&p->done, memory_order_acquire) < nitems) spin_wait(&spins);
  /* close, then wait for the workers still inside to leave */
  atomic_fetch_and(&p->ticket, ~T_OPEN);
  while (atomic_load_explicit(&p->ticket, memory_order_acquire) & T_JOINED) spin_wait(&spins);
}

void *pool_scratch(lrt_pool *p, size_t n) {
  if (n <= p->scratch_cap) return p->scratch;
  free(p->scratch);
  size_t cap = (n + 63) & ~(size_t)63;
  p->scratch = aligned_alloc(64, cap);
  p->scratch_cap = p->scratch ? cap : 0;
  return p->scratch;
}
