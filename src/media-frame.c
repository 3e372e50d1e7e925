/*
 * media-frame.c - coordinates between media providers' viewer frames (see
 * media-frame.h). The frame's JSON is read with cJSON.
 */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "err.h"
#include "i18n.h"
#include "media-frame.h"

int media_frame_read(const char *json, struct media_frame *f)
{
	cJSON *o = json ? cJSON_Parse(json) : NULL;
	const cJSON *sys, *v;
	int rc = 0;

	memset(f, 0, sizeof *f);
	sys = cJSON_GetObjectItemCaseSensitive(o, "system");
	if (!cJSON_IsObject(o) || !cJSON_IsString(sys)) {
		rc = err_set(FD_EINVAL, _("the provider's frame is not an object with a system"));
		goto out;
	}
	if (!strcmp(sys->valuestring, "image")) {
		strcpy(f->system, "image");
	} else if (!strcmp(sys->valuestring, "equirect")) {
		strcpy(f->system, "equirect");
		v = cJSON_GetObjectItemCaseSensitive(o, "yaw_origin");
		if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble < 1)) {
			rc = err_set(FD_EINVAL,
			             _("a panorama's frame needs a yaw_origin from 0 to 1"));
			goto out;
		}
		f->yaw_origin = v->valuedouble;
	} else if (!strcmp(sys->valuestring, "model")) {
		const cJSON *up = cJSON_GetObjectItemCaseSensitive(o, "up");

		strcpy(f->system, "model");
		v = cJSON_GetObjectItemCaseSensitive(o, "unit_m");
		if (!cJSON_IsNumber(v) || !(v->valuedouble > 0) || !isfinite(v->valuedouble) ||
		    !cJSON_IsString(up) ||
		    (strcmp(up->valuestring, "y") && strcmp(up->valuestring, "z"))) {
			rc =
			    err_set(FD_EINVAL,
			            _("a 3D capture's frame needs a unit_m above 0 and up y or z"));
			goto out;
		}
		f->unit_m = v->valuedouble;
		f->up = up->valuestring[0];
	} else
		rc = err_set(FD_EINVAL, _("the provider's frame system '%.20s' is not one we know"),
		             sys->valuestring);
out:
	cJSON_Delete(o);
	return rc;
}

void media_frame_own(const char *kind, struct media_frame *f)
{
	memset(f, 0, sizeof *f);
	if (!strcmp(kind, "panorama")) {
		strcpy(f->system, "equirect");
		f->yaw_origin = 0.5;
	} else if (!strcmp(kind, "model")) {
		strcpy(f->system, "model");
		f->unit_m = 1;
		f->up = 'y';
	} else {
		strcpy(f->system, "image");
	}
}

int media_frame_same(const struct media_frame *a, const struct media_frame *b)
{
	if (strcmp(a->system, b->system))
		return 0;
	if (!strcmp(a->system, "equirect"))
		return a->yaw_origin == b->yaw_origin;
	if (!strcmp(a->system, "model"))
		return a->unit_m == b->unit_m && a->up == b->up;
	return 1;
}

int media_frame_translate(const struct media_frame *from, const struct media_frame *to, double c[3])
{
	if (strcmp(from->system, to->system))
		return err_set(FD_EINVAL, _("a %1$s frame cannot be translated into a %2$s one"),
		               from->system, to->system);
	if (!strcmp(from->system, "equirect")) {
		double u = from->yaw_origin + c[0] / 360.0 - to->yaw_origin, y;

		u -= floor(u); /* 0 <= u < 1 */
		y = u * 360.0;
		if (y > 180.0)
			y -= 360.0;
		if (y <= -180.0)
			y += 360.0;
		c[0] = y;
		return 0;
	}
	if (!strcmp(from->system, "model")) {
		double k = from->unit_m / to->unit_m, x = c[0] * k, y = c[1] * k, z = c[2] * k;

		if (from->up == 'y' && to->up == 'z') {
			c[0] = x, c[1] = -z, c[2] = y;
		} else if (from->up == 'z' && to->up == 'y') {
			c[0] = x, c[1] = z, c[2] = -y;
		} else
			c[0] = x, c[1] = y, c[2] = z;
		if (fabs(c[0]) > 1e6 || fabs(c[1]) > 1e6 || fabs(c[2]) > 1e6)
			return err_set(FD_EINVAL,
			               _("the point lies beyond 1000000 units in the new frame"));
		return 0;
	}
	return 0; /* image: the same everywhere */
}
