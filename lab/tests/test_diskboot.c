/* Booting from a disk image, the pure parts: the kernel release from a bzImage header, the
 * stage-1 module groups from modules.dep/modules.builtin (lab/tests/data/stage1/, excerpts of
 * Debian 6.1's), the stage-1 config, the domain XML with the overlay disk (golden
 * lab/tests/golden/domain-4s-8c-tcg-disk.xml, validated by virt-xml-validate) and the job's
 * "image" section.  UPDATE_GOLDEN=1 rewrites the goldens. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/diskplan.h"
#include "core/domain.h"
#include "core/job.h"
#include "tap.h"
#include "testutil.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/spawn.h"

static char *data(const char *name)
{
	_cleanup_free_ char *path = NULL;
	char *text = NULL;

	if (asprintf(&path, "%s/lab/tests/data/stage1/%s", testutil_root(), name) < 0 ||
	    fs_read_file(path, TESTUTIL_MAX_FILE, &text, NULL) < 0)
		return NULL;
	return text;
}

static void golden(const char *name, const char *text, char *path, size_t plen)
{
	_cleanup_free_ char *want = NULL;

	snprintf(path, plen, "%s/lab/tests/golden/%s", testutil_root(), name);
	if (getenv("UPDATE_GOLDEN")) {
		tap_ok(fs_write_atomic(path, text, strlen(text)) == 0, "%s: golden rewritten", name);
		return;
	}
	if (fs_read_file(path, TESTUTIL_MAX_FILE, &want, NULL) < 0) {
		tap_ok(0, "%s: read %s", name, path);
		return;
	}
	if (!tap_ok(!strcmp(want, text), "%s matches its golden file", name))
		printf("# got:\n%s\n", text);
}

static void test_release(void)
{
	unsigned char *k = calloc(1, 0x4000);
	const char version[] = "6.1.0-57-amd64 (debian-kernel@lists.debian.org) #1 SMP PREEMPT";
	char rel[128];

	if (!k)
		return;
	memcpy(k + 0x202, "HdrS", 4);
	k[0x20e] = 0x00; /* version string at 0x3000 + 0x200 */
	k[0x20f] = 0x30;
	memcpy(k + 0x3200, version, sizeof(version));
	tap_ok(diskplan_kernel_release(k, 0x4000, rel, sizeof(rel)) == 0 &&
	       !strcmp(rel, "6.1.0-57-amd64"), "bzImage release: %s", rel);
	tap_ok(diskplan_kernel_release(k, 0x3100, rel, sizeof(rel)) == -EINVAL,
	       "a version pointer past the end is refused");
	k[0x3203] = '/';
	tap_ok(diskplan_kernel_release(k, 0x4000, rel, sizeof(rel)) == -EINVAL,
	       "a release with '/' is refused (it becomes a path)");
	memcpy(k + 0x202, "HdrX", 4);
	tap_ok(diskplan_kernel_release(k, 0x4000, rel, sizeof(rel)) == -EINVAL,
	       "no HdrS magic: not a bzImage");
	free(k);
}

static char *dump(const json_t *j)
{
	return j ? json_dumps(j, JSON_COMPACT) : strdup("(null)");
}

static void modules_case(const char *desc, const char *builtin_file, const char *want)
{
	_cleanup_free_ char *dep = data("modules.dep"), *bi = data(builtin_file), *got = NULL;
	_cleanup_json_ json_t *groups = NULL;
	char why[256] = "";
	int r = diskplan_modules(dep, bi, diskplan_default_modules, diskplan_nr_default_modules,
				 &groups, why, sizeof(why));

	got = dump(groups);
	if (!tap_ok(r == 0 && !strcmp(got, want), "%s", desc))
		printf("# r=%d why=%s\n# got:  %s\n# want: %s\n", r, why, got, want);
}

static void test_modules(void)
{
	_cleanup_free_ char *dep = data("modules.dep");
	_cleanup_json_ json_t *groups = NULL, *cfg = NULL;
	_cleanup_free_ char *cfgs = NULL;
	const struct diskplan_want want_xfs[] = { { "virtio_blk", 0 }, { "btrfs", 0 } };
	char why[256] = "";

	modules_case("Debian 6.1: virtio, crc32c and ext4 with their dependencies first",
		     "builtin-none",
		     "[\"kernel/drivers/virtio/virtio_ring.ko\",\"kernel/drivers/virtio/virtio.ko\","
		     "\"kernel/drivers/virtio/virtio_pci_modern_dev.ko\","
		     "\"kernel/drivers/virtio/virtio_pci_legacy_dev.ko\","
		     "\"kernel/drivers/virtio/virtio_pci.ko\",\"kernel/drivers/block/virtio_blk.ko\","
		     "\"kernel/crypto/crc32c_generic.ko\","
		     "\"kernel/fs/jbd2/jbd2.ko\",\"kernel/fs/mbcache.ko\",\"kernel/lib/crc16.ko\","
		     "\"kernel/fs/ext4/ext4.ko\"]");
	modules_case("built-in virtio and crc32c are not loaded", "builtin-virtio",
		     "[\"kernel/fs/jbd2/jbd2.ko\",\"kernel/fs/mbcache.ko\",\"kernel/lib/crc16.ko\","
		     "\"kernel/fs/ext4/ext4.ko\"]");
	modules_case("built-in ext4 chain: only the disk drivers", "builtin-ext4",
		     "[\"kernel/drivers/virtio/virtio_ring.ko\",\"kernel/drivers/virtio/virtio.ko\","
		     "\"kernel/drivers/virtio/virtio_pci_modern_dev.ko\","
		     "\"kernel/drivers/virtio/virtio_pci_legacy_dev.ko\","
		     "\"kernel/drivers/virtio/virtio_pci.ko\",\"kernel/drivers/block/virtio_blk.ko\","
		     "\"kernel/crypto/crc32c_generic.ko\"]");
	tap_ok(diskplan_modules(dep, NULL, want_xfs, 2, &groups, why, sizeof(why)) == -ENOENT &&
	       strstr(why, "no btrfs"), "a required module neither built in nor a module: %s",
	       why);
	tap_ok(diskplan_modules(NULL, NULL, diskplan_default_modules, 1, &groups, why,
				sizeof(why)) == -ENOENT, "no modules.dep and nothing built in");
	json_decref(groups);
	groups = NULL;
	diskplan_modules(dep, NULL, diskplan_default_modules, diskplan_nr_default_modules, &groups,
			 why, sizeof(why));
	cfg = diskplan_config(groups);
	cfgs = dump(cfg);
	tap_ok(cfg && !strcmp(cfgs,
			      "{\"device\":\"/dev/vda1\",\"fstype\":\"ext4\",\"init\":\"/sbin/init\","
			      "\"modules\":[\"00-virtio_ring.ko\",\"01-virtio.ko\","
			      "\"02-virtio_pci_modern_dev.ko\",\"03-virtio_pci_legacy_dev.ko\","
			      "\"04-virtio_pci.ko\",\"05-virtio_blk.ko\",\"06-crc32c_generic.ko\","
			      "\"07-jbd2.ko\",\"08-mbcache.ko\",\"09-crc16.ko\",\"10-ext4.ko\"],"
			      "\"timeout_s\":30.0}"),
	       "stage-1 config numbers the module files in load order");
	if (strstr(cfgs, "modules") == NULL)
		printf("# %s\n", cfgs);
}

