/*
 * test_outfile.c — output files written safely (analyzer/outfile.h): the
 * old file kept until the new one is complete, a failed write leaving it as
 * it was, mode kept, a symlink kept, devices written through, directories
 * refused, nothing left beside the target.
 */
#define TU_NO_FIXTURE
#include "testutil.h"

#include "outfile.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/oc_outfile_XXXXXX";

static void path_in(char *buf, size_t n, const char *name) {
    snprintf(buf, n, "%s/%s", dir, name);
}

static void put(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void get(const char *path, char *buf, size_t n) {
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t k = fread(buf, 1, n - 1, f);
    buf[k] = 0;
    fclose(f);
}

/* entries of the directory besides . and .. */
static int entries(void) {
    DIR *dd = opendir(dir);
    assert_non_null(dd);
    int n = 0;
    for (struct dirent *e; (e = readdir(dd));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(dd);
    return n;
}

static void replaced_whole_or_not_at_all(void **state) {
    (void)state;
    char p[256], buf[64];
    struct oc_diag d = {0};
    struct oc_outfile o;
    path_in(p, sizeof p, "report.txt");
    put(p, "old");
    assert_int_equal(chmod(p, 0604), 0);
    assert_int_equal(oc_outfile_open(&o, p, &d), OC_OK);
    fputs("new", o.f);
    fflush(o.f);
    get(p, buf, sizeof buf); /* not in place until closed */
    assert_string_equal(buf, "old");
    assert_int_equal(entries(), 2);
    assert_int_equal(oc_outfile_close(&o, true, &d), OC_OK);
    get(p, buf, sizeof buf);
    assert_string_equal(buf, "new");
    struct stat sb;
    assert_int_equal(stat(p, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0604);
    assert_int_equal(entries(), 1);
    /* a failed run: the file stays, the temporary one goes */
    assert_int_equal(oc_outfile_open(&o, p, &d), OC_OK);
    fputs("partial", o.f);
    assert_int_equal(oc_outfile_close(&o, false, &d), OC_OK);
    get(p, buf, sizeof buf);
    assert_string_equal(buf, "new");
    assert_int_equal(entries(), 1);
    /* closing twice is harmless */
    assert_int_equal(oc_outfile_close(&o, true, &d), OC_OK);
    unlink(p);
}

static void symlink_kept(void **state) {
    (void)state;
    char target[256], link[256], buf[64];
    struct oc_diag d = {0};
    struct oc_outfile o;
    path_in(target, sizeof target, "target.json");
    path_in(link, sizeof link, "link.json");
    put(target, "old");
    assert_int_equal(symlink("target.json", link), 0);
    assert_int_equal(oc_outfile_open(&o, link, &d), OC_OK);
    fputs("new", o.f);
    assert_int_equal(oc_outfile_close(&o, true, &d), OC_OK);
    struct stat sb;
    assert_int_equal(lstat(link, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    get(target, buf, sizeof buf);
    assert_string_equal(buf, "new");
    assert_int_equal(entries(), 2);
    unlink(link);
    unlink(target);
}

static void devices_written_through(void **state) {
    (void)state;
    struct oc_diag d = {0};
    struct oc_outfile o;
    assert_int_equal(oc_outfile_open(&o, "/dev/null", &d), OC_OK);
    assert_null(o.tmp); /* written through, never replaced */
    fputs("discarded", o.f);
    assert_int_equal(oc_outfile_close(&o, true, &d), OC_OK);
    struct stat sb;
    assert_int_equal(stat("/dev/null", &sb), 0);
    assert_true(S_ISCHR(sb.st_mode));
    /* a full device: the error comes at close */
    assert_int_equal(oc_outfile_open(&o, "/dev/full", &d), OC_OK);
    fputs("x", o.f);
    assert_int_equal(oc_outfile_close(&o, true, &d), OC_ERR_IO);
    assert_string_equal(d.msg, "cannot write: No space left on device");
}

static void directories_refused(void **state) {
    (void)state;
    struct oc_diag d = {0};
    struct oc_outfile o;
    assert_int_equal(oc_outfile_open(&o, dir, &d), OC_ERR_USAGE);
    assert_string_equal(d.msg, "cannot write: is a directory");
    assert_null(o.f);
    assert_int_equal(entries(), 0);
}

static int setup(void **state) {
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    return rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(replaced_whole_or_not_at_all), cmocka_unit_test(symlink_kept),
                                       cmocka_unit_test(devices_written_through),
                                       cmocka_unit_test(directories_refused)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
