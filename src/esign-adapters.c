/*
 * esign-adapters.c - the e-sign adapters this program has, by name. Below
 * esign.c and pipe-provider.c (which checks a provider's adapter name), and
 * above the adapters themselves.
 */
#include <config.h>

#include <string.h>

#include "esign.h"

static const struct esign_ops *const adapters[] = {&esign_rest_ops};

const struct esign_ops *esign_adapter_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof adapters / sizeof *adapters; i++)
		if (!strcmp(adapters[i]->name, name))
			return adapters[i];
	return NULL;
}

int esign_adapter_known(const char *name)
{
	return esign_adapter_find(name) != NULL;
}
