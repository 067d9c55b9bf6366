/* Kernel variants and Kconfig text (lab/core/kvariant.c, kconfig.c, kkey.c), and the kernel
 * facts a guest sends (lab/core/collect.c).
 *
 * Data-driven:
 *  - lab/tests/data/kvariant/NAME.json: a variant; NAME.expected is either the parsed variant
 *    as JSON (relative paths resolve against "/K") or, for err-*, the one error line.
 *  - lab/tests/data/kconfig/frag-NAME.config: a fragment checked against the recorded .config
 *    named on its first line ("# against: baseline.config"); NAME.expected holds the mismatch
 *    lines, or "ok".  Every shipped variant is checked against its recorded .config.
 *  - lab/tests/data/kguest/NAME.jsonl: a results channel; NAME.expected what the report shows.
 *  - lab/tests/data/patch-output/NAME.txt: what GNU patch printed for a patch that did not
 *    apply; NAME.expected the file the lab names as failing (kpatch_failing_file).
 * Golden (UPDATE_GOLDEN=1 rewrites): the merge of fragments onto a base, the report's config
 * subset and confounds for each recorded .config, and the cache keys of a fixed input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/collect.h"
#include "core/kvariant.h"
#include "tap.h"
#include "testutil.h"
#include "util/strbuf.h"

static int update;

/* Compare text with lab/tests/golden/NAME (or rewrite it). */
static void golden(const char *name, const char *text)
{
	_cleanup_free_ char *path = NULL, *want = NULL;

	if (asprintf(&path, "%s/lab/tests/golden/%s", testutil_root(), name) < 0)
		return;
	if (update) {
		tap_ok(fs_write_atomic(path, text, strlen(text)) == 0, "golden %s rewritten", name);
		return;
	}
	if (fs_read_file(path, TESTUTIL_MAX_FILE, &want, NULL) < 0) {
		tap_ok(0, "golden %s missing (run with UPDATE_GOLDEN=1)", name);
		return;
	}
	if (!tap_ok(!strcmp(want, text), "matches golden %s", name))
		printf("# got:\n%s\n", text);
}

static json_t *variant_dump(const struct kvariant *v)
{
	static const char *const types[] = {"debian", "git", "url"};
	json_t *p = json_array(), *f = json_array();

	for (unsigned i = 0; i < v->nr_patches; i++)
		json_array_append_new(p, json_pack("{s:s,s:s,s:s}", "path", v->patches[i].path,
						   "url", v->patches[i].url, "sha256",
						   v->patches[i].sha256));
	for (unsigned i = 0; i < v->nr_fragments; i++)
		json_array_append_new(f, json_string(v->fragments[i]));
	return json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s,s:s},s:s,s:o,s:o}", "name", v->name,
			 "description", v->description, "source", "type", types[v->src.type],
			 "package", v->src.package, "path", v->src.path, "ref", v->src.ref, "url",
			 v->src.url, "sha256", v->src.sha256, "base", v->base, "patches", p,
			 "config", f);
}

static void variant_cases(void)
{
	_cleanup_json_dir_ struct testutil_json_dir d;

	testutil_json_dir_open(&d, "lab/tests/data/kvariant");
	tap_ok(d.n > 0, "kvariant data directory has cases");
	for (int i = 0; i < d.n; i++) {
		const char *name = d.ents[i]->d_name;
		_cleanup_free_ char *jpath = fs_join(d.dir, name), *expected = NULL;
		_cleanup_json_ json_t *j = NULL;
		struct lab_error err = {0};
		struct kvariant v;
		char base[64], got[1024];
		int r;

		expected = testutil_read_expected(jpath, name);
		if (!expected)
			continue;
		snprintf(base, sizeof(base), "%.*s", (int)strlen(name) - 5, name);
		r = jsonio_load_file(jpath, TESTUTIL_MAX_FILE, &j, &err);
		if (r == 0)
			r = kvariant_from_json(j, strstr(base, "name-bad") ? "Bad Name" : base, "/K",
					       &v, &err);
		if (!strncmp(name, "err-", 4)) {
			/* The loader names the file; the case is about path and reason. */
			snprintf(got, sizeof(got), "%s%s%s", err.path, err.path[0] ? ": " : "",
				 err.msg);
			testutil_check_error(name, r, got, expected);
			tap_ok(r < 0 && !v.patches && !v.fragments, "%s: nothing left allocated", name);
			continue;
		}
		if (!tap_ok(r == 0, "%s: parses%s%s", name, r ? ": " : "", r ? err.msg : ""))
			continue;
		_cleanup_json_ json_t *have = variant_dump(&v);

		testutil_check_json(name, "variant", have, expected);
		kvariant_free(&v);
	}
}

