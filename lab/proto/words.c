#include "proto/words.h"

#include <stdio.h>
#include <string.h>

int words_index(const char *const *words, const char *s)
{
	for (int i = 0; s && words[i]; i++)
		if (strcmp(words[i], s) == 0)
			return i;
	return -1;
}

void words_list(const char *const *words, const char *last, char *buf, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (size_t i = 0; words[i] && used < len; i++) {
		const char *sep = i == 0 ? "" : words[i + 1] ? ", " : last;
		int w = snprintf(buf + used, len - used, "%s\"%s\"", sep, words[i]);

		if (w < 0)
			return;
		used += (size_t)w;
	}
}
