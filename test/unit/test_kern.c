/* The micro-benchmark kernels (kern.c): the prime count, the shared state
 * by key with its references, and one call of each kernel. */
#include <stdlib.h>

#include "check.h"
#include "kern.h"
#include "rand.h"

int main(void)
{
    /* trial division from 3, as sysbench counts: 2 is not counted */
    check(lb_kern_primes(1000) == 167, "kern_primes_below_1000", "got %llu", (unsigned long long)lb_kern_primes(1000));
    check(lb_kern_primes(3) == 0, "kern_primes_below_3", "got %llu", (unsigned long long)lb_kern_primes(3));

    char err[128];
    lb_kern *k = lb_kern_open("test.kern", 4, 1, 2, 4096, 0, err, sizeof(err));
    check(k != NULL, "kern_open", "%s", err);
    check(lb_kern_lookup("test.kern") == k, "kern_lookup", "another object");
    check(lb_kern_open("test.kern", 1, 0, 0, 0, 0, err, sizeof(err)) == k, "kern_open_again_same", "another object");
    lb_kern_close(k);
    check(lb_kern_lookup("test.kern") == k, "kern_close_keeps_referenced", "gone after one close of two");

    lb_rand r;
    lb_rand_seed(&r, 1, 0);
    for (int op = LB_KERN_MEM_NONE; op <= LB_KERN_MEM_WRITE; op++)
        for (int rnd = 0; rnd <= 1; rnd++)
            lb_kern_memory(k, 1, op, rnd, &r);
    lb_kern_memory(k, 2, LB_KERN_MEM_WRITE, 0, &r);   /* no such block: nothing */
    lb_kern_threads(k, 3);
    lb_kern_mutex(k, 10, 5, &r);
    lb_kern_mutex(k, 0, 0, &r);
    check(1, "kern_calls", "");

    lb_kern_close(k);
    check(lb_kern_lookup("test.kern") == NULL, "kern_close_last_frees", "still registered");
    check(lb_kern_open("test.huge", 0, 0, 1, 1 << 20, 1, err, sizeof(err)) != NULL || err[0] != '\0',
          "kern_hugetlb_or_reason", "neither a block nor a reason");
    lb_kern_close(lb_kern_lookup("test.huge"));
    return check_exit();
}
