/*
 * check_hmap.c - the hash map and the string pool against brute force:
 * random insertions, replacements and deletions checked after every step
 * against a plain array, colliding hashed keys, and interning.
 */
#include "trace/hmap.h"
#include "trace/strpool.h"
#include "trace/trace.h"
#include "tests/check_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NKEYS 4096

/* A deterministic generator (xorshift64) so failures repeat. */
static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

START_TEST(test_exact_against_array)
{
	static uint64_t val[NKEYS];
	static int present[NKEYS];
	memset(present, 0, sizeof(present));
	struct hmap m;
	hmap_init(&m);
	uint64_t s = 88172645463325252ull;
	uint32_t count = 0;
	for (int step = 0; step < 200000; step++) {
		/* Keys 0..NKEYS-1 scaled so that some are 0 and some huge. */
		uint32_t k = (uint32_t)(rng(&s) % NKEYS);
		uint64_t key = (uint64_t)k * 0x9E3779B97F4A7C15ull;
		int op = (int)(rng(&s) % 3);
		if (op < 2) {
			uint64_t v = rng(&s);
			ck_assert_int_eq(hmap_put(&m, key, v), 0);
			if (!present[k])
				count++;
			present[k] = 1;
			val[k] = v;
		} else {
			ck_assert_int_eq(hmap_del(&m, key), present[k]);
			if (present[k])
				count--;
			present[k] = 0;
		}
		ck_assert_uint_eq(m.count, count);
		if (step % 997 == 0) {
			for (uint32_t j = 0; j < NKEYS; j++) {
				uint64_t *v = hmap_get(&m, (uint64_t)j * 0x9E3779B97F4A7C15ull);
				ck_assert_int_eq(v != NULL, present[j]);
				if (v)
					ck_assert_uint_eq(*v, val[j]);
			}
		}
	}
	/* Iteration visits each present key once. */
	uint32_t pos = 0, seen = 0;
	const struct hmap_slot *sl;
	while ((sl = hmap_next(&m, &pos)))
		seen++;
	ck_assert_uint_eq(seen, count);
	ck_assert_uint_le((uint64_t)m.count * 2, m.cap);
	hmap_release(&m);
	ck_assert_ptr_null(hmap_get(&m, 0));
}
END_TEST

/* Hashed keys whose hashes all collide (every key hashes to 7): equality
 * alone tells them apart, and deletion in the middle of the cluster keeps
 * the rest findable. */
static const char *const words[] = { "alpha", "beta", "gamma", "delta", "epsilon", "zeta",
				     "eta", "theta", "iota", "kappa" };
#define NWORDS (sizeof(words) / sizeof(words[0]))

static int word_eq(const void *ctx, uint64_t val, const void *key)
{
	(void)ctx;
	return strcmp(words[val], key) == 0;
}

START_TEST(test_hashed_collisions)
{
	struct hmap m;
	hmap_init(&m);
	for (uint64_t i = 0; i < NWORDS; i++) {
		uint64_t *out = NULL;
		ck_assert_int_eq(hmap_find_or_add(&m, 7, word_eq, NULL, words[i], i, &out), 0);
		ck_assert_uint_eq(*out, i);
	}
	for (uint64_t i = 0; i < NWORDS; i++) {
		uint64_t *out = NULL;
		ck_assert_int_eq(hmap_find_or_add(&m, 7, word_eq, NULL, words[i], 99, &out), 1);
		ck_assert_uint_eq(*out, i);
	}
	ck_assert_int_eq(hmap_remove(&m, 7, word_eq, NULL, "delta"), 1);
	ck_assert_int_eq(hmap_remove(&m, 7, word_eq, NULL, "delta"), 0);
	ck_assert_ptr_null(hmap_find(&m, 7, word_eq, NULL, "delta"));
	for (uint64_t i = 0; i < NWORDS; i++) {
		if (strcmp(words[i], "delta") == 0)
			continue;
		uint64_t *v = hmap_find(&m, 7, word_eq, NULL, words[i]);
		ck_assert_ptr_nonnull(v);
		ck_assert_uint_eq(*v, i);
	}
	ck_assert_ptr_null(hmap_find(&m, 8, word_eq, NULL, "alpha"));
	ck_assert_uint_eq(m.count, NWORDS - 1);
	hmap_release(&m);
}
END_TEST

START_TEST(test_hash_spreads)
{
	/* Consecutive numbers and one-byte-apart strings land in different
	 * slots of a 1024-slot table often enough: at most 1/4 collide. */
	uint32_t hit[1024] = { 0 }, coll = 0;
	for (uint64_t i = 0; i < 512; i++)
		coll += hit[hmap_hash_u64(i) & 1023]++ > 0;
	ck_assert_uint_lt(coll, 128);
	memset(hit, 0, sizeof(hit));
	coll = 0;
	char name[32];
	for (int i = 0; i < 512; i++) {
		int n = snprintf(name, sizeof(name), "kernel_%d", i);
		coll += hit[hmap_hash_bytes(name, (size_t)n) & 1023]++ > 0;
	}
	ck_assert_uint_lt(coll, 128);
	/* The mix is a bijection on the values tried: no two equal. */
	ck_assert_uint_ne(hmap_hash_u64(0), hmap_hash_u64(1));
}
END_TEST

START_TEST(test_strpool)
{
	struct strpool sp;
	strpool_init(&sp);
	char buf[64];
	int added;
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 20000; i++) {
			int n = snprintf(buf, sizeof(buf), "void kernel<%d>(float*)", i);
			int64_t id = strpool_intern(&sp, buf, (size_t)n, &added);
			ck_assert_int_eq(id, i);
			ck_assert_int_eq(added, round == 0);
		}
	}
	ck_assert_uint_eq(strpool_count(&sp), 20000);
	uint32_t len;
	const char *s = strpool_get(&sp, 12345, &len);
	ck_assert_str_eq(s, "void kernel<12345>(float*)");
	ck_assert_uint_eq(len, strlen(s));
	ck_assert_ptr_null(strpool_get(&sp, 20000, NULL));
	/* Embedded NULs and the empty string are strings of their own. */
	int64_t a = strpool_intern(&sp, "a\0b", 3, NULL), b = strpool_intern(&sp, "a", 1, NULL);
	int64_t e = strpool_intern(&sp, "", 0, NULL);
	ck_assert_int_ne(a, b);
	ck_assert_int_ne(e, b);
	ck_assert_int_eq(strpool_lookup(&sp, "a\0b", 3), a);
	ck_assert_int_eq(strpool_lookup(&sp, "nope", 4), -1);
	/* A string longer than a block keeps earlier pointers valid. */
	const char *before = strpool_get(&sp, 0, NULL);
	static char big[200000];
	memset(big, 'x', sizeof(big));
	int64_t bid = strpool_intern(&sp, big, sizeof(big), NULL);
	ck_assert_int_ge(bid, 0);
	ck_assert_ptr_eq(strpool_get(&sp, 0, NULL), before);
	ck_assert_str_eq(before, "void kernel<0>(float*)");
	ck_assert_uint_eq(sp.bytes > sizeof(big), 1);
	strpool_release(&sp);
	ck_assert_uint_eq(strpool_count(&sp), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hmap");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_exact_against_array);
	tcase_add_test(tc, test_hashed_collisions);
	tcase_add_test(tc, test_hash_spreads);
	tcase_add_test(tc, test_strpool);
	suite_add_tcase(s, tc);
	return check_run(s);
}
