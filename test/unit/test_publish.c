/* Every tool's finished document reaches an embedder (issue 28: one way
 * out for a document, lua/lbench/result/publish.lua): after fileio's prepare,
 * precondition and verify through the C API, lb_runtime_result_json holds
 * the command's document, and a command's report goes through the output
 * callback, not the process's stdout. */
#include "lbench.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_output(void *ud, const char *text, size_t len)
{
    size_t *seen = ud;
    (void)text;
    *seen += len;
}

/* Run `command` of fileio on the set in `dir` with the options given as
 * name, value pairs (NULL-terminated); returns the runtime for checks. */
static lb_runtime *fileio(const char *dir, const char *command, size_t *seen, const char *const *opts)
{
    lb_runtime *rt = lb_runtime_new();
    if (!rt)
        return NULL;
    lb_runtime_set_output(rt, on_output, seen);
    int rc = lb_runtime_set_option(rt, "target-dir", dir);
    for (int i = 0; rc == 0 && opts[i]; i += 2)
        rc = lb_runtime_set_option(rt, opts[i], opts[i + 1]);
    if (rc == 0)
        rc = lb_runtime_load(rt, "scenarios/fileio.lua");
    if (rc == 0)
        rc = lb_runtime_command(rt, command);
    if (rc != 0)
        printf("# fileio %s: %s\n", command, lb_runtime_error(rt));
    return rt;
}

static void expect_document(const char *dir, const char *command, const char *key, const char *const *opts)
{
    size_t seen = 0;
    lb_runtime *rt = fileio(dir, command, &seen, opts);
    const char *doc = rt ? lb_runtime_result_json(rt) : NULL;
    char name[64];
    snprintf(name, sizeof name, "embedded_result_%s", command);
    check(doc && strstr(doc, key) && strstr(doc, "\"lbench_version\""), name, "result JSON after fileio %s: %.200s",
          command, doc ? doc : "(NULL)");
    snprintf(name, sizeof name, "embedded_output_%s", command);
    check(seen > 0, name, "nothing reached the output callback");
    lb_runtime_free(rt);
}

int main(void)
{
    char dir[] = "/tmp/lbench-test-publish.XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    static const char *const size[] = { "file-num", "2", "file-total-size", "2M", NULL };
    static const char *const pre[] = { "file-test-mode", "rndwr", "ioengine", "null", "precondition", "seq1m:1x", NULL };
    static const char *const none[] = { NULL };
    size_t seen = 0;
    lb_runtime_free(fileio(dir, "prepare", &seen, size));
    expect_document(dir, "precondition", "\"precondition\"", pre);
    expect_document(dir, "verify", "\"verify\"", none);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", dir);
    return check_exit();
}
