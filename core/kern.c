/* kern — the hot loops of the cpu, memory, threads and mutex scenarios. */
#include "kern.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A mutex alone on its cache lines (sysbench's mutex test pads its own). */
typedef struct {
    pthread_mutex_t mu;
    char pad[256];
} padded_mutex;

struct lb_kern {
    char *key;
    int refs;
    struct lb_kern *next;
    int nlocks, padded;
    void *locks;              /* pthread_mutex_t[nlocks] or padded_mutex[nlocks] */
    atomic_uint turn;         /* threads: the next lock in turn */
    unsigned counter;         /* mutex: incremented under the chosen lock */
    int nbufs, huge;
    size_t buf_bytes, map_bytes;
    size_t **bufs;
};

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static lb_kern *reg_head;

static pthread_mutex_t *lock_at(lb_kern *k, unsigned i)
{
    return k->padded ? &((padded_mutex *)k->locks)[i].mu : &((pthread_mutex_t *)k->locks)[i];
}

static void kern_free(lb_kern *k)
{
    if (k->locks) {
        for (int i = 0; i < k->nlocks; i++)
            pthread_mutex_destroy(lock_at(k, (unsigned)i));
        free(k->locks);
    }
    for (int i = 0; k->bufs && i < k->nbufs; i++) {
        if (!k->bufs[i])
            continue;
        if (k->huge)
            munmap(k->bufs[i], k->map_bytes);
        else
            free(k->bufs[i]);
    }
    free(k->bufs);
    free(k->key);
    free(k);
}