static int load_config(const char *rel, struct kconfig *c, char **text)
{
	_cleanup_free_ char *path = NULL;
	struct lab_error err = {0};

	if (asprintf(&path, "%s/%s", testutil_root(), rel) < 0 ||
	    fs_read_file(path, KCONFIG_MAX_TEXT, text, NULL) < 0)
		return -ENOENT;
	return kconfig_parse(*text, 0, c, &err);
}

/* The mismatch lines of fragments (files, relative to the root) against a recorded config. */
static char *check_lines(const char *const *frag_files, unsigned n, const char *recorded)
{
	_cleanup_free_ char *ftext = NULL;
	struct kconfig fin, frags[8];
	struct kmismatch mm[16];
	struct strbuf sb = STRBUF_INIT;
	char *out = NULL;
	unsigned bad;

	if (load_config(recorded, &fin, &ftext) < 0)
		return strdup("cannot read the recorded config");
	for (unsigned i = 0; i < n; i++) {
		_cleanup_free_ char *path = fs_join(testutil_root(), frag_files[i]), *t = NULL;
		struct lab_error err = {0};

		if (fs_read_file(path, TESTUTIL_MAX_FILE, &t, NULL) < 0 ||
		    kconfig_parse(t, 1, &frags[i], &err) < 0) {
			strbuf_appendf(&sb, "%s: %s", frag_files[i], err.msg);
			n = i;
			break;
		}
	}
	bad = kconfig_check(frags, frag_files, n, &fin, mm, 16);
	for (unsigned i = 0; i < bad && i < 16; i++) {
		char line[1024];

		kmismatch_format(&mm[i], line, sizeof(line));
		strbuf_appendf(&sb, "%s%s", sb.len ? "\n" : "", line);
	}
	if (!sb.len && !bad)
		strbuf_append(&sb, "ok");
	for (unsigned i = 0; i < n; i++)
		kconfig_free(&frags[i]);
	kconfig_free(&fin);
	strbuf_take(&sb, &out);
	return out;
}

static int filter_frag(const struct dirent *d)
{
	return !strncmp(d->d_name, "frag-", 5) && strstr(d->d_name, ".config") &&
	       !strcmp(d->d_name + strlen(d->d_name) - 7, ".config");
}

static void fragment_cases(void)
{
	_cleanup_free_ char *dir = fs_join(testutil_root(), "lab/tests/data/kconfig");
	struct dirent **ents = NULL;
	int n = dir ? scandir(dir, &ents, filter_frag, alphasort) : -1;

	tap_ok(n > 0, "fragment cases present");
	for (int i = 0; i < n; i++) {
		_cleanup_free_ char *rel = NULL, *text = NULL, *got = NULL, *exp = NULL, *ep = NULL;
		char against[128] = "";
		const char *files[1];

		if (asprintf(&rel, "lab/tests/data/kconfig/%s", ents[i]->d_name) < 0)
			break;
		_cleanup_free_ char *path = fs_join(testutil_root(), rel);

		if (fs_read_file(path, TESTUTIL_MAX_FILE, &text, NULL) == 0)
			sscanf(text, "# against: %127s", against);
		files[0] = rel;
		_cleanup_free_ char *recorded = NULL;

		if (asprintf(&recorded, "lab/tests/data/kconfig/%s", against) < 0)
			break;
		got = check_lines(files, 1, recorded);
		if (asprintf(&ep, "%.*s.expected", (int)strlen(path) - 7, path) < 0 ||
		    fs_read_file(ep, TESTUTIL_MAX_FILE, &exp, NULL) < 0) {
			tap_ok(0, "%s: read its .expected", ents[i]->d_name);
			free(ents[i]);
			continue;
		}
		testutil_chomp(exp);
		if (!tap_ok(got && !strcmp(got, exp), "%s against %s: as expected", ents[i]->d_name,
			    against))
			printf("# got: %s\n", got ? got : "(null)");
		free(ents[i]);
	}
	free(ents);
}

