#include "util/text.h"

int text_has_control_chars(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

void text_clean_copy(char *dst, size_t len, const char *src)
{
	size_t i = 0;

	for (; src[i] && i + 1 < len; i++)
		dst[i] = (unsigned char)src[i] < 0x20 || src[i] == 0x7f ? '?' : src[i];
	/* Cut: back off to the start of the sequence the cut went through (continuation bytes
	 * are 10xxxxxx). */
	if (src[i])
		while (i > 0 && ((unsigned char)src[i] & 0xc0) == 0x80)
			i--;
	dst[i] = '\0';
}