/* One block: page-aligned, or mapped from the HugeTLB pool. */
static size_t *block_new(lb_kern *k, char *err, int errlen)
{
    void *p = NULL;
    if (k->huge) {
        const size_t huge_page = 2u << 20;
        k->map_bytes = (k->buf_bytes + huge_page - 1) / huge_page * huge_page;
        p = mmap(NULL, k->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
        if (p == MAP_FAILED) {
            snprintf(err, (size_t)errlen, "Failed to allocate %zu bytes from HugeTLB memory: %s", k->map_bytes,
                     strerror(errno));
            return NULL;
        }
    } else {
        long page = sysconf(_SC_PAGESIZE);
        if (posix_memalign(&p, page > 0 ? (size_t)page : 4096, k->buf_bytes) != 0) {
            snprintf(err, (size_t)errlen, "Failed to allocate a %zu-byte buffer", k->buf_bytes);
            return NULL;
        }
    }
    memset(p, 0, k->buf_bytes);
    return p;
}

static int kern_init(lb_kern *k, int nlocks, int padded, int nbufs, int64_t buf_bytes, int hugetlb, char *err,
                     int errlen)
{
    k->nlocks = nlocks > 0 ? nlocks : 0;
    k->padded = padded;
    if (k->nlocks) {
        k->locks = calloc((size_t)k->nlocks, padded ? sizeof(padded_mutex) : sizeof(pthread_mutex_t));
        if (!k->locks) {
            snprintf(err, (size_t)errlen, "Memory allocation failure!");
            return -1;
        }
        for (int i = 0; i < k->nlocks; i++)
            pthread_mutex_init(lock_at(k, (unsigned)i), NULL);
    }
    k->nbufs = nbufs > 0 ? nbufs : 0;
    k->huge = hugetlb;
    k->buf_bytes = buf_bytes > 0 ? (size_t)buf_bytes : 0;
    if (k->nbufs && k->buf_bytes) {
        if (!(k->bufs = calloc((size_t)k->nbufs, sizeof(*k->bufs)))) {
            snprintf(err, (size_t)errlen, "Failed to allocate buffers array!");
            return -1;
        }
        for (int i = 0; i < k->nbufs; i++)
            if (!(k->bufs[i] = block_new(k, err, errlen)))
                return -1;
    }
    return 0;
}

static lb_kern *reg_find(const char *key)
{
    for (lb_kern *k = reg_head; k; k = k->next)
        if (strcmp(k->key, key) == 0)
            return k;
    return NULL;
}

lb_kern *lb_kern_open(const char *key, int nlocks, int padded, int nbufs, int64_t buf_bytes, int hugetlb,
                      char *err, int errlen)
{
    if (err && errlen > 0)
        err[0] = '\0';
    char dummy[8];
    if (!err || errlen <= 0) {
        err = dummy;
        errlen = (int)sizeof(dummy);
    }
    if (!key)
        return NULL;
    pthread_mutex_lock(&reg_mu);
    lb_kern *k = reg_find(key);
    if (k) {
        k->refs++;
        pthread_mutex_unlock(&reg_mu);
        return k;
    }
    k = calloc(1, sizeof(*k));
    if (!k || !(k->key = strdup(key)) || kern_init(k, nlocks, padded, nbufs, buf_bytes, hugetlb, err, errlen) != 0) {
        if (!k || !k->key)
            snprintf(err, (size_t)errlen, "Memory allocation failure!");
        if (k)
            kern_free(k);
        pthread_mutex_unlock(&reg_mu);
        return NULL;
    }
    k->refs = 1;
    k->next = reg_head;
    reg_head = k;
    pthread_mutex_unlock(&reg_mu);
    return k;
}

lb_kern *lb_kern_lookup(const char *key)
{
    pthread_mutex_lock(&reg_mu);
    lb_kern *k = key ? reg_find(key) : NULL;
    pthread_mutex_unlock(&reg_mu);
    return k;
}

void lb_kern_close(lb_kern *k)
{
    if (!k)
        return;
    pthread_mutex_lock(&reg_mu);
    if (--k->refs > 0) {
        pthread_mutex_unlock(&reg_mu);
        return;
    }
    for (lb_kern **pp = &reg_head; *pp; pp = &(*pp)->next)
        if (*pp == k) {
            *pp = k->next;
            break;
        }
    pthread_mutex_unlock(&reg_mu);
    kern_free(k);
}

/* Trial division of every c below `max`, as sysbench's cpu event does it.
 * `count` is a constant at each call, so each caller gets its own copy:
 * the event's copy keeps no count, as sysbench's compiled event keeps none
 * (it never uses its count), so that both run the same instructions; the
 * empty asm tells the compiler the divisions are wanted. */
static inline uint64_t trial_divisions(uint32_t max, int count)
{
    uint64_t n = 0;
    for (unsigned long long c = 3; c < max; c++) {
        double t = sqrt((double)c);
        unsigned long long l;
        for (l = 2; l <= t; l++)
            if (c % l == 0)
                break;
        if (count)
            n += l > t;
        else
            __asm__ __volatile__("" : : "r"(l));
    }
    return n;
}

uint64_t lb_kern_primes(uint32_t max) { return trial_divisions(max, 1); }

void lb_kern_cpu_event(uint32_t max) { (void)trial_divisions(max, 0); }

/* Word-wise accesses the compiler keeps one by one, as sysbench's
 * ck_pr_load/store do: the loop measures the memory, not the vectorizer. */
#define LOAD(p) (*(volatile size_t *)(p))
#define STORE(p, v) (*(volatile size_t *)(p) = (v))
#define BARRIER() __asm__ __volatile__("" ::: "memory")

void lb_kern_memory(lb_kern *k, int buf, int op, int rnd, lb_rand *r)
{
    if (!k || buf < 0 || buf >= k->nbufs)
        return;
    size_t *b = k->bufs[buf];
    size_t words = k->buf_bytes / sizeof(size_t);
    if (rnd) {
        for (size_t i = 0; i < words; i++) {
            size_t off = (size_t)(lb_rand_double(r) * (double)words);
            if (op == LB_KERN_MEM_READ)
                (void)LOAD(b + off);
            else if (op == LB_KERN_MEM_WRITE)
                STORE(b + off, i);
            else
                BARRIER();
        }
        return;
    }
    size_t *end = b + words;
    if (op == LB_KERN_MEM_READ)
        for (size_t *p = b; p < end; p++)
            (void)LOAD(p);
    else if (op == LB_KERN_MEM_WRITE)
        for (size_t *p = b; p < end; p++)
            STORE(p, (size_t)(end - p));
    else
        for (size_t *p = b; p < end; p++)
            BARRIER();
}

void lb_kern_threads(lb_kern *k, uint32_t yields)
{
    if (!k || k->nlocks <= 0)
        return;
    unsigned i = atomic_fetch_add_explicit(&k->turn, 1, memory_order_relaxed) % (unsigned)k->nlocks;
    pthread_mutex_t *mu = lock_at(k, i);
    for (uint32_t y = 0; y < yields; y++) {
        pthread_mutex_lock(mu);
        sched_yield();
        pthread_mutex_unlock(mu);
    }
}

void lb_kern_mutex(lb_kern *k, uint32_t locks, uint32_t loops, lb_rand *r)
{
    if (!k || k->nlocks <= 0)
        return;
    do {
        unsigned i = (unsigned)lb_rand_uniform(r, 0, k->nlocks - 1);
        for (uint32_t l = 0; l < loops; l++)
            BARRIER();
        pthread_mutex_t *mu = lock_at(k, i);
        pthread_mutex_lock(mu);
        k->counter++;
        pthread_mutex_unlock(mu);
    } while (locks > 0 && --locks > 0);
}