/* The shipped variants' requests all stick on the recorded configs of those variants. */
static void shipped_variants(void)
{
	static const struct {
		const char *variant, *recorded;
		const char *frags[3];
		unsigned n;
	} v[] = {
		{ "baseline", "baseline.config", { "kernels/base.config" }, 1 },
		{ "no-per-vma-lock", "no-per-vma-lock.config",
		  { "kernels/base.config", "kernels/fragments/no-per-vma-lock.config" }, 2 },
		{ "no-split-pmd-ptlock", "no-split-pmd-ptlock.config",
		  { "kernels/base.config", "kernels/fragments/no-split-pmd-ptlock.config" }, 2 },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		_cleanup_free_ char *rec = NULL, *got = NULL;

		if (asprintf(&rec, "lab/tests/data/kconfig/%s", v[i].recorded) < 0)
			return;
		got = check_lines(v[i].frags, v[i].n, rec);
		if (!tap_ok(got && !strcmp(got, "ok"), "kernels/%s.json: every option sticks on %s",
			    v[i].variant, v[i].recorded))
			printf("# got: %s\n", got ? got : "(null)");
	}
}

static void parse_errors(void)
{
	static const struct {
		const char *text, *err;
	} c[] = {
		{ "CONFIG_A=y\nCONFIG_B\n", "line 2: expected CONFIG_NAME=VALUE or \"# CONFIG_NAME is "
		  "not set\"" },
		{ "CONFIG_A=\n", "line 1: expected CONFIG_NAME=VALUE or \"# CONFIG_NAME is not set\"" },
		{ "A=y\n", "line 1: expected CONFIG_NAME=VALUE or \"# CONFIG_NAME is not set\"" },
		{ "CONFIG_A-B=y\n", "line 1: expected CONFIG_NAME=VALUE or \"# CONFIG_NAME is not "
		  "set\"" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct kconfig k;
		struct lab_error err = {0};
		int r = kconfig_parse(c[i].text, 1, &k, &err);

		tap_ok(r == -EINVAL && !strcmp(err.msg, c[i].err) && k.n == 0 && !k.opts,
		       "fragment parse error %zu: %s", i, c[i].err);
	}
	struct kconfig k;
	struct lab_error err = {0};

	tap_ok(kconfig_parse("# comment\n\nCONFIG_A=\"x y\"\n# CONFIG_B is not set\nCONFIG_A=2\n",
			     1, &k, &err) == 0 && k.n == 3 && !strcmp(kconfig_get(&k, "A"), "2") &&
		       !strcmp(kconfig_get(&k, "B"), "n") && !kconfig_get(&k, "C"),
	       "comments skipped, not-set is n, a later line wins");
	kconfig_free(&k);
}

/* Which file of a build boots: the vmlinux only when the final .config has PVH built in. */
static void boot_image_cases(void)
{
	static const struct {
		const char *config, *image;
	} c[] = {
		{ "CONFIG_PVH=y\nCONFIG_HYPERVISOR_GUEST=y\n", "vmlinux" },
		{ "CONFIG_HYPERVISOR_GUEST=y\n# CONFIG_PVH is not set\n", "bzImage" },
		{ "CONFIG_SMP=y\n", "bzImage" },
		{ "CONFIG_PVH=y\n# CONFIG_PVH is not set\n", "bzImage" }, /* the later line wins */
		{ "", "bzImage" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		tap_ok(!strcmp(kconfig_boot_image(c[i].config), c[i].image), "boot image %zu: %s",
		       i, c[i].image);
	tap_ok(!strcmp(kconfig_boot_image(NULL), "bzImage"), "boot image of no config: bzImage");
}

static void merge_golden(void)
{
	const char *base = "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=1\n# a comment\nCONFIG_D=y\n";
	const char *f1 = "CONFIG_B=y\n# CONFIG_D is not set\nCONFIG_E=m\n";
	const char *f2 = "CONFIG_C=2\nCONFIG_E=y\n";
	struct kconfig fr[2];
	struct lab_error err = {0};
	_cleanup_free_ char *out = NULL;

	kconfig_parse(f1, 1, &fr[0], &err);
	kconfig_parse(f2, 1, &fr[1], &err);
	tap_ok(kconfig_merge(base, fr, 2, &out) == 0, "merge runs");
	golden("kconfig-merge.config", out ? out : "");
	kconfig_free(&fr[0]);
	kconfig_free(&fr[1]);
}

static void report_golden(void)
{
	static const char *const recs[] = {"baseline", "no-per-vma-lock", "no-split-pmd-ptlock"};
	_cleanup_free_ char *btext = NULL, *bpath = fs_join(testutil_root(), "kernels/base.config");
	struct kconfig base;
	struct lab_error err = {0};

	if (!bpath || fs_read_file(bpath, TESTUTIL_MAX_FILE, &btext, NULL) < 0 ||
	    kconfig_parse(btext, 1, &base, &err) < 0) {
		tap_ok(0, "kernels/base.config parses");
		return;
	}
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		_cleanup_free_ char *rel = NULL, *text = NULL, *dump = NULL, *gname = NULL;
		_cleanup_json_ json_t *j = NULL;
		struct kconfig c;

		if (asprintf(&rel, "lab/tests/data/kconfig/%s.config", recs[i]) < 0 ||
		    load_config(rel, &c, &text) < 0 ||
		    asprintf(&gname, "kconfig-report-%s.json", recs[i]) < 0)
			continue;
		j = json_pack("{s:o,s:o}", "options", kconfig_subset(&c, &base, 1), "confounds",
			      kconfig_confounds(&c));
		dump = j ? json_dumps(j, JSON_SORT_KEYS | JSON_INDENT(2)) : NULL;
		golden(gname, dump ? dump : "");
		kconfig_free(&c);
	}
	kconfig_free(&base);
}

static void key_cases(void)
{
	const char *p[] = {"1111111111111111111111111111111111111111111111111111111111111111",
			   "2222222222222222222222222222222222222222222222222222222222222222"};
	const char *p_rev[] = {p[1], p[0]};
	const char *f[] = {"3333333333333333333333333333333333333333333333333333333333333333"};
	struct kkey_input in = { .source_id = "debian:linux-source-6.12:sha256:abc",
				 .patch_sha256 = p, .nr_patches = 2, .config_sha256 = "cfg",
				 .base = "tinyconfig", .fragment_sha256 = f, .nr_fragments = 1,
				 .compiler = "gcc (Debian 12.2.0-14) 12.2.0" };
	char a[65], r[65], s[65], a2[65], txt[512];

	tap_ok(kkey_artifact(&in, a) == 0 && kkey_recipe(&in, r) == 0 && kkey_source(&in, s) == 0,
	       "keys computed");
	snprintf(txt, sizeof(txt), "artifact %s\nrecipe %s\nsource %s\n", a, r, s);
	golden("kkey.txt", txt);
	tap_ok(kkey_artifact(&in, a2) == 0 && !strcmp(a, a2), "same input, same key");
	in.patch_sha256 = p_rev;
	tap_ok(kkey_artifact(&in, a2) == 0 && strcmp(a, a2), "patch order changes the key");
	in.patch_sha256 = p;
	in.config_sha256 = "cfg2";
	tap_ok(kkey_artifact(&in, a2) == 0 && strcmp(a, a2), "the final .config changes it");
	kkey_recipe(&in, a2);
	tap_ok(!strcmp(r, a2), "the recipe key does not depend on the final .config");
	in.config_sha256 = "cfg";
	in.compiler = "gcc 13";
	tap_ok(kkey_artifact(&in, a2) == 0 && strcmp(a, a2), "the compiler changes it");
	in.compiler = "gcc\n13";
	tap_ok(kkey_artifact(&in, a2) == -EINVAL, "an input with a newline is refused");
}

/* What configuring reads: Kbuild's list in auto.conf.cmd, and the key over it. */
static void kconfig_input_cases(void)
{
	static const char cmd[] = "autoconfig := include/config/auto.conf\n\n"
				  "deps_config := \\\n\tKconfig \\\n\tmm/Kconfig \\\n"
				  "\tscripts/Kconfig.include \\\n\n"
				  "$(autoconfig): $(deps_config)\n$(deps_config): ;\n";
	static const char *const bad[] = {
		"no list here\n",
		"deps_config := \\\n\n",
		"deps_config := \\\n\t/etc/passwd \\\n\n",
		"deps_config := \\\n\t../outside/Kconfig \\\n\n",
		"deps_config := \\\n\tmm/../../Kconfig \\\n\n",
		"deps_config := \\\n\ttwo words \\\n\n",
		"xdeps_config := \\\n\tKconfig \\\n\n",
	};
	const char *f[] = {"3333333333333333333333333333333333333333333333333333333333333333"};
	struct kkey_input in = { .source_id = "git:1", .base = "tinyconfig", .fragment_sha256 = f,
				 .nr_fragments = 1, .compiler = "gcc (Debian 12.2.0-14) 12.2.0" };
	const char *files = "Kconfig aa\nmm/Kconfig bb\nscripts/cc-version.sh -\n";
	char k[65], k2[65], txt[160];
	char *list = NULL;

	tap_ok(kconfig_cmd_deps(cmd, &list) == 3 && list &&
	       !strcmp(list, "Kconfig\nmm/Kconfig\nscripts/Kconfig.include\n"),
	       "auto.conf.cmd: the three files Kconfig read, in order");
	free(list);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tap_ok(kconfig_cmd_deps(bad[i], &list) == -EINVAL && !list,
		       "auto.conf.cmd refused: case %zu", i);
		free(list);
	}
	tap_ok(kkey_kconfig(&in, files, k) == 0, "kconfig key computed");
	snprintf(txt, sizeof(txt), "kconfig %s\n", k);
	golden("kkey-kconfig.txt", txt);
	in.source_id = "git:2";
	tap_ok(kkey_kconfig(&in, files, k2) == 0 && !strcmp(k, k2),
	       "another commit with the same Kconfig files: the same key");
	tap_ok(kkey_kconfig(&in, "Kconfig aa\nmm/Kconfig cc\nscripts/cc-version.sh -\n", k2) == 0 &&
	       strcmp(k, k2), "a changed Kconfig file changes it");
	tap_ok(kkey_kconfig(&in, "Kconfig aa\nmm/Kconfig bb\n", k2) == 0 && strcmp(k, k2),
	       "a file gone from the list changes it");
	in.base = "defconfig";
	tap_ok(kkey_kconfig(&in, files, k2) == 0 && strcmp(k, k2), "the base changes it");
	in.base = "tinyconfig";
	in.nr_fragments = 0;
	tap_ok(kkey_kconfig(&in, files, k2) == 0 && strcmp(k, k2), "the fragments change it");
	in.nr_fragments = 1;
	in.compiler = "gcc 13";
	tap_ok(kkey_kconfig(&in, files, k2) == 0 && strcmp(k, k2), "the compiler changes it");
}

/* The kernel facts of a results channel, as the host's one reader (lab/core/collect.c) keeps
 * them; "bad" counts every line it ignored. */
static void guest_cases(void)
{
	_cleanup_free_ char *dir = fs_join(testutil_root(), "lab/tests/data/kguest");
	const char *names[] = {"ok", "no-config", "hostile"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		_cleanup_free_ char *path = NULL, *text = NULL, *exp = NULL, *ep = NULL;
		_cleanup_json_ json_t *have = NULL;
		struct guest_log g;
		size_t len = 0;

		if (asprintf(&path, "%s/%s.jsonl", dir, names[i]) < 0 ||
		    asprintf(&ep, "%s/%s.expected", dir, names[i]) < 0 ||
		    fs_read_file(path, TESTUTIL_MAX_FILE, &text, &len) < 0 ||
		    fs_read_file(ep, TESTUTIL_MAX_FILE, &exp, NULL) < 0 || collect_init(&g, 1) < 0) {
			tap_ok(0, "kguest %s: read the case", names[i]);
			continue;
		}
		collect_text(&g, text, len, 1);
		have = json_pack("{s:b,s:s?,s:s,s:o,s:i}", "seen", g.kernel.seen, "config",
				 g.kernel.config, "config_error", g.kernel.config_error, "vma_lock",
				 collect_vma_lock_json(&g.kernel), "bad", (int)g.bad_lines);
		testutil_chomp(exp);
		testutil_check_json(names[i], "guest kernel view", have, exp);
		collect_free(&g);
	}
}

static void patch_output_cases(void)
{
	_cleanup_free_ char *dir = fs_join(testutil_root(), "lab/tests/data/patch-output");
	const char *names[] = {"hunk-failed", "not-found-mbox", "garbage"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		_cleanup_free_ char *path = NULL, *ep = NULL, *text = NULL, *exp = NULL;
		char file[256];

		if (asprintf(&path, "%s/%s.txt", dir, names[i]) < 0 ||
		    asprintf(&ep, "%s/%s.expected", dir, names[i]) < 0 ||
		    fs_read_file(path, TESTUTIL_MAX_FILE, &text, NULL) < 0 ||
		    fs_read_file(ep, TESTUTIL_MAX_FILE, &exp, NULL) < 0) {
			tap_ok(0, "patch output %s: read the case", names[i]);
			continue;
		}
		testutil_chomp(exp);
		kpatch_failing_file(text, file, sizeof(file));
		if (!tap_ok(!strcmp(file, exp), "patch output %s: the failing file is %s", names[i],
			    exp))
			printf("# got: %s\n", file);
	}
}

/* kpatch_failing_hunk: the first FAILED hunk and its line; "" when patch names none. */
static void patch_hunk_cases(void)
{
	static const struct {
		const char *out, *want;
	} c[] = {
		{ "patching file mm/memory.c\nHunk #1 succeeded at 10 (offset 2 lines).\n"
		  "Hunk #2 FAILED at 4751.\n1 out of 2 hunks FAILED\n", "hunk #2 at line 4751" },
		{ "patching file mm/Kconfig\nHunk #1 FAILED at 4.\n", "hunk #1 at line 4" },
		{ "patch: **** Only garbage was found in the patch input.\n", "" },
		{ "Hunk #x FAILED at 3.\n", "" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char hunk[64];

		kpatch_failing_hunk(c[i].out, hunk, sizeof(hunk));
		if (!tap_ok(!strcmp(hunk, c[i].want), "failing hunk %zu: \"%s\"", i, c[i].want))
			printf("# got: %s\n", hunk);
	}
}

/* kpatch_check_text: every shipped and test patch is one; lab/tests/data/ab-refused's junk,
 * empty and binary files are not, with the reason their .expected gives. */
static void patch_text_cases(void)
{
	static const char *const good[] = {
		"kernels/patches/6.12/0001-mm-Kconfig-prompts-for-split-ptlocks-and-per-VMA-lock.patch",
		"kernels/patches/6.12/bench-anon-fault-cost.patch",
		"lab/tests/data/kernels/test-warn-fault.patch",
		"lab/tests/data/patches/comment-only-memory.patch",
		"lab/tests/data/ab-refused/wrong-context.patch",
	};
	static const char *const bad[] = { "junk", "empty", "binary" };
	char why[128];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		_cleanup_free_ char *path = fs_join(testutil_root(), good[i]), *text = NULL;
		size_t len = 0;
		int ok = fs_read_file(path, TESTUTIL_MAX_FILE, &text, &len) == 0 &&
			 kpatch_check_text(text, len, why, sizeof(why)) == 0;

		tap_ok(ok, "a patch: %s", good[i]);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		_cleanup_free_ char *path = NULL, *ep = NULL, *text = NULL, *exp = NULL;
		size_t len = 0;
		int ok;

		if (asprintf(&path, "%s/lab/tests/data/ab-refused/%s.patch", testutil_root(),
			     bad[i]) < 0 ||
		    asprintf(&ep, "%s/lab/tests/data/ab-refused/%s.expected", testutil_root(),
			     bad[i]) < 0 ||
		    fs_read_file(path, TESTUTIL_MAX_FILE, &text, &len) < 0 ||
		    fs_read_file(ep, TESTUTIL_MAX_FILE, &exp, NULL) < 0) {
			tap_ok(0, "not a patch %s: read the case", bad[i]);
			continue;
		}
		testutil_chomp(exp);
		ok = kpatch_check_text(text, len, why, sizeof(why)) == -EINVAL && strstr(why, exp);
		if (!tap_ok(ok, "not a patch: %s (%s)", bad[i], exp))
			printf("# got: %s\n", why);
	}
}

/* kvariant_extend: the base's relative paths made absolute, the child's patches and fragments
 * after the base's, its description, source and base over the base's; errors at their path. */
static void extend_cases(void)
{
	static const struct {
		const char *base, *child, *want;
	} c[] = {
		{ "{\"description\": \"b\", \"source\": {\"debian\": \"linux-source-6.12\"}, "
		  "\"patches\": [\"p/0001.patch\", {\"file\": \"p/2.patch\"}, {\"url\": "
		  "\"https://x/3\", \"sha256\": \"ab\"}], \"config\": [\"base.config\"]}",
		  "{\"extends\": \"baseline\", \"patches\": [\"mine.patch\"]}",
		  "{\"config\":[\"/K/base.config\"],\"description\":\"b (+ child)\",\"patches\":"
		  "[\"/K/p/0001.patch\",{\"file\":\"/K/p/2.patch\"},{\"sha256\":\"ab\",\"url\":"
		  "\"https://x/3\"},\"mine.patch\"],\"source\":{\"debian\":\"linux-source-6.12\"}}" },
		{ "{\"description\": \"b\", \"source\": {\"git\": \"linux\", \"ref\": \"v1\"}, "
		  "\"config\": [\"/abs.config\"], \"base\": \"defconfig\"}",
		  "{\"extends\": \"b\", \"description\": \"c\", \"base\": \"tinyconfig\", "
		  "\"config\": [\"f.config\"]}",
		  "{\"base\":\"tinyconfig\",\"config\":[\"/abs.config\",\"f.config\"],"
		  "\"description\":\"c\",\"source\":{\"git\":\"/K/linux\",\"ref\":\"v1\"}}" },
		{ "{}", "{\"extends\": \"b\", \"bogus\": 1}", "bogus: unknown key" },
		{ "{}", "{\"extends\": 3}", "extends: must be a variant name or path" },
		{ "{}", "{\"extends\": \"b\", \"patches\": \"x\"}",
		  "patches: must be an array (appended to the base's)" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		_cleanup_json_ json_t *b = json_loads(c[i].base, 0, NULL);
		_cleanup_json_ json_t *ch = json_loads(c[i].child, 0, NULL), *out = NULL;
		_cleanup_free_ char *got = NULL;
		struct lab_error err = { 0 };
		int r = kvariant_extend(b, "/K", ch, "child", &out, &err);

		if (r == 0)
			got = json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS);
		else if (asprintf(&got, "%s: %s", err.path, err.msg) < 0)
			got = NULL;
		if (!tap_ok(got && !strcmp(got, c[i].want), "extend case %zu", i))
			printf("# got:  %s\n# want: %s\n", got ? got : "(null)", c[i].want);
	}
}

/* A patch's subject: the first mail's, its [PATCH ...] tag off, a folded one unfolded. */
static void patch_subject_cases(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "From x\nSubject: [PATCH v2 3/7] mm: x\n\nbody\n", "mm: x" },
		{ "Subject: mm: first line\n", "mm: first line" },
		{ "From x\nSubject: [PATCH] mm/Kconfig: give SPLIT_PTE_PTLOCKS, and\n PER_VMA_LOCK "
		  "prompts\nDate: x\n", "mm/Kconfig: give SPLIT_PTE_PTLOCKS, and PER_VMA_LOCK prompts" },
		{ "Subject: a\r\n\tb\r\n\r\n", "a b" },
		{ "--- a/x\n+++ b/x\n@@ -1 +1 @@\n", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[200] = "";
		int r = kpatch_subject(cases[i].text, buf, sizeof(buf));

		tap_ok(cases[i].want ? r == 0 && !strcmp(buf, cases[i].want) : r == -ENOENT,
		       "patch subject %zu: \"%s\"", i, buf);
	}
}

int main(void)
{
	update = getenv("UPDATE_GOLDEN") && getenv("UPDATE_GOLDEN")[0] == '1';
	variant_cases();
	parse_errors();
	fragment_cases();
	boot_image_cases();
	shipped_variants();
	extend_cases();
	merge_golden();
	report_golden();
	key_cases();
	kconfig_input_cases();
	guest_cases();
	patch_output_cases();
	patch_hunk_cases();
	patch_text_cases();
	patch_subject_cases();
	return tap_done();
}