static int load_topology(const char *name, struct topology *t)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err = { 0 };
	int r;

	if (asprintf(&path, "%s/configs/topologies/%s.json", testutil_root(), name) < 0)
		return -ENOMEM;
	r = jsonio_load_file(path, TESTUTIL_MAX_FILE, &j, &err);
	return r < 0 ? r : topology_from_json(j, "topology", t, &err);
}

static void test_domain_disk(void)
{
	struct topology t = { 0 };
	_cleanup_free_ char *xml = NULL, *out = NULL;
	char path[4096];
	int status = -1;

	if (!tap_ok(load_topology("4s-8c", &t) == 0, "topology 4s-8c loads"))
		return;
	struct domain_spec spec = {
		.name = "numalab-test", .topo = &t, .accel = DOMAIN_ACCEL_TCG,
		.kernel = "/boot/vmlinuz", .initrd = "/run/stage1.cpio",
		.cmdline = "console=ttyS0 rdinit=/init", .console_path = "/run/console.log",
		.results_path = "/run/results.jsonl", .disk = "/run/overlay.qcow2",
	};
	tap_ok(domain_xml(&spec, &xml) == 0, "domain XML with the overlay disk");
	golden("domain-4s-8c-tcg-disk.xml", xml ? xml : "", path, sizeof(path));
	char *argv[] = { "virt-xml-validate", path, "domain", NULL };

	tap_ok(spawn_capture(argv, 65536, 60, &out, &status) == 0 && status == 0,
	       "the disk domain XML validates against libvirt's schema");
	spec.disk = "relative.qcow2";
	free(xml);
	xml = NULL;
	tap_ok(domain_xml(&spec, &xml) == -EINVAL, "a relative disk path is refused");
	topology_free(&t);
}

static int topo_loader(const char *ref, void *ud, json_t **out, struct lab_error *err)
{
	_cleanup_free_ char *path = NULL;

	(void)ud;
	if (asprintf(&path, "%s/configs/topologies/%s.json", testutil_root(), ref) < 0)
		return -ENOMEM;
	return jsonio_load_file(path, TESTUTIL_MAX_FILE, out, err);
}

static void test_job_image(void)
{
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err = { 0 };
	struct job job;

	jsonio_load_string("{\"name\": \"t\", \"topology\": \"4s-8c\", \"kernel\": {\"image\": "
			   "\"/boot/vmlinuz\"}, \"workloads\": [{\"name\": \"pft\"}], \"image\": "
			   "{\"recipe\": \"debian-perf\", \"collect\": [\"/var/log/*.log\", "
			   "\"/etc/motd\"], \"perf_stat\": true}, \"debug\": {\"fault\": \"panic\", "
			   "\"fault_after\": \"workloads\"}}", &j, &err);
	if (!tap_ok(job_from_json(j, topo_loader, NULL, &job, &err) == 0, "image job parses (%s)",
		    err.msg))
		return;
	tap_ok(!strcmp(job.image.recipe, "debian-perf") && job.image.nr_collect == 2 &&
	       !strcmp(job.image.collect[0], "/var/log/*.log"), "image.recipe and image.collect");
	tap_ok(job.image.nr_perf_events == 8 && !strcmp(job.image.perf_events[1], "page-faults"),
	       "perf_stat: true counts the default events");
	tap_ok(job.fault == FAULT_PANIC && job.fault_after_workloads,
	       "debug.fault_after \"workloads\"");
	job_free(&job);
	json_decref(j);
	jsonio_load_string("{\"name\": \"t\", \"topology\": \"4s-8c\", \"kernel\": {\"image\": "
			   "\"/boot/vmlinuz\"}, \"workloads\": [{\"name\": \"pft\"}]}", &j, &err);
	tap_ok(job_from_json(j, topo_loader, NULL, &job, &err) == 0 && !job.image.recipe[0] &&
	       !job.fault_after_workloads, "no image: the initramfs, fault after hello");
	job_free(&job);
}

int main(void)
{
	test_release();
	test_modules();
	test_domain_disk();
	test_job_image();
	return tap_done();
}
