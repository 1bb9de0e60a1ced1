/* pool.c: persistent worker threads.
 *
 * A pool of n threads starts n-1 pthreads once; the caller of an operation
 * is thread 0. pool_run publishes a task by bumping a generation counter;
 * workers spin on it for a short while (about the gap between two kernels
 * of one token) and then sleep on a condition variable, so an idle pool
 * costs nothing. The caller runs its share, then spins until every worker
 * has finished. The same shape as ggml-cpu's threadpool (ggml-cpu.c,
 * ggml_graph_compute_thread with its spin-then-wait poll), much reduced. */
#include <errno.h>
#include <pthread.h>
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

/* SPIN_ROUNDS bounds the busy wait of an idle worker (roughly 50-200 µs). */
#define SPIN_ROUNDS 20000

struct lrt_pool {
  int n;
  pthread_t *threads;
  pthread_mutex_t op_mu; /* one operation at a time */
  pthread_mutex_t mu;    /* guards sleeping workers */
  pthread_cond_t cv;
  _Atomic uint64_t gen;
  _Atomic int pending;
  _Atomic int sleepers;
  _Atomic int stop;
  task_fn fn;
  void *arg;
  void *scratch;
  size_t scratch_cap;
};

typedef struct {
  lrt_pool *p;
  int ith;
} worker_arg;

static void *worker(void *varg) {
  worker_arg wa = *(worker_arg *)varg;
  free(varg);
  lrt_pool *p = wa.p;
  uint64_t seen = 0;
  for (;;) {
    uint64_t g;
    int spins = 0;
    while ((g = atomic_load_explicit(&p->gen, memory_order_acquire)) == seen) {
      if (++spins < SPIN_ROUNDS) {
        cpu_relax();
        continue;
      }
      pthread_mutex_lock(&p->mu);
      atomic_fetch_add(&p->sleepers, 1);
      while (atomic_load(&p->gen) == seen) pthread_cond_wait(&p->cv, &p->mu);
      atomic_fetch_sub(&p->sleepers, 1);
      pthread_mutex_unlock(&p->mu);
      spins = 0;
    }
    seen = g;
    if (atomic_load_explicit(&p->stop, memory_order_acquire)) return NULL;
    p->fn(p->arg, wa.ith, p->n);
    atomic_fetch_sub_explicit(&p->pending, 1, memory_order_release);
  }
}

/* publish bumps the generation and wakes sleeping workers. */
static void publish(lrt_pool *p) {
  atomic_fetch_add(&p->gen, 1); /* seq_cst: ordered before the sleepers load */
  if (atomic_load(&p->sleepers) > 0) {
    pthread_mutex_lock(&p->mu);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
  }
}

lrt_pool *lrt_pool_new(int32_t nthreads) {
  if (nthreads < 1) nthreads = 1;
  if (nthreads > 512) nthreads = 512;
  lrt_pool *p = calloc(1, sizeof(*p));
  if (!p) return NULL;
  p->n = nthreads;
  pthread_mutex_init(&p->op_mu, NULL);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  p->threads = calloc((size_t)nthreads, sizeof(pthread_t));
  if (!p->threads) {
    free(p);
    return NULL;
  }
  for (int i = 1; i < nthreads; i++) {
    worker_arg *wa = malloc(sizeof(*wa));
    if (wa) {
      wa->p = p;
      wa->ith = i;
    }
    if (!wa || pthread_create(&p->threads[i], NULL, worker, wa) != 0) {
      free(wa);
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
  publish(p);
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

void pool_begin(lrt_pool *p) { pthread_mutex_lock(&p->op_mu); }
void pool_end(lrt_pool *p) { pthread_mutex_unlock(&p->op_mu); }

void pool_run(lrt_pool *p, task_fn fn, void *arg) {
  if (p->n == 1) {
    fn(arg, 0, 1);
    return;
  }
  p->fn = fn;
  p->arg = arg;
  atomic_store_explicit(&p->pending, p->n - 1, memory_order_relaxed);
  publish(p);
  fn(arg, 0, p->n);
  while (atomic_load_explicit(&p->pending, memory_order_acquire) > 0) cpu_relax();
}

void *pool_scratch(lrt_pool *p, size_t n) {
  if (n <= p->scratch_cap) return p->scratch;
  free(p->scratch);
  size_t cap = (n + 63) & ~(size_t)63;
  p->scratch = aligned_alloc(64, cap);
  p->scratch_cap = p->scratch ? cap : 0;
  return p->scratch;
}
